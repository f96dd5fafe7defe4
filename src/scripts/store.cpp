#include "scripts/store.h"

#include "store/statement.h"

#include <sqlite3.h>

#include <chrono>

namespace ouro::scripts {

namespace {

Result<void> ensure_schema(sqlite3* db) {
  TRY(store::exec(db,
                  "CREATE TABLE IF NOT EXISTS scripts (name TEXT NOT NULL, version INTEGER NOT NULL, created_at REAL NOT NULL, "
                  "source_run TEXT NOT NULL, task TEXT NOT NULL, params TEXT NOT NULL, blocks TEXT NOT NULL, urls TEXT NOT NULL, "
                  "meta TEXT NOT NULL DEFAULT '{}', PRIMARY KEY (name, version))",
                  "create the scripts table"));
  // A table from before versions knew what they were made from ({based_on, changes}): add it.
  if (!store::prepare(db, "SELECT meta FROM scripts LIMIT 0"))
    TRY(store::exec(db, "ALTER TABLE scripts ADD COLUMN meta TEXT NOT NULL DEFAULT '{}'", "add the scripts' meta column"));
  return {};
}

constexpr const char* kColumns = "name, version, created_at, source_run, task, params, blocks, urls, meta";

// A row (kColumns' order) → a script; a row that does not read is InvalidArgument naming it.
Result<Script> row_script(sqlite3_stmt* s) {
  auto params = parse_json(store::text(s, 5), "script params");
  auto blocks = parse_json(store::text(s, 6), "script blocks");
  auto urls = parse_json(store::text(s, 7), "script urls");
  std::string name = store::text(s, 0);
  int version = sqlite3_column_int(s, 1);
  if (!params || !blocks || !urls) return errorf(Code::InvalidArgument, "script {} version {} cannot be read", name, version);
  json j = {{"name", name}, {"version", version}, {"created_at", sqlite3_column_double(s, 2)}, {"source_run", store::text(s, 3)},
            {"task", store::text(s, 4)}, {"params", *params}, {"steps", *blocks}, {"urls", *urls}};
  json meta = parse_json(store::text(s, 8)).value_or(json::object());
  if (meta.is_object())
    for (const char* k : {"based_on", "changes"})
      if (meta.contains(k)) j[k] = meta[k];
  return script_from_json(j);
}

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

Result<Script> from_run(store::Database& db, const std::string& run_id, const std::string& name, const std::optional<std::vector<Param>>& params) {
  TRY(check_name(name));
  auto row = TRY(db.get_run(run_id));
  if (!row) return errorf(Code::NotFound, "no run {}", run_id);
  auto rows = TRY(db.events(run_id, 0));
  std::vector<RecordedEvent> events;
  events.reserve(rows.size());
  for (const auto& r : rows) {
    // Only what extraction reads; stream tokens and prompts are most of a run's bytes.
    if (r.type != "code-generated" && r.type != "code-result" && r.type != "user-message" && r.type != "target" && r.type != "heal") continue;
    events.push_back({r.type, parse_json(r.data, "event").value_or(json::object())});
  }
  Script s = TRY(from_events(row->task, events, params));
  s.name = name;
  s.source_run = run_id;
  json options = parse_json(row->options).value_or(json::object());
  for (const auto& u : get_array(options, "urls"))
    if (u.is_string()) s.urls.push_back(u.get<std::string>());
  return s;
}

Result<Script> save(store::Database& db, Script script) {
  TRY(check_name(script.name));
  if (script.steps.empty()) return make_error(Code::InvalidArgument, "a script needs at least one step");
  return db.with_connection([&](sqlite3* h) -> Result<Script> {
    TRY(ensure_schema(h));
    // One statement picks the next version and inserts it, so two saves at once cannot collide.
    store::Stmt st = TRY(store::prepare(h,
                                        "INSERT INTO scripts (name, version, created_at, source_run, task, params, blocks, urls, meta) "
                                        "SELECT ?1, COALESCE(MAX(version), 0) + 1, ?2, ?3, ?4, ?5, ?6, ?7, ?8 FROM scripts WHERE name = ?1 "
                                        "RETURNING version"));
    json j = script.to_json();
    script.created_at = now_ms();
    store::bind(st.s, 1, script.name);
    sqlite3_bind_double(st.s, 2, script.created_at);
    store::bind(st.s, 3, script.source_run);
    store::bind(st.s, 4, script.task);
    store::bind(st.s, 5, dump_json(j["params"]));
    store::bind(st.s, 6, dump_json(j["steps"]));
    store::bind(st.s, 7, dump_json(j["urls"]));
    json meta = json::object();
    if (script.based_on > 0) meta["based_on"] = script.based_on;
    if (script.changes.is_array() && !script.changes.empty()) meta["changes"] = script.changes;
    store::bind(st.s, 8, dump_json(meta));
    if (sqlite3_step(st.s) != SQLITE_ROW) return errorf(Code::Internal, "cannot store script {}: {}", script.name, sqlite3_errmsg(h));
    script.version = sqlite3_column_int(st.s, 0);
    if (int rc = sqlite3_step(st.s); rc != SQLITE_DONE) return errorf(Code::Internal, "cannot store script {}: {}", script.name, sqlite3_errmsg(h));
    return script;
  });
}

Result<std::vector<Listed>> list(store::Database& db) {
  return db.with_connection([&](sqlite3* h) -> Result<std::vector<Listed>> {
    TRY(ensure_schema(h));
    store::Stmt st = TRY(store::prepare(h, std::string("SELECT ") + kColumns +
                                               ", (SELECT COUNT(*) FROM scripts c WHERE c.name = s.name) FROM scripts s "
                                               "WHERE version = (SELECT MAX(version) FROM scripts m WHERE m.name = s.name) ORDER BY name"));
    std::vector<Listed> out;
    int rc;
    while ((rc = sqlite3_step(st.s)) == SQLITE_ROW) {
      auto s = row_script(st.s);
      if (!s) continue;  // a damaged row: the others are still listed
      out.push_back({std::move(*s), sqlite3_column_int(st.s, 9)});
    }
    TRY(store::finished_reading(h, rc, "the scripts"));
    return out;
  });
}

Result<Script> get(store::Database& db, const std::string& name, std::optional<int> version) {
  return db.with_connection([&](sqlite3* h) -> Result<Script> {
    TRY(ensure_schema(h));
    store::Stmt st = TRY(store::prepare(h, std::string("SELECT ") + kColumns + " FROM scripts WHERE name = ?1 AND (?2 IS NULL OR version = ?2) "
                                               "ORDER BY version DESC LIMIT 1"));
    store::bind(st.s, 1, name);
    if (version) sqlite3_bind_int(st.s, 2, *version);
    else sqlite3_bind_null(st.s, 2);
    int rc = sqlite3_step(st.s);
    if (rc == SQLITE_ROW) return row_script(st.s);
    TRY(store::finished_reading(h, rc, "script " + name));
    if (version) return errorf(Code::NotFound, "script {} has no version {} (ouro script show {} lists the latest)", name, *version, name);
    return errorf(Code::NotFound, "no script named {} (ouro script list shows them)", name);
  });
}

Result<int> remove(store::Database& db, const std::string& name) {
  return db.with_connection([&](sqlite3* h) -> Result<int> {
    TRY(ensure_schema(h));
    store::Stmt st = TRY(store::prepare(h, "DELETE FROM scripts WHERE name = ?1"));
    store::bind(st.s, 1, name);
    if (sqlite3_step(st.s) != SQLITE_DONE) return errorf(Code::Internal, "cannot delete script {}: {}", name, sqlite3_errmsg(h));
    int n = sqlite3_changes(h);
    if (n == 0) return errorf(Code::NotFound, "no script named {}", name);
    return n;
  });
}

}  // namespace ouro::scripts
