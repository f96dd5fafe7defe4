#include "scripts/store.h"
#include "base/clock.h"
#include "base/text.h"

#include "store/database.h"
#include "store/sql.h"

#include <chrono>
#include <cstdlib>

namespace ouro::scripts {

namespace {

// A table from before versions knew what they were made from ({based_on, changes}) has no meta
// column: add it.
Result<void> add_meta_column(store::Connection& c) {
  if (c.engine() != store::Engine::Sqlite) return {};
  store::Rows cols = TRY(c.exec("SELECT 1 FROM pragma_table_info('scripts') WHERE name = 'meta'"));
  if (cols.empty()) TRY(c.exec("ALTER TABLE scripts ADD COLUMN meta TEXT NOT NULL DEFAULT '{}'"));
  return {};
}

constexpr store::Migration kMigrations[] = {
    {1,
     "CREATE TABLE IF NOT EXISTS scripts (name TEXT NOT NULL, version INTEGER NOT NULL, created_at REAL NOT NULL, "
     "source_run TEXT NOT NULL, task TEXT NOT NULL, params TEXT NOT NULL, blocks TEXT NOT NULL, urls TEXT NOT NULL, "
     "meta TEXT NOT NULL DEFAULT '{}', PRIMARY KEY (name, version))",
     "CREATE TABLE IF NOT EXISTS scripts (name TEXT NOT NULL, version BIGINT NOT NULL, created_at DOUBLE PRECISION NOT NULL, "
     "source_run TEXT NOT NULL, task TEXT NOT NULL, params TEXT NOT NULL, blocks TEXT NOT NULL, urls TEXT NOT NULL, "
     "meta TEXT NOT NULL DEFAULT '{}', PRIMARY KEY (name, version))",
     add_meta_column},
};

Result<void> ensure_schema(store::Connection& c) { return store::migrate(c, "scripts", kMigrations); }

constexpr const char* kColumns = "name, version, created_at, source_run, task, params, blocks, urls, meta";

// A row (kColumns' order) → a script; a row that does not read is InvalidArgument naming it.
Result<Script> row_script(const store::Row& s) {
  auto params = parse_json(s.text(5), "script params");
  auto blocks = parse_json(s.text(6), "script blocks");
  auto urls = parse_json(s.text(7), "script urls");
  std::string name = s.text(0);
  int version = s.integer(1);
  if (!params || !blocks || !urls) return errorf(Code::InvalidArgument, "script {} version {} cannot be read", name, version);
  json j = {{"name", name}, {"version", version}, {"created_at", s.real(2)}, {"source_run", s.text(3)},
            {"task", s.text(4)}, {"params", *params}, {"steps", *blocks}, {"urls", *urls}};
  json meta = parse_json(s.text(8)).value_or(json::object());
  if (meta.is_object())
    for (const char* k : {"based_on", "changes"})
      if (meta.contains(k)) j[k] = meta[k];
  return script_from_json(j);
}

}  // namespace

Result<Script> from_run(store::Database& db, const std::string& run_id, const std::string& name, const std::optional<std::vector<Param>>& params) {
  TRY(check_name(name));
  auto row = TRY(db.get_run(run_id));
  if (!row) return errorf(Code::NotFound, "no run {} (the Command Center's History lists the runs)", clip_text(run_id, 60));
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
  return db.with_sql([&](store::Connection& c) -> Result<Script> {
    TRY(ensure_schema(c));
    // One statement picks the next version and inserts it, so two saves at once cannot collide
    // (on PostgreSQL, one of two nodes saving at once gets AlreadyExists from the primary key).
    const char* sql = "INSERT INTO scripts (name, version, created_at, source_run, task, params, blocks, urls, meta) "
                      "SELECT ?1, COALESCE(MAX(version), 0) + 1, ?2, ?3, ?4, ?5, ?6, ?7, ?8 FROM scripts WHERE name = ?1 "
                      "RETURNING version";
    json j = script.to_json();
    script.created_at = wall_ms();
    json meta = json::object();
    if (script.based_on > 0) meta["based_on"] = script.based_on;
    if (script.changes.is_array() && !script.changes.empty()) meta["changes"] = script.changes;
    auto r = c.exec(sql, {script.name, script.created_at, script.source_run, script.task, dump_json(j["params"]), dump_json(j["steps"]),
                          dump_json(j["urls"]), dump_json(meta)});
    if (!r || r->empty())
      return make_error(r ? Code::Internal : r.error().code, fmt::format("cannot store script {}: {}", script.name, r ? "no version returned" : r.error().message));
    script.version = (*r)[0].integer(0);
    return script;
  });
}

Result<std::vector<Listed>> list(store::Database& db) {
  return db.with_read_sql("scripts", &ensure_schema, [&](store::Connection& c) -> Result<std::vector<Listed>> {
    auto r = c.exec(std::string("SELECT ") + kColumns +
                    ", (SELECT COUNT(*) FROM scripts c WHERE c.name = s.name) FROM scripts s "
                    "WHERE version = (SELECT MAX(version) FROM scripts m WHERE m.name = s.name) ORDER BY name");
    if (!r) return make_error(r.error().code, "cannot read the scripts: " + r.error().message);
    std::vector<Listed> out;
    for (const store::Row& row : *r) {
      auto s = row_script(row);
      if (!s) continue;  // a damaged row: the others are still listed
      out.push_back({std::move(*s), row.integer(9)});
    }
    return out;
  });
}

// A read: on the store's read connection, as list() (an API read does not wait for a run's writes).
Result<Script> get(store::Database& db, const std::string& name, std::optional<int> version) {
  return db.with_read_sql("scripts", &ensure_schema, [&](store::Connection& c) -> Result<Script> {
    // The casts give PostgreSQL the parameter's type, which `?2 IS NULL` alone does not.
    auto r = c.exec(std::string("SELECT ") + kColumns +
                        " FROM scripts WHERE name = ?1 AND (CAST(?2 AS BIGINT) IS NULL OR version = CAST(?2 AS BIGINT)) "
                        "ORDER BY version DESC LIMIT 1",
                    {name, version ? store::Param(*version) : store::Param(nullptr)});
    if (!r) return make_error(r.error().code, fmt::format("cannot read script {}: {}", name, r.error().message));
    if (!r->empty()) return row_script((*r)[0]);
    if (version) return errorf(Code::NotFound, "script {} has no version {} (ouro script show {} lists the latest)", name, *version, name);
    return errorf(Code::NotFound, "no script named {} (ouro script list shows them)", name);
  });
}

Result<std::optional<json>> version_row(store::Database& db, const std::string& name, int version) {
  return db.with_sql([&](store::Connection& c) -> Result<std::optional<json>> {
    TRY(ensure_schema(c));
    auto r = TRY(c.exec(std::string("SELECT ") + kColumns + " FROM scripts WHERE name = ?1 AND version = ?2", {name, version}));
    if (r.empty()) return std::optional<json>();
    json row = json::array();
    for (size_t i = 0; i < r[0].size(); ++i) row.push_back(r[0].is_null(i) ? json(nullptr) : json(r[0].text(i)));
    return std::optional<json>(std::move(row));
  });
}

Result<void> put_version_row(store::Database& db, const std::string& name, int version, const std::optional<json>& row) {
  if (row && (!row->is_array() || row->size() != 9 || (*row)[0] != name || (*row)[1] != std::to_string(version)))
    return errorf(Code::InvalidArgument, "script {} version {} cannot be put back: its saved row is not one of this table", name, version);
  std::vector<store::Param> params;
  for (size_t i = 0; row && i < 9; ++i) {
    const json& v = (*row)[i];
    if (v.is_null()) params.emplace_back(nullptr);
    else if (!v.is_string()) return errorf(Code::InvalidArgument, "script {} version {} cannot be put back: column {} is not text", name, version, i);
    else if (i == 1) params.emplace_back(version);
    else if (i == 2) params.emplace_back(std::strtod(v.get<std::string>().c_str(), nullptr));
    else params.emplace_back(v.get<std::string>());
  }
  return db.with_sql([&](store::Connection& c) -> Result<void> {
    TRY(ensure_schema(c));
    return c.transaction([&]() -> Result<void> {
      TRY(c.exec("DELETE FROM scripts WHERE name = ?1 AND version = ?2", {name, version}));
      if (row) TRY(c.exec(std::string("INSERT INTO scripts (") + kColumns + ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)", params));
      return {};
    });
  });
}

Result<int> remove(store::Database& db, const std::string& name) {
  return db.with_sql([&](store::Connection& c) -> Result<int> {
    TRY(ensure_schema(c));
    auto r = c.exec("DELETE FROM scripts WHERE name = ?1", {name});
    if (!r) return make_error(r.error().code, fmt::format("cannot delete script {}: {}", name, r.error().message));
    int n = static_cast<int>(r->affected);
    if (n == 0) return errorf(Code::NotFound, "no script named {}", name);
    return n;
  });
}

}  // namespace ouro::scripts
