// The SQLite engine of the neutral SQL layer (store/sql.h): https://www.sqlite.org/c3ref/intro.html
#include "store/sql.h"

#include <sqlite3.h>

namespace ouro::store {

namespace {

// The error's code by SQLite's result code (https://www.sqlite.org/rescode.html).
Code code_of(int rc) {
  switch (rc) {
    case SQLITE_CONSTRAINT_UNIQUE:
    case SQLITE_CONSTRAINT_PRIMARYKEY: return Code::AlreadyExists;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_CANTOPEN:
    case SQLITE_IOERR: return Code::Unavailable;
    default: return (rc & 0xFF) == SQLITE_BUSY ? Code::Unavailable : Code::Internal;
  }
}

class SqliteConnection final : public Connection {
 public:
  explicit SqliteConnection(sqlite3* db) : m_db(db) {}
  using Connection::exec;
  Engine engine() const override { return Engine::Sqlite; }

  Result<Rows> exec(std::string_view sql, std::span<const Param> params) override {
    sqlite3_stmt* raw = nullptr;
    if (sqlite3_prepare_v2(m_db, sql.data(), static_cast<int>(sql.size()), &raw, nullptr) != SQLITE_OK)
      return failed("cannot prepare a statement");
    std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> st(raw, sqlite3_finalize);
    for (size_t i = 0; i < params.size(); ++i) {
      int at = static_cast<int>(i + 1);
      const Value& v = params[i].value;
      if (auto* n = std::get_if<int64_t>(&v)) sqlite3_bind_int64(raw, at, *n);
      else if (auto* d = std::get_if<double>(&v)) sqlite3_bind_double(raw, at, *d);
      else if (auto* s = std::get_if<std::string>(&v)) sqlite3_bind_text(raw, at, s->data(), static_cast<int>(s->size()), SQLITE_TRANSIENT);
      else if (auto* b = std::get_if<Bytes>(&v)) sqlite3_bind_blob(raw, at, b->data.data(), static_cast<int>(b->data.size()), SQLITE_TRANSIENT);
      else sqlite3_bind_null(raw, at);
    }
    Rows out;
    int rc;
    while ((rc = sqlite3_step(raw)) == SQLITE_ROW) {
      int n = sqlite3_column_count(raw);
      std::vector<Value> cells;
      cells.reserve(static_cast<size_t>(n));
      for (int c = 0; c < n; ++c) {
        switch (sqlite3_column_type(raw, c)) {
          case SQLITE_INTEGER: cells.emplace_back(static_cast<int64_t>(sqlite3_column_int64(raw, c))); break;
          case SQLITE_FLOAT: cells.emplace_back(sqlite3_column_double(raw, c)); break;
          case SQLITE_NULL: cells.emplace_back(std::monostate{}); break;
          case SQLITE_BLOB: {
            auto* b = static_cast<const char*>(sqlite3_column_blob(raw, c));
            cells.emplace_back(Bytes{std::string(b ? b : "", b ? static_cast<size_t>(sqlite3_column_bytes(raw, c)) : 0)});
            break;
          }
          default: {
            auto* t = reinterpret_cast<const char*>(sqlite3_column_text(raw, c));
            cells.emplace_back(std::string(t ? t : "", t ? static_cast<size_t>(sqlite3_column_bytes(raw, c)) : 0));
          }
        }
      }
      out.rows.emplace_back(std::move(cells));
    }
    if (rc != SQLITE_DONE) return failed("cannot run a statement");
    out.affected = sqlite3_changes64(m_db);
    return out;
  }

  Result<void> exec_script(std::string_view sql) override {
    std::string copy(sql);  // sqlite3_exec wants a terminated string
    char* err = nullptr;
    if (sqlite3_exec(m_db, copy.c_str(), nullptr, nullptr, &err) == SQLITE_OK) return {};
    std::string why = err ? err : sqlite3_errmsg(m_db);
    sqlite3_free(err);
    return make_error(code_of(sqlite3_extended_errcode(m_db)), "database error: " + why);
  }

  Result<void> begin() override {
    TRY(exec("BEGIN IMMEDIATE"));
    return {};
  }

 private:
  tl::unexpected<Error> failed(std::string_view what) {
    return make_error(code_of(sqlite3_extended_errcode(m_db)), fmt::format("database error: {}: {}", what, sqlite3_errmsg(m_db)));
  }
  sqlite3* m_db;
};

}  // namespace

std::unique_ptr<Connection> sqlite_connection(sqlite3* db) { return std::make_unique<SqliteConnection>(db); }

}  // namespace ouro::store
