#include "store/database.h"

#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>

namespace ouro::store {

struct Database::Lock {
  std::mutex mutex;
};

namespace {

struct Stmt {
  sqlite3_stmt* s = nullptr;
  ~Stmt() { sqlite3_finalize(s); }
};

}  // namespace

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
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    if (ec) return errorf(Code::FailedPrecondition, "cannot create the data directory for {}: {} (set OURO_DATA_DIR to a writable place)", path, ec.message());
  }
  if (sqlite3_open_v2(path.c_str(), &db->m_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr) != SQLITE_OK) {
    std::string msg = db->m_db ? sqlite3_errmsg(db->m_db) : "out of memory";
    return errorf(Code::FailedPrecondition, "cannot open the database {}: {} (set OURO_DATA_DIR to a writable place)", path, msg);
  }
  if (path != ":memory:") std::filesystem::permissions(path, std::filesystem::perms(0600), std::filesystem::perm_options::replace);
  sqlite3_busy_timeout(db->m_db, 5000);
  TRY(db->exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"));
  TRY(db->exec(
      "CREATE TABLE IF NOT EXISTS kv ("
      "  key TEXT PRIMARY KEY,"
      "  value TEXT NOT NULL,"
      "  created_at INTEGER NOT NULL DEFAULT (unixepoch()),"
      "  updated_at INTEGER NOT NULL DEFAULT (unixepoch()));"));
  return db;
}

Database::~Database() {
  if (m_db) sqlite3_close_v2(m_db);
}

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
  Stmt st;
  sqlite3_prepare_v2(m_db,
                     "INSERT INTO kv(key, value) VALUES(?1, ?2) "
                     "ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = unixepoch()",
                     -1, &st.s, nullptr);
  sqlite3_bind_text(st.s, 1, key.data(), static_cast<int>(key.size()), SQLITE_TRANSIENT);
  sqlite3_bind_text(st.s, 2, value_json.data(), static_cast<int>(value_json.size()), SQLITE_TRANSIENT);
  if (sqlite3_step(st.s) != SQLITE_DONE) return errorf(Code::Internal, "cannot store '{}': {}", key, sqlite3_errmsg(m_db));
  return {};
}

Result<std::optional<std::string>> Database::kv_get(const std::string& key) {
  std::lock_guard lock(m_lock->mutex);
  Stmt st;
  sqlite3_prepare_v2(m_db, "SELECT value FROM kv WHERE key = ?1", -1, &st.s, nullptr);
  sqlite3_bind_text(st.s, 1, key.data(), static_cast<int>(key.size()), SQLITE_TRANSIENT);
  int rc = sqlite3_step(st.s);
  if (rc == SQLITE_DONE) return std::optional<std::string>();
  if (rc != SQLITE_ROW) return errorf(Code::Internal, "cannot read '{}': {}", key, sqlite3_errmsg(m_db));
  return std::optional<std::string>(reinterpret_cast<const char*>(sqlite3_column_text(st.s, 0)));
}

Result<std::vector<std::string>> Database::kv_keys() {
  std::lock_guard lock(m_lock->mutex);
  Stmt st;
  sqlite3_prepare_v2(m_db, "SELECT key FROM kv ORDER BY created_at, key", -1, &st.s, nullptr);
  std::vector<std::string> out;
  while (sqlite3_step(st.s) == SQLITE_ROW) out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st.s, 0)));
  return out;
}

}  // namespace ouro::store
