// A run's events as they are kept (runs/event_log.h), on a private in-memory database: numbered
// from the run's last stored one, gap-free from many threads, stored before the sink hears them
// (with their stored ids, in the API's shape), handed on under the face's own ordering mutex, and
// the rule when the store fails: the event is not sent, the failure is told once, and nothing
// more is stored even when the store would take it.
#include "runs/event_log.h"

#include "store/database.h"

#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ouro::runs {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class Events : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = store::Database::open(":memory:");
    ASSERT_TRUE(opened) << opened.error().message;
    db = std::move(*opened);
  }
  std::vector<store::Database::EventRow> stored(const std::string& run) {
    auto events = db->events(run, 0);
    EXPECT_TRUE(events) << events.error().message;
    return events.value_or(std::vector<store::Database::EventRow>{});
  }
  std::unique_ptr<store::Database> db;
};

TEST_F(Events, EachIsStoredWithTheRunsNextNumberItsTypeDataAndTime) {
  EventLog log(*db, "r1", 0);
  EXPECT_EQ(log.run_id(), "r1");
  EXPECT_TRUE(log.append("run_start", json{{"task", "read the list"}}, 1000.5));
  EXPECT_TRUE(log.append("iteration", json{{"n", 1}}, 1001));
  EXPECT_TRUE(log.append("run_end", json::object(), 1002));
  EXPECT_EQ(log.last_seq(), 3);
  EXPECT_EQ(log.store_error(), "");
  EXPECT_FALSE(log.store_unreachable());
  auto events = stored("r1");
  ASSERT_EQ(events.size(), 3u);
  const char* types[] = {"run_start", "iteration", "run_end"};
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].seq, static_cast<int64_t>(i + 1));
    EXPECT_EQ(events[i].type, types[i]);
    EXPECT_EQ(events[i].run_id, "r1");
  }
  EXPECT_EQ(parse_json(events[0].data).value(), (json{{"task", "read the list"}}));
  EXPECT_EQ(events[0].ts, 1000.5);
}

TEST_F(Events, AResumedLogGoesOnAfterItsLastStoredEventAndEachRunCountsApart) {
  {
    EventLog first(*db, "r1", 0);
    ASSERT_TRUE(first.append("run_start", json::object(), 1));
    ASSERT_TRUE(first.append("iteration", json::object(), 2));
  }
  EventLog resumed(*db, "r1", 2);
  ASSERT_TRUE(resumed.append("run_resumed", json::object(), 3));
  EXPECT_EQ(resumed.last_seq(), 3);
  EventLog other(*db, "r2", 0);
  ASSERT_TRUE(other.append("run_start", json::object(), 4));
  auto r1 = stored("r1");
  ASSERT_EQ(r1.size(), 3u);
  EXPECT_EQ(r1[2].seq, 3);
  EXPECT_EQ(r1[2].type, "run_resumed");
  auto r2 = stored("r2");
  ASSERT_EQ(r2.size(), 1u);
  EXPECT_EQ(r2[0].seq, 1);
}

TEST_F(Events, TheSinkHearsEachEventAsStoredWithItsIdAndTheDataAsGiven) {
  EventLog log(*db, "r1", 0);
  std::vector<StoredEvent> heard;
  log.set_sink([&](const StoredEvent& e) { heard.push_back(e); });
  // Text a page could hold: a quote that would end SQL, bytes that are not UTF-8, an emoji type.
  const json data = {{"text", std::string("caf\xc3\xa9 \xff\xfe end")}, {"quote", "\"}'); DROP TABLE events; --"}};
  ASSERT_TRUE(log.append("page_text \xf0\x9f\x93\x84", data, 5));
  ASSERT_TRUE(log.append("run_end", json::object(), 6));
  auto events = stored("r1");
  ASSERT_EQ(heard.size(), 2u);
  ASSERT_EQ(events.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(heard[i].id, events[i].id);
    EXPECT_EQ(heard[i].seq, events[i].seq);
    EXPECT_EQ(heard[i].run, "r1");
  }
  EXPECT_EQ(heard[0].type, "page_text \xf0\x9f\x93\x84");
  EXPECT_EQ(heard[0].data, data) << "the sink hears what the run said";
  // What is stored is JSON that parses, whatever bytes the data held.
  auto kept = parse_json(events[0].data);
  ASSERT_TRUE(kept) << kept.error().message;
  EXPECT_EQ((*kept)["quote"], data["quote"]);
  EXPECT_TRUE(has((*kept)["text"].get<std::string>(), "caf\xc3\xa9 ")) << events[0].data;
  EXPECT_TRUE(has((*kept)["text"].get<std::string>(), " end")) << events[0].data;
  // The API's shape, in its order.
  json shape = heard[0].to_json();
  std::vector<std::string> keys;
  for (auto it = shape.begin(); it != shape.end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"id", "run", "seq", "type", "ts", "data"}));
  EXPECT_EQ(shape["ts"], 5);
}

TEST_F(Events, AnEventThatCannotBeStoredIsNotSentAndNothingMoreIsStored) {
  // An event the log does not know of already holds its first number.
  ASSERT_TRUE(db->append_event("r1", 1, "run_start", "{}", 1000));
  EventLog log(*db, "r1", 0);
  int sent = 0;
  std::vector<std::string> failures;
  log.set_sink([&](const StoredEvent&) { ++sent; });
  log.on_store_failure([&](const std::string& why) { failures.push_back(why); });
  EXPECT_FALSE(log.append("iteration", json{{"n", 1}}, 1001));
  EXPECT_EQ(sent, 0) << "an event that was not stored is not sent";
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_TRUE(has(failures[0], "cannot append event 1 of run r1")) << failures[0];
  EXPECT_EQ(log.store_error(), failures[0]);
  EXPECT_FALSE(log.store_unreachable()) << "a number already taken is not an unreachable database";
  EXPECT_EQ(log.last_seq(), 0);
  // Even once the store would take it, the failing run stores and sends nothing more.
  ASSERT_TRUE(db->with_sql([](store::Connection& c) { return c.exec("DELETE FROM events WHERE run_id = ?1", {"r1"}); }));
  EXPECT_FALSE(log.append("run_end", json::object(), 1002));
  EXPECT_EQ(sent, 0);
  EXPECT_EQ(failures.size(), 1u) << "the failure is told once";
  EXPECT_TRUE(stored("r1").empty());
}

TEST_F(Events, AppendsFromManyThreadsAreNumberedWithoutGapsAndHeardInOrder) {
  EventLog log(*db, "r1", 0);
  std::vector<int64_t> heard;
  log.set_sink([&](const StoredEvent& e) { heard.push_back(e.seq); });
  constexpr int kThreads = 4, kEach = 50;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&log, t] {
      for (int i = 0; i < kEach; ++i) EXPECT_TRUE(log.append("tick", json{{"thread", t}, {"i", i}}, i));
    });
  for (auto& th : threads) th.join();
  const int64_t total = kThreads * kEach;
  EXPECT_EQ(log.last_seq(), total);
  ASSERT_EQ(heard.size(), static_cast<size_t>(total));
  for (int64_t i = 0; i < total; ++i) EXPECT_EQ(heard[static_cast<size_t>(i)], i + 1);
  auto events = stored("r1");
  ASSERT_EQ(events.size(), static_cast<size_t>(total));
  for (int64_t i = 0; i < total; ++i) EXPECT_EQ(events[static_cast<size_t>(i)].seq, i + 1);
}

TEST_F(Events, TheSinkIsCalledUnderTheFacesOwnOrderingMutex) {
  std::mutex order;
  EventLog log(*db, "r1", 0, nullptr, &order);
  bool held_during_sink = false;
  log.set_sink([&](const StoredEvent&) {
    // Another thread (a subscriber's replay) cannot take the face's mutex while the event is handed on.
    std::thread probe([&] {
      held_during_sink = !order.try_lock();
      if (!held_during_sink) order.unlock();
    });
    probe.join();
  });
  ASSERT_TRUE(log.append("run_start", json::object(), 1));
  EXPECT_TRUE(held_during_sink);
  ASSERT_TRUE(order.try_lock()) << "and it is free again once append returns";
  order.unlock();
}

// The turn's end: stored by the caller's own write (with the run's row), numbered and heard as
// any event, and heard only once that write has succeeded.
TEST_F(Events, AnEventStoredWithOtherWritesIsHeardOnlyOnceTheyAreDone) {
  store::Database::RunRow row;
  row.id = "r1";
  row.task = "read the list";
  row.state = State::Running;
  ASSERT_TRUE(db->insert_run(row));
  EventLog log(*db, "r1", 0);
  std::vector<std::string> heard;
  log.set_sink([&](const StoredEvent& e) {
    // What the sink's reader (an API client) sees when it hears the event: the row it ends.
    heard.push_back(e.type + ":" + std::string(name(db->get_run("r1").value()->state)));
  });
  ASSERT_TRUE(log.append("iteration", json{{"n", 1}}, 1));
  row.state = State::Done;
  ASSERT_TRUE(log.append("complete", json{{"final", "42"}}, 2, [&](int64_t seq, const std::string& text) {
    EXPECT_EQ(seq, 2);
    return db->append_event_with_run(row, seq, "complete", text, 2);
  }));
  EXPECT_EQ(heard, (std::vector<std::string>{"iteration:running", "complete:done"}));
  auto events = stored("r1");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(parse_json(events[1].data).value(), (json{{"final", "42"}}));

  // A write that fails: the event is not heard, the failure is told, nothing more is stored.
  int told = 0;
  log.on_store_failure([&](const std::string&) { ++told; });
  EXPECT_FALSE(log.append("complete", json::object(), 3, [](int64_t, const std::string&) -> Result<int64_t> {
    return make_error(Code::Unavailable, "the server went away");
  }));
  EXPECT_EQ(told, 1);
  EXPECT_TRUE(log.store_unreachable());
  EXPECT_EQ(heard.size(), 2u);
  EXPECT_FALSE(log.append("iteration", json::object(), 4));
  EXPECT_EQ(stored("r1").size(), 2u);
}

}  // namespace
}  // namespace ouro::runs
