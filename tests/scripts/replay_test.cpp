// The replay provider (scripts/replay.h) at its edges, without a browser or a model (what
// scripts_test.cpp and heal_unit_test.cpp leave): `--var` pairs as the command line gives them
// (docs/reference/commands.md), what a replay refuses to start, a step that reads nothing where
// the recording's read something (docs/guides/scripts-and-replay.md: "step 2 of the replay read
// nothing: its value is empty where the recording's held 4 items …"), calls that serve no step,
// a failure named once, positions kept and restored, and the record of a target looked for in
// the step being replayed first.
#include "scripts/replay.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ouro::scripts {
namespace {

json shape(const std::string& kind, int size) { return {{"kind", kind}, {"size", size}}; }

// A recorded run, cut down: a read that held three rows, then the final, an object of two fields.
Script prices() {
  Script s;
  s.name = "prices";
  s.version = 2;
  s.task = "Read the prices for {{city}}";
  s.params = {{"city", "London", "task"}};
  Step read, finish;
  read.iteration = 1;
  read.code = "env.rows = await extract(activeTab, 'table')";
  read.intent = "extract";
  read.shape = shape("array", 3);
  finish.iteration = 2;
  finish.code = "setFinal({{city}})";
  finish.intent = "setFinal";
  finish.set_final = true;
  finish.shape = shape("undefined", 0);
  finish.final_shape = shape("object", 2);
  s.steps = {read, finish};
  return s;
}

// The next main-loop call, as agent::Run makes it.
Result<llm::Response> next_call(ReplayProvider& replay, llm::Purpose purpose = llm::Purpose::Main) {
  static llm::CancelToken not_cancelled;
  llm::Request req;
  req.purpose = purpose;
  return replay.complete(req, [](const llm::Delta&) {}, not_cancelled);
}

// A model to take over: it answers every call the same way and counts them.
class Model final : public llm::Provider {
 public:
  int calls = 0;
  Result<llm::Response> complete(const llm::Request&, const std::function<void(const llm::Delta&)>&, const llm::CancelToken&) override {
    ++calls;
    llm::Response r;
    r.text = "```repl\nsetFinal('done by the model')\n```";
    return r;
  }
  std::string name() const override { return "model"; }
};

const std::string kVetTail =
    " — what it reads has changed on the page and could not be found again; nothing from this step is delivered";

TEST(ParseVars, EachPairIsSplitAtItsFirstEqualsSignAndALaterOneWins) {
  auto vars = parse_vars({"city=New York", "query=a=b&c=d", "empty=", "city=Paris"});
  ASSERT_TRUE(vars) << vars.error().message;
  EXPECT_EQ(*vars, (std::map<std::string, std::string>{{"city", "Paris"}, {"query", "a=b&c=d"}, {"empty", ""}}));
  auto none = parse_vars({});
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_TRUE(none->empty());
}

TEST(ParseVars, APairWithoutANameIsRefusedQuotingAtMost80Characters) {
  for (const std::string& bad : std::vector<std::string>{"city", "=London", ""}) {
    auto r = parse_vars({"ok=1", bad});
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, Code::InvalidArgument);
    EXPECT_EQ(r.error().message, "a variable is name=value, got \"" + bad + "\"");
  }
  auto pasted = parse_vars({std::string(5000, 'x')});
  ASSERT_FALSE(pasted);
  EXPECT_EQ(pasted.error().message, "a variable is name=value, got \"" + std::string(80, 'x') + "\"");
}

TEST(ReplayProvider, AScriptWithoutStepsOrAnUnknownVariableDoesNotStart) {
  Script empty = prices();
  empty.name = "empty";
  empty.steps.clear();
  auto no_steps = ReplayProvider::create(empty, {});
  ASSERT_FALSE(no_steps);
  EXPECT_EQ(no_steps.error().code, Code::InvalidArgument);
  EXPECT_EQ(no_steps.error().message, "script empty has no steps");
  auto unknown = ReplayProvider::create(prices(), {{"town", "Paris"}});
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, Code::InvalidArgument);
  EXPECT_EQ(unknown.error().message, "script prices has no parameter town (its parameters: city)");
  Script bare = prices();
  bare.params.clear();
  auto none = ReplayProvider::create(bare, {{"city", "Paris"}});
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message, "script prices has no parameter city (its parameters: none)");
}

TEST(ReplayProvider, AStepThatReadsNothingWhereTheRecordingReadSomethingFails) {
  auto p = ReplayProvider::create(prices(), {});
  ASSERT_TRUE(p) << p.error().message;
  ReplayProvider& replay = **p;
  EXPECT_EQ(replay.vet({{"ok", true}, {"shape", shape("array", 0)}}), "") << "no step served yet";
  ASSERT_TRUE(next_call(replay));
  EXPECT_EQ(replay.vet({{"ok", true}, {"shape", shape("array", 0)}}),
            "step 1 of the replay read nothing: its value is empty where the recording's held 3 items" + kVetTail);
  EXPECT_EQ(replay.vet({{"ok", true}, {"shape", shape("null", 0)}}),
            "step 1 of the replay read nothing: its value is null where the recording's held 3 items" + kVetTail);
  EXPECT_EQ(replay.vet({{"ok", true}, {"shape", shape("undefined", 0)}}),
            "step 1 of the replay read nothing: its value is undefined where the recording's held 3 items" + kVetTail);
  // Something, even less than recorded, or another kind of value, is a read.
  EXPECT_EQ(replay.vet({{"ok", true}, {"shape", shape("array", 1)}}), "");
  EXPECT_EQ(replay.vet({{"ok", true}, {"shape", shape("number", 1)}}), "");
  // Nothing to compare: no shape, or one that is not {kind, size}.
  EXPECT_EQ(replay.vet({{"ok", true}}), "");
  EXPECT_EQ(replay.vet({{"ok", true}, {"shape", "empty"}}), "");
}

TEST(ReplayProvider, AFinalThatHoldsNothingWhereTheRecordingsHeldSomethingFails) {
  auto p = ReplayProvider::create(prices(), {});
  ASSERT_TRUE(p) << p.error().message;
  ReplayProvider& replay = **p;
  ASSERT_TRUE(next_call(replay));
  ASSERT_TRUE(next_call(replay));  // step 2, the final
  EXPECT_EQ(replay.vet({{"ok", true}, {"setFinal", true}, {"shape", shape("undefined", 0)}, {"finalShape", shape("object", 0)}}),
            "step 2 of the replay read nothing: its final is empty where the recording's held an object of 2 fields" + kVetTail);
  EXPECT_EQ(replay.vet({{"ok", true}, {"setFinal", true}, {"shape", shape("undefined", 0)}, {"finalShape", shape("object", 2)}}), "");
}

TEST(ReplayProvider, TheFailureSaysWhatTheRecordingHeld) {
  Script s = prices();
  const Step read = s.steps[0];
  s.steps.resize(4, read);
  s.steps[0].shape = shape("array", 1);
  s.steps[1].shape = shape("object", 1);
  s.steps[2].shape = shape("string", 12);
  s.steps[3].shape = shape("string", 0);  // the recording read nothing either
  auto p = ReplayProvider::create(s, {});
  ASSERT_TRUE(p) << p.error().message;
  ReplayProvider& replay = **p;
  const json empty_text = {{"ok", true}, {"shape", shape("string", 0)}};
  ASSERT_TRUE(next_call(replay));
  EXPECT_EQ(replay.vet(empty_text), "step 1 of the replay read nothing: its value is empty where the recording's held 1 item" + kVetTail);
  ASSERT_TRUE(next_call(replay));
  EXPECT_EQ(replay.vet(empty_text), "step 2 of the replay read nothing: its value is empty where the recording's held an object of 1 field" + kVetTail);
  ASSERT_TRUE(next_call(replay));
  EXPECT_EQ(replay.vet(empty_text), "step 3 of the replay read nothing: its value is empty where the recording's held 12 characters of text" + kVetTail);
  ASSERT_TRUE(next_call(replay));
  EXPECT_EQ(replay.vet(empty_text), "");
}

TEST(ReplayProvider, OnceAModelHasTakenOverItsReadsAreNotVetted) {
  auto p = ReplayProvider::create(prices(), {});
  ASSERT_TRUE(p) << p.error().message;
  ReplayProvider& replay = **p;
  auto owned = std::make_unique<Model>();
  Model* model = owned.get();
  replay.set_fallback(std::move(owned), "model-1", "model-mini");
  ASSERT_TRUE(next_call(replay));
  replay.observe("code-result", {{"metadata", {{"ok", false}, {"error", "extract: no table"}}}});
  ASSERT_TRUE(next_call(replay));
  EXPECT_EQ(model->calls, 1);
  ASSERT_TRUE(replay.handed_over());
  EXPECT_EQ(replay.vet({{"ok", true}, {"shape", shape("array", 0)}}), "") << "the model's code is its own";
}

TEST(ReplayProvider, ACancelledCallOrASubCallWithoutAModelServesNoStep) {
  auto p = ReplayProvider::create(prices(), {});
  ASSERT_TRUE(p) << p.error().message;
  ReplayProvider& replay = **p;
  llm::CancelToken cancelled;
  cancelled.cancel();
  auto r = replay.complete(llm::Request{}, [](const llm::Delta&) {}, cancelled);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::Cancelled);
  auto sub = next_call(replay, llm::Purpose::Sub);
  ASSERT_FALSE(sub);
  EXPECT_EQ(sub.error().code, Code::FailedPrecondition);
  EXPECT_EQ(sub.error().message, "a replay has no model for llm_query/llm_batch: this step needs the agent");
  EXPECT_EQ(replay.position(), json({{"main", 0}}));
  auto first = next_call(replay);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->text, "```repl\nenv.rows = await extract(activeTab, 'table')\n```");
}

TEST(ReplayProvider, AFailedStepIsNamedOnceAndStopsTheReplayWithoutAModel) {
  auto p = ReplayProvider::create(prices(), {});
  ASSERT_TRUE(p) << p.error().message;
  ReplayProvider& replay = **p;
  // Before a step is served, a block's failure is not the replay's.
  replay.observe("code-result", {{"metadata", {{"ok", false}, {"error", "before any step"}}}});
  ASSERT_TRUE(next_call(replay));
  replay.observe("iteration-end", {{"metadata", {{"ok", false}}}});  // not a block's result
  replay.observe("code-result", {{"metadata", {{"ok", true}}}});
  replay.observe("code-result", {{"metadata", {{"ok", false}}}});  // no error given
  replay.observe("code-result", {{"metadata", {{"ok", false}, {"error", "a later error"}}}});
  auto stopped = next_call(replay);
  ASSERT_FALSE(stopped);
  EXPECT_EQ(stopped.error().code, Code::Aborted);
  EXPECT_EQ(stopped.error().message, "replay of script prices v2 stopped at step 1 of 2 (extract): it failed") << "the first failure, named once";
  EXPECT_EQ(replay.position(), json({{"main", 1}})) << "a stopped replay serves no further step";
  EXPECT_EQ(replay.path(), "replay");
}

TEST(ReplayProvider, APositionIsKeptAndRestoredWithinTheScript) {
  auto p = ReplayProvider::create(prices(), {{"city", "Paris"}});
  ASSERT_TRUE(p) << p.error().message;
  ReplayProvider& replay = **p;
  EXPECT_EQ(replay.position(), json({{"main", 0}}));
  ASSERT_TRUE(next_call(replay));
  ASSERT_TRUE(next_call(replay));
  replay.observe("code-result", {{"metadata", {{"ok", true}, {"setFinal", true}}}});
  EXPECT_EQ(replay.position(), json({{"main", 2}, {"final", true}}));
  replay.observe("heal", {{"step", 1}});
  replay.observe("heal", {{"step", 2}});
  EXPECT_EQ(replay.heals(), 2);

  // Restored in another replay: past the end stops at the end; a negative or non-number step is
  // no position.
  auto q = ReplayProvider::create(prices(), {{"city", "Paris"}});
  ASSERT_TRUE(q) << q.error().message;
  ReplayProvider& again = **q;
  again.seek({{"main", 99}});
  EXPECT_EQ(again.position(), json({{"main", 2}}));
  again.seek({{"main", -1}});
  EXPECT_EQ(again.position(), json({{"main", 2}}));
  again.seek({{"main", "1"}});
  EXPECT_EQ(again.position(), json({{"main", 2}}));
  again.seek({{"main", 1}});
  EXPECT_EQ(again.position(), json({{"main", 1}}));
  auto last = next_call(again);
  ASSERT_TRUE(last) << last.error().message;
  EXPECT_EQ(last->text, "```repl\nsetFinal(\"Paris\")\n```") << "the value as a JavaScript string literal";
  auto after = next_call(again);
  ASSERT_FALSE(after);
  EXPECT_EQ(after.error().code, Code::FailedPrecondition);
  EXPECT_EQ(after.error().message, "script prices v2 ran all 2 steps without a final (setFinal())");
}

TEST(ReplayProvider, TheRecordOfATargetIsLookedForInTheStepBeingReplayedFirst) {
  Script s = prices();
  Target button{"click", "#more", json{{"role", "button"}, {"name", "More"}}};
  Target link{"click", "#more", json{{"role", "link"}, {"name", "More"}}};
  Target unrecorded{"type", "#q", nullptr};
  s.steps[0].targets.push_back(button);
  s.steps[0].targets.push_back(unrecorded);
  s.steps[1].targets.push_back(link);
  auto p = ReplayProvider::create(s, {});
  ASSERT_TRUE(p) << p.error().message;
  ReplayProvider& replay = **p;
  // Before any step is served, the step being replayed is the first.
  auto first = replay.recorded("click", "#more");
  ASSERT_TRUE(first);
  EXPECT_EQ((*first)["step"], 1);
  EXPECT_EQ((*first)["details"]["role"], "button");
  ASSERT_TRUE(next_call(replay));
  ASSERT_TRUE(next_call(replay));
  auto second = replay.recorded("click", "#more");
  ASSERT_TRUE(second);
  EXPECT_EQ((*second)["step"], 2);
  EXPECT_EQ((*second)["details"]["role"], "link");
  EXPECT_FALSE(replay.recorded("type", "#q")) << "a target nothing was recorded about has no record";
}

}  // namespace
}  // namespace ouro::scripts
