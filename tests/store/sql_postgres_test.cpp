// The PostgreSQL engine of the SQL layer (store/sql_postgres.cpp) against a real cluster of its
// own that the tests stop, restart and hang: a restarted server is used again soon, a statement
// lost inside a transaction never runs outside it, and a statement to a hung server ends at its
// deadline while the connection comes back. Skipped, saying why, where PostgreSQL is not installed.
#include "store/database.h"

#include "basics.h"
#include "postgres_server.h"
#include "store/sql.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <optional>
#include <thread>

namespace ouro::store {
namespace {

class PostgresFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = testing::engine_unavailable(Engine::Postgres); !why.empty()) GTEST_SKIP() << why;
    auto started = testing::PostgresServer::start();  // a cluster of its own: these tests stop it
    ASSERT_TRUE(started) << started.error().message;
    server = std::move(*started);
    auto made = server->create_database();
    ASSERT_TRUE(made) << made.error().message;
    url = *made;
  }
  // f() run on a thread of its own, given `limit` to return: a statement that hangs fails the
  // test instead of holding it.
  template <class F>
  static auto within(std::chrono::seconds limit, F f) -> std::optional<decltype(f())> {
    auto task = std::async(std::launch::async, f);
    if (task.wait_for(limit) != std::future_status::ready) {
      ADD_FAILURE() << "did not return within " << limit.count() << " s";
      std::terminate();  // the statement is stuck inside libpq; nothing can be cleaned up
    }
    return task.get();
  }
  // Tries f() until it succeeds or `limit` passes; how long that took, or nullopt.
  template <class F>
  static std::optional<std::chrono::milliseconds> until_ok(std::chrono::seconds limit, F f) {
    auto t0 = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - t0 < limit) {
      if (f()) return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return std::nullopt;
  }
  std::unique_ptr<testing::PostgresServer> server;
  std::string url;
};

TEST_F(PostgresFaults, TheDatabaseIsUsableAgainSoonAfterTheServerRestarts) {
  auto db = testing::open_as_node(url, "node-r").value();
  ASSERT_TRUE(db->kv_set("k", "1"));
  ASSERT_TRUE(server->stop());
  auto down = within(std::chrono::seconds(20), [&] { return db->kv_get("k"); });
  ASSERT_FALSE(*down);
  EXPECT_EQ(down->error().code, Code::Unavailable) << down->error().message;
  // While it is down, every statement fails at once (the backoff), none waits for the server.
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(*within(std::chrono::seconds(10), [&] { return db->kv_get("k"); }));
  ASSERT_TRUE(server->start_again());
  auto back = until_ok(std::chrono::seconds(15), [&] { return db->kv_get("k").has_value(); });
  ASSERT_TRUE(back) << "the database did not come back within 15 s of the server";
  EXPECT_EQ(db->kv_get("k").value().value_or(""), "1");
  // The new connection names its node again: the fence that refuses another node's events reads it.
  auto node = db->with_sql([](Connection& c) { return c.exec("SELECT current_setting('ouro.node', true)"); });
  ASSERT_TRUE(node) << node.error().message;
  EXPECT_EQ((*node)[0].text(0), "node-r");
  std::cout << "[ postgres ] usable again " << back->count() << " ms after the server restarted\n";
}

TEST_F(PostgresFaults, AStatementLostInsideATransactionNeverRunsOutsideIt) {
  auto db = testing::open_as_node(url, "node-t").value();
  ASSERT_TRUE(db->with_sql([](Connection& c) { return c.exec_script("CREATE TABLE t (v INTEGER)"); }));
  ASSERT_TRUE(db->with_sql([](Connection& c) { return c.begin(); }));
  ASSERT_TRUE(db->with_sql([](Connection& c) { return c.exec("INSERT INTO t VALUES (1)"); }));
  ASSERT_TRUE(server->stop());
  ASSERT_TRUE(server->start_again());
  // The server rolled the transaction back when its connection went: the second statement of it
  // must not run alone on a new connection.
  auto second = within(std::chrono::seconds(20), [&] { return db->with_sql([](Connection& c) { return c.exec("INSERT INTO t VALUES (2)"); }); });
  ASSERT_FALSE(*second);
  EXPECT_EQ(second->error().code, Code::Unavailable) << second->error().message;
  auto again = within(std::chrono::seconds(20), [&] { return db->with_sql([](Connection& c) { return c.exec("INSERT INTO t VALUES (3)"); }); });
  EXPECT_FALSE(*again) << "nothing runs until the caller rolls back";
  EXPECT_TRUE(db->with_sql([](Connection& c) { return c.rollback(); }));
  auto back = until_ok(std::chrono::seconds(15), [&] {
    return db->with_sql([](Connection& c) { return c.exec("SELECT count(*) FROM t"); }).has_value();
  });
  ASSERT_TRUE(back);
  auto rows = db->with_sql([](Connection& c) { return c.exec("SELECT count(*) FROM t"); });
  EXPECT_EQ((*rows)[0].int64(0), 0) << "no row of the lost transaction was written";
}

TEST_F(PostgresFaults, AStatementToAHungServerEndsAtItsDeadlineAndTheConnectionComesBack) {
  auto db = testing::open_as_node(url, "node-h").value();
  ASSERT_TRUE(db->kv_set("k", "2"));
  ASSERT_TRUE(server->pause());
  // The statement (or the heartbeat's before it, holding the connection) ends at its deadline.
  auto hung = within(std::chrono::seconds(30), [&] { return db->kv_get("k"); });
  ASSERT_FALSE(*hung);
  EXPECT_EQ(hung->error().code, Code::Unavailable) << hung->error().message;
  // Connecting to a hung server gives up too (connect_timeout), so callers are never held long.
  auto retry = within(std::chrono::seconds(30), [&] { return db->kv_get("k"); });
  EXPECT_FALSE(*retry);
  ASSERT_TRUE(server->resume());
  auto back = until_ok(std::chrono::seconds(15), [&] { return db->kv_get("k").has_value(); });
  ASSERT_TRUE(back) << "the database did not come back within 15 s of the server";
  EXPECT_EQ(db->kv_get("k").value().value_or(""), "2");
}

}  // namespace
}  // namespace ouro::store
