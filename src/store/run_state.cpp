#include "store/run_state.h"

#include "base/json.h"

namespace ouro::store {

namespace {

// localStorage came later than the table: SQLite files made before have the table without it,
// or with it added by hand-rolled schema code that kept no version; add it where it is missing.
Result<void> add_storage_column(Connection& c) {
  if (c.engine() != Engine::Sqlite) return {};
  Rows cols = TRY(c.exec("SELECT 1 FROM pragma_table_info('run_checkpoints') WHERE name = 'storage'"));
  if (!cols.empty()) return {};
  TRY(c.exec("ALTER TABLE run_checkpoints ADD COLUMN storage TEXT NOT NULL DEFAULT '{}'"));
  return {};
}

constexpr Migration kMigrations[] = {
    {1,
     "CREATE TABLE IF NOT EXISTS run_checkpoints (run_id TEXT PRIMARY KEY, iteration INTEGER NOT NULL, "
     "state TEXT NOT NULL, env TEXT NOT NULL, cookies TEXT NOT NULL, saved_at REAL NOT NULL)",
     "CREATE TABLE IF NOT EXISTS run_checkpoints (run_id TEXT PRIMARY KEY, iteration BIGINT NOT NULL, "
     "state TEXT NOT NULL, env TEXT NOT NULL, cookies TEXT NOT NULL, saved_at DOUBLE PRECISION NOT NULL, storage TEXT NOT NULL DEFAULT '{}')",
     add_storage_column},
    // Where the run's values came from (docs/design/provenance.md), so labels survive a resume.
    {2, "ALTER TABLE run_checkpoints ADD COLUMN provenance TEXT NOT NULL DEFAULT '{}'",
     "ALTER TABLE run_checkpoints ADD COLUMN provenance TEXT NOT NULL DEFAULT '{}'"},
};

}  // namespace

Result<void> save_run_checkpoint(Database& db, const std::string& run_id, const RunCheckpoint& cp) {
  return db.with_sql([&](Connection& c) -> Result<void> {
    TRY(migrate(c, "run_state", kMigrations));
    auto done = c.exec("INSERT INTO run_checkpoints (run_id, iteration, state, env, cookies, saved_at, storage, provenance) "
                          "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) "
                          "ON CONFLICT(run_id) DO UPDATE SET iteration = excluded.iteration, state = excluded.state, env = excluded.env, "
                          "cookies = excluded.cookies, saved_at = excluded.saved_at, storage = excluded.storage, provenance = excluded.provenance",
                       {run_id, cp.iteration, cp.state, cp.env, cp.cookies, cp.saved_at, cp.storage, cp.provenance});
    if (!done) return make_error(done.error().code, fmt::format("cannot store the checkpoint of {}: {}", run_id, done.error().message));
    return {};
  });
}

Result<std::optional<RunCheckpoint>> load_run_checkpoint(Database& db, const std::string& run_id) {
  return db.with_sql([&](Connection& c) -> Result<std::optional<RunCheckpoint>> {
    TRY(migrate(c, "run_state", kMigrations));
    auto r = c.exec("SELECT iteration, state, env, cookies, saved_at, storage, provenance FROM run_checkpoints WHERE run_id = ?1", {run_id});
    if (!r) return make_error(r.error().code, fmt::format("cannot read the checkpoint of {}: {}", run_id, r.error().message));
    if (r->empty()) return std::optional<RunCheckpoint>();
    const Row& row = (*r)[0];
    RunCheckpoint cp;
    cp.iteration = row.integer(0);
    cp.state = row.text(1);
    cp.env = row.text(2);
    cp.cookies = row.text(3);
    cp.saved_at = row.real(4);
    cp.storage = row.text(5);
    cp.provenance = row.text(6);
    return std::optional<RunCheckpoint>(std::move(cp));
  });
}

namespace {

// The checkpoint's state, alone (its env, cookies and storage may be megabytes: not read here).
Result<json> state_of(Connection& c, const std::string& run_id, bool& exists) {
  TRY(migrate(c, "run_state", kMigrations));
  auto r = c.exec("SELECT state FROM run_checkpoints WHERE run_id = ?1", {run_id});
  if (!r) return make_error(r.error().code, fmt::format("cannot read the checkpoint of {}: {}", run_id, r.error().message));
  exists = !r->empty();
  json state = exists ? parse_json((*r)[0].text(0)).value_or(json::object()) : json::object();
  return state.is_object() ? state : json::object();
}

}  // namespace

Result<json> checkpoint_goals(Database& db, const std::string& run_id) {
  return db.with_sql([&](Connection& c) -> Result<json> {
    bool exists = false;
    json state = TRY(state_of(c, run_id, exists));
    const json& goals = get_field(state, "goals");
    return goals.is_array() ? goals : json::array();
  });
}

Result<void> set_checkpoint_goals(Database& db, const std::string& run_id, const json& goals) {
  const json wanted = goals.is_array() ? goals : json::array();
  return db.with_sql([&](Connection& c) -> Result<void> {
    // Its tables first: a migration is a transaction of its own, which cannot begin inside this one.
    TRY(migrate(c, "run_state", kMigrations));
    return c.transaction([&]() -> Result<void> {
      bool exists = false;
      json state = TRY(state_of(c, run_id, exists));
      if (exists && get_field(state, "goals") == wanted) return {};  // as the turn's last checkpoint left them
      state["goals"] = wanted;
      auto done = exists ? c.exec("UPDATE run_checkpoints SET state = ?2 WHERE run_id = ?1", {run_id, dump_json(state)})
                         : c.exec("INSERT INTO run_checkpoints (run_id, iteration, state, env, cookies, saved_at, storage, provenance) "
                                  "VALUES (?1, 0, ?2, '{}', '[]', 0, '{}', '{}')",
                                  {run_id, dump_json(state)});
      if (!done) return make_error(done.error().code, fmt::format("cannot keep the goals of {}: {}", run_id, done.error().message));
      return {};
    });
  });
}

}  // namespace ouro::store
