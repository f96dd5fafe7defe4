// The engine-neutral parts of the SQL layer (store/sql.h) that need no server: a Row's getters
// converting between the stored types, the parameters' conversions, `?N` rewritten as `$N` on
// hostile and unfinished text, the PostgreSQL URL helpers (what libpq is given, what people are
// shown), and migrate()'s decisions on an in-memory SQLite database: an `apply` step inside its
// migration's transaction, a failure tried again, modules versioned apart, a connection's cache.
#include "store/sql.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ouro::store {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// --- Row ------------------------------------------------------------------------------------------

TEST(SqlRow, GettersConvertBetweenTheStoredTypes) {
  const Row row(std::vector<Value>{Value{int64_t{42}}, Value{2.75}, Value{std::string("17")}, Value{Bytes{"raw"}}, Value{}});
  ASSERT_EQ(row.size(), 5u);

  EXPECT_EQ(row.text(0), "42");
  EXPECT_EQ(row.text(1), "2.75");
  EXPECT_EQ(row.text(2), "17");
  EXPECT_EQ(row.text(3), "raw") << "bytes read as text are their bytes";
  EXPECT_EQ(row.text(4), "") << "NULL reads as \"\"";

  EXPECT_EQ(row.int64(0), 42);
  EXPECT_EQ(row.int64(1), 2) << "a real read as an integer is cut toward zero";
  EXPECT_EQ(row.int64(2), 17) << "text holding a number reads as that number";
  EXPECT_EQ(row.int64(4), 0);
  EXPECT_EQ(row.integer(0), 42);

  EXPECT_EQ(row.real(0), 42.0);
  EXPECT_EQ(row.real(1), 2.75);
  EXPECT_EQ(row.real(2), 17.0);
  EXPECT_EQ(row.real(4), 0.0);

  EXPECT_EQ(row.bytes(3), "raw");
  EXPECT_EQ(row.bytes(0), "42") << "a cell that is not bytes reads as its text";
  EXPECT_EQ(row.bytes(4), "");

  EXPECT_FALSE(row.is_null(0));
  EXPECT_TRUE(row.is_null(4));
  EXPECT_EQ(row.real_or_null(1), std::optional<double>(2.75));
  EXPECT_EQ(row.real_or_null(4), std::nullopt);

  const Row negative(std::vector<Value>{Value{-2.75}});
  EXPECT_EQ(negative.int64(0), -2) << "toward zero for a negative real too";
  EXPECT_EQ(negative.text(0), "-2.75");
}

// A reader that asks for a column the statement did not select gets NULL's values, not a crash.
TEST(SqlRow, ACellPastTheRowsEndReadsAsNull) {
  const Row empty(std::vector<Value>{});
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_TRUE(empty.is_null(0));
  const Row row(std::vector<Value>{Value{std::string("only")}});
  for (size_t i : {size_t{1}, size_t{7}, std::numeric_limits<size_t>::max()}) {
    SCOPED_TRACE(i);
    EXPECT_TRUE(row.is_null(i));
    EXPECT_EQ(row.text(i), "");
    EXPECT_EQ(row.bytes(i), "");
    EXPECT_EQ(row.int64(i), 0);
    EXPECT_EQ(row.integer(i), 0);
    EXPECT_EQ(row.real(i), 0.0);
    EXPECT_EQ(row.real_or_null(i), std::nullopt);
  }
}

TEST(SqlRow, TextThatIsNoNumberReadsAsZero) {
  const Row row(std::vector<Value>{Value{std::string("abc")}, Value{std::string("")}, Value{std::string("-5")},
                                   Value{std::string("9223372036854775807")}, Value{std::string("1e3")}, Value{std::string("-0.5")}});
  EXPECT_EQ(row.int64(0), 0);
  EXPECT_EQ(row.int64(1), 0);
  EXPECT_EQ(row.int64(2), -5);
  EXPECT_EQ(row.int64(3), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(row.real(0), 0.0);
  EXPECT_EQ(row.real(1), 0.0);
  EXPECT_EQ(row.real(4), 1000.0);
  EXPECT_EQ(row.real(5), -0.5);
  EXPECT_FALSE(row.is_null(1)) << "empty text is not NULL";
  EXPECT_EQ(row.real_or_null(1), std::optional<double>(0.0));
}

// A real outside int64's range reads as the nearest end, never the undefined conversion
// ([conv.fpint]; on x86-64 it gave INT64_MIN for both signs).
TEST(SqlRow, AHugeRealReadAsAnIntegerKeepsItsSign) {
  const Row row(std::vector<Value>{Value{1e300}, Value{-1e300}});
  EXPECT_GE(row.int64(0), 0) << "1e300 read as " << row.int64(0);
  EXPECT_LE(row.int64(1), 0) << "-1e300 read as " << row.int64(1);
}

// --- Parameters ----------------------------------------------------------------------------------

TEST(SqlParam, ConvertsFromTheUsualTypes) {
  EXPECT_TRUE(std::holds_alternative<std::monostate>(Param(nullptr).value));
  EXPECT_EQ(std::get<int64_t>(Param(true).value), 1);
  EXPECT_EQ(std::get<int64_t>(Param(false).value), 0);
  EXPECT_EQ(std::get<int64_t>(Param(-3).value), -3);
  EXPECT_EQ(std::get<int64_t>(Param(std::numeric_limits<long long>::min()).value), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(std::get<double>(Param(0.5).value), 0.5);
  EXPECT_EQ(std::get<std::string>(Param(std::string_view("view")).value), "view");
  EXPECT_EQ(std::get<Bytes>(Param(Bytes{"b"}).value).data, "b");
  EXPECT_TRUE(std::holds_alternative<std::monostate>(Param(std::optional<int64_t>()).value)) << "an empty optional is NULL";
  EXPECT_EQ(std::get<int64_t>(Param(std::optional<int64_t>(9)).value), 9);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(Param(std::optional<double>()).value));
  // A null C string is empty text (as std::string would be), not NULL.
  const char* none = nullptr;
  const Param from_null(none);
  ASSERT_TRUE(std::holds_alternative<std::string>(from_null.value));
  EXPECT_EQ(std::get<std::string>(from_null.value), "");
}

// --- ?N as $N (https://www.postgresql.org/docs/15/sql-syntax-lexical.html) -------------------------

TEST(SqlPostgresParameters, EveryNumberedPlaceholderIsRewrittenWhateverItsDigits) {
  EXPECT_EQ(to_postgres_parameters("SELECT ?1, ?10, ?2 + ?1"), "SELECT $1, $10, $2 + $1");
  EXPECT_EQ(to_postgres_parameters("x=?123456789"), "x=$123456789");
  EXPECT_EQ(to_postgres_parameters("??1"), "?$1") << "a ? not before a digit stays";
  EXPECT_EQ(to_postgres_parameters("a ? b ?x ?"), "a ? b ?x ?") << "JSONB's ? operator is no placeholder";
  EXPECT_EQ(to_postgres_parameters(""), "");
}

// A statement cut short (an unterminated literal, identifier or comment, a trailing ?) is
// copied to its end as it is, never read past.
TEST(SqlPostgresParameters, UnfinishedQuotesCommentsAndPlaceholdersAreCopiedAsTheyAre) {
  for (const std::string sql : {"SELECT 'abc ?1", "SELECT \"col ?1", "SELECT 1 -- ?1", "SELECT ?", "'", "\"", "--", "'it''", "?"}) {
    EXPECT_EQ(to_postgres_parameters(sql), sql);
  }
  EXPECT_EQ(to_postgres_parameters("SELECT ?1 -- ?2\n, ?3 'x''?4' \"y\"\"?5\" ?6"), "SELECT $1 -- ?2\n, $3 'x''?4' \"y\"\"?5\" $6");
}

TEST(SqlPostgresParameters, AMegabyteOfPlaceholdersIsRewrittenWhole) {
  std::string sql, want;
  for (int i = 0; i < 250000; ++i) {
    sql += "?" + std::to_string(i % 97 + 1) + ",";
    want += "$" + std::to_string(i % 97 + 1) + ",";
  }
  EXPECT_TRUE(to_postgres_parameters(sql) == want);
}

// --- PostgreSQL URLs (https://www.postgresql.org/docs/15/libpq-connect.html#LIBPQ-CONNSTRING) ----

TEST(PostgresUrl, OnlyLibpqsTwoSchemesNameAServer) {
  EXPECT_TRUE(is_postgres_url("postgresql://h/db"));
  EXPECT_TRUE(is_postgres_url("postgres://"));
  for (std::string_view target : {"", ":memory:", "/var/lib/ouro.db", "postgresql:/h/db", "postgresql", "sqlite:///x.db",
                                  "./postgres://h/db", " postgres://h/db"})
    EXPECT_FALSE(is_postgres_url(target)) << "'" << target << "'";
}

TEST(PostgresUrl, AConnectTimeoutIsAddedUnlessTheUrlSetsOne) {
  EXPECT_EQ(with_connect_timeout("postgresql://h/db"), "postgresql://h/db?connect_timeout=2");
  EXPECT_EQ(with_connect_timeout("postgresql://u@h:5432/db?sslmode=require"), "postgresql://u@h:5432/db?sslmode=require&connect_timeout=2");
  EXPECT_EQ(with_connect_timeout("postgresql://h/db?connect_timeout=30"), "postgresql://h/db?connect_timeout=30");
  EXPECT_EQ(with_connect_timeout("postgresql://h/db?sslmode=require&connect_timeout=0"), "postgresql://h/db?sslmode=require&connect_timeout=0");
}

// libpq accepts a URL whose query is empty ("…/db?") or ends with '&', but refuses an empty
// parameter ('missing key/value separator "="'): the timeout is added without making one.
TEST(PostgresUrl, TheTimeoutAddedToAnEmptyOrOpenQueryLeavesNoEmptyParameter) {
  for (const std::string url : {"postgresql://h/db?", "postgresql://h/db?sslmode=require&"}) {
    const std::string out = with_connect_timeout(url);
    EXPECT_FALSE(contains(out, "?&")) << out;
    EXPECT_FALSE(contains(out, "&&")) << out;
    EXPECT_TRUE(out.ends_with("connect_timeout=2")) << out;
  }
}

TEST(PostgresUrl, RedactionHidesThePasswordWhereverItSits) {
  EXPECT_EQ(redact_database_url("postgresql://u:p@ss@h/db"), "postgresql://u:***@h/db") << "an unencoded @ in the password";
  EXPECT_EQ(redact_database_url("postgresql://u:a:b@h/db"), "postgresql://u:***@h/db");
  EXPECT_EQ(redact_database_url("postgresql://u:pw@[::1]:5432/db"), "postgresql://u:***@[::1]:5432/db");
  EXPECT_EQ(redact_database_url("postgresql://u@[::1]:5432/db"), "postgresql://u@[::1]:5432/db") << "an IPv6 host's colons are no password";
  EXPECT_EQ(redact_database_url("postgresql://h/db?password=a&password=b"), "postgresql://h/db?password=***&password=***");
  EXPECT_EQ(redact_database_url("postgresql://h/db?password="), "postgresql://h/db?password=***");
  EXPECT_EQ(redact_database_url("postgresql://h/db?application_name=u@x:y"), "postgresql://h/db?application_name=u@x:y")
      << "an @ after the authority is no user information";
  EXPECT_EQ(redact_database_url("/var/lib/ouro.db"), "/var/lib/ouro.db");
  EXPECT_EQ(redact_database_url(""), "");
}

// libpq reads the user information up to the first '@' or '/', so "postgresql://u:s3cr?t@h/db"
// connects with the password "s3cr?t": a '?' or '#' in a password is hidden with it (and so the
// --database check, cli/flags.cpp, and the scrubbing of libpq's messages see it too).
TEST(PostgresUrl, APasswordHoldingAQuestionMarkOrHashIsHiddenToo) {
  for (const std::string url : {"postgresql://u:s3cr?tpw@h/db", "postgresql://u:pa#sspw@h:5432/db", "postgres://u:x?y#zpw@h/db?sslmode=require"}) {
    const std::string shown = redact_database_url(url);
    EXPECT_FALSE(contains(shown, "pw@")) << url << " is shown as " << shown;
    EXPECT_NE(shown, url) << url;
  }
}

// --- Migrations on SQLite -------------------------------------------------------------------------

// An in-memory SQLite database of the test's own and the engine's connection over it.
class SqlMigrations : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(sqlite3_open(":memory:", &handle), SQLITE_OK);
    c = sqlite_connection(handle);
  }
  void TearDown() override {
    c.reset();
    sqlite3_close(handle);
  }
  bool table_exists(const std::string& name) {
    auto r = c->exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", {name});
    return r && !r->empty();
  }
  int version(std::string_view module) {
    auto v = schema_version(*c, module);
    EXPECT_TRUE(v) << v.error().message;
    return v ? *v : -1;
  }
  sqlite3* handle = nullptr;
  std::unique_ptr<Connection> c;
};

Result<void> fill_table(Connection& c) {
  TRY(c.exec("INSERT INTO filled (n) SELECT count(*) FROM filled"));
  return {};
}

Result<void> refuse(Connection&) { return make_error(Code::FailedPrecondition, "the old column is missing"); }

int refusals_left = 0;
Result<void> refuse_once(Connection& c) {
  if (refusals_left > 0) {
    --refusals_left;
    return refuse(c);
  }
  return {};
}

TEST_F(SqlMigrations, AFreshDatabaseIsAtVersionZeroForAnyModule) {
  EXPECT_EQ(version("store"), 0);
  EXPECT_EQ(version(""), 0);
  EXPECT_TRUE(table_exists("schema_migrations"));
}

// `apply` runs after its migration's statements, in the same transaction: it sees what they made.
TEST_F(SqlMigrations, AnApplyStepSeesWhatItsMigrationsStatementsMade) {
  const Migration list[] = {{1, "CREATE TABLE filled (n INTEGER)", "CREATE TABLE filled (n BIGINT)", fill_table}};
  auto done = migrate(*c, "demo", list);
  ASSERT_TRUE(done) << done.error().message;
  auto r = c->exec("SELECT n FROM filled");
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].int64(0), 0);
  EXPECT_EQ(version("demo"), 1);
}

// An apply step that fails takes its migration's statements with it, keeps its code, and says
// which module and version failed on which engine.
TEST_F(SqlMigrations, AFailingApplyStepRollsItsMigrationBackAndSaysWhich) {
  const Migration list[] = {{1, "CREATE TABLE made_by_one (a INTEGER)", "CREATE TABLE made_by_one (a BIGINT)", refuse}};
  auto failed = migrate(*c, "demo", list);
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code, Code::FailedPrecondition);
  EXPECT_TRUE(contains(failed.error().message, "cannot migrate demo's tables to version 1 on SQLite: the old column is missing"))
      << failed.error().message;
  EXPECT_FALSE(table_exists("made_by_one")) << "the migration's statement was rolled back";
  EXPECT_EQ(version("demo"), 0);
  EXPECT_TRUE(sqlite3_get_autocommit(handle)) << "no transaction is left open";
}

// A migration that failed is not remembered as done on the connection: the next call runs it.
TEST_F(SqlMigrations, AFailedMigrationIsTriedAgainByTheNextCall) {
  refusals_left = 1;
  const Migration list[] = {{1, "CREATE TABLE tried (a INTEGER)", "CREATE TABLE tried (a BIGINT)", refuse_once}};
  ASSERT_FALSE(migrate(*c, "retry", list));
  EXPECT_FALSE(table_exists("tried"));
  auto again = migrate(*c, "retry", list);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_TRUE(table_exists("tried"));
  EXPECT_EQ(version("retry"), 1);
}

// Versions are per module: one module's migrations neither skip nor repeat another's, whatever
// its name.
TEST_F(SqlMigrations, ModulesAreVersionedApart) {
  const std::string hostile = "x'); DROP TABLE schema_migrations;--";
  const Migration two[] = {{1, "CREATE TABLE a1 (n INTEGER)", "CREATE TABLE a1 (n BIGINT)"},
                           {2, "CREATE TABLE a2 (n INTEGER)", "CREATE TABLE a2 (n BIGINT)"}};
  const Migration one[] = {{1, "CREATE TABLE b1 (n INTEGER)", "CREATE TABLE b1 (n BIGINT)"}};
  ASSERT_TRUE(migrate(*c, "a", two));
  ASSERT_TRUE(migrate(*c, hostile, one));
  EXPECT_EQ(version("a"), 2);
  EXPECT_EQ(version(hostile), 1);
  EXPECT_EQ(version("b"), 0);
  EXPECT_TRUE(table_exists("a2"));
  EXPECT_TRUE(table_exists("b1"));
  EXPECT_TRUE(table_exists("schema_migrations"));
}

// Once a module has migrated on a connection, migrate() is a no-op there (store/database.h:
// "a no-op after the first success"): a longer list is read by the next connection, not this one.
TEST_F(SqlMigrations, AModuleMigratedOnAConnectionIsNotLookedAtAgainThere) {
  const Migration v1[] = {{1, "CREATE TABLE t (n INTEGER)", "CREATE TABLE t (n BIGINT)"}};
  const Migration v2[] = {{1, "CREATE TABLE t (n INTEGER)", "CREATE TABLE t (n BIGINT)"},
                          {2, "CREATE TABLE t2 (n INTEGER)", "CREATE TABLE t2 (n BIGINT)"}};
  ASSERT_TRUE(migrate(*c, "demo", v1));
  ASSERT_TRUE(migrate(*c, "demo", v2));
  EXPECT_EQ(version("demo"), 1);
  EXPECT_FALSE(table_exists("t2"));
  auto fresh = sqlite_connection(handle);  // a new process's connection on the same database
  auto done = migrate(*fresh, "demo", v2);
  ASSERT_TRUE(done) << done.error().message;
  EXPECT_EQ(version("demo"), 2);
  EXPECT_TRUE(table_exists("t2"));
}

}  // namespace
}  // namespace ouro::store
