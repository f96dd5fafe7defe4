// The prepared-statement helpers for code on the raw SQLite handle (store/statement.h), on a
// private in-memory database: only the first statement of a text is prepared, text that holds
// no statement, hostile text bound and never run, columns of every type read as text, and a
// script that fails part-way. Preparing, binding, NUL bytes and finalizing are in
// sql_sqlite_test.cpp.
#include "store/statement.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>
#include <string_view>

namespace ouro::store {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class RawStatements : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
    ASSERT_TRUE(exec(db, "CREATE TABLE notes (id INTEGER PRIMARY KEY, v TEXT)", "make the table"));
  }
  void TearDown() override { EXPECT_EQ(sqlite3_close(db), SQLITE_OK) << "a statement was left unfinalized on the handle"; }

  // The notes' values, in order; "" when reading failed (which the test reports).
  std::string values() {
    Stmt st = prepare(db, "SELECT group_concat(v, '|') FROM (SELECT v FROM notes ORDER BY id)").value();
    EXPECT_EQ(sqlite3_step(st.s), SQLITE_ROW);
    return text(st.s, 0);
  }
  bool table_exists(const char* name) {
    Stmt st = prepare(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1").value();
    bind(st.s, 1, std::string_view(name));
    return sqlite3_step(st.s) == SQLITE_ROW && sqlite3_column_int(st.s, 0) == 1;
  }
  sqlite3* db = nullptr;
};

TEST_F(RawStatements, OnlyTheFirstStatementOfATextIsPreparedAndRun) {
  {
    auto st = prepare(db, "SELECT 1; DROP TABLE notes");
    ASSERT_TRUE(st) << st.error().message;
    ASSERT_EQ(sqlite3_step(st->s), SQLITE_ROW);
    EXPECT_EQ(sqlite3_column_int(st->s, 0), 1);
    EXPECT_EQ(sqlite3_step(st->s), SQLITE_DONE);
  }
  EXPECT_TRUE(table_exists("notes")) << "what followed the first statement never ran";
  {
    Stmt st = prepare(db, "INSERT INTO notes (v) VALUES ('one'); INSERT INTO notes (v) VALUES ('two')").value();
    EXPECT_EQ(sqlite3_step(st.s), SQLITE_DONE);
  }
  EXPECT_EQ(values(), "one");
  // A NUL byte inside the view ends the SQL there.
  const std::string with_nul("SELECT 7\0DROP TABLE notes", 25);
  {
    Stmt st = prepare(db, with_nul).value();
    ASSERT_EQ(sqlite3_step(st.s), SQLITE_ROW);
    EXPECT_EQ(sqlite3_column_int(st.s, 0), 7);
  }
  EXPECT_TRUE(table_exists("notes"));
}

TEST_F(RawStatements, HostileTextIsBoundAsAValueAndNeverRun) {
  const std::string hostile = "'); DROP TABLE notes; -- \xf0\x9f\x98\x80 \"quoted\" \\";
  {
    Stmt st = prepare(db, "INSERT INTO notes (v) VALUES (?1)").value();
    bind(st.s, 1, hostile);
    ASSERT_EQ(sqlite3_step(st.s), SQLITE_DONE) << sqlite3_errmsg(db);
  }
  EXPECT_TRUE(table_exists("notes"));
  EXPECT_EQ(values(), hostile);
}

TEST_F(RawStatements, ColumnsOfEveryTypeAreReadAsText) {
  Stmt st = prepare(db, "SELECT 42, -7, 1.5, x'4142', x'00ff', NULL, ''").value();
  ASSERT_EQ(sqlite3_step(st.s), SQLITE_ROW);
  EXPECT_EQ(text(st.s, 0), "42");
  EXPECT_EQ(text(st.s, 1), "-7");
  EXPECT_EQ(text(st.s, 2), "1.5");
  EXPECT_EQ(text(st.s, 3), "AB");
  EXPECT_EQ(text(st.s, 4), std::string("\0\xff", 2)) << "a blob's bytes, the NUL kept";
  EXPECT_EQ(text(st.s, 5), "");
  EXPECT_EQ(text(st.s, 6), "");
}

TEST_F(RawStatements, AScriptThatFailsPartWayKeepsWhatRanBeforeAndSaysWhy) {
  auto r = exec(db, "INSERT INTO notes (v) VALUES ('kept'); INSERT INTO nope VALUES (1); INSERT INTO notes (v) VALUES ('never')", "add the notes");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::Internal);
  EXPECT_EQ(r.error().message.rfind("cannot add the notes: ", 0), 0u) << r.error().message;
  EXPECT_TRUE(has(r.error().message, "no such table: nope")) << r.error().message;
  EXPECT_EQ(values(), "kept") << "statements run one by one: the first stays, the last never ran";
}

// SQLite prepares text that holds no statement (empty, blank, only a comment) as success with no
// statement at all: prepare answers that as an error, never as a Stmt without a handle.
TEST_F(RawStatements, TextWithNoStatementIsAnErrorNotAnEmptyStatement) {
  for (const char* sql : {"", "   ", "-- only a comment", ";"}) {
    auto st = prepare(db, sql);
    if (st) {
      EXPECT_NE(st->s, nullptr) << "'" << sql << "' gave no statement and no error";
    }
  }
}

}  // namespace
}  // namespace ouro::store
