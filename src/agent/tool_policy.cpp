#include "agent/tool_policy.h"
#include "base/text.h"

#include <algorithm>
#include <fmt/format.h>
#include <set>

namespace ouro::agent {

namespace {

bool same_page(const ToolStep& s) { return !s.page_before.empty() && s.page_before == s.page_after; }

// The JSON object in a text: inside a ``` fence if there is one, else from the first '{' to its
// matching '}' (strings in either quote skipped).
std::optional<std::string> json_object_in(const std::string& text) {
  std::string t = text;
  if (auto f = t.find("```"); f != std::string::npos) {
    size_t start = t.find('\n', f);
    size_t end = start == std::string::npos ? std::string::npos : t.find("```", start);
    if (start != std::string::npos && end != std::string::npos) t = t.substr(start + 1, end - start - 1);
  }
  size_t open = t.find('{');
  if (open == std::string::npos) return std::nullopt;
  int depth = 0;
  char quote = 0;
  for (size_t i = open; i < t.size(); ++i) {
    char c = t[i];
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') quote = c;
    else if (c == '{') ++depth;
    else if (c == '}' && --depth == 0) return t.substr(open, i - open + 1);
  }
  return t.substr(open);  // unclosed: let the repairs try
}

// Single-quoted strings → double-quoted, trailing commas dropped, unclosed braces closed.
std::string repair(const std::string& s) {
  std::string out;
  char quote = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == '\\' && i + 1 < s.size()) {
        if (quote == '\'' && s[i + 1] == '\'') out += '\'';
        else out += c, out += s[i + 1];
        ++i;
        continue;
      }
      if (c == quote) {
        out += '"';
        quote = 0;
        continue;
      }
      if (quote == '\'' && c == '"') out += "\\\"";
      else out += c;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      out += '"';
      continue;
    }
    if (c == ',') {
      size_t j = i + 1;
      while (j < s.size() && std::isspace(static_cast<unsigned char>(s[j]))) ++j;
      if (j < s.size() && (s[j] == '}' || s[j] == ']')) continue;
    }
    out += c;
  }
  if (quote) out += '"';
  int depth = 0;
  for (char c : out) depth += c == '{' ? 1 : c == '}' ? -1 : 0;
  while (depth-- > 0) out += '}';
  return out;
}

json args_of(const json& j) {
  for (const char* k : {"arguments", "args", "parameters", "input", "params"})
    if (j.contains(k)) {
      const json& a = j[k];
      if (a.is_object()) return a;
      if (a.is_string()) {
        auto p = json::parse(a.get<std::string>(), nullptr, false);
        if (p.is_object()) return p;
      }
    }
  return json::object();
}

}  // namespace

std::string action_key(const std::string& tool, const json& arguments) {
  return tool + " " + (arguments.is_null() ? std::string("{}") : arguments.dump());
}

std::optional<std::string> detect_loop(const std::vector<ToolStep>& steps, const std::string& tool, const json& arguments) {
  const std::string key = action_key(tool, arguments);
  auto same = [&](const ToolStep& s) { return action_key(s.tool, s.arguments) == key; };
  size_t n = steps.size();
  // 1. The same action three times in a row (this one the third).
  if (n >= 2 && same(steps[n - 1]) && same(steps[n - 2]))
    return fmt::format("the same action three times in a row ({})", clip_head(key, 120));
  // 2. The same tool four times in a row, and the page never changed.
  if (n >= 3) {
    bool stuck = true;
    for (size_t i = n - 3; i < n; ++i) stuck = stuck && steps[i].tool == tool && same_page(steps[i]);
    if (stuck) return fmt::format("{} four times in a row without the page changing", tool);
  }
  // 3. The same action five times within the last seven steps.
  if (n >= 4) {
    size_t from = n >= 6 ? n - 6 : 0;
    long count = std::count_if(steps.begin() + static_cast<long>(from), steps.end(), same) + 1;
    if (count >= 5) return fmt::format("the same action five times in the last seven steps ({})", clip_head(key, 120));
  }
  return std::nullopt;
}

json Reflection::to_json() const {
  return {{"step", at_step}, {"observes", observes}, {"errors", errors}, {"successes", successes}, {"distinctActions", distinct},
          {"pageChanged", page_changed}, {"efficiency", efficiency}, {"issues", issues}, {"suggestions", suggestions}};
}

std::string Reflection::text() const {
  std::string t = fmt::format("After step {}: efficiency {} ({} observations, {} errors, {} successful actions, {} distinct actions, the page {}).",
                              at_step, efficiency, observes, errors, successes, distinct, page_changed ? "changed" : "did not change");
  for (const auto& i : issues) t += "\nIssue: " + i;
  for (const auto& s : suggestions) t += "\nSuggestion: " + s;
  return t;
}

Reflection reflect(const std::vector<ToolStep>& steps) {
  Reflection r;
  r.at_step = steps.empty() ? 0 : steps.back().number;
  size_t from = steps.size() > 5 ? steps.size() - 5 : 0;
  std::set<std::string> keys;
  for (size_t i = from; i < steps.size(); ++i) {
    const auto& s = steps[i];
    bool looking = s.tool == "observe" || s.tool == "read";
    if (looking) ++r.observes;
    if (!s.ok) ++r.errors;
    else if (!looking) ++r.successes;
    keys.insert(action_key(s.tool, s.arguments));
    if (s.page_before != s.page_after) r.page_changed = true;
  }
  r.distinct = static_cast<int>(keys.size());
  size_t window = steps.size() - from;
  if (r.errors >= 3) {
    r.issues.push_back(fmt::format("{} of the last {} steps failed", r.errors, window));
    r.suggestions.push_back("read the errors: name elements by the refs of the current snapshot, or try another way");
  }
  if (r.observes >= 3) {
    r.issues.push_back(fmt::format("{} of the last {} steps only looked at the page", r.observes, window));
    r.suggestions.push_back("the page is in the prompt at every step: act on it, or finish with what you know");
  }
  if (r.distinct <= 2 && window >= 5) {
    r.issues.push_back("the same few actions over and over");
    r.suggestions.push_back("change approach: another element, another page, or finish and say what is missing");
  }
  if (!r.page_changed && window >= 5 && r.successes < 2) {
    r.issues.push_back("nothing on the page changed");
    r.suggestions.push_back("check that the element you act on is the right one (its name in the snapshot)");
  }
  if (r.successes >= 3 && r.errors <= 1) r.efficiency = "high";
  else if (r.issues.size() >= 2 || r.errors >= 4 || (r.successes == 0 && window >= 5)) r.efficiency = "low";
  else r.efficiency = "medium";
  return r;
}

std::string history_text(const std::vector<ToolStep>& steps, size_t keep) {
  std::string out;
  size_t from = steps.size() > keep ? steps.size() - keep : 0;
  if (from > 0) out += fmt::format("({} earlier steps not shown)\n", from);
  for (size_t i = from; i < steps.size(); ++i) {
    const auto& s = steps[i];
    std::string args = s.arguments.is_object() && !s.arguments.empty() ? " " + clip_head(s.arguments.dump(), 160) : "";
    out += fmt::format("Step {}: {}{} → {}{}\n", s.number, s.tool, args, s.ok ? "" : "ERROR: ", clip_head(s.outcome, 200));
  }
  return out;
}

TextAction parse_text_action(const std::string& text) {
  TextAction a;
  auto body = json_object_in(text);
  if (!body) {
    a.error = "no JSON object in the answer";
    return a;
  }
  json j = json::parse(*body, nullptr, false);
  if (j.is_discarded()) j = json::parse(repair(*body), nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    a.error = "the JSON in the answer does not parse: " + clip_head(*body, 120);
    return a;
  }
  std::string type = j.contains("type") && j["type"].is_string() ? j["type"].get<std::string>() : "";
  if (type == "final" || type == "finish" || (type.empty() && (j.contains("answer") || j.contains("final")))) {
    a.kind = TextAction::Kind::Final;
    a.answer = j.contains("answer") ? j["answer"] : j.contains("final") ? j["final"] : j.value("value", json());
    return a;
  }
  if (type == "ask_user" || (type.empty() && j.contains("question") && !j.contains("tool"))) {
    a.kind = TextAction::Kind::Ask;
    a.question = j.value("question", "");
    return a;
  }
  const json* call = &j;
  for (const char* k : {"tool", "tool_call", "function"})
    if (j.contains(k) && j[k].is_object()) call = &j[k];
  std::string name;
  for (const char* k : {"name", "tool", "action", "function"})
    if (call->contains(k) && (*call)[k].is_string()) {
      name = (*call)[k].get<std::string>();
      break;
    }
  if (name.empty()) {
    a.error = "the JSON names no tool (expected {\"type\": \"tool_call\", \"tool\": {\"name\": …, \"arguments\": {…}}})";
    return a;
  }
  a.kind = TextAction::Kind::Tool;
  a.name = name;
  a.arguments = args_of(*call);
  if (name == "finish" || name == "final") {
    a.kind = TextAction::Kind::Final;
    a.answer = a.arguments.contains("value") ? a.arguments["value"] : a.arguments.contains("answer") ? a.arguments["answer"] : json(a.arguments);
  } else if (name == "ask_user") {
    a.kind = TextAction::Kind::Ask;
    a.question = a.arguments.value("question", "");
  }
  return a;
}

}  // namespace ouro::agent
