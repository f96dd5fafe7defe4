// ouro's database: the persistent key-value store behind the REPL's store()/retrieve(), runs and
// their events, checkpoints, settings, and other modules' tables. Two engines behind one
// interface (store/sql.h): an embedded SQLite file (WAL mode; the default) or a PostgreSQL server
// shared by several nodes. Safe to use from any thread.
#pragma once

#include "base/error.h"
#include "runs/state.h"
#include "store/sql.h"

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

struct sqlite3;

namespace ouro::store {

// Where ouro keeps its data: $OURO_DATA_DIR, else $XDG_DATA_HOME/ouroboros, else
// ~/.local/share/ouroboros.
std::string default_data_dir();

// The database a command uses when it would open the SQLite file sqlite_path: the URL in
// $OURO_DATABASE, else the settings file's "database" ($OURO_CONFIG, else
// $XDG_CONFIG_HOME/ouroboros/config.json, else ~/.config/ouroboros/config.json), else the file.
// A "database_password" in the settings file is given to libpq as the password when the URL has
// none (PGPASSWORD and ~/.pgpass work as libpq reads them). A "database" that is not a string is
// an error; a settings file that does not parse is left to the settings readers to report.
Result<std::string> configured_database(const std::string& sqlite_path);

class Database {
 public:
  // Opens target and brings its schema to the current version (store/sql.h's migrations):
  // "postgresql://…" or "postgres://…" connects to that PostgreSQL server; ":memory:" is a
  // private in-memory SQLite database (tests); any other path is an SQLite file, created with
  // its directory if need be — unless configured_database() names a PostgreSQL server instead.
  // Errors never show a password from the URL.
  static Result<std::unique_ptr<Database>> open(const std::string& target);
  ~Database();

  Engine engine() const { return m_engine; }
  // This process's name among the nodes sharing a PostgreSQL database: $OURO_NODE_ID, else
  // "<hostname>:<pid>". Runs this node starts or updates carry it (runs.owner).
  const std::string& node_id() const { return m_node_id; }

  // Stores value (JSON text) under key, replacing what was there.
  Result<void> kv_set(const std::string& key, const std::string& value_json);
  // Removes key (nothing to remove is no error).
  Result<void> kv_delete(const std::string& key);
  // The JSON text stored under key, or nullopt.
  Result<std::optional<std::string>> kv_get(const std::string& key);
  // Every key, oldest first.
  Result<std::vector<std::string>> kv_keys();

  // --- Runs and their events (append-only) ----------------------------------------------------
  struct RunRow {
    std::string id, task;
    runs::State state = runs::State::Queued;
    std::string options = "{}";   // JSON
    double created_at = 0, updated_at = 0;
    int iterations = 0;
    std::string final_json, usage_json, error;  // JSON texts, may be empty
    bool partial = false;
    std::optional<double> cost;
    std::string owner;  // the node that holds the run, or held it last ("" when none has)
  };
  Result<void> insert_run(const RunRow& run);
  // The same on a connection the caller holds through with_sql (inside its transaction), the run
  // owned by `node`.
  static Result<void> insert_run(Connection& c, const std::string& node, const RunRow& run);
  Result<void> update_run(const RunRow& run);
  Result<std::optional<RunRow>> get_run(const std::string& id);
  // Newest first.
  Result<std::vector<RunRow>> list_runs(int limit = 100);
  // How many runs the database holds in each state (every run, every node's).
  Result<std::map<std::string, int64_t>> count_runs_by_state();
  // After a restart: runs that were queued or running are marked interrupted. Returns how many.
  // On SQLite (one server per data directory), every such run. On PostgreSQL, only those no live
  // node holds: owned by this node, by no node, or by a node whose heartbeat (nodes table, kept by
  // every open PostgreSQL Database every kHeartbeatSeconds) is older than kStaleNodeSeconds.
  Result<int> mark_interrupted();
  static constexpr double kHeartbeatSeconds = 5;
  static constexpr double kStaleNodeSeconds = 30;
  // Records this node as alive now (PostgreSQL; a no-op on SQLite). Called by the heartbeat thread.
  Result<void> heartbeat();

  struct EventRow {
    int64_t id = 0;  // global order across runs
    std::string run_id;
    int64_t seq = 0;  // order within the run
    std::string type, data;  // data: JSON text
    double ts = 0;
  };
  // Appends one event; returns its global id.
  Result<int64_t> append_event(const std::string& run_id, int64_t seq, const std::string& type, const std::string& data_json, double ts);
  // Appends one event of run.id and updates its row in one transaction, so that a reader never
  // sees the one without the other (a turn's `complete` and the final it ends with); the same
  // rules as update_run (a run another node took over is not written: neither is the event).
  Result<int64_t> append_event_with_run(const RunRow& run, int64_t seq, const std::string& type, const std::string& data_json, double ts);
  // A run's events with seq > after_seq, or all runs' with id > after_id (run_id empty).
  Result<std::vector<EventRow>> events(const std::string& run_id, int64_t after, int limit = 100000);

  // --- Checkpoints: a run's env after its latest turn, to continue the conversation later ------
  Result<void> set_checkpoint(const std::string& run_id, const std::string& env_json);
  Result<std::optional<std::string>> checkpoint(const std::string& run_id);

  // --- Settings (JSON values) ------------------------------------------------------------------
  Result<void> set_setting(const std::string& key, const std::string& value_json);
  Result<std::optional<std::string>> get_setting(const std::string& key);
  // Removes a setting (nothing to remove is no error).
  Result<void> delete_setting(const std::string& key);

  // The SQLite file, ":memory:", or the PostgreSQL URL with its password redacted.
  const std::string& path() const { return m_path; }

  // --- Other modules' tables ---------------------------------------------------------------------
  // Runs f(sqlite3*) on the connection while holding the database's lock and returns what f
  // returns (a Result): how a module keeps tables of its own here (memory, …) without a method on
  // Database per feature. f must not call this Database's methods (the lock is not recursive) nor
  // keep the handle after it returns; statements it prepares are finalized before it returns
  // (store/statement.h). Any thread; callers wait for each other.
  // On PostgreSQL there is no sqlite3 handle: f is not called and the result is Unimplemented
  // (a module still written for SQLite only); modules that run on both use with_sql.
  template <class F>
  auto with_connection(F&& f) -> std::invoke_result_t<F&, sqlite3*> {
    std::lock_guard lock(mutex());
    if (!m_db)
      return make_error(Code::Unimplemented, "this feature keeps its tables in SQLite only and is not available with a PostgreSQL database yet");
    return f(m_db);
  }

  // Runs f(Connection&) on the database's connection while holding its lock, on either engine
  // (store/sql.h): write SQL once with ?N parameters, branch on c.engine() where dialects differ,
  // and bring tables up to date with migrate(c, "module", migrations) first (a no-op after the
  // first success). Same rules as with_connection: no Database methods inside, nothing kept.
  template <class F>
  auto with_sql(F&& f) -> std::invoke_result_t<F&, Connection&> {
    std::lock_guard lock(mutex());
    return f(*m_conn);
  }

  // Runs f(Connection&) on the store's read connection — a SQLite file's own, read-only: in WAL
  // mode it never waits for a writer, so an API read is not held up by a run's writes — once the
  // module's tables are up to date (`schema`, run on the writing connection the first time). For
  // reads only; on PostgreSQL (no read connection of its own) the one connection. Same rules as
  // with_sql.
  template <class F>
  auto with_read_sql(std::string_view module, Result<void> (*schema)(Connection&), F&& f) -> std::invoke_result_t<F&, Connection&> {
    if (!schema_ready(module)) {
      if (auto made = with_sql([&](Connection& c) { return schema(c); }); !made) return tl::make_unexpected(made.error());
      mark_schema_ready(module);
    }
    auto [lock, c] = reader();
    return f(c);
  }

 private:
  Database() = default;
  std::mutex& mutex();
  bool schema_ready(std::string_view module);
  void mark_schema_ready(std::string_view module);
  // The connection the store's own reads use, locked: the SQLite file's read-only one (WAL:
  // it never waits for the writer), else the one connection.
  std::pair<std::unique_lock<std::mutex>, Connection&> reader();
  Result<void> open_schema();
  // update_run and append_event with the lock held.
  Result<void> write_run(const RunRow& run);
  Result<int64_t> insert_event(const std::string& run_id, int64_t seq, const std::string& type, const std::string& data_json, double ts);
  sqlite3* m_db = nullptr;       // SQLite only
  sqlite3* m_read_db = nullptr;  // SQLite files only: read-only
  std::unique_ptr<Connection> m_conn;
  std::unique_ptr<Connection> m_read_conn;
  Engine m_engine = Engine::Sqlite;
  std::string m_path;
  std::string m_node_id;
  struct Lock;
  std::unique_ptr<Lock> m_lock;
};

}  // namespace ouro::store
