#include "store/database.h"

#include "store/statement.h"

#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <utility>

namespace ouro::store {

struct Database::Lock {
  std::mutex mutex;
};

std::string default_data_dir() {
  if (const char* d = std::getenv("OURO_DATA_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x) return std::string(x) + "/ouroboros";
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.local/share/ouroboros";
}

Result<std::unique_ptr<Database>> Database::open(const std::string& path) {
  std::unique_ptr<Database> db(new Database());
  db->m_lock = std::make_unique<Lock>();
  db->m_path = path;
  if (path != ":memory:") {
    std::error_code ec;
    auto dir = std::filesystem::path(path).parent_path();
    bool existed = dir.empty() || std::filesystem::exists(dir, ec);
    std::filesystem::create_directories(dir, ec);
    if (ec) return errorf(Code::FailedPrecondition, "cannot create the data directory for {}: {} (set OURO_DATA_DIR to a writable place)", path, ec.message());
    // A data directory ouro creates holds runs, stored values and downloads: the user's alone.
    if (!existed) std::filesystem::permissions(dir, std::filesystem::perms::owner_all, std::filesystem::perm_options::replace, ec);
  }
  if (sqlite3_open_v2(path.c_str(), &db->m_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr) != SQLITE_OK) {
    std::string msg = db->m_db ? sqlite3_errmsg(db->m_db) : "out of memory";
    return errorf(Code::FailedPrecondition, "cannot open the database {}: {} (set OURO_DATA_DIR to a writable place)", path, msg);
  }
  if (path != ":memory:") {
    std::error_code ec;  // best effort: a file we cannot chmod (not ours) still opens
    std::filesystem::permissions(path, std::filesystem::perms(0600), std::filesystem::perm_options::replace, ec);
  }
  sqlite3_busy_timeout(db->m_db, 5000);
  TRY(db->exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"));
  TRY(db->exec(
      "CREATE TABLE IF NOT EXISTS kv ("
      "  key TEXT PRIMARY KEY,"
      "  value TEXT NOT NULL,"
      "  created_at INTEGER NOT NULL DEFAULT (unixepoch()),"
      "  updated_at INTEGER NOT NULL DEFAULT (unixepoch()));"
      "CREATE TABLE IF NOT EXISTS runs ("
      "  id TEXT PRIMARY KEY, task TEXT NOT NULL, state TEXT NOT NULL, options TEXT NOT NULL,"
      "  created_at REAL NOT NULL, updated_at REAL NOT NULL, iterations INTEGER NOT NULL DEFAULT 0,"
      "  final TEXT, partial INTEGER NOT NULL DEFAULT 0, usage TEXT, cost REAL, error TEXT);"
      "CREATE TABLE IF NOT EXISTS events ("
      "  id INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL,"
      "  data TEXT NOT NULL, ts REAL NOT NULL, UNIQUE (run_id, seq));"
      "CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
      "CREATE TABLE IF NOT EXISTS checkpoints (run_id TEXT PRIMARY KEY, env TEXT NOT NULL);"));
  return db;
}

Database::~Database() {
  if (m_db) sqlite3_close_v2(m_db);
}

std::mutex& Database::mutex() { return m_lock->mutex; }

Result<void> Database::exec(const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(m_db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    return errorf(Code::Internal, "database error: {}", msg);
  }
  return {};
}

Result<void> Database::kv_set(const std::string& key, const std::string& value_json) {
  std::lock_guard lock(m_lock->mutex);
  Stmt st = TRY(prepare(m_db, "INSERT INTO kv(key, value) VALUES(?1, ?2) "
                     "ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = unixepoch()"));
  sqlite3_bind_text(st.s, 1, key.data(), static_cast<int>(key.size()), SQLITE_TRANSIENT);
  sqlite3_bind_text(st.s, 2, value_json.data(), static_cast<int>(value_json.size()), SQLITE_TRANSIENT);
  if (sqlite3_step(st.s) != SQLITE_DONE) return errorf(Code::Internal, "cannot store '{}': {}", key, sqlite3_errmsg(m_db));
  return {};
}

Result<std::optional<std::string>> Database::kv_get(const std::string& key) {
  std::lock_guard lock(m_lock->mutex);
  Stmt st = TRY(prepare(m_db, "SELECT value FROM kv WHERE key = ?1"));
  sqlite3_bind_text(st.s, 1, key.data(), static_cast<int>(key.size()), SQLITE_TRANSIENT);
  int rc = sqlite3_step(st.s);
  if (rc == SQLITE_DONE) return std::optional<std::string>();
  if (rc != SQLITE_ROW) return errorf(Code::Internal, "cannot read '{}': {}", key, sqlite3_errmsg(m_db));
  return std::optional<std::string>(text(st.s, 0));
}

Result<std::vector<std::string>> Database::kv_keys() {
  std::lock_guard lock(m_lock->mutex);
  Stmt st = TRY(prepare(m_db, "SELECT key FROM kv ORDER BY created_at, key"));
  std::vector<std::string> out;
  int rc;
  while ((rc = sqlite3_step(st.s)) == SQLITE_ROW) out.emplace_back(text(st.s, 0));
  TRY(finished_reading(m_db, rc, "the stored keys"));
  return out;
}

}  // namespace ouro::store

namespace ouro::store {

namespace {

Database::RunRow read_run(sqlite3_stmt* s) {
  Database::RunRow r;
  r.id = text(s, 0);
  r.task = text(s, 1);
  r.state = text(s, 2);
  r.options = text(s, 3);
  r.created_at = sqlite3_column_double(s, 4);
  r.updated_at = sqlite3_column_double(s, 5);
  r.iterations = sqlite3_column_int(s, 6);
  r.final_json = text(s, 7);
  r.partial = sqlite3_column_int(s, 8) != 0;
  r.usage_json = text(s, 9);
  if (sqlite3_column_type(s, 10) != SQLITE_NULL) r.cost = sqlite3_column_double(s, 10);
  r.error = text(s, 11);
  return r;
}

constexpr const char* kRunColumns = "id, task, state, options, created_at, updated_at, iterations, final, partial, usage, cost, error";

}  // namespace

Result<void> Database::insert_run(const RunRow& r) {
  std::lock_guard lock(m_lock->mutex);
  Stmt st = TRY(prepare(m_db, "INSERT INTO runs(id, task, state, options, created_at, updated_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6)"));
  bind(st.s, 1, r.id);
  bind(st.s, 2, r.task);
  bind(st.s, 3, r.state);
  bind(st.s, 4, r.options);
  sqlite3_bind_double(st.s, 5, r.created_at);
  sqlite3_bind_double(st.s, 6, r.updated_at);
  if (sqlite3_step(st.s) != SQLITE_DONE) return errorf(Code::Internal, "cannot record run {}: {}", r.id, sqlite3_errmsg(m_db));
  return {};
}

Result<void> Database::update_run(const RunRow& r) {
  std::lock_guard lock(m_lock->mutex);
  Stmt st = TRY(prepare(m_db, "UPDATE runs SET state = ?2, updated_at = ?3, iterations = ?4, final = ?5, partial = ?6, usage = ?7, cost = ?8, error = ?9 "
                     "WHERE id = ?1"));
  bind(st.s, 1, r.id);
  bind(st.s, 2, r.state);
  sqlite3_bind_double(st.s, 3, r.updated_at);
  sqlite3_bind_int(st.s, 4, r.iterations);
  bind_or_null(st.s, 5, r.final_json);
  sqlite3_bind_int(st.s, 6, r.partial ? 1 : 0);
  bind_or_null(st.s, 7, r.usage_json);
  if (r.cost) sqlite3_bind_double(st.s, 8, *r.cost);
  else sqlite3_bind_null(st.s, 8);
  bind_or_null(st.s, 9, r.error);
  if (sqlite3_step(st.s) != SQLITE_DONE) return errorf(Code::Internal, "cannot update run {}: {}", r.id, sqlite3_errmsg(m_db));
  return {};
}

Result<std::optional<Database::RunRow>> Database::get_run(const std::string& id) {
  std::lock_guard lock(m_lock->mutex);
  Stmt st = TRY(prepare(m_db, (std::string("SELECT ") + kRunColumns + " FROM runs WHERE id = ?1").c_str()));
  bind(st.s, 1, id);
  int rc = sqlite3_step(st.s);
  if (rc == SQLITE_ROW) return std::optional<RunRow>(read_run(st.s));
  TRY(finished_reading(m_db, rc, "run " + id));
  return std::optional<RunRow>();
}

Result<std::vector<Database::RunRow>> Database::list_runs(int limit) {
  std::lock_guard lock(m_lock->mutex);
  Stmt st = TRY(prepare(m_db, (std::string("SELECT ") + kRunColumns + " FROM runs ORDER BY created_at DESC LIMIT ?1").c_str()));
  sqlite3_bind_int(st.s, 1, limit);
  std::vector<RunRow> out;
  int rc;
  while ((rc = sqlite3_step(st.s)) == SQLITE_ROW) out.push_back(read_run(st.s));
  TRY(finished_reading(m_db, rc, "the runs"));
  return out;
}

Result<int> Database::mark_interrupted() {
  std::lock_guard lock(m_lock->mutex);
  Stmt st = TRY(prepare(m_db, "UPDATE runs SET state = 'interrupted', error = 'ouro stopped while the run was in progress' "
                     "WHERE state IN ('queued', 'running', 'awaiting_user')"));
  if (sqlite3_step(st.s) != SQLITE_DONE) return errorf(Code::Internal, "cannot mark interrupted runs: {}", sqlite3_errmsg(m_db));
  return sqlite3_changes(m_db);
}

Result<int64_t> Database::append_event(const std::string& run_id, int64_t seq, const std::string& type, const std::string& data_json, double ts) {
  std::lock_guard lock(m_lock->mutex);
  Stmt st = TRY(prepare(m_db, "INSERT INTO events(run_id, seq, type, data, ts) VALUES(?1, ?2, ?3, ?4, ?5)"));
  bind(st.s, 1, run_id);
  sqlite3_bind_int64(st.s, 2, seq);
  bind(st.s, 3, type);
  bind(st.s, 4, data_json);
  sqlite3_bind_double(st.s, 5, ts);
  if (sqlite3_step(st.s) != SQLITE_DONE) return errorf(Code::Internal, "cannot append event {} of run {}: {}", seq, run_id, sqlite3_errmsg(m_db));
  return static_cast<int64_t>(sqlite3_last_insert_rowid(m_db));
}

Result<std::vector<Database::EventRow>> Database::events(const std::string& run_id, int64_t after, int limit) {
  std::lock_guard lock(m_lock->mutex);
  Stmt st = TRY(prepare(m_db, run_id.empty() ? "SELECT id, run_id, seq, type, data, ts FROM events WHERE id > ?1 ORDER BY id LIMIT ?2"
                                              : "SELECT id, run_id, seq, type, data, ts FROM events WHERE run_id = ?3 AND seq > ?1 ORDER BY seq LIMIT ?2"));
  sqlite3_bind_int64(st.s, 1, after);
  sqlite3_bind_int(st.s, 2, limit);
  if (!run_id.empty()) bind(st.s, 3, run_id);
  std::vector<EventRow> out;
  int rc;
  while ((rc = sqlite3_step(st.s)) == SQLITE_ROW)
    out.push_back(EventRow{sqlite3_column_int64(st.s, 0), text(st.s, 1), sqlite3_column_int64(st.s, 2), text(st.s, 3), text(st.s, 4),
                           sqlite3_column_double(st.s, 5)});
  TRY(finished_reading(m_db, rc, "events"));
  return out;
}

namespace {
// One text value by key: a keyed upsert and a keyed read (settings, checkpoints). Lock held.
Result<void> put_text(sqlite3* db, const char* sql, const std::string& key, const std::string& value, const std::string& what) {
  Stmt st = TRY(prepare(db, sql));
  bind(st.s, 1, key);
  bind(st.s, 2, value);
  if (sqlite3_step(st.s) != SQLITE_DONE) return errorf(Code::Internal, "cannot save {}: {}", what, sqlite3_errmsg(db));
  return {};
}
Result<std::optional<std::string>> get_text(sqlite3* db, const char* sql, const std::string& key, const std::string& what) {
  Stmt st = TRY(prepare(db, sql));
  bind(st.s, 1, key);
  int rc = sqlite3_step(st.s);
  if (rc == SQLITE_ROW) return std::optional<std::string>(text(st.s, 0));
  TRY(finished_reading(db, rc, what));
  return std::optional<std::string>();
}
}  // namespace

Result<void> Database::set_setting(const std::string& key, const std::string& value_json) {
  std::lock_guard lock(m_lock->mutex);
  return put_text(m_db, "INSERT INTO settings(key, value) VALUES(?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value", key, value_json,
                  "setting " + key);
}

Result<std::optional<std::string>> Database::get_setting(const std::string& key) {
  std::lock_guard lock(m_lock->mutex);
  return get_text(m_db, "SELECT value FROM settings WHERE key = ?1", key, "setting " + key);
}

Result<void> Database::set_checkpoint(const std::string& run_id, const std::string& env_json) {
  std::lock_guard lock(m_lock->mutex);
  return put_text(m_db, "INSERT INTO checkpoints (run_id, env) VALUES (?1, ?2) ON CONFLICT(run_id) DO UPDATE SET env = excluded.env", run_id,
                  env_json, "the checkpoint of " + run_id);
}

Result<std::optional<std::string>> Database::checkpoint(const std::string& run_id) {
  std::lock_guard lock(m_lock->mutex);
  return get_text(m_db, "SELECT env FROM checkpoints WHERE run_id = ?1", run_id, "checkpoint of " + run_id);
}

}  // namespace ouro::store
