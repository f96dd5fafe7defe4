// A run's checkpoint (store/run_state.h) on both engines: each run keeps its own, a large or
// unusual one comes back whole, and the conversation's goals kept in its state — read as none
// when there are none or the state is damaged, set without touching the rest of the checkpoint,
// and a checkpoint made to hold them when there is none.
#include "store/run_state.h"

#include "base/json.h"
#include "postgres_server.h"
#include "store/database.h"
#include "store/sql.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

namespace ouro::store {
namespace {

using testing::engine_test_name;

class RunStateOn : public ::testing::TestWithParam<Engine> {};

TEST_P(RunStateOn, EachRunKeepsItsOwnCheckpoint) {
  OURO_FRESH_DATABASE(db, GetParam());
  const std::vector<std::string> ids = {"run-a", "run-b", "r'); DROP TABLE run_checkpoints;--", ""};
  for (size_t i = 0; i < ids.size(); ++i) {
    RunCheckpoint cp;
    cp.iteration = static_cast<int>(i) + 1;
    cp.env = dump_json(json{{"run", ids[i]}});
    auto saved = save_run_checkpoint(*db, ids[i], cp);
    ASSERT_TRUE(saved) << "'" << ids[i] << "': " << saved.error().message;
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    SCOPED_TRACE(ids[i]);
    auto got = load_run_checkpoint(*db, ids[i]);
    ASSERT_TRUE(got) << got.error().message;
    ASSERT_TRUE(got->has_value());
    EXPECT_EQ((*got)->iteration, static_cast<int>(i) + 1);
    EXPECT_EQ(parse_json((*got)->env).value(), json({{"run", ids[i]}}));
  }
  auto none = load_run_checkpoint(*db, "run-c");
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_FALSE(none->has_value()) << "a run never checkpointed has none";
}

TEST_P(RunStateOn, ALargeAndUnusualCheckpointComesBackWhole) {
  OURO_FRESH_DATABASE(db, GetParam());
  RunCheckpoint cp;
  cp.iteration = std::numeric_limits<int>::max();
  cp.state = R"({"phase":"act","note":"it's \"quoted\" \\ ?1 $1 — ünïcödé 🙂"})";
  cp.env = "{\"blob\":\"" + std::string(4u << 20, 'e') + "\"}";
  cp.cookies = R"([{"name":"sid","value":"a;b=c, d","domain":".example.com"}])";
  cp.storage = R"({"https://a.example":[["k","v'v"],["empty",""]]})";
  cp.saved_at = 1700000000123.25;
  cp.provenance = R"({"user":"task","sites":[{"name":"a.example","text":"acct ?2"}]})";
  auto saved = save_run_checkpoint(*db, "big", cp);
  ASSERT_TRUE(saved) << saved.error().message;
  auto got = load_run_checkpoint(*db, "big");
  ASSERT_TRUE(got) << got.error().message;
  ASSERT_TRUE(got->has_value());
  const RunCheckpoint& back = **got;
  EXPECT_EQ(back.iteration, cp.iteration);
  EXPECT_EQ(back.state, cp.state);
  EXPECT_EQ(back.env.size(), cp.env.size());
  EXPECT_TRUE(back.env == cp.env) << "the 4 MiB env differs";
  EXPECT_EQ(back.cookies, cp.cookies);
  EXPECT_EQ(back.storage, cp.storage);
  EXPECT_DOUBLE_EQ(back.saved_at, cp.saved_at);
  EXPECT_EQ(back.provenance, cp.provenance);
}

TEST_P(RunStateOn, ARunWithoutACheckpointHasNoGoalsAndGetsNoCheckpointFromAsking) {
  OURO_FRESH_DATABASE(db, GetParam());
  auto goals = checkpoint_goals(*db, "nobody");
  ASSERT_TRUE(goals) << goals.error().message;
  EXPECT_EQ(*goals, json::array());
  auto cp = load_run_checkpoint(*db, "nobody");
  ASSERT_TRUE(cp) << cp.error().message;
  EXPECT_FALSE(cp->has_value()) << "reading the goals made a checkpoint";
}

// Goals set where there is no checkpoint make one that starts from the beginning: iteration 0,
// empty env, no cookies, storage or provenance, and a state holding only the goals.
TEST_P(RunStateOn, GoalsSetWithoutACheckpointMakeOneAtTheStart) {
  OURO_FRESH_DATABASE(db, GetParam());
  const json goals = json::array({json{{"text", "book the gym"}, {"done", false}}});
  auto kept = set_checkpoint_goals(*db, "conversation", goals);
  ASSERT_TRUE(kept) << kept.error().message;
  EXPECT_EQ(checkpoint_goals(*db, "conversation").value(), goals);
  auto got = load_run_checkpoint(*db, "conversation");
  ASSERT_TRUE(got) << got.error().message;
  ASSERT_TRUE(got->has_value());
  const RunCheckpoint& cp = **got;
  EXPECT_EQ(cp.iteration, 0);
  EXPECT_EQ(parse_json(cp.state).value(), json({{"goals", goals}}));
  EXPECT_EQ(cp.env, "{}");
  EXPECT_EQ(cp.cookies, "[]");
  EXPECT_EQ(cp.storage, "{}");
  EXPECT_EQ(cp.provenance, "{}");
  EXPECT_EQ(cp.saved_at, 0.0);
}

TEST_P(RunStateOn, SettingGoalsKeepsTheRestOfTheCheckpoint) {
  OURO_FRESH_DATABASE(db, GetParam());
  RunCheckpoint cp;
  cp.iteration = 7;
  cp.state = R"({"phase":"act","goals":[{"text":"old"}],"notes":["n1"]})";
  cp.env = R"({"x":1})";
  cp.cookies = R"([{"name":"c"}])";
  cp.storage = R"({"https://a.example":[["k","v"]]})";
  cp.saved_at = 1700000000000.5;
  cp.provenance = R"({"user":"task"})";
  ASSERT_TRUE(save_run_checkpoint(*db, "r", cp));
  EXPECT_EQ(checkpoint_goals(*db, "r").value(), json::array({json{{"text", "old"}}}));

  const json goals = json::array({json{{"text", "new"}, {"done", true}}, json{{"text", "second"}}});
  auto kept = set_checkpoint_goals(*db, "r", goals);
  ASSERT_TRUE(kept) << kept.error().message;
  EXPECT_EQ(checkpoint_goals(*db, "r").value(), goals);
  auto got = load_run_checkpoint(*db, "r");
  ASSERT_TRUE(got) << got.error().message;
  ASSERT_TRUE(got->has_value());
  const RunCheckpoint& back = **got;
  EXPECT_EQ(back.iteration, 7);
  EXPECT_EQ(back.env, cp.env);
  EXPECT_EQ(back.cookies, cp.cookies);
  EXPECT_EQ(back.storage, cp.storage);
  EXPECT_DOUBLE_EQ(back.saved_at, cp.saved_at);
  EXPECT_EQ(back.provenance, cp.provenance);
  json state = parse_json(back.state).value();
  EXPECT_EQ(state["phase"], "act") << back.state;
  EXPECT_EQ(state["notes"], json::array({"n1"})) << back.state;
  EXPECT_EQ(state["goals"], goals) << back.state;
}

// What is not a list of goals is kept as none, so a later read never hands a turn a string or an
// object to iterate.
TEST_P(RunStateOn, GoalsThatAreNotAListAreKeptAsNone) {
  OURO_FRESH_DATABASE(db, GetParam());
  ASSERT_TRUE(set_checkpoint_goals(*db, "r", json::array({json{{"text", "first"}}})));
  for (const json& bad : {json{{"text", "an object"}}, json("a string"), json(), json(3)}) {
    SCOPED_TRACE(bad.dump());
    auto kept = set_checkpoint_goals(*db, "r", bad);
    ASSERT_TRUE(kept) << kept.error().message;
    EXPECT_EQ(checkpoint_goals(*db, "r").value(), json::array());
    ASSERT_TRUE(set_checkpoint_goals(*db, "r", json::array({json{{"text", "again"}}})));
  }
}

// A checkpoint whose state is not a JSON object (damaged, or written by something else) reads as
// having no goals rather than failing, and setting goals gives it a state that holds them.
TEST_P(RunStateOn, ADamagedStateReadsAsNoGoalsAndSettingGoalsMendsIt) {
  OURO_FRESH_DATABASE(db, GetParam());
  const json goals = json::array({json{{"text", "mended"}}});
  const std::vector<std::string> damaged = {"not json {", "", "[1,2,3]", "\"text\"", "null", R"({"goals":"not a list"})",
                                            R"({"goals":{"text":"an object"}})"};
  for (size_t i = 0; i < damaged.size(); ++i) {
    SCOPED_TRACE("state: " + damaged[i]);
    const std::string run = "damaged-" + std::to_string(i);
    RunCheckpoint cp;
    cp.iteration = 3;
    cp.state = damaged[i];
    cp.env = R"({"kept":true})";
    ASSERT_TRUE(save_run_checkpoint(*db, run, cp));
    auto read = checkpoint_goals(*db, run);
    ASSERT_TRUE(read) << read.error().message;
    EXPECT_EQ(*read, json::array());
    auto kept = set_checkpoint_goals(*db, run, goals);
    ASSERT_TRUE(kept) << kept.error().message;
    EXPECT_EQ(checkpoint_goals(*db, run).value(), goals);
    auto got = load_run_checkpoint(*db, run);
    ASSERT_TRUE(got && got->has_value());
    auto state = parse_json((*got)->state);
    ASSERT_TRUE(state) << (*got)->state;
    EXPECT_TRUE(state->is_object()) << (*got)->state;
    EXPECT_EQ((*got)->iteration, 3);
    EXPECT_EQ((*got)->env, cp.env) << "only the state changes";
  }
}

INSTANTIATE_TEST_SUITE_P(Engines, RunStateOn, ::testing::Values(Engine::Sqlite, Engine::Postgres), engine_test_name);

}  // namespace
}  // namespace ouro::store
