// A run's stored events as the runs API gives them back (server/runs.h: RunManager::events and
// subscribe), on a runtime with a database only: after a cursor, in order, each once however many
// pages the replay takes, one run's or every run's, and a subscriber that has had enough is not
// called again.
#include "server/runs.h"

#include "base/json.h"
#include "session/session.h"
#include "store/database.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ouro::server {
namespace {

class RunEventsTest : public ::testing::Test {
 protected:
  std::shared_ptr<session::Runtime> runtime = [] {
    auto r = std::make_shared<session::Runtime>();
    r->db = *store::Database::open(":memory:");
    return r;
  }();
  RunManager manager{runtime, RunManager::Config{}};

  void add_run(const std::string& id) {
    store::Database::RunRow row;
    row.id = id;
    row.task = "a task";
    row.state = runs::State::Done;
    ASSERT_TRUE(runtime->db->insert_run(row));
  }
  // Appends the run's events seq from..to; returns the global id of the last.
  int64_t append(const std::string& run, int64_t from, int64_t to, const std::string& data = "") {
    int64_t id = 0;
    for (int64_t seq = from; seq <= to; ++seq) {
      auto r = runtime->db->append_event(run, seq, "log", data.empty() ? dump_json(json{{"n", seq}}) : data, static_cast<double>(seq));
      EXPECT_TRUE(r) << r.error().message;
      id = r ? *r : 0;
    }
    return id;
  }
  // What a subscription replays, as (run, seq), until `stop_after` events when not 0.
  std::vector<std::pair<std::string, int64_t>> replayed(const std::string& run_id, int64_t after, size_t stop_after = 0) {
    std::vector<std::pair<std::string, int64_t>> got;
    auto id = manager.subscribe(run_id, after, [&](const json& e) {
      got.emplace_back(e["run"].get<std::string>(), e["seq"].get<int64_t>());
      return stop_after == 0 || got.size() < stop_after;
    });
    EXPECT_TRUE(id) << id.error().message;
    if (id) manager.unsubscribe(*id);
    return got;
  }
};

std::vector<int64_t> seqs(const json& events) {
  std::vector<int64_t> out;
  for (const auto& e : events) out.push_back(e["seq"].get<int64_t>());
  return out;
}

TEST_F(RunEventsTest, ARunThatIsNotStoredHasNoEventsToShow) {
  for (const std::string& id : std::vector<std::string>{"rnope", "", "r1' OR '1'='1", std::string(10000, 'r')}) {
    auto r = manager.events(id, 0);
    ASSERT_FALSE(r) << id.substr(0, 20);
    EXPECT_EQ(r.error().code, Code::NotFound);
  }
}

TEST_F(RunEventsTest, ARunsEventsAfterACursorComeInOrderAndOnlyItsOwn) {
  add_run("r1");
  add_run("r2");
  append("r1", 1, 3);
  append("r2", 1, 4);
  append("r1", 4, 5);
  auto all = manager.events("r1", 0);
  ASSERT_TRUE(all) << all.error().message;
  EXPECT_EQ(seqs(*all), (std::vector<int64_t>{1, 2, 3, 4, 5}));
  for (const auto& e : *all) {
    EXPECT_EQ(e["run"], "r1");
    EXPECT_EQ(e["type"], "log");
    EXPECT_EQ(e["data"]["n"], e["seq"]);
  }
  EXPECT_EQ(seqs(*manager.events("r1", 3)), (std::vector<int64_t>{4, 5}));
  EXPECT_TRUE(manager.events("r1", 5)->empty());
  EXPECT_EQ(seqs(*manager.events("r1", -100)), (std::vector<int64_t>{1, 2, 3, 4, 5}));
  add_run("r3");
  EXPECT_TRUE(manager.events("r3", 0)->empty()) << "a stored run without events: none, not an error";
}

TEST_F(RunEventsTest, AnEventWhoseStoredDataIsNotJsonIsShownWithoutItsData) {
  add_run("r1");
  append("r1", 1, 1, "{not json");
  append("r1", 2, 2);
  auto events = manager.events("r1", 0);
  ASSERT_TRUE(events);
  ASSERT_EQ(events->size(), 2u);
  EXPECT_TRUE((*events)[0]["data"].is_null());
  EXPECT_EQ((*events)[1]["data"]["n"], 2);
}

TEST_F(RunEventsTest, ASubscriberGetsEveryStoredEventOnceHoweverManyPagesTheReplayTakes) {
  add_run("r1");
  append("r1", 1, 2500);
  for (int64_t after : {0, 1500, 1999, 2499, 2500}) {
    auto got = replayed("r1", after);
    ASSERT_EQ(got.size(), static_cast<size_t>(2500 - after)) << "after " << after;
    for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i].second, after + 1 + static_cast<int64_t>(i)) << "after " << after;
  }
}

TEST_F(RunEventsTest, ASubscriberOfEveryRunFollowsTheOrderTheyWereStoredIn) {
  add_run("r1");
  add_run("r2");
  append("r1", 1, 2);
  int64_t cursor = append("r2", 1, 1);
  append("r1", 3, 3);
  append("r2", 2, 2);
  using Got = std::vector<std::pair<std::string, int64_t>>;
  EXPECT_EQ(replayed("", 0), (Got{{"r1", 1}, {"r1", 2}, {"r2", 1}, {"r1", 3}, {"r2", 2}}));
  EXPECT_EQ(replayed("", cursor), (Got{{"r1", 3}, {"r2", 2}})) << "every run's cursor is the global id";
  EXPECT_EQ(replayed("r2", 0), (Got{{"r2", 1}, {"r2", 2}}));
}

TEST_F(RunEventsTest, ASubscriberThatHasHadEnoughIsNotCalledAgain) {
  add_run("r1");
  append("r1", 1, 1500);
  EXPECT_EQ(replayed("r1", 0, 3).size(), 3u);
  EXPECT_EQ(replayed("r1", 0, 1200).size(), 1200u) << "in the second page of the replay";
  EXPECT_EQ(replayed("r1", 0, 1000).size(), 1000u) << "at the end of the first page";
  EXPECT_EQ(replayed("", 0, 1).size(), 1u);
}

}  // namespace
}  // namespace ouro::server
