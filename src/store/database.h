// ouro's SQLite database (WAL mode): the persistent key-value store behind the REPL's
// store()/retrieve(), and later runs, events and settings. Safe to use from any thread.
#pragma once

#include "base/error.h"

#include <memory>
#include <optional>
#include <string>
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

  const std::string& path() const { return m_path; }

 private:
  Database() = default;
  Result<void> exec(const char* sql);
  sqlite3* m_db = nullptr;
  std::string m_path;
  struct Lock;
  std::unique_ptr<Lock> m_lock;
};

}  // namespace ouro::store
