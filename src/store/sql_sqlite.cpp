// The SQLite engine of the neutral SQL layer (store/sql.h): https://www.sqlite.org/c3ref/intro.html
#include "store/sql.h"

#include <sqlite3.h>

namespace ouro::store {

namespace {

// The error's code by SQLite's extended result code (https://www.sqlite.org/rescode.html): a
// uniqueness conflict by its extended code, the rest by their primary one (its low byte).
Code code_of(int rc) {
  if (rc == SQLITE_CONSTRAINT_UNIQUE || rc == SQLITE_CONSTRAINT_PRIMARYKEY) return Code::AlreadyExists;
  switch (rc & 0xFF) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_CANTOPEN:
    case SQLITE_IOERR: return Code::Unavailable;
    case SQLITE_TOOBIG: return Code::InvalidArgument;
    default: return Code::Internal;
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
    if (!raw) return Rows{};  // only white space or a comment: nothing to run
    std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> st(raw, sqlite3_finalize);
    for (size_t i = 0; i < params.size(); ++i) {
      int at = static_cast<int>(i + 1);
      const Value& v = params[i].value;
      // A value SQLite cannot take (over its length limit) is refused, not stored as NULL.
      auto too_big = [&](size_t size) { return size > static_cast<size_t>(sqlite3_limit(m_db, SQLITE_LIMIT_LENGTH, -1)); };
      int rc = SQLITE_OK;
      if (auto* n = std::get_if<int64_t>(&v)) rc = sqlite3_bind_int64(raw, at, *n);
      else if (auto* d = std::get_if<double>(&v)) rc = sqlite3_bind_double(raw, at, *d);
      else if (auto* s = std::get_if<std::string>(&v)) rc = too_big(s->size()) ? SQLITE_TOOBIG : sqlite3_bind_text64(raw, at, s->data(), s->size(), SQLITE_TRANSIENT, SQLITE_UTF8);
      else if (auto* b = std::get_if<Bytes>(&v)) rc = too_big(b->data.size()) ? SQLITE_TOOBIG : sqlite3_bind_blob64(raw, at, b->data.data(), b->data.size(), SQLITE_TRANSIENT);
      else rc = sqlite3_bind_null(raw, at);
      if (rc == SQLITE_TOOBIG)
        return errorf(Code::InvalidArgument, "database error: value {} of a statement is over the database's limit of {} bytes", at,
                      sqlite3_limit(m_db, SQLITE_LIMIT_LENGTH, -1));
      if (rc != SQLITE_OK) return make_error(code_of(rc), fmt::format("database error: cannot bind value {} of a statement: {}", at, sqlite3_errstr(rc)));
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
    // A read reports no rows changed, not the count of the last write before it.
    out.affected = sqlite3_stmt_readonly(raw) ? 0 : sqlite3_changes64(m_db);
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
