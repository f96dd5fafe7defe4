// A run as one object over a real SQLite store, without a browser: where it comes from (new,
// continued, resumed), the one place its state is written, and a start that fails kept as
// failed with its events — the same on every face.
#include "runs/run.h"

#include "basics.h"
#include "runs/event_log.h"
#include "store/database.h"

#include <gtest/gtest.h>

#include <future>

namespace ouro::runs {
namespace {

class RunObject : public ::testing::Test {
 protected:
  void SetUp() override { db = std::move(store::Database::open(testing::temp_dir() + "/ouro.db").value()); }
  std::vector<std::string> event_types(const std::string& id) {
    std::vector<std::string> out;
    auto events = db->events(id, 0);
    EXPECT_TRUE(events) << events.error().message;
    for (const auto& e : events.value_or(std::vector<store::Database::EventRow>{})) out.push_back(e.type);
    return out;
  }
  std::unique_ptr<store::Database> db;
};

TEST_F(RunObject, ANewRunKeepsItsRequestAndWritesOnlyLegalMoves) {
  auto run = runs::Run::create(*db, {{"task", "read the list"}, {"urls", {"http://127.0.0.1:1/a"}}, {"options", {{"max_iterations", 3}}}}, State::Queued);
  ASSERT_TRUE(run) << run.error().message;
  runs::Run& r = **run;
  ASSERT_TRUE(r.insert());
  auto stored = db->get_run(r.id()).value();
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->state, State::Queued);
  EXPECT_EQ(parse_json(stored->options).value()["urls"], json::array({"http://127.0.0.1:1/a"})) << "the start pages are kept with the options";
  ASSERT_TRUE(r.set_state(State::Running));
  ASSERT_TRUE(r.set_state(State::AwaitingUser));
  ASSERT_TRUE(r.set_state(State::Running));
  EXPECT_EQ(db->get_run(r.id()).value()->state, State::Running);
  // A move no run makes: refused, and nothing is written.
  auto wrong = runs::Run::from_row(*db, *db->get_run(r.id()).value());
  ASSERT_TRUE(wrong->set_state(State::Done));
  auto back = wrong->set_state(State::Queued);
  EXPECT_FALSE(back) << "done never becomes queued";
  EXPECT_EQ(back.error().code, Code::FailedPrecondition);
  EXPECT_EQ(db->get_run(r.id()).value()->state, State::Done);
}

TEST_F(RunObject, AWrongRequestIsRefusedBeforeAnythingIsKept) {
  auto run = runs::Run::create(*db, {{"task", "x"}, {"options", {{"max_iterations", 0}}}}, State::Queued);
  ASSERT_FALSE(run);
  EXPECT_EQ(run.error().code, Code::InvalidArgument);
  EXPECT_TRUE(db->list_runs().value().empty());
}

TEST_F(RunObject, AStartThatFailsIsKeptFailedWithItsEvents) {
  auto run = runs::Run::create(*db, {{"task", "read the list"}}, State::Running).value();
  ASSERT_TRUE(run->keep_running());
  std::string row_when_heard;
  run->open_log()->set_sink([&](const StoredEvent& e) {
    // A face hears the end with the row it ends already readable (an API client reads it then).
    if (e.type == "complete") row_when_heard = name(db->get_run(run->id()).value()->state);
  });
  runs::Setup setup;  // no model configured anywhere: the start is refused
  setup.model_flags.secrets_path = testing::temp_dir() + "/secrets.json";
  auto started = run->start(parse_request(run->request()).value(), std::move(setup),
                            std::make_shared<SessionSource>([](session::SessionOptions) -> Result<std::unique_ptr<session::Session>> {
                              return make_error(Code::Internal, "no browser is opened before a model is found");
                            }));
  ASSERT_FALSE(started);
  auto row = db->get_run(run->id()).value();
  EXPECT_EQ(row->state, State::Failed);
  EXPECT_FALSE(row->error.empty());
  EXPECT_TRUE(row->partial);
  EXPECT_NE(row->final_json.find("The run could not start"), std::string::npos) << row->final_json;
  EXPECT_EQ(event_types(run->id()), (std::vector<std::string>{"error", "complete"}));
  EXPECT_EQ(row_when_heard, "failed");
}

TEST_F(RunObject, AConversationContinuesWithItsOptionsAndTurns) {
  auto first = runs::Run::create(*db, {{"task", "find the cheapest tea"}, {"urls", {"http://127.0.0.1:1/shop"}}, {"options", {{"mode", "autonomous"}}}},
                           State::Done)
                   .value();
  ASSERT_TRUE(first->insert());
  auto next = runs::Run::continued(*db, first->id(), "and the dearest?");
  ASSERT_TRUE(next) << next.error().message;
  EXPECT_TRUE((*next)->continuing());
  EXPECT_FALSE((*next)->resuming());
  EXPECT_EQ((*next)->request()["task"], "and the dearest?");
  EXPECT_EQ((*next)->request()["urls"], json::array({"http://127.0.0.1:1/shop"}));
  EXPECT_EQ((*next)->request()["options"]["mode"], "autonomous");
  EXPECT_EQ(runs::Run::continued(*db, "rnosuchrun0", "hello").error().code, Code::NotFound);
}

TEST_F(RunObject, OnlyAnInterruptedRunResumesAndItsUsageIsFoldedBack) {
  auto run = runs::Run::create(*db, {{"task", "collect the prices"}}, State::Running).value();
  ASSERT_TRUE(run->insert());
  store::Database::RunRow row = run->row();
  row.state = State::Interrupted;
  row.error = "ouro stopped while the run was in progress";
  row.usage_json = R"({"input_tokens": 10, "turns": [{"state": "done"}, {"state": "interrupted"}]})";
  ASSERT_TRUE(db->update_run(row));
  auto resumed = runs::Run::resumed(*db, run->id(), {State::Interrupted});
  ASSERT_TRUE(resumed) << resumed.error().message;
  EXPECT_TRUE((*resumed)->resuming());
  EXPECT_EQ((*resumed)->state(), State::Queued) << "queued again until its thread starts";
  EXPECT_TRUE((*resumed)->row().error.empty());
  EXPECT_EQ(parse_json((*resumed)->row().usage_json).value(), json({{"turns", {{{"state", "done"}}}}}))
      << "the cut-short turn's record goes; the finished turns' stay";
  EXPECT_EQ((*resumed)->request()["task"], "collect the prices");
  EXPECT_EQ(db->get_run(run->id()).value()->state, State::Interrupted) << "nothing is written before it starts";

  row.state = State::Done;
  ASSERT_TRUE(db->update_run(row));
  auto finished = runs::Run::resumed(*db, run->id(), {State::Interrupted});
  ASSERT_FALSE(finished);
  EXPECT_EQ(finished.error().code, Code::FailedPrecondition);
  EXPECT_NE(finished.error().message.find("send a message to continue"), std::string::npos) << finished.error().message;
}

TEST_F(RunObject, AFaceThatStartsARunAtOnceKeepsItRunningWhereverItCameFrom) {
  auto fresh = runs::Run::create(*db, {{"task", "read the list"}}, State::Running).value();
  EXPECT_FALSE(db->get_run(fresh->id()).value()) << "nothing is stored before the face keeps it";
  ASSERT_TRUE(fresh->keep_running());
  EXPECT_EQ(db->get_run(fresh->id()).value()->state, State::Running);
  // A second keep of the same run is a move to running (it is stored now), not a second row.
  ASSERT_TRUE(fresh->keep_running());
  EXPECT_EQ(db->list_runs().value().size(), 1u);

  ASSERT_TRUE(fresh->set_state(State::Done));
  auto next = runs::Run::continued(*db, fresh->id(), "and then?").value();
  ASSERT_TRUE(next->keep_running());
  EXPECT_EQ(db->get_run(fresh->id()).value()->state, State::Running) << "a continued conversation runs again";

  // A row the database refuses: the face is told the run cannot be kept, and why.
  auto broken = store::Database::open(testing::temp_dir() + "/broken.db").value();
  ASSERT_TRUE(broken->with_sql([](store::Connection& c) { return c.exec("DROP TABLE runs"); }));
  auto refused = runs::Run::create(*broken, {{"task", "x"}}, State::Running).value()->keep_running();
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, Code::Unavailable);
  EXPECT_NE(refused.error().message.find("the run cannot be kept"), std::string::npos) << refused.error().message;
}

TEST_F(RunObject, AnEventThatCannotBeStoredCancelsTheRunAndTellsTheFace) {
  auto run = runs::Run::create(*db, {{"task", "read the list"}}, State::Running).value();
  ASSERT_TRUE(run->keep_running());
  // Something else holds the run's first event number: its first append fails.
  ASSERT_TRUE(db->append_event(run->id(), 1, "run_start", "{}", 1000));
  int told = 0;
  const auto& log = run->open_log(nullptr, nullptr, [&] { ++told; });
  EXPECT_FALSE(log->append("iteration", json{{"n", 1}}, 1001));
  EXPECT_EQ(told, 1);
  EXPECT_NE(log->store_error(), "");
  // Cancelled: a wait for the person's answer returns at once, unapproved, instead of waiting
  // out its minute.
  auto waited = std::async(std::launch::async, [&] { return run->answers().wait_confirmation("c1", std::chrono::minutes(1)); });
  ASSERT_EQ(waited.wait_for(std::chrono::seconds(20)), std::future_status::ready) << "the run was not cancelled";
  EXPECT_FALSE(waited.get().approved);
}

// The end of a run that cannot be stored with its row: the row alone says so, failed.
TEST_F(RunObject, AnEndThatCannotBeStoredLeavesTheRowFailedSayingWhy) {
  auto run = runs::Run::create(*db, {{"task", "read the list"}}, State::Running).value();
  ASSERT_TRUE(run->keep_running());
  // Something else holds the run's second event number: its `error` is stored, its `complete` not.
  ASSERT_TRUE(db->append_event(run->id(), 2, "run_start", "{}", 1000));
  std::vector<std::string> heard;
  run->open_log()->set_sink([&](const StoredEvent& e) { heard.push_back(e.type); });
  runs::Setup setup;  // no model configured anywhere: the start fails
  setup.model_flags.secrets_path = testing::temp_dir() + "/secrets.json";
  ASSERT_FALSE(run->start(parse_request(run->request()).value(), std::move(setup),
                          std::make_shared<SessionSource>([](session::SessionOptions) -> Result<std::unique_ptr<session::Session>> {
                            return make_error(Code::Internal, "no browser is opened before a model is found");
                          })));
  EXPECT_EQ(heard, (std::vector<std::string>{"error"})) << "an end that was not stored is not told";
  auto row = db->get_run(run->id()).value();
  EXPECT_EQ(row->state, State::Failed);
  EXPECT_TRUE(row->partial);
  EXPECT_NE(row->error.find("the run's events could not be stored"), std::string::npos) << row->error;
  EXPECT_NE(row->final_json.find("The run could not start"), std::string::npos) << row->final_json;
  EXPECT_EQ(run->state(), State::Failed);
}

}  // namespace
}  // namespace ouro::runs
