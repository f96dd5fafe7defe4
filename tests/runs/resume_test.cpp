// Where an interrupted run resumes from, without a browser: its last checkpoint when it has one
// (damaged parts read as empty), else its events folded from the start with the iteration the stop
// cut short dropped; runs that are not there, not in a state to resume, or that had finished their
// turn are refused; and the state its events give, up to any checkpoint.
#include "runs/resume.h"

#include "basics.h"
#include "store/database.h"
#include "store/run_state.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace ouro::runs {
namespace {

class ResumeFrom : public ::testing::Test {
 protected:
  void SetUp() override { db = std::move(store::Database::open(testing::temp_dir() + "/ouro.db").value()); }
  void add_run(const std::string& id, const std::string& task, State state) {
    store::Database::RunRow row;
    row.id = id;
    row.task = task;
    row.state = state;
    row.created_at = row.updated_at = 1000;
    ASSERT_TRUE(db->insert_run(row));
  }
  void add_event(const std::string& id, const std::string& type, const json& data) {
    ASSERT_TRUE(db->append_event(id, ++seqs[id], type, dump_json(data), 1000));
  }
  // One iteration's events: it starts, runs `code`, ends.
  void add_iteration(const std::string& id, int n, const std::string& code) {
    add_event(id, "iteration-start", {{"iteration", n}});
    add_event(id, "code-generated", {{"iteration", n}, {"code", code}});
    add_event(id, "code-result", {{"iteration", n}, {"metadata", {{"ok", true}, {"oneLiner", "fine"}}}});
    add_event(id, "iteration-end", {{"iteration", n}});
  }
  std::unique_ptr<store::Database> db;
  std::map<std::string, int64_t> seqs;
};

TEST_F(ResumeFrom, ARunThatIsNotThereIsNamed) {
  auto missing = load_resume_point(*db, "rnosuchrun0", {State::Interrupted});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, Code::NotFound);
  EXPECT_NE(missing.error().message.find("rnosuchrun0"), std::string::npos) << missing.error().message;
}

TEST_F(ResumeFrom, OnlyTheStatesAskedForAreResumed) {
  add_run("rfinished01", "count the rows", State::Done);
  add_run("rworking001", "count the rows", State::Running);
  for (const char* id : {"rfinished01", "rworking001"}) {
    auto refused = load_resume_point(*db, id, {State::Interrupted});
    ASSERT_FALSE(refused) << id;
    EXPECT_EQ(refused.error().code, Code::FailedPrecondition) << id;
    EXPECT_NE(refused.error().message.find(id), std::string::npos) << refused.error().message;
  }
  EXPECT_TRUE(load_resume_point(*db, "rworking001", {State::Interrupted, State::Running})) << "a state the caller allows";
}

TEST_F(ResumeFrom, ATurnThatHadFinishedIsNotResumedButAFollowUpIs) {
  const std::string id = "rended00001";
  add_run(id, "count the rows", State::Interrupted);
  add_iteration(id, 1, "count()");
  add_event(id, "complete", {{"final", "3 rows"}});
  auto ended = load_resume_point(*db, id, {State::Interrupted});
  ASSERT_FALSE(ended);
  EXPECT_EQ(ended.error().code, Code::FailedPrecondition) << "its answer was given: a message continues it";

  add_event(id, "user-message", {{"text", "and the columns?"}, {"turn", 2}});
  auto next = load_resume_point(*db, id, {State::Interrupted});
  ASSERT_TRUE(next) << next.error().message;
  EXPECT_EQ(next->state.task, "and the columns?");
  ASSERT_EQ(next->state.turns.size(), 1u);
  EXPECT_EQ(next->state.turns[0].result, "3 rows");
}

TEST_F(ResumeFrom, WithoutACheckpointTheIterationCutShortStartsOver) {
  const std::string id = "rnocheck001";
  add_run(id, "count the rows", State::Interrupted);
  add_iteration(id, 1, "const n = count()");
  add_event(id, "iteration-start", {{"iteration", 2}});
  add_event(id, "code-generated", {{"iteration", 2}, {"code", "halfway()"}});
  ASSERT_TRUE(db->set_checkpoint(id, R"({"n":3})"));

  auto p = load_resume_point(*db, id, {State::Interrupted});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_FALSE(p->from_checkpoint);
  EXPECT_EQ(p->state.task, "count the rows");
  EXPECT_EQ(p->state.last_iteration, 1);
  ASSERT_EQ(p->state.history.size(), 1u) << "iteration 2 was cut short: it runs again";
  EXPECT_EQ(p->state.history[0].number, 1);
  EXPECT_EQ(p->env, R"({"n":3})") << "the env its last turn left";
  EXPECT_EQ(p->last_seq, 6) << "the resumed run's events follow its last";
  EXPECT_EQ(p->cookies, json::array());
  EXPECT_EQ(p->storage, json::object());
}

TEST_F(ResumeFrom, TheLastCheckpointIsWhereItGoesOn) {
  const std::string id = "rcheck00001";
  add_run(id, "fill the cart", State::Interrupted);
  add_iteration(id, 1, "add('tea')");
  store::RunCheckpoint c;
  c.iteration = 3;
  c.state = dump_json({{"task", "fill the cart"}, {"lastIteration", 3}, {"turnIterations", 3},
                       {"tabs", {{{"id", "t1"}, {"url", "https://shop.example.com/cart"}}}}, {"activeTab", "t1"}, {"provider", {{"used", 3}}}});
  c.env = R"({"cart":2})";
  c.cookies = R"([{"name":"sid","value":"abc"}])";
  c.storage = R"({"https://shop.example.com":[["basket","2"]]})";
  c.provenance = R"({"values":{}})";
  ASSERT_TRUE(store::save_run_checkpoint(*db, id, c));

  auto p = load_resume_point(*db, id, {State::Interrupted});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_TRUE(p->from_checkpoint);
  EXPECT_EQ(p->state.last_iteration, 3) << "the checkpoint's state, not the events'";
  EXPECT_EQ(p->state.active_tab, "t1");
  EXPECT_EQ(p->state.provider, json({{"used", 3}}));
  EXPECT_EQ(p->env, R"({"cart":2})");
  ASSERT_TRUE(p->cookies.is_array());
  EXPECT_EQ(get_str(p->cookies[0], "name"), "sid");
  EXPECT_TRUE(p->storage.contains("https://shop.example.com"));
  EXPECT_EQ(p->provenance, json({{"values", json::object()}}));
  EXPECT_EQ(p->last_seq, 4);
}

TEST_F(ResumeFrom, ACheckpointWithDamagedPartsGivesEmptyOnes) {
  const std::string id = "rdamaged001";
  add_run(id, "fill the cart", State::Interrupted);
  store::RunCheckpoint c;
  c.state = "{{{";
  c.env = "{}";
  c.cookies = "not json";
  c.storage = "[";
  c.provenance = "{";
  ASSERT_TRUE(store::save_run_checkpoint(*db, id, c));
  auto p = load_resume_point(*db, id, {State::Interrupted});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_TRUE(p->from_checkpoint);
  EXPECT_EQ(p->state.last_iteration, 0);
  EXPECT_EQ(p->cookies, json::array());
  EXPECT_EQ(p->storage, json::object());
  EXPECT_EQ(p->provenance, json::object());
}

TEST_F(ResumeFrom, TheStateIsRebuiltFromEventsUpToACheckpoint) {
  const std::string id = "rrebuild001";
  auto empty = rebuild_state(*db, id, "count the rows");
  ASSERT_TRUE(empty) << empty.error().message;
  EXPECT_EQ(empty->task, "count the rows") << "no events: the request alone";
  EXPECT_EQ(empty->last_iteration, 0);

  add_iteration(id, 1, "a()");
  add_event(id, "checkpoint", {{"iteration", 1}, {"tabs", {{{"id", "ta"}, {"url", "https://a.example.com/"}}}}, {"activeTab", "ta"}});
  add_iteration(id, 2, "b()");
  add_event(id, "checkpoint", {{"iteration", 2}, {"tabs", {{{"id", "tb"}, {"url", "https://b.example.com/"}}}}, {"activeTab", "tb"}});

  auto at_one = rebuild_state(*db, id, "count the rows", 1);
  ASSERT_TRUE(at_one) << at_one.error().message;
  EXPECT_EQ(at_one->last_iteration, 1);
  EXPECT_EQ(at_one->checkpoint_iteration, 1);
  EXPECT_EQ(at_one->active_tab, "ta");
  EXPECT_EQ(at_one->history.size(), 1u);

  auto all = rebuild_state(*db, id, "count the rows");
  ASSERT_TRUE(all) << all.error().message;
  EXPECT_EQ(all->last_iteration, 2);
  EXPECT_EQ(all->active_tab, "tb");
  auto no_such = rebuild_state(*db, id, "count the rows", 7);
  ASSERT_TRUE(no_such) << no_such.error().message;
  EXPECT_EQ(no_such->last_iteration, 2) << "a checkpoint that never came: every event";
}

}  // namespace
}  // namespace ouro::runs
