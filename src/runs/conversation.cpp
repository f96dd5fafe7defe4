#include "runs/conversation.h"

#include "agent/state.h"
#include "base/random.h"

namespace ouro::runs {

std::string final_text(const json& final) { return agent::final_text(final); }

std::string new_run_id() { return random_id("r", 10); }

Result<StoredConversation> load_conversation(store::Database& db, const std::string& run_id) {
  auto row = TRY(db.get_run(run_id));
  if (!row) return errorf(Code::NotFound, "no run '{}'", run_id.substr(0, 60));
  StoredConversation c;
  c.row = *row;
  if (auto env = TRY(db.checkpoint(run_id))) {
    json parsed = parse_json(*env).value_or(json::object());
    if (parsed.is_object()) c.env = dump_json(parsed);
  }
  std::vector<std::string> tasks = {row->task}, finals;
  constexpr int kPage = 2000;
  for (int64_t after = 0;;) {
    auto page = TRY(db.events(run_id, after, kPage));
    for (const auto& e : page) {
      after = e.seq;
      c.last_seq = e.seq;
      if (e.type != "user-message" && e.type != "complete") continue;
      json d = parse_json(e.data).value_or(json::object());
      if (e.type == "user-message" && !get_bool(d, "guidance")) tasks.push_back(get_str(d, "text"));
      if (e.type == "complete") finals.push_back(final_text(d.contains("final") ? d["final"] : json()));
    }
    if (page.size() < static_cast<size_t>(kPage)) break;
  }
  for (size_t i = 0; i < tasks.size() && i < finals.size(); ++i) c.turns.push_back({tasks[i], finals[i]});
  return c;
}

}  // namespace ouro::runs
