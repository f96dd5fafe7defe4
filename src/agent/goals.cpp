#include "agent/goals.h"

#include "base/text.h"

#include <fmt/format.h>

namespace ouro::agent {

namespace {

bool valid_status(const std::string& s) { return s == "open" || s == "done" || s == "dropped"; }

// The text without the white space around it, on one line, cut to `max`.
std::string tidy(const std::string& s, size_t max) {
  size_t a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
  return a == std::string::npos ? "" : clip_line(s.substr(a, b - a + 1), max);
}

}  // namespace

Goals::Goals(const json& saved) {
  if (!saved.is_array()) return;
  for (const auto& g : saved) {
    if (m_goals.size() >= kMaxGoals) break;
    if (!g.is_object() || get_str(g, "id").empty() || get_str(g, "text").empty()) continue;
    json kept = {{"id", clip_line(get_str(g, "id"), 16)}, {"text", clip_line(get_str(g, "text"), kGoalChars)},
                 {"status", valid_status(get_str(g, "status")) ? get_str(g, "status") : "open"}};
    if (!get_str(g, "note").empty()) kept["note"] = clip_line(get_str(g, "note"), kGoalNoteChars);
    m_goals.push_back(std::move(kept));
    const std::string id = get_str(g, "id");
    if (id.size() > 1 && id[0] == 'g') m_next = std::max(m_next, std::atoi(id.c_str() + 1) + 1);
  }
}

Result<json> Goals::add(const std::string& text_in) {
  std::string text = tidy(text_in, kGoalChars);
  if (text.empty()) return make_error(Code::InvalidArgument, "addGoal: the goal's text is empty; say what is to be done");
  if (m_goals.size() >= kMaxGoals)
    return errorf(Code::ResourceExhausted, "addGoal: a conversation keeps at most {} goals; mark some done or dropped and reword one instead", kMaxGoals);
  json goal = {{"id", fmt::format("g{}", m_next++)}, {"text", text}, {"status", "open"}};
  m_goals.push_back(goal);
  return goal;
}

Result<json> Goals::update(const std::string& id, const json& changes) {
  if (!changes.is_object()) return make_error(Code::InvalidArgument, "updateGoal: changes must be an object: {status?, note?, text?}");
  for (auto it = changes.begin(); it != changes.end(); ++it)
    if (it.key() != "status" && it.key() != "note" && it.key() != "text")
      return errorf(Code::InvalidArgument, "updateGoal: unknown change '{}' (it takes status, note, text)", clip_line(it.key(), 60));
  for (auto& g : m_goals) {
    if (get_str(g, "id") != id) continue;
    if (changes.contains("status")) {
      std::string status = changes["status"].is_string() ? changes["status"].get<std::string>() : "";
      if (!valid_status(status)) return make_error(Code::InvalidArgument, "updateGoal: status must be 'open', 'done' or 'dropped'");
      g["status"] = status;
    }
    if (changes.contains("note")) {
      if (!changes["note"].is_string()) return make_error(Code::InvalidArgument, "updateGoal: note must be a string");
      std::string note = clip_line(changes["note"].get<std::string>(), kGoalNoteChars);
      if (note.empty()) g.erase("note");
      else g["note"] = note;
    }
    if (changes.contains("text")) {
      std::string text = changes["text"].is_string() ? tidy(changes["text"].get<std::string>(), kGoalChars) : "";
      if (text.empty()) return make_error(Code::InvalidArgument, "updateGoal: text must be a non-empty string");
      g["text"] = text;
    }
    return g;
  }
  std::string ids;
  for (const auto& g : m_goals) ids += (ids.empty() ? "" : ", ") + get_str(g, "id");
  return errorf(Code::NotFound, "updateGoal: no goal '{}' (the goals: {})", clip_line(id, 40), ids.empty() ? "none yet; addGoal first" : ids);
}

std::string Goals::prompt_section() const {
  if (m_goals.empty()) return "";
  std::string out = "## Goals (yours, kept across turns: updateGoal as you finish each)\n";
  for (const auto& g : m_goals) {
    std::string status = get_str(g, "status");
    out += fmt::format("- [{}] {} {}{}\n", status == "done" ? "x" : status == "dropped" ? "-" : " ", get_str(g, "id"), get_str(g, "text"),
                       get_str(g, "note").empty() ? "" : " — " + get_str(g, "note"));
  }
  return out;
}

}  // namespace ouro::agent
