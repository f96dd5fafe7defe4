#include "store/run_state.h"

#include "store/statement.h"

#include <sqlite3.h>

namespace ouro::store {

namespace {

Result<void> ensure_schema(sqlite3* db) {
  TRY(exec(db,
           "CREATE TABLE IF NOT EXISTS run_checkpoints (run_id TEXT PRIMARY KEY, iteration INTEGER NOT NULL, "
           "state TEXT NOT NULL, env TEXT NOT NULL, cookies TEXT NOT NULL, saved_at REAL NOT NULL)",
           "create the run_checkpoints table"));
  // localStorage came later than the table: added to one made before (an error only says the
  // column is there already).
  (void)sqlite3_exec(db, "ALTER TABLE run_checkpoints ADD COLUMN storage TEXT NOT NULL DEFAULT '{}'", nullptr, nullptr, nullptr);
  return {};
}

}  // namespace

Result<void> save_run_checkpoint(Database& db, const std::string& run_id, const RunCheckpoint& c) {
  return db.with_connection([&](sqlite3* h) -> Result<void> {
    TRY(ensure_schema(h));
    Stmt st = TRY(prepare(h,
                          "INSERT INTO run_checkpoints (run_id, iteration, state, env, cookies, saved_at, storage) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) "
                          "ON CONFLICT(run_id) DO UPDATE SET iteration = excluded.iteration, state = excluded.state, env = excluded.env, "
                          "cookies = excluded.cookies, saved_at = excluded.saved_at, storage = excluded.storage"));
    bind(st.s, 1, run_id);
    sqlite3_bind_int(st.s, 2, c.iteration);
    bind(st.s, 3, c.state);
    bind(st.s, 4, c.env);
    bind(st.s, 5, c.cookies);
    sqlite3_bind_double(st.s, 6, c.saved_at);
    bind(st.s, 7, c.storage);
    if (int rc = sqlite3_step(st.s); rc != SQLITE_DONE)
      return errorf(Code::Internal, "cannot store the checkpoint of {}: {}", run_id, sqlite3_errmsg(h));
    return {};
  });
}

Result<std::optional<RunCheckpoint>> load_run_checkpoint(Database& db, const std::string& run_id) {
  return db.with_connection([&](sqlite3* h) -> Result<std::optional<RunCheckpoint>> {
    TRY(ensure_schema(h));
    Stmt st = TRY(prepare(h, "SELECT iteration, state, env, cookies, saved_at, storage FROM run_checkpoints WHERE run_id = ?1"));
    bind(st.s, 1, run_id);
    int rc = sqlite3_step(st.s);
    if (rc == SQLITE_ROW) {
      RunCheckpoint c;
      c.iteration = sqlite3_column_int(st.s, 0);
      c.state = text(st.s, 1);
      c.env = text(st.s, 2);
      c.cookies = text(st.s, 3);
      c.saved_at = sqlite3_column_double(st.s, 4);
      c.storage = text(st.s, 5);
      return std::optional<RunCheckpoint>(std::move(c));
    }
    TRY(finished_reading(h, rc, "the checkpoint of " + run_id));
    return std::optional<RunCheckpoint>();
  });
}

}  // namespace ouro::store
