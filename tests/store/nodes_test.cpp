// The rules of several nodes on one PostgreSQL database (store/nodes.h), each through two real
// nodes (two Database handles with their own OURO_NODE_ID) on the test cluster: the queue gives
// each run to one node and no more than it asks for, oldest first; a dead node's runs go to the
// first live node that looks (a node is dead by the one clock, which the test moves), a live
// node's never; the inbox reaches only the node that holds the run; one lease holder at a time;
// a schedule's due time fires once.
#include "store/nodes.h"

#include "base/clock.h"
#include "postgres_server.h"
#include "store/sql.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <thread>

namespace ouro::store {
namespace {

class Nodes : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = testing::engine_unavailable(Engine::Postgres); !why.empty()) GTEST_SKIP() << why;
    auto url = testing::fresh_database(Engine::Postgres);
    ASSERT_TRUE(url) << url.error().message;
    a = open_as(*url, "node-a");
    b = open_as(*url, "node-b");
  }

  static std::unique_ptr<Database> open_as(const std::string& url, const char* node) {
    auto db = testing::open_as_node(url, node);
    EXPECT_TRUE(db) << db.error().message;
    return db ? std::move(*db) : nullptr;
  }

  // Queues runs q0…q(n-1), oldest first.
  void queue(int n) {
    for (int i = 0; i < n; ++i) {
      Database::RunRow r;
      r.id = "q" + std::to_string(i);
      r.task = "task " + std::to_string(i);
      r.created_at = r.updated_at = 1000 + i;
      ASSERT_TRUE(enqueue_run(*a, r));
    }
  }

  static std::vector<std::string> ids(const std::vector<Database::RunRow>& rows) {
    std::vector<std::string> out;
    for (const auto& r : rows) out.push_back(r.id);
    return out;
  }

  std::unique_ptr<Database> a, b;
};

TEST_F(Nodes, EachQueuedRunGoesToOneNodeOldestFirstAndNoMoreThanItAsks) {
  queue(12);
  EXPECT_EQ(queue_depth(*a).value(), 12);
  EXPECT_EQ(ids(claim_queued(*a, 3).value()), (std::vector<std::string>{"q0", "q1", "q2"}));
  EXPECT_EQ(a->get_run("q0").value()->owner, "node-a");
  // The rest, taken by both nodes at once, a few at a time.
  std::vector<std::string> got_a, got_b;
  auto take = [](Database& db, std::vector<std::string>& got) {
    for (int i = 0; i < 20; ++i) {
      auto r = claim_queued(db, 2);
      ASSERT_TRUE(r) << r.error().message;
      ASSERT_LE(r->size(), 2u);
      for (const auto& row : *r) got.push_back(row.id);
    }
  };
  std::thread ta([&] { take(*a, got_a); });
  std::thread tb([&] { take(*b, got_b); });
  ta.join();
  tb.join();
  std::multiset<std::string> all(got_a.begin(), got_a.end());
  all.insert(got_b.begin(), got_b.end());
  std::multiset<std::string> expected;
  for (int i = 3; i < 12; ++i) expected.insert("q" + std::to_string(i));
  EXPECT_EQ(all, expected) << "every run taken, none twice";
  for (const auto& id : got_b) EXPECT_EQ(a->get_run(id).value()->owner, "node-b") << id;
  EXPECT_EQ(queue_depth(*b).value(), 0);
  EXPECT_TRUE(claim_queued(*b, 0).value().empty());
}

TEST_F(Nodes, ADeadNodesRunsAreTakenOverAndALiveNodesAreNot) {
  ManualClock clock(1.7e12);
  queue(3);
  ASSERT_TRUE(a->heartbeat());
  ASSERT_TRUE(b->heartbeat());
  ASSERT_EQ(claim_queued(*a, 2).value().size(), 2u);  // q0, q1 held by a
  ASSERT_TRUE(a->append_event("q1", 1, "iteration-start", "{}", 1));  // q1 had begun
  // a is alive: b takes nothing, and neither does a for the runs it executes.
  EXPECT_TRUE(take_over(*b, 10, {}).value().empty());
  EXPECT_TRUE(take_over(*a, 10, {"q0", "q1"}).value().empty());
  // Just short of kNodeDead without a heartbeat, a is still alive.
  clock.advance(std::chrono::duration<double, std::milli>(kNodeDead).count() - 500);
  ASSERT_TRUE(b->heartbeat());
  EXPECT_TRUE(take_over(*b, 10, {}).value().empty());
  // Past it, a is dead: b takes both, and knows which had begun; q2 stays in the queue.
  clock.advance(1000);
  ASSERT_TRUE(b->heartbeat());
  auto taken = take_over(*b, 10, {});
  ASSERT_TRUE(taken) << taken.error().message;
  ASSERT_EQ(taken->size(), 2u);
  EXPECT_EQ((*taken)[0].row.id, "q0");
  EXPECT_FALSE((*taken)[0].begun);
  EXPECT_EQ((*taken)[1].row.id, "q1");
  EXPECT_TRUE((*taken)[1].begun);
  EXPECT_EQ(a->get_run("q1").value()->owner, "node-b");
  EXPECT_EQ(queue_depth(*b).value(), 1);
  // a, back from its pause, cannot add to a run taken from it (the database's fence).
  auto late = a->append_event("q1", 2, "iteration-start", "{}", 2);
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().code, Code::FailedPrecondition) << late.error().message;
  // A run b holds but does not execute (it lost the database meanwhile) is b's to take again.
  EXPECT_EQ(take_over(*b, 10, {"q0", "q1"}).value().size(), 0u);
  auto again = take_over(*b, 10, {"q0"});
  ASSERT_TRUE(again);
  ASSERT_EQ(again->size(), 1u);
  EXPECT_EQ((*again)[0].row.id, "q1");
}

TEST_F(Nodes, TheInboxReachesOnlyTheNodeThatHoldsTheRun) {
  queue(2);
  ASSERT_TRUE(a->heartbeat());
  ASSERT_TRUE(b->heartbeat());
  ASSERT_EQ(claim_queued(*a, 1).value().size(), 1u);  // q0 held by a; q1 by nobody
  auto nobody = post_to_inbox(*b, "q1", {{"answer", "yes"}});
  ASSERT_FALSE(nobody);
  EXPECT_EQ(nobody.error().code, Code::NotFound);
  EXPECT_EQ(post_to_inbox(*b, "missing", {{"answer", "yes"}}).error().code, Code::NotFound);
  ASSERT_TRUE(post_to_inbox(*b, "q0", {{"answer", "first"}}));
  ASSERT_TRUE(post_to_inbox(*b, "q0", {{"answer", "second"}}));
  EXPECT_TRUE(take_inbox(*b).value().empty());
  auto got = take_inbox(*a);
  ASSERT_TRUE(got);
  ASSERT_EQ(got->size(), 2u);
  EXPECT_EQ((*got)[0].message["answer"], "first");
  EXPECT_EQ((*got)[1].message["answer"], "second");
  EXPECT_TRUE(take_inbox(*a).value().empty()) << "taken once";
  // A follow-up: relayed only to another live node that holds the run.
  EXPECT_FALSE(relay_to_holder(*a, "q0", {{"follow_up", "more"}}).value()) << "a holds it itself";
  EXPECT_TRUE(relay_to_holder(*b, "q0", {{"follow_up", "more"}}).value());
  EXPECT_EQ(take_inbox(*a).value().size(), 1u);
  EXPECT_FALSE(relay_to_holder(*b, "q1", {{"follow_up", "more"}}).value()) << "nobody holds q1";
}

TEST_F(Nodes, OneNodeHoldsALeaseUntilItGivesItUpOrItExpires) {
  EXPECT_EQ(lease_holder(*a, kSchedulerLease).value(), "");
  EXPECT_TRUE(hold_lease(*a, kSchedulerLease).value());
  EXPECT_FALSE(hold_lease(*b, kSchedulerLease).value());
  EXPECT_TRUE(hold_lease(*a, kSchedulerLease).value()) << "renewed by its holder";
  EXPECT_EQ(lease_holder(*b, kSchedulerLease).value(), "node-a");
  ASSERT_TRUE(release_lease(*b, kSchedulerLease));  // not b's to give up
  EXPECT_EQ(lease_holder(*b, kSchedulerLease).value(), "node-a");
  ASSERT_TRUE(release_lease(*a, kSchedulerLease));
  EXPECT_TRUE(hold_lease(*b, kSchedulerLease).value());
  // Expiry is the database server's clock: the lease is made to have expired a second ago.
  ASSERT_TRUE(b->with_sql([](Connection& c) -> Result<void> {
    TRY(c.exec("UPDATE leases SET expires_at = EXTRACT(EPOCH FROM clock_timestamp()) - 1"));
    return {};
  }));
  EXPECT_EQ(lease_holder(*a, kSchedulerLease).value(), "");
  EXPECT_TRUE(hold_lease(*a, kSchedulerLease).value());
  // Held inside a transaction: only by its holder.
  auto held = [](Database& db, const char* node) {
    return db.with_sql([&](Connection& c) -> Result<bool> { return lease_held(c, node, kSchedulerLease); }).value();
  };
  EXPECT_TRUE(held(*a, "node-a"));
  EXPECT_FALSE(held(*b, "node-b"));
}

TEST_F(Nodes, AScheduleFiresOncePerDueTime) {
  auto fire = [](Database& db, const char* node, const char* job, int64_t due) {
    return db.with_sql([&](Connection& c) -> Result<bool> { return record_fire_once(c, node, job, due); }).value();
  };
  EXPECT_TRUE(fire(*a, "node-a", "job-1", 1000));
  EXPECT_FALSE(fire(*b, "node-b", "job-1", 1000)) << "the same due time, another leader";
  EXPECT_TRUE(fire(*b, "node-b", "job-1", 1060));
  EXPECT_TRUE(fire(*b, "node-b", "job-2", 1000)) << "another job";
}

}  // namespace
}  // namespace ouro::store
