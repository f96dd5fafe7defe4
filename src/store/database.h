// ouro's SQLite database (WAL mode): the persistent key-value store behind the REPL's
// store()/retrieve(), and later runs, events and settings. Safe to use from any thread.
#pragma once

#include "base/error.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

struct sqlite3;

namespace ouro::store {

// Where ouro keeps its data: $OURO_DATA_DIR, else $XDG_DATA_HOME/ouroboros, else
// ~/.local/share/ouroboros.
std::string default_data_dir();

class Database {
 public:
  // Opens (creating if needed) the database file and its schema. Use ":memory:" for tests.
  static Result<std::unique_ptr<Database>> open(const std::string& path);
  ~Database();

  // Stores value (JSON text) under key, replacing what was there.
  Result<void> kv_set(const std::string& key, const std::string& value_json);
  // The JSON text stored under key, or nullopt.
  Result<std::optional<std::string>> kv_get(const std::string& key);
  // Every key, oldest first.
  Result<std::vector<std::string>> kv_keys();

  // --- Runs and their events (append-only) ----------------------------------------------------
  struct RunRow {
    std::string id, task, state;  // state: queued | running | done | partial | cancelled | failed | interrupted
    std::string options = "{}";   // JSON
    double created_at = 0, updated_at = 0;
    int iterations = 0;
    std::string final_json, usage_json, error;  // JSON texts, may be empty
    bool partial = false;
    std::optional<double> cost;
  };
  Result<void> insert_run(const RunRow& run);
  Result<void> update_run(const RunRow& run);
  Result<std::optional<RunRow>> get_run(const std::string& id);
  // Newest first.
  Result<std::vector<RunRow>> list_runs(int limit = 100);
  // After a restart: runs that were queued or running are marked interrupted. Returns how many.
  Result<int> mark_interrupted();

  struct EventRow {
    int64_t id = 0;  // global order across runs
    std::string run_id;
    int64_t seq = 0;  // order within the run
    std::string type, data;  // data: JSON text
    double ts = 0;
  };
  // Appends one event; returns its global id.
  Result<int64_t> append_event(const std::string& run_id, int64_t seq, const std::string& type, const std::string& data_json, double ts);
  // A run's events with seq > after_seq, or all runs' with id > after_id (run_id empty).
  Result<std::vector<EventRow>> events(const std::string& run_id, int64_t after, int limit = 100000);

  // --- Checkpoints: a run's env after its latest turn, to continue the conversation later ------
  Result<void> set_checkpoint(const std::string& run_id, const std::string& env_json);
  Result<std::optional<std::string>> checkpoint(const std::string& run_id);

  // --- Settings (JSON values) ------------------------------------------------------------------
  Result<void> set_setting(const std::string& key, const std::string& value_json);
  Result<std::optional<std::string>> get_setting(const std::string& key);

  const std::string& path() const { return m_path; }

  // --- Other modules' tables ---------------------------------------------------------------------
  // Runs f(sqlite3*) on the connection while holding the database's lock and returns what f
  // returns (a Result): how a module keeps tables of its own here (memory, …) without a method on
  // Database per feature. f must not call this Database's methods (the lock is not recursive) nor
  // keep the handle after it returns; statements it prepares are finalized before it returns
  // (store/statement.h). Any thread; callers wait for each other.
  template <class F>
  auto with_connection(F&& f) -> std::invoke_result_t<F&, sqlite3*> {
    std::lock_guard lock(mutex());
    return f(m_db);
  }

 private:
  Database() = default;
  std::mutex& mutex();
  Result<void> exec(const char* sql);
  sqlite3* m_db = nullptr;
  std::string m_path;
  struct Lock;
  std::unique_ptr<Lock> m_lock;
};

}  // namespace ouro::store
