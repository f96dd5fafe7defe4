// The SQLite engine of the SQL layer (store/sql.h's sqlite_connection) and the prepared-statement
// helpers for code on the raw handle (store/statement.h), on a real SQLite database: numbered
// placeholders, values back with their types, hostile strings, NUL bytes and invalid UTF-8 stored
// and read back byte for byte, bad SQL and constraint violations as error values with their codes,
// a locked-out writer as Unavailable, transactions that commit or roll back whole, SQLite's length
// limit, and statements finalized on every path.
#include "store/sql.h"
#include "store/statement.h"

#include "basics.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace ouro::store {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// An SQLite handle on a file of its own and the engine's connection over it.
class SqliteEngine : public ::testing::Test {
 protected:
  void SetUp() override {
    path = testing::temp_dir() + "/engine.db";
    ASSERT_EQ(sqlite3_open(path.c_str(), &handle), SQLITE_OK);
    c = sqlite_connection(handle);
    ASSERT_EQ(c->engine(), Engine::Sqlite);
    ASSERT_TRUE(c->exec_script("CREATE TABLE notes (id INTEGER PRIMARY KEY, v, tag TEXT UNIQUE, must TEXT NOT NULL DEFAULT 'x')"));
  }
  void TearDown() override {
    c.reset();
    EXPECT_EQ(sqlite3_close(handle), SQLITE_OK) << "a statement was left unfinalized on the handle";
  }
  // What the handle has prepared and not finalized.
  int open_statements() const {
    int n = 0;
    for (sqlite3_stmt* s = sqlite3_next_stmt(handle, nullptr); s; s = sqlite3_next_stmt(handle, s)) ++n;
    return n;
  }
  std::string path;
  sqlite3* handle = nullptr;
  std::unique_ptr<Connection> c;
};

// --- Placeholders and values ----------------------------------------------------------------------

TEST_F(SqliteEngine, NumberedPlaceholdersTakeTheirParameterWhateverTheOrder) {
  auto r = c->exec("SELECT ?2, ?1, ?2 || ?2", {"first", "second"});
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].text(0), "second");
  EXPECT_EQ((*r)[0].text(1), "first");
  EXPECT_EQ((*r)[0].text(2), "secondsecond") << "one parameter used twice";
}

TEST_F(SqliteEngine, ValuesComeBackWithTheirTypes) {
  const int64_t big = std::numeric_limits<int64_t>::max(), small = std::numeric_limits<int64_t>::min();
  auto r = c->exec("SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, typeof(?5), typeof(?6), typeof(?8)",
                   {big, small, 0.1, true, nullptr, std::optional<double>(), Bytes{"raw"}, ""});
  ASSERT_TRUE(r) << r.error().message;
  const Row& row = (*r)[0];
  EXPECT_EQ(row.int64(0), big) << "no trip through a double";
  EXPECT_EQ(row.int64(1), small);
  EXPECT_EQ(row.real(2), 0.1);
  EXPECT_EQ(row.int64(3), 1) << "true is 1";
  EXPECT_TRUE(row.is_null(4));
  EXPECT_FALSE(row.real_or_null(4).has_value());
  EXPECT_TRUE(row.is_null(5)) << "an empty optional is NULL";
  EXPECT_EQ(row.bytes(6), "raw");
  EXPECT_FALSE(row.is_null(7)) << "an empty string is not NULL";
  EXPECT_EQ(row.text(7), "");
  EXPECT_EQ(row.text(8), "null");
  EXPECT_EQ(row.text(9), "null");
  EXPECT_EQ(row.text(10), "text");
}

TEST_F(SqliteEngine, TextOrNullStoresNullOnlyForTheEmptyString) {
  ASSERT_TRUE(c->exec("INSERT INTO notes (id, v) VALUES (1, ?1), (2, ?2)", {text_or_null(""), text_or_null("set")}));
  auto r = c->exec("SELECT typeof(v), v FROM notes ORDER BY id");
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].text(0), "null");
  EXPECT_EQ((*r)[1].text(0), "text");
  EXPECT_EQ((*r)[1].text(1), "set");
}

TEST_F(SqliteEngine, HostileStringsAreStoredAndReadBackByteForByte) {
  const std::vector<std::string> hostile = {
      "Robert'); DROP TABLE notes;--",
      "\"double\" 'single' `back` \\ backslash '' \"\"",
      std::string("a\0b\0", 4),
      std::string(1, '\0'),
      "\xff\xfe not UTF-8 \xc3",
      "?1 ?2 $1 :name @x ?",
      "ünïcödé — 🙂",
      "\r\n\t\x1b[31m",
      "",
  };
  for (size_t i = 0; i < hostile.size(); ++i) {
    const std::string& s = hostile[i];
    SCOPED_TRACE(i);
    ASSERT_TRUE(c->exec("INSERT INTO notes (id, v) VALUES (?1, ?2)", {static_cast<int64_t>(i + 1), s}));
    auto r = c->exec("SELECT v, typeof(v), length(CAST(v AS BLOB)) FROM notes WHERE id = ?1", {static_cast<int64_t>(i + 1)});
    ASSERT_TRUE(r) << r.error().message;
    ASSERT_EQ(r->size(), 1u);
    EXPECT_EQ((*r)[0].text(0), s);
    EXPECT_EQ((*r)[0].text(1), "text");
    EXPECT_EQ((*r)[0].int64(2), static_cast<int64_t>(s.size())) << "every byte is stored, NULs included";
    auto same = c->exec("SELECT id FROM notes WHERE v = ?1", {s});
    ASSERT_TRUE(same) << same.error().message;
    ASSERT_EQ(same->size(), 1u) << "the value matches itself and no other";
    EXPECT_EQ((*same)[0].int64(0), static_cast<int64_t>(i + 1));
  }
  auto count = c->exec("SELECT count(*) FROM notes");
  ASSERT_TRUE(count) << "the table is still there";
  EXPECT_EQ((*count)[0].int64(0), static_cast<int64_t>(hostile.size()));
}

TEST_F(SqliteEngine, EveryByteValueSurvivesAsBytes) {
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  all += all;  // NUL in the middle, not only at the start
  ASSERT_TRUE(c->exec("INSERT INTO notes (id, v) VALUES (1, ?1)", {Bytes{all}}));
  auto r = c->exec("SELECT v, typeof(v) FROM notes WHERE id = 1");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ((*r)[0].bytes(0), all);
  EXPECT_EQ((*r)[0].text(1), "blob");
  auto empty = c->exec("SELECT ?1, typeof(?1)", {Bytes{}});
  ASSERT_TRUE(empty) << empty.error().message;
  EXPECT_EQ((*empty)[0].bytes(0), "");
  EXPECT_EQ((*empty)[0].text(1), "blob") << "empty bytes are a zero-length BLOB, not NULL";
}

TEST_F(SqliteEngine, ALargeValueRoundTripsWhole) {
  std::string big(8u << 20, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>('a' + i % 26);
  big[big.size() / 2] = '\0';
  ASSERT_TRUE(c->exec("INSERT INTO notes (id, v) VALUES (1, ?1)", {big}));
  auto r = c->exec("SELECT v FROM notes WHERE id = 1");
  ASSERT_TRUE(r) << r.error().message;
  const std::string back = (*r)[0].text(0);
  ASSERT_EQ(back.size(), big.size());
  EXPECT_TRUE(back == big);
}

// --- Errors as values -----------------------------------------------------------------------------

TEST_F(SqliteEngine, BadSqlIsAnErrorNamingSqlitesReason) {
  auto syntax = c->exec("SELEC 1");
  ASSERT_FALSE(syntax);
  EXPECT_EQ(syntax.error().code, Code::Internal);
  EXPECT_TRUE(contains(syntax.error().message, "syntax error")) << syntax.error().message;
  auto table = c->exec("SELECT * FROM nope WHERE x = ?1", {1});
  ASSERT_FALSE(table);
  EXPECT_TRUE(contains(table.error().message, "no such table: nope")) << table.error().message;
  auto script = c->exec_script("CREATE TABLE ok1 (a); CREATE TABLE broken (; CREATE TABLE ok2 (a)");
  ASSERT_FALSE(script);
  EXPECT_TRUE(contains(script.error().message, "syntax error")) << script.error().message;
  EXPECT_FALSE(c->exec("SELECT * FROM ok2")) << "a script stops at its first error";
  EXPECT_EQ(open_statements(), 0);
}

TEST_F(SqliteEngine, AUniqueOrPrimaryKeyViolationIsAlreadyExists) {
  ASSERT_TRUE(c->exec("INSERT INTO notes (id, tag) VALUES (1, 'a')"));
  auto key = c->exec("INSERT INTO notes (id, tag) VALUES (1, 'b')");
  ASSERT_FALSE(key);
  EXPECT_EQ(key.error().code, Code::AlreadyExists) << key.error().message;
  auto unique = c->exec("INSERT INTO notes (id, tag) VALUES (2, ?1)", {"a"});
  ASSERT_FALSE(unique);
  EXPECT_EQ(unique.error().code, Code::AlreadyExists) << unique.error().message;
  auto in_script = c->exec_script("INSERT INTO notes (id, tag) VALUES (3, 'c'); INSERT INTO notes (id, tag) VALUES (4, 'a')");
  ASSERT_FALSE(in_script);
  EXPECT_EQ(in_script.error().code, Code::AlreadyExists) << in_script.error().message;
  // Another constraint is no duplicate: retrying under another key would not help.
  auto not_null = c->exec("INSERT INTO notes (id, must) VALUES (5, NULL)");
  ASSERT_FALSE(not_null);
  EXPECT_EQ(not_null.error().code, Code::Internal) << not_null.error().message;
  EXPECT_TRUE(contains(not_null.error().message, "NOT NULL")) << not_null.error().message;
  EXPECT_EQ(open_statements(), 0) << "statements are finalized on the error path";
}

TEST_F(SqliteEngine, AWriterLockedOutByAnotherConnectionIsUnavailableAtOnce) {
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &other), SQLITE_OK);
  {
    auto second = sqlite_connection(other);
    ASSERT_TRUE(second->begin());
    ASSERT_TRUE(second->exec("INSERT INTO notes (id) VALUES (1)"));
    auto busy = c->begin();  // no busy timeout on this handle: SQLite answers at once
    ASSERT_FALSE(busy);
    EXPECT_EQ(busy.error().code, Code::Unavailable) << busy.error().message;
    ASSERT_TRUE(second->rollback());
  }
  sqlite3_close(other);
  EXPECT_TRUE(c->begin()) << "free again once the other writer is done";
  EXPECT_TRUE(c->rollback());
}

TEST_F(SqliteEngine, AResultOverSqlitesLengthLimitIsAnError) {
  sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, 1000);
  auto r = c->exec("SELECT zeroblob(2000)");
  ASSERT_FALSE(r);
  EXPECT_TRUE(contains(r.error().message, "too big")) << r.error().message;
  EXPECT_TRUE(c->exec("SELECT zeroblob(900)")) << "under the limit is fine";
}

// A parameter over SQLITE_LIMIT_LENGTH makes SQLite's bind fail: the statement is refused, saying
// so, rather than run with the parameter left NULL.
TEST_F(SqliteEngine, AParameterOverSqlitesLengthLimitIsRefusedNotStoredAsNull) {
  sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, 1000);
  const std::string value(2000, 'v');
  auto r = c->exec("INSERT INTO notes (id, v) VALUES (1, ?1)", {value});
  ASSERT_FALSE(r) << "the insert ran";
  EXPECT_EQ(r.error().code, Code::InvalidArgument);
  EXPECT_TRUE(contains(r.error().message, "limit of 1000 bytes")) << r.error().message;
  auto back = c->exec("SELECT count(*) FROM notes");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ((*back)[0].integer(0), 0) << "nothing stored";
  EXPECT_TRUE(c->exec("INSERT INTO notes (id, v) VALUES (1, ?1)", {std::string(900, 'v')})) << "under the limit is fine";
}

// A statement of only white space or a comment runs nothing and is no error.
TEST_F(SqliteEngine, AStatementOfNothingRunsNothing) {
  for (std::string sql : {"", "   ", "-- a comment only"}) {
    auto r = c->exec(sql);
    ASSERT_TRUE(r) << "'" << sql << "': " << r.error().message;
    EXPECT_TRUE(r->rows.empty());
  }
}

// --- Rows changed, one statement, transactions ----------------------------------------------------

TEST_F(SqliteEngine, AffectedCountsTheRowsAStatementChanged) {
  ASSERT_TRUE(c->exec("INSERT INTO notes (id, v) VALUES (1, 'a'), (2, 'a'), (3, 'b')"));
  auto updated = c->exec("UPDATE notes SET v = 'c' WHERE v = ?1", {"a"});
  ASSERT_TRUE(updated) << updated.error().message;
  EXPECT_EQ(updated->affected, 2);
  auto none = c->exec("DELETE FROM notes WHERE id = ?1", {99});
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_EQ(none->affected, 0) << "nothing deleted reads as nothing, not the last statement's count";
  auto one = c->exec("DELETE FROM notes WHERE id = ?1", {3});
  ASSERT_TRUE(one);
  EXPECT_EQ(one->affected, 1);
  auto read = c->exec("SELECT * FROM notes");
  ASSERT_TRUE(read);
  EXPECT_EQ(read->affected, 0) << "a read changes nothing, whatever the write before it did";
}

TEST_F(SqliteEngine, OnlyOneStatementRunsThroughExec) {
  ASSERT_TRUE(c->exec("INSERT INTO notes (id) VALUES (1)"));
  (void)c->exec("DELETE FROM notes WHERE id = 99; DROP TABLE notes");  // either refused or the first alone
  auto r = c->exec("SELECT count(*) FROM notes");
  ASSERT_TRUE(r) << "the statement after the first ran: " << r.error().message;
  EXPECT_EQ((*r)[0].int64(0), 1);
}

TEST_F(SqliteEngine, ATransactionCommitsWholeOrRollsBackWhole) {
  auto failed = c->transaction([&]() -> Result<void> {
    TRY(c->exec("INSERT INTO notes (id) VALUES (1)"));
    TRY(c->exec("INSERT INTO notes (id) VALUES (1)"));  // a duplicate: the whole transaction goes
    return {};
  });
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code, Code::AlreadyExists) << "the failing statement's code reaches the caller";
  EXPECT_TRUE(sqlite3_get_autocommit(handle)) << "no transaction is left open";
  EXPECT_EQ((*c->exec("SELECT count(*) FROM notes"))[0].int64(0), 0);

  auto done = c->transaction([&]() -> Result<int> {
    TRY(c->exec("INSERT INTO notes (id) VALUES (1)"));
    TRY(c->exec("INSERT INTO notes (id) VALUES (2)"));
    return 2;
  });
  ASSERT_TRUE(done) << done.error().message;
  EXPECT_EQ(*done, 2);
  EXPECT_TRUE(sqlite3_get_autocommit(handle));
  // Committed: another connection on the file sees both rows.
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &other), SQLITE_OK);
  {
    auto reader = sqlite_connection(other);
    auto r = reader->exec("SELECT count(*) FROM notes");
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ((*r)[0].int64(0), 2);
  }
  sqlite3_close(other);
}

// --- The statement helpers (store/statement.h) ---------------------------------------------------

TEST_F(SqliteEngine, PrepareGivesAStatementOrSqlitesReason) {
  auto ok = prepare(handle, "SELECT 1");
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_NE(ok->s, nullptr);
  auto bad = prepare(handle, "SELECT v FROM nope");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, Code::Internal);
  EXPECT_TRUE(contains(bad.error().message, "cannot prepare a statement")) << bad.error().message;
  EXPECT_TRUE(contains(bad.error().message, "no such table: nope")) << bad.error().message;
  // Only the given bytes are read: SQL in a larger buffer ends where the view ends.
  const std::string buffer = "SELECT 7 garbage that is not SQL";
  auto cut = prepare(handle, std::string_view(buffer).substr(0, 8));
  ASSERT_TRUE(cut) << cut.error().message;
  ASSERT_EQ(sqlite3_step(cut->s), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(cut->s, 0), 7);
}

TEST_F(SqliteEngine, AStatementIsFinalizedWhenItsOwnerGoes) {
  {
    Stmt first = prepare(handle, "SELECT ?1").value();
    EXPECT_EQ(open_statements(), 1);
    Stmt moved(std::move(first));
    EXPECT_EQ(first.s, nullptr);
    EXPECT_EQ(open_statements(), 1) << "moving does not finalize or copy";
    bind(moved.s, 1, std::string_view("still usable"));
    ASSERT_EQ(sqlite3_step(moved.s), SQLITE_ROW);
    EXPECT_EQ(text(moved.s, 0), "still usable");
  }
  EXPECT_EQ(open_statements(), 0);
}

TEST_F(SqliteEngine, BindingAStdStringBindsItRatherThanStdBind) {
  Stmt st = prepare(handle, "SELECT ?1, typeof(?1)").value();
  const std::string value = "bound";
  bind(st.s, 1, value);  // unqualified, as callers write it: std::bind must not win by ADL
  ASSERT_EQ(sqlite3_step(st.s), SQLITE_ROW);
  EXPECT_EQ(text(st.s, 0), "bound");
  EXPECT_EQ(text(st.s, 1), "text");
}

TEST_F(SqliteEngine, AnEmptyViewBindsEmptyTextAndBindOrNullBindsNull) {
  Stmt st = prepare(handle, "SELECT typeof(?1), typeof(?2), typeof(?3), ?3").value();
  bind(st.s, 1, std::string_view());  // no data pointer at all
  bind_or_null(st.s, 2, "");
  bind_or_null(st.s, 3, "given");
  ASSERT_EQ(sqlite3_step(st.s), SQLITE_ROW);
  EXPECT_EQ(text(st.s, 0), "text") << "\"\" is not NULL";
  EXPECT_EQ(text(st.s, 1), "null");
  EXPECT_EQ(text(st.s, 2), "text");
  EXPECT_EQ(text(st.s, 3), "given");
}

TEST_F(SqliteEngine, TextKeepsNulBytesAndReadsNullAsEmpty) {
  Stmt st = prepare(handle, "SELECT ?1, NULL").value();
  const std::string with_nuls("x\0y\0z", 5);
  bind(st.s, 1, with_nuls);
  ASSERT_EQ(sqlite3_step(st.s), SQLITE_ROW);
  EXPECT_EQ(text(st.s, 0), with_nuls);
  EXPECT_EQ(text(st.s, 1), "");
}

TEST_F(SqliteEngine, ExecAndFinishedReadingSayWhatFailed) {
  EXPECT_TRUE(exec(handle, "CREATE TABLE more (a); CREATE INDEX more_a ON more (a)", "make the tables"));
  auto bad = exec(handle, "CREATE TABLE more (a)", "make the tables");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, Code::Internal);
  EXPECT_EQ(bad.error().message.rfind("cannot make the tables: ", 0), 0u) << bad.error().message;
  EXPECT_TRUE(contains(bad.error().message, "already exists")) << bad.error().message;

  Stmt rows = prepare(handle, "SELECT 1 UNION ALL SELECT 2").value();
  int rc;
  int n = 0;
  while ((rc = sqlite3_step(rows.s)) == SQLITE_ROW) ++n;
  EXPECT_EQ(n, 2);
  EXPECT_TRUE(finished_reading(handle, rc, "the numbers"));

  // A statement that fails while stepping (abs of the smallest integer overflows).
  Stmt failing = prepare(handle, "SELECT abs(-9223372036854775807 - 1)").value();
  while ((rc = sqlite3_step(failing.s)) == SQLITE_ROW) {
  }
  auto read = finished_reading(handle, rc, "the totals");
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code, Code::Internal);
  EXPECT_EQ(read.error().message.rfind("cannot read the totals: ", 0), 0u) << read.error().message;
  EXPECT_TRUE(contains(read.error().message, "integer overflow")) << read.error().message;
}

}  // namespace
}  // namespace ouro::store
