#include "store/statement.h"

namespace ouro::store {

Result<Stmt> prepare(sqlite3* db, std::string_view sql) {
  Stmt st;
  if (sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &st.s, nullptr) != SQLITE_OK)
    return errorf(Code::Internal, "database error: cannot prepare a statement: {}", sqlite3_errmsg(db));
  // Text with no statement in it (blank, a comment) prepares as no statement at all.
  if (!st.s) return make_error(Code::InvalidArgument, "database error: the SQL text holds no statement");
  return st;
}

void bind(sqlite3_stmt* s, int i, std::string_view v) {
  // A default string_view has no data pointer, which SQLite would bind as NULL rather than "".
  sqlite3_bind_text(s, i, v.data() ? v.data() : "", static_cast<int>(v.size()), SQLITE_TRANSIENT);
}

void bind_or_null(sqlite3_stmt* s, int i, std::string_view v) {
  if (v.empty()) sqlite3_bind_null(s, i);
  else bind(s, i, v);
}

std::string text(sqlite3_stmt* s, int i) {
  auto* t = reinterpret_cast<const char*>(sqlite3_column_text(s, i));
  return t ? std::string(t, static_cast<size_t>(sqlite3_column_bytes(s, i))) : std::string();
}

Result<void> exec(sqlite3* db, const char* sql, std::string_view what) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) == SQLITE_OK) return {};
  std::string why = err ? err : sqlite3_errmsg(db);
  sqlite3_free(err);
  return errorf(Code::Internal, "cannot {}: {}", what, why);
}

Result<void> finished_reading(sqlite3* db, int rc, std::string_view what) {
  if (rc == SQLITE_DONE) return {};
  return errorf(Code::Internal, "cannot read {}: {}", what, sqlite3_errmsg(db));
}

}  // namespace ouro::store
