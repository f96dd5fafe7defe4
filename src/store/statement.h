// Prepared statements for code that works on the SQLite connection directly, through
// Database::with_connection (SQLite only; store/sql.h serves both engines). Call these with the lock held.
#pragma once

#include "base/error.h"

#include <sqlite3.h>

#include <string>
#include <string_view>
#include <utility>

namespace ouro::store {

// A prepared statement that is finalized when it goes out of scope.
struct Stmt {
  sqlite3_stmt* s = nullptr;
  Stmt() = default;
  Stmt(Stmt&& other) noexcept : s(std::exchange(other.s, nullptr)) {}
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  Stmt& operator=(Stmt&&) = delete;
  ~Stmt() { sqlite3_finalize(s); }
};

// A prepared statement, or an error with SQLite's reason (a damaged file, a locked database, a
// table that does not exist).
Result<Stmt> prepare(sqlite3* db, std::string_view sql);

// Binds text (copied) to parameter i; bind_or_null binds NULL for an empty string.
void bind(sqlite3_stmt* s, int i, std::string_view v);
void bind_or_null(sqlite3_stmt* s, int i, std::string_view v);
// For std::string arguments: without this exact match, argument-dependent lookup prefers the
// template std::bind to the conversion to string_view, and nothing is bound.
inline void bind(sqlite3_stmt* s, int i, const std::string& v) { bind(s, i, std::string_view(v)); }

// Column i as text, "" for NULL. NUL bytes inside the value are kept.
std::string text(sqlite3_stmt* s, int i);

// Runs SQL that returns no rows (a schema), or an error with SQLite's reason: "cannot WHAT: …".
Result<void> exec(sqlite3* db, const char* sql, std::string_view what);

// After stepping through rows: SQLITE_DONE, or an error saying what was being read.
Result<void> finished_reading(sqlite3* db, int rc, std::string_view what);

}  // namespace ouro::store
