// One handler per kind of change undo reaches (undo/journal.h): each puts a value it journaled
// back, and says what it did.
#include "undo/journal.h"

#include "base/text.h"
#include "memory/memory.h"
#include "schedule/jobs.h"
#include "scripts/store.h"
#include "store/database.h"
#include "store/run_state.h"

namespace ouro::undo {

namespace {

Result<std::string> memory_entry(store::Database& db, const std::string&, const json& key, const json& value) {
  if (!key.is_number_integer()) return make_error(Code::DataLoss, "a memory change names no memory id");
  const int64_t id = key.get<int64_t>();
  memory::Memory memory(db);
  if (value.is_null()) {
    auto gone = TRY(memory.forget_entry(id));
    return gone ? fmt::format("memory #{} forgotten ('{}')", id, clip_line(gone->text, 60)) : fmt::format("memory #{} was gone already", id);
  }
  memory::Entry e = TRY(memory::entry_from_json(value));
  TRY(memory.put(id, e));
  return fmt::format("memory #{} is '{}' again", id, clip_line(e.text, 60));
}

Result<std::string> store_key(store::Database& db, const std::string&, const json& key, const json& value) {
  if (!key.is_string()) return make_error(Code::DataLoss, "a store change names no key");
  const std::string k = key.get<std::string>();
  if (value.is_null()) {
    TRY(db.kv_delete(k));
    return fmt::format("store key '{}' removed", clip_line(k, 60));
  }
  if (!value.is_string()) return make_error(Code::DataLoss, "a store change's value is not JSON text");
  TRY(db.kv_set(k, value.get<std::string>()));
  return fmt::format("store key '{}' holds its earlier value", clip_line(k, 60));
}

Result<std::string> schedule_job(store::Database& db, const std::string&, const json& key, const json& value) {
  if (!key.is_string()) return make_error(Code::DataLoss, "a schedule change names no schedule");
  const std::string id = key.get<std::string>();
  TRY(schedule::put_job_row(db, id, value.is_null() ? std::nullopt : std::optional<json>(value)));
  return value.is_null() ? fmt::format("schedule {} removed", id) : fmt::format("schedule {} is as it was", id);
}

Result<std::string> script_version(store::Database& db, const std::string&, const json& key, const json& value) {
  const std::string name = get_str(key, "name");
  const json& version = get_field(key, "version");
  if (name.empty() || !version.is_number_integer()) return make_error(Code::DataLoss, "a script change names no script version");
  TRY(scripts::put_version_row(db, name, version.get<int>(), value.is_null() ? std::nullopt : std::optional<json>(value)));
  return value.is_null() ? fmt::format("script {} version {} removed", name, version.get<int>())
                         : fmt::format("script {} version {} is back", name, version.get<int>());
}

Result<std::string> setting(store::Database& db, const std::string&, const json& key, const json& value) {
  if (!key.is_string()) return make_error(Code::DataLoss, "a setting change names no setting");
  TRY(db.set_setting(key.get<std::string>(), value.is_null() ? "null" : value.is_string() ? value.get<std::string>() : dump_json(value)));
  return fmt::format("setting '{}' is as it was", key.get<std::string>());
}

// The conversation's goals live in its checkpoint's state, which its next turn starts from.
Result<std::string> goals(store::Database& db, const std::string& conversation, const json&, const json& value) {
  auto saved = TRY(store::load_run_checkpoint(db, conversation));
  store::RunCheckpoint cp = saved ? *saved : store::RunCheckpoint{};
  json state = parse_json(cp.state).value_or(json::object());
  if (!state.is_object()) state = json::object();
  state["goals"] = value.is_array() ? value : json::array();
  cp.state = dump_json(state);
  TRY(store::save_run_checkpoint(db, conversation, cp));
  return fmt::format("goals are as they were ({})", state["goals"].size());
}

}  // namespace

Apply handler(const std::string& kind) {
  if (kind == "memory") return memory_entry;
  if (kind == "kv") return store_key;
  if (kind == "schedule") return schedule_job;
  if (kind == "script") return script_version;
  if (kind == "setting") return setting;
  if (kind == "goals") return goals;
  return nullptr;
}

}  // namespace ouro::undo
