// The backend-neutral SQL layer: one Connection interface with two engines behind it, the
// embedded SQLite file (the default) and a PostgreSQL server (libpqxx). A module writes its SQL
// once, with numbered parameters `?1`, `?2`, … (SQLite's own form; translated to PostgreSQL's
// `$1`, `$2`, … — https://www.postgresql.org/docs/15/sql-syntax-lexical.html#SQL-SYNTAX-SPECIAL-CHARS),
// and branches on engine() only where the dialects differ (full-text search, DDL types).
//
// Types: write DDL per engine (see Migration): SQLite's INTEGER/REAL/TEXT become PostgreSQL's
// BIGINT/DOUBLE PRECISION/TEXT. Values come back typed (Row's getters convert between integer,
// real and text), so the same reading code serves both.
//
// A Connection is not thread-safe: Database serialises its users with a mutex (with_sql).
#pragma once

#include "base/error.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

struct sqlite3;

namespace ouro::store {

enum class Engine { Sqlite, Postgres };
std::string_view engine_name(Engine engine);

// Binary data: an SQLite BLOB, a PostgreSQL bytea (sent and read in its hex form,
// https://www.postgresql.org/docs/15/datatype-binary.html#id-1.5.7.12.9).
struct Bytes {
  std::string data;
};

// One cell or parameter: NULL (monostate), an integer, a real, text or bytes.
using Value = std::variant<std::monostate, int64_t, double, std::string, Bytes>;

// A statement parameter; converts implicitly from the usual C++ types.
struct Param {
  Value value;
  Param(std::nullptr_t) {}
  Param(int v) : value(int64_t{v}) {}
  Param(long v) : value(int64_t{v}) {}
  Param(long long v) : value(static_cast<int64_t>(v)) {}
  Param(bool v) : value(int64_t{v ? 1 : 0}) {}
  Param(double v) : value(v) {}
  Param(std::string v) : value(std::move(v)) {}
  Param(std::string_view v) : value(std::string(v)) {}
  Param(const char* v) : value(std::string(v ? v : "")) {}
  Param(Bytes v) : value(std::move(v)) {}
  Param(std::optional<double> v) {
    if (v) value = *v;
  }
  Param(std::optional<int64_t> v) {
    if (v) value = *v;
  }
};
// NULL for an empty string, else the text (columns where "" means "not set").
Param text_or_null(std::string_view v);

// One result row. Getters convert between the stored types; NULL reads as 0 / 0.0 / "".
class Row {
 public:
  explicit Row(std::vector<Value> cells) : m_cells(std::move(cells)) {}
  size_t size() const { return m_cells.size(); }
  bool is_null(size_t i) const;
  std::string text(size_t i) const;
  int64_t int64(size_t i) const;
  int integer(size_t i) const { return static_cast<int>(int64(i)); }
  double real(size_t i) const;
  std::optional<double> real_or_null(size_t i) const;
  // A BLOB or bytea cell's bytes (text reads as its bytes); "" for NULL.
  std::string bytes(size_t i) const;

 private:
  std::vector<Value> m_cells;
};

struct Rows {
  std::vector<Row> rows;
  int64_t affected = 0;  // rows an INSERT/UPDATE/DELETE changed
  bool empty() const { return rows.empty(); }
  size_t size() const { return rows.size(); }
  const Row& operator[](size_t i) const { return rows[i]; }
  auto begin() const { return rows.begin(); }
  auto end() const { return rows.end(); }
};

class Connection {
 public:
  virtual ~Connection() = default;
  virtual Engine engine() const = 0;

  // Runs one statement with parameters ?1…?N (params[0] is ?1) and returns its rows. Errors carry
  // a code by kind: AlreadyExists for a unique or primary-key violation, Unavailable when the
  // server or file cannot be reached or is busy, Aborted for a serialization failure or deadlock
  // (retry the transaction), Internal otherwise; the message names the engine's reason.
  virtual Result<Rows> exec(std::string_view sql, std::span<const Param> params) = 0;
  Result<Rows> exec(std::string_view sql, std::initializer_list<Param> params = {}) {
    return exec(sql, std::span<const Param>(params.begin(), params.size()));
  }
  // Runs several statements without parameters or rows (a schema).
  virtual Result<void> exec_script(std::string_view sql) = 0;

  // Transactions: begin() takes the write lock at once on SQLite (BEGIN IMMEDIATE), so two
  // writers never deadlock upgrading a read lock; PostgreSQL's BEGIN is READ COMMITTED.
  virtual Result<void> begin() = 0;
  virtual Result<void> commit();
  virtual Result<void> rollback();
  // Runs f() (returning a Result) inside a transaction: committed when f succeeds, rolled back
  // when it fails or the commit does.
  template <class F>
  auto transaction(F&& f) -> decltype(f()) {
    TRY(begin());
    auto r = f();
    if (!r) {
      (void)rollback();  // best effort: the error that matters is f's
      return r;
    }
    if (auto c = commit(); !c) {
      (void)rollback();
      return tl::unexpected<Error>(c.error());
    }
    return r;
  }

  // For migrate(): the modules whose migrations ran on this connection already.
  std::set<std::string, std::less<>>& migrated() { return m_migrated; }

 private:
  std::set<std::string, std::less<>> m_migrated;
};

// SQLite's `?N` parameters as PostgreSQL's `$N`, leaving string literals, quoted identifiers and
// comments alone. Pure.
std::string to_postgres_parameters(std::string_view sql);

// A connection over an open SQLite handle, which the caller keeps open and closes after the
// connection is gone.
std::unique_ptr<Connection> sqlite_connection(sqlite3* db);

// A connection to a PostgreSQL server named by a libpq URI (postgresql://[user[:password]@][host][:port][/dbname][?param=value…],
// https://www.postgresql.org/docs/15/libpq-connect.html#LIBPQ-CONNSTRING). Without a password
// there, libpq takes PGPASSWORD or ~/.pgpass as usual. Errors never show the password: they name
// the URL as redact_database_url gives it. Unavailable when the server cannot be reached,
// Unauthenticated when it refuses the credentials.
//
// The connection outlives the server's restarts and stalls (docs/guides/postgresql.md, "When the
// database restarts"):
//  * every statement has a deadline (kPostgresStatementDeadline): a server that stops answering
//    (a stopped process, a network that drops packets) fails the statement with Unavailable at the
//    deadline — the socket is shut down under libpq — instead of holding its caller for ever;
//  * a lost connection is opened again by the next statement, no sooner than a backoff that starts
//    at 100 ms and doubles to at most kPostgresReconnectMax; statements meanwhile fail at once with
//    Unavailable; connecting waits at most connect_timeout (2 s unless the URL sets it);
//  * after each (re)connection, `setup` runs first (session settings that must hold on every
//    connection); a setup that fails counts as a failed connection;
//  * a connection lost inside a transaction is not opened again until the caller rolls back: a
//    statement after begin() never runs outside the transaction it was meant for.
// The URL with libpq's connect_timeout (2 s) unless it sets one: a server that accepts the socket
// but never answers (a stopped process) fails the attempt instead of holding it for ever
// (https://www.postgresql.org/docs/15/libpq-connect.html#LIBPQ-CONNECT-CONNECT-TIMEOUT).
std::string with_connect_timeout(const std::string& url);
inline constexpr std::chrono::milliseconds kPostgresStatementDeadline{5000};
inline constexpr std::chrono::milliseconds kPostgresReconnectMax{2000};
Result<std::unique_ptr<Connection>> postgres_connection(const std::string& url, std::function<Result<void>(Connection&)> setup = {});

// Whether target names a PostgreSQL server (postgresql:// or postgres://) rather than a file.
bool is_postgres_url(std::string_view target);
// The URL with its password (userinfo or a password= parameter) replaced by "***": what logs,
// errors and status lines show.
std::string redact_database_url(std::string_view url);

// --- Versioned migrations --------------------------------------------------------------------
// Each module lists its schema changes in order; migrate() applies those newer than the
// module's row in `schema_migrations` (module, version, applied_at), each in a transaction with
// its row, so a crash leaves a schema at one version or the next. On PostgreSQL a transaction-level
// advisory lock serialises nodes migrating at once (https://www.postgresql.org/docs/15/explicit-locking.html#ADVISORY-LOCKS).
struct Migration {
  int version = 0;  // 1, 2, … in order
  std::string_view sqlite;    // statements for SQLite (may be empty when apply does the work)
  std::string_view postgres;  // statements for PostgreSQL
  // Optional: runs after the statements, in the same transaction, for changes that depend on what
  // is there (e.g. a column older files already have).
  Result<void> (*apply)(Connection&) = nullptr;
};
Result<void> migrate(Connection& c, std::string_view module, std::span<const Migration> migrations);
// The newest version of module's schema on this database, 0 when none.
Result<int> schema_version(Connection& c, std::string_view module);

}  // namespace ouro::store
