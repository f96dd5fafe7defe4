// One handler per kind of change undo reaches (undo/journal.h): each checks that what is there
// is still what the turn left (or, for redo, what it found), puts the journaled value back, and
// says what it did.
#include "undo/journal.h"

#include "base/clock.h"
#include "base/text.h"
#include "memory/memory.h"
#include "schedule/jobs.h"
#include "scripts/store.h"
#include "store/database.h"
#include "store/run_state.h"

#include <algorithm>

namespace ouro::undo {

namespace {

Error moved_on(const std::string& what) {
  return Error{Code::FailedPrecondition, what + " changed since that turn (another run, or by hand): undo does not overwrite it", nullptr};
}

// A memory as undo compares it: the same entry, text and time of its last write.
bool same_memory(const std::optional<memory::Entry>& now, const json& expect) {
  if (!now) return expect.is_null();
  return expect.is_object() && get_field(expect, "id") == now->id && get_str(expect, "text") == now->text &&
         get_field(expect, "updated_at") == json(memory::to_json(*now, false)["updated_at"]);
}

Result<std::string> memory_entry(store::Database& db, const std::string&, const json& key, const json& value, const json& expect) {
  if (!key.is_number_integer()) return make_error(Code::DataLoss, "a memory change names no memory id");
  const int64_t id = key.get<int64_t>();
  memory::Memory memory(db);
  if (!same_memory(TRY(memory.get(id)), expect)) return tl::make_unexpected(moved_on(fmt::format("memory #{}", id)));
  if (value.is_null()) {
    auto gone = TRY(memory.forget_entry(id));
    return gone ? fmt::format("memory #{} forgotten ('{}')", id, clip_line(gone->text, 60)) : fmt::format("memory #{} was gone already", id);
  }
  memory::Entry e = TRY(memory::entry_from_json(value));
  TRY(memory.put(id, e));
  return fmt::format("memory #{} is '{}' again", id, clip_line(e.text, 60));
}

Result<std::string> store_key(store::Database& db, const std::string&, const json& key, const json& value, const json& expect) {
  if (!key.is_string()) return make_error(Code::DataLoss, "a store change names no key");
  const std::string k = key.get<std::string>();
  auto now = TRY(db.kv_get(k));
  if (now ? !(expect.is_string() && *now == expect.get<std::string>()) : !expect.is_null())
    return tl::make_unexpected(moved_on(fmt::format("store key '{}'", clip_line(k, 60))));
  if (value.is_null()) {
    TRY(db.kv_delete(k));
    return fmt::format("store key '{}' removed", clip_line(k, 60));
  }
  if (!value.is_string()) return make_error(Code::DataLoss, "a store change's value is not JSON text");
  TRY(db.kv_set(k, value.get<std::string>()));
  return fmt::format("store key '{}' holds its earlier value", clip_line(k, 60));
}

// A schedule as undo compares it: its definition (the scheduler's bookkeeping moves by itself).
json definition(const std::optional<json>& row) {
  if (!row || !row->is_array() || row->size() < 7) return nullptr;
  return json(std::vector<json>(row->begin(), row->begin() + 7));
}

Result<std::string> schedule_job(store::Database& db, const std::string&, const json& key, const json& value, const json& expect) {
  if (!key.is_string()) return make_error(Code::DataLoss, "a schedule change names no schedule");
  const std::string id = key.get<std::string>();
  auto now = TRY(schedule::job_row(db, id));
  if (definition(now) != definition(expect.is_null() ? std::nullopt : std::optional<json>(expect)))
    return tl::make_unexpected(moved_on("schedule " + id));
  TRY(schedule::put_job_definition(db, id, value.is_null() ? std::nullopt : std::optional<json>(value), wall_seconds_whole()));
  return value.is_null() ? fmt::format("schedule {} removed", id) : fmt::format("schedule {} is as it was", id);
}

Result<std::string> script_version(store::Database& db, const std::string&, const json& key, const json& value, const json& expect) {
  const std::string name = get_str(key, "name");
  const json& version = get_field(key, "version");
  if (name.empty() || !version.is_number_integer()) return make_error(Code::DataLoss, "a script change names no script version");
  auto now = TRY(scripts::version_row(db, name, version.get<int>()));
  if ((now ? *now : json(nullptr)) != expect) return tl::make_unexpected(moved_on(fmt::format("script {} version {}", name, version.get<int>())));
  TRY(scripts::put_version_row(db, name, version.get<int>(), value.is_null() ? std::nullopt : std::optional<json>(value)));
  return value.is_null() ? fmt::format("script {} version {} removed", name, version.get<int>())
                         : fmt::format("script {} version {} is back", name, version.get<int>());
}

Result<std::string> setting(store::Database& db, const std::string&, const json& key, const json& value, const json& expect) {
  if (!key.is_string()) return make_error(Code::DataLoss, "a setting change names no setting");
  const std::string k = key.get<std::string>();
  auto now = TRY(db.get_setting(k));
  if (now ? !(expect.is_string() && *now == expect.get<std::string>()) : !expect.is_null())
    return tl::make_unexpected(moved_on("setting '" + k + "'"));
  if (value.is_null()) TRY(db.delete_setting(k));
  else if (value.is_string()) TRY(db.set_setting(k, value.get<std::string>()));
  else return make_error(Code::DataLoss, "a setting change's value is not JSON text");
  return fmt::format("setting '{}' is as it was", k);
}

// A site the user allowed "always" during the turn (key: the site; value: whether it is in the
// list). Only that site moves: a site revoked in Settings since is never allowed again by redo.
Result<std::string> allowed_site(store::Database& db, const std::string&, const json& key, const json& value, const json&) {
  if (!key.is_string() || !value.is_boolean()) return make_error(Code::DataLoss, "a site change names no site");
  const std::string site = key.get<std::string>();
  auto stored = TRY(db.get_setting("allowed_sites"));
  json sites = stored ? parse_json(*stored).value_or(json::array()) : json::array();
  if (!sites.is_array()) sites = json::array();
  auto at = std::find(sites.begin(), sites.end(), json(site));
  if (value.get<bool>() && at == sites.end()) sites.push_back(site);
  if (!value.get<bool>() && at != sites.end()) sites.erase(at);
  TRY(db.set_setting("allowed_sites", dump_json(sites)));
  return value.get<bool>() ? fmt::format("{} is allowed always again", site) : fmt::format("{} is no longer allowed always", site);
}

// The conversation's goals live in its checkpoint's state, which its next turn starts from.
Result<std::string> goals(store::Database& db, const std::string& conversation, const json&, const json& value, const json& expect) {
  const json now = TRY(store::checkpoint_goals(db, conversation));
  if (now != (expect.is_array() ? expect : json::array())) return tl::make_unexpected(moved_on("the conversation's goals"));
  TRY(store::set_checkpoint_goals(db, conversation, value));
  return fmt::format("goals are as they were ({})", value.is_array() ? value.size() : 0);
}

}  // namespace

Apply handler(const std::string& kind) {
  if (kind == "memory") return memory_entry;
  if (kind == "kv") return store_key;
  if (kind == "schedule") return schedule_job;
  if (kind == "script") return script_version;
  if (kind == "setting") return setting;
  if (kind == "site") return allowed_site;
  if (kind == "goals") return goals;
  return nullptr;
}

}  // namespace ouro::undo
