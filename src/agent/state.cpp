#include "agent/state.h"
#include "base/text.h"

#include <algorithm>

namespace ouro::agent {

namespace {

// Events and checkpoints are read back from storage: a member of another type reads as its
// default, never as an exception (base/json.h).
// Turns, iterations and indexes are counts: anything outside 0..a million is damage, held in range
// so that the next one (+1) is a number too.
constexpr int64_t kMaxCount = 1'000'000;
int int_of(const json& j, std::string_view key, int dflt) { return static_cast<int>(std::clamp<int64_t>(get_int(j, key, dflt), 0, kMaxCount)); }

llm::Usage usage_of(const json& j) {
  llm::Usage u;
  if (!j.is_object()) return u;
  auto num = [&](const char* k) { return get_int(j, k); };
  u.input_tokens = num("input_tokens");
  u.output_tokens = num("output_tokens");
  u.cache_read_tokens = num("cache_read_tokens");
  u.cache_write_tokens = num("cache_write_tokens");
  u.estimated = get_bool(j, "estimated");
  return u;
}

void add_cost(RunState& s, const json& cost) {
  if (cost.is_number()) s.cost += cost.get<double>();
  else s.cost_known = false;
}

json block_json(const BlockRecord& b, bool full) {
  // A compacted block keeps the start of its code (what the condensed history line names) and its
  // one-line result: a few hundred bytes an iteration, whatever the block printed.
  json j = {{"code", full || b.code.size() <= 400 ? b.code : b.code.substr(0, 400)}, {"ok", b.ok}, {"oneLiner", b.one_liner}};
  if (full) {
    j["summary"] = b.summary;
    if (!b.logs.empty()) j["logs"] = b.logs;
  }
  if (b.set_final) j["setFinal"] = true;
  return j;
}

json record_json(const IterationRecord& r, bool full) {
  json blocks = json::array();
  for (const auto& b : r.blocks) blocks.push_back(block_json(b, full));
  json j = {{"number", r.number}, {"blocks", blocks}};
  if (!r.note.empty()) j["note"] = r.note;
  if (!full) j["compacted"] = true;
  return j;
}

IterationRecord record_from(const json& j) {
  IterationRecord r;
  r.number = int_of(j, "number", 0);
  r.note = get_str(j, "note");
  for (const auto& b : get_array(j, "blocks")) {
    BlockRecord br;
    br.code = get_str(b, "code");
    br.ok = get_bool(b, "ok", true);
    br.one_liner = get_str(b, "oneLiner");
    // A compacted block has no summary: its one-liner stands in.
    br.summary = b.contains("summary") ? get_str(b, "summary") : "Result: " + br.one_liner;
    if (b.contains("logs") && b["logs"].is_array())
      for (const auto& l : b["logs"])
        if (l.is_string()) br.logs.push_back(l.get<std::string>());
    br.set_final = get_bool(b, "setFinal");
    r.blocks.push_back(std::move(br));
  }
  return r;
}

json state_json(const RunState& s, size_t full_from) {
  json history = json::array();
  for (size_t i = 0; i < s.history.size(); ++i) history.push_back(record_json(s.history[i], i >= full_from));
  json turns = json::array();
  for (const auto& t : s.turns) turns.push_back({{"task", t.task}, {"result", t.result}});
  json j = {{"turn", s.turn}, {"turns", turns}, {"task", s.task}, {"lastIteration", s.last_iteration},
            {"turnIterations", s.turn_iterations}, {"history", history}, {"usage", s.usage.to_json()},
            {"cost", s.cost_known ? json(s.cost) : json(nullptr)}, {"tabs", s.tabs}, {"activeTab", s.active_tab},
            {"provider", s.provider}, {"checkpointIteration", s.checkpoint_iteration}, {"ended", s.ended}, {"goals", s.goals}};
  if (s.ended) {
    j["final"] = s.final;
    j["partial"] = s.partial;
  }
  return j;
}

// The iteration being built from its events until its iteration-end.
IterationRecord& pending(RunState& s, int number) {
  if (s.history.empty() || s.history.back().number != number || number <= s.last_iteration) {
    IterationRecord r;
    r.number = number;
    s.history.push_back(std::move(r));
  }
  return s.history.back();
}

BlockRecord& block_at(IterationRecord& r, const json& data) {
  size_t i = static_cast<size_t>(std::clamp(int_of(data, "blockIndex", 0), 0, 63));
  if (r.blocks.size() <= i) r.blocks.resize(i + 1);
  return r.blocks[i];
}

}  // namespace

std::string final_text(const json& final) {
  if (final.is_string()) return final.get<std::string>();
  if (final.is_object() && final.contains("message") && get_bool(final, "partial")) return "(stopped) " + get_str(final, "message");
  std::string text = dump_json(final);
  return clip_head(text, 2000);
}

json RunState::to_json() const { return state_json(*this, 0); }

json checkpoint_json(const RunState& s) {
  size_t n = s.history.size();
  return state_json(s, n > kCheckpointFullIterations ? n - kCheckpointFullIterations : 0);
}

RunState RunState::from_json(const json& j) {
  RunState s;
  if (!j.is_object()) return s;
  s.turn = int_of(j, "turn", 1);
  for (const auto& t : get_array(j, "turns")) s.turns.push_back({get_str(t, "task"), get_str(t, "result")});
  s.task = get_str(j, "task");
  s.last_iteration = int_of(j, "lastIteration", 0);
  s.turn_iterations = int_of(j, "turnIterations", 0);
  for (const auto& r : get_array(j, "history")) s.history.push_back(record_from(r));
  s.usage = usage_of(get_field(j, "usage"));
  s.cost_known = j.contains("cost") && j["cost"].is_number();
  s.cost = s.cost_known ? j["cost"].get<double>() : 0;
  s.tabs = j.contains("tabs") && j["tabs"].is_array() ? j["tabs"] : json::array();
  s.active_tab = get_str(j, "activeTab");
  s.provider = j.contains("provider") ? j["provider"] : json();
  s.goals = j.contains("goals") && j["goals"].is_array() ? j["goals"] : json::array();
  s.checkpoint_iteration = int_of(j, "checkpointIteration", 0);
  s.ended = get_bool(j, "ended");
  if (s.ended) {
    s.final = j.contains("final") ? j["final"] : json();
    s.partial = get_bool(j, "partial");
  }
  return s;
}

void apply_event(RunState& s, const std::string& type, const json& data) {
  if (!data.is_object()) return;
  if (type == "user-message") {
    // A message after a turn opens the next one (guidance during a turn does not).
    if (get_bool(data, "guidance")) return;
    if (s.ended) s.turns.push_back({s.task, final_text(s.final)});
    s.turn = int_of(data, "turn", s.turn + 1);
    s.task = get_str(data, "text");
    s.history.clear();
    s.turn_iterations = 0;
    s.ended = false;
    s.final = nullptr;
  } else if (type == "iteration-start") {
    pending(s, int_of(data, "iteration", 0));
  } else if (type == "code-generated") {
    block_at(pending(s, int_of(data, "iteration", 0)), data).code = get_str(data, "code");
  } else if (type == "code-result") {
    BlockRecord& b = block_at(pending(s, int_of(data, "iteration", 0)), data);
    const json& meta = get_field(data, "metadata");
    b.ok = get_bool(meta, "ok", true);
    b.summary = get_str(meta, "summary");
    b.one_liner = get_str(meta, "oneLiner");
    b.set_final = get_bool(meta, "setFinal");
    b.logs.clear();
    if (meta.contains("logs") && meta["logs"].is_array())
      for (const auto& l : meta["logs"])
        if (l.is_string()) b.logs.push_back(l.get<std::string>());
  } else if (type == "sub-llm-complete") {
    const json& meta = get_field(data, "resultMeta");
    if (meta.is_object() && meta.contains("usage")) {
      s.usage.add(usage_of(meta["usage"]));
      add_cost(s, meta.contains("cost") ? meta["cost"] : json());
    }
  } else if (type == "iteration-end") {
    int n = int_of(data, "iteration", 0);
    IterationRecord& r = pending(s, n);
    if (r.blocks.empty()) r.note = get_str(data, "note");
    s.last_iteration = n;
    ++s.turn_iterations;
    s.usage.add(usage_of(get_field(data, "usage")));
    add_cost(s, data.contains("cost") ? data["cost"] : json());
  } else if (type == "checkpoint") {
    s.checkpoint_iteration = int_of(data, "iteration", 0);
    s.tabs = data.contains("tabs") && data["tabs"].is_array() ? data["tabs"] : json::array();
    s.active_tab = get_str(data, "activeTab");
    s.provider = data.contains("provider") ? data["provider"] : json();
  } else if (type == "goal_added" || type == "goal_updated") {
    // Each goal event carries the whole list as it stands.
    if (data.contains("goals") && data["goals"].is_array()) s.goals = data["goals"];
  } else if (type == "resumed") {
    // The iteration the crash cut short is done again: what it had started is dropped.
    while (!s.history.empty() && s.history.back().number > s.last_iteration) s.history.pop_back();
  } else if (type == "complete") {
    // A turn ended: its answer joins the conversation for the turns after it.
    s.ended = true;
    s.final = data.contains("final") ? data["final"] : json();
    s.partial = get_bool(data, "partial");
    while (!s.history.empty() && s.history.back().number > s.last_iteration) s.history.pop_back();
  }
}

}  // namespace ouro::agent
