// A run's state folded from its events: what each event changes, data of the wrong shape read as
// nothing, the checkpoint's shape and compaction, reading a checkpoint back, and a turn's answer
// as the next turn's prompt shows it.
#include "agent/state.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ouro::agent {
namespace {

// A block's result as a run reports it.
json result_meta() {
  return {{"ok", true}, {"summary", "Result: number 3"}, {"oneLiner", "→ number 3"}, {"logs", json::array({"read 3 rows"})}};
}

// One iteration as a run emits it: its start, one block's code and result, its end (costing 0.25).
void iteration(RunState& s, int n, const std::string& code, const json& meta = result_meta()) {
  apply_event(s, "iteration-start", {{"iteration", n}});
  apply_event(s, "code-generated", {{"iteration", n}, {"blockIndex", 0}, {"code", code}});
  apply_event(s, "code-result", {{"iteration", n}, {"blockIndex", 0}, {"metadata", meta}});
  apply_event(s, "iteration-end", {{"iteration", n}, {"note", nullptr}, {"cost", 0.25}});
}

std::vector<std::string> keys(const json& object) {
  std::vector<std::string> out;
  for (auto it = object.begin(); it != object.end(); ++it) out.push_back(it.key());
  return out;
}

TEST(RunEvents, AnIterationIsBuiltFromItsEvents) {
  RunState s;
  apply_event(s, "iteration-start", {{"iteration", 1}});
  apply_event(s, "code-generated", {{"iteration", 1}, {"blockIndex", 0}, {"code", "env.n = 3"}});
  apply_event(s, "code-generated", {{"iteration", 1}, {"blockIndex", 1}, {"code", "setFinal(env.n)"}});
  apply_event(s, "code-result",
              {{"iteration", 1}, {"blockIndex", 0},
               {"metadata", {{"ok", true}, {"summary", "Result: number 3"}, {"oneLiner", "→ number 3"}, {"logs", json::array({"first", 2, "second"})}}}});
  apply_event(s, "code-result",
              {{"iteration", 1}, {"blockIndex", 1}, {"metadata", {{"ok", false}, {"summary", "ERROR — x"}, {"oneLiner", "→ ERROR: x"}, {"setFinal", true}}}});
  apply_event(s, "iteration-end", {{"iteration", 1}, {"note", "said with code"}, {"cost", 0.25}});
  ASSERT_EQ(s.history.size(), 1u);
  const IterationRecord& r = s.history[0];
  EXPECT_EQ(r.number, 1);
  ASSERT_EQ(r.blocks.size(), 2u);
  EXPECT_EQ(r.blocks[0].code, "env.n = 3");
  EXPECT_TRUE(r.blocks[0].ok);
  EXPECT_EQ(r.blocks[0].summary, "Result: number 3");
  EXPECT_EQ(r.blocks[0].one_liner, "→ number 3");
  EXPECT_EQ(r.blocks[0].logs, (std::vector<std::string>{"first", "second"})) << "a log line that is not text is skipped";
  EXPECT_FALSE(r.blocks[0].set_final);
  EXPECT_EQ(r.blocks[1].code, "setFinal(env.n)");
  EXPECT_FALSE(r.blocks[1].ok);
  EXPECT_EQ(r.blocks[1].one_liner, "→ ERROR: x");
  EXPECT_TRUE(r.blocks[1].set_final);
  EXPECT_EQ(r.note, "") << "an iteration with code keeps no note";
  EXPECT_EQ(s.last_iteration, 1);
  EXPECT_EQ(s.turn_iterations, 1);
}

TEST(RunEvents, AnIterationWithoutCodeKeepsWhatTheModelSaid) {
  RunState s;
  apply_event(s, "iteration-start", {{"iteration", 1}});
  apply_event(s, "iteration-end", {{"iteration", 1}, {"note", "I will look at the page first."}, {"cost", 0.25}});
  ASSERT_EQ(s.history.size(), 1u);
  EXPECT_TRUE(s.history[0].blocks.empty());
  EXPECT_EQ(s.history[0].note, "I will look at the page first.");
  EXPECT_EQ(s.last_iteration, 1);
}

TEST(RunEvents, ABlockIndexIsHeldBetweenZeroAndSixtyThree) {
  RunState s;
  apply_event(s, "code-generated", {{"iteration", 1}, {"blockIndex", 2}, {"code", "third"}});
  ASSERT_EQ(s.history.size(), 1u) << "an iteration's first event opens it";
  ASSERT_EQ(s.history[0].blocks.size(), 3u);
  EXPECT_EQ(s.history[0].blocks[0].code, "");
  EXPECT_EQ(s.history[0].blocks[2].code, "third");
  apply_event(s, "code-generated", {{"iteration", 1}, {"blockIndex", -7}, {"code", "first"}});
  EXPECT_EQ(s.history[0].blocks[0].code, "first");
  apply_event(s, "code-generated", {{"iteration", 1}, {"blockIndex", 1000000}, {"code", "last"}});
  ASSERT_EQ(s.history[0].blocks.size(), 64u);
  EXPECT_EQ(s.history[0].blocks[63].code, "last");
  EXPECT_EQ(s.history.size(), 1u);
}

TEST(RunEvents, UsageAndCostAddUpOverIterationsAndSubCalls) {
  RunState s;
  apply_event(s, "iteration-end",
              {{"iteration", 1},
               {"usage", {{"input_tokens", 100}, {"output_tokens", 20}, {"estimated", false}, {"cache_read_tokens", 50}, {"cache_write_tokens", 5}}},
               {"cost", 0.5}});
  apply_event(s, "sub-llm-complete",
              {{"index", 0}, {"resultMeta", {{"chars", 10}, {"usage", {{"input_tokens", 7}, {"output_tokens", 3}, {"estimated", true}}}, {"cost", 0.25}}}});
  EXPECT_EQ(s.usage.input_tokens, 107);
  EXPECT_EQ(s.usage.output_tokens, 23);
  EXPECT_EQ(s.usage.cache_read_tokens, 50);
  EXPECT_EQ(s.usage.cache_write_tokens, 5);
  EXPECT_TRUE(s.usage.estimated) << "one estimated call makes the sum an estimate";
  EXPECT_DOUBLE_EQ(s.cost, 0.75);
  EXPECT_TRUE(s.cost_known);
  // A sub-call that failed reports no usage: nothing is added and the cost stays known.
  apply_event(s, "sub-llm-complete", {{"index", 1}, {"resultMeta", {{"error", "timed out"}, {"ms", 30000}}}});
  EXPECT_EQ(s.usage.input_tokens, 107);
  EXPECT_DOUBLE_EQ(s.cost, 0.75);
  EXPECT_TRUE(s.cost_known);
}

TEST(RunEvents, ACostThatIsNotANumberMakesTheRunsCostUnknown) {
  RunState s;
  apply_event(s, "iteration-end", {{"iteration", 1}, {"cost", 0.5}});
  EXPECT_TRUE(s.cost_known);
  apply_event(s, "iteration-end", {{"iteration", 2}, {"cost", nullptr}});
  EXPECT_FALSE(s.cost_known) << "a model without a price";
  EXPECT_DOUBLE_EQ(s.cost, 0.5) << "what was known is kept";
  EXPECT_TRUE(checkpoint_json(s)["cost"].is_null());
  RunState no_cost;
  apply_event(no_cost, "iteration-end", {{"iteration", 1}});
  EXPECT_FALSE(no_cost.cost_known) << "an iteration that does not give its cost";
  RunState sub_call;
  apply_event(sub_call, "sub-llm-complete", {{"resultMeta", {{"usage", {{"input_tokens", 7}}}, {"cost", "free"}}}});
  EXPECT_FALSE(sub_call.cost_known);
  EXPECT_EQ(sub_call.usage.input_tokens, 7);
}

TEST(RunEvents, ACheckpointEventSetsTheTabsTheActiveTabAndTheProviderPosition) {
  RunState s;
  const json tabs = json::array({json{{"id", "t1"}, {"url", "https://example.org/"}, {"title", "Example"}}});
  const json provider = {{"used", 2}};
  apply_event(s, "checkpoint", {{"iteration", 3}, {"tabs", tabs}, {"activeTab", "t1"}, {"provider", provider}, {"envBytes", 10}});
  EXPECT_EQ(s.checkpoint_iteration, 3);
  EXPECT_EQ(s.tabs, tabs);
  EXPECT_EQ(s.active_tab, "t1");
  EXPECT_EQ(s.provider, provider);
  // Each checkpoint replaces them all: what it lacks or gives in another shape is none.
  apply_event(s, "checkpoint", {{"iteration", 4}, {"tabs", "t1"}, {"activeTab", 7}});
  EXPECT_EQ(s.checkpoint_iteration, 4);
  EXPECT_EQ(s.tabs, json::array());
  EXPECT_EQ(s.active_tab, "");
  EXPECT_TRUE(s.provider.is_null());
}

TEST(RunEvents, EachGoalEventCarriesTheWholeList) {
  RunState s;
  const json goals = json::array({json{{"id", "g1"}, {"text", "Find"}, {"status", "open"}}});
  apply_event(s, "goal_added", {{"goal", goals[0]}, {"goals", goals}});
  EXPECT_EQ(s.goals, goals);
  apply_event(s, "goal_updated", {{"goal", goals[0]}, {"goals", "not a list"}});
  EXPECT_EQ(s.goals, goals) << "a goal event without a list changes nothing";
  apply_event(s, "goal_updated", {{"goals", json::array()}});
  EXPECT_EQ(s.goals, json::array());
}

TEST(RunEvents, AMessageAfterAnEndedTurnOpensTheNextAndTheAnswerJoinsTheConversation) {
  RunState s;
  s.task = "count the rows";
  iteration(s, 1, "env.n = 3");
  apply_event(s, "complete", {{"final", "There are 3 rows."}, {"partial", false}});
  EXPECT_TRUE(s.ended);
  EXPECT_EQ(s.final, "There are 3 rows.");
  apply_event(s, "user-message", {{"text", "and the columns?"}, {"turn", 2}});
  EXPECT_EQ(s.turn, 2);
  EXPECT_EQ(s.task, "and the columns?");
  ASSERT_EQ(s.turns.size(), 1u);
  EXPECT_EQ(s.turns[0].task, "count the rows");
  EXPECT_EQ(s.turns[0].result, "There are 3 rows.");
  EXPECT_TRUE(s.history.empty()) << "each turn has its own history";
  EXPECT_EQ(s.turn_iterations, 0) << "the iteration cap is per turn";
  EXPECT_EQ(s.last_iteration, 1) << "iteration numbers count on across turns";
  EXPECT_FALSE(s.ended);
  EXPECT_TRUE(s.final.is_null());
  // Without a turn number the next one is taken; a stopped turn's answer says why it stopped.
  iteration(s, 2, "env.c = 4");
  apply_event(s, "complete", {{"final", {{"partial", true}, {"message", "cancelled"}}}, {"partial", true}});
  EXPECT_TRUE(s.partial);
  apply_event(s, "user-message", {{"text", "try again"}});
  EXPECT_EQ(s.turn, 3);
  EXPECT_EQ(s.task, "try again");
  ASSERT_EQ(s.turns.size(), 2u);
  EXPECT_EQ(s.turns[1].task, "and the columns?");
  EXPECT_EQ(s.turns[1].result, "(stopped) cancelled");
}

TEST(RunEvents, GuidanceDuringATurnOpensNoTurnAndATurnThatDidNotEndLeavesNoAnswer) {
  RunState s;
  s.task = "count the rows";
  iteration(s, 1, "env.n = 3");
  apply_event(s, "user-message", {{"text", "use the second table"}, {"iteration", 1}, {"guidance", true}});
  EXPECT_EQ(s.turn, 1);
  EXPECT_EQ(s.task, "count the rows");
  EXPECT_EQ(s.history.size(), 1u);
  EXPECT_EQ(s.turn_iterations, 1);
  EXPECT_TRUE(s.turns.empty());
  apply_event(s, "user-message", {{"text", "start over"}});
  EXPECT_EQ(s.turn, 2);
  EXPECT_EQ(s.task, "start over");
  EXPECT_TRUE(s.turns.empty()) << "a turn that did not end has no answer to join the conversation";
  EXPECT_TRUE(s.history.empty());
}

TEST(RunEvents, AResumeDropsWhatTheInterruptedIterationHadStarted) {
  RunState s;
  iteration(s, 1, "env.n = 3");
  apply_event(s, "iteration-start", {{"iteration", 2}});
  apply_event(s, "code-generated", {{"iteration", 2}, {"blockIndex", 0}, {"code", "await click(t, 'a')"}});
  ASSERT_EQ(s.history.size(), 2u);
  apply_event(s, "resumed", {{"fromIteration", 2}, {"checkpointIteration", 1}, {"note", ""}});
  ASSERT_EQ(s.history.size(), 1u);
  EXPECT_EQ(s.history[0].number, 1);
  EXPECT_EQ(s.last_iteration, 1);
  apply_event(s, "iteration-start", {{"iteration", 2}});
  ASSERT_EQ(s.history.size(), 2u);
  EXPECT_EQ(s.history[1].number, 2);
  EXPECT_TRUE(s.history[1].blocks.empty()) << "the iteration is done again from its start";
}

TEST(RunEvents, ACompleteEventEndsTheTurnAndDropsAnUnfinishedIteration) {
  RunState s;
  iteration(s, 1, "env.n = 3");
  apply_event(s, "iteration-start", {{"iteration", 2}});
  ASSERT_EQ(s.history.size(), 2u);
  apply_event(s, "complete", {{"final", {{"rows", 3}}}});
  EXPECT_TRUE(s.ended);
  const json final = {{"rows", 3}};
  EXPECT_EQ(s.final, final);
  EXPECT_FALSE(s.partial) << "not said, not partial";
  ASSERT_EQ(s.history.size(), 1u);
  EXPECT_EQ(s.history[0].number, 1);
  RunState bare;
  apply_event(bare, "complete", json::object());
  EXPECT_TRUE(bare.ended);
  EXPECT_TRUE(bare.final.is_null()) << "a turn that ended without a final value";
}

TEST(RunEvents, DataThatIsNotAnObjectAndUnknownEventsChangeNothing) {
  RunState s;
  s.task = "count the rows";
  iteration(s, 1, "env.n = 3");
  const std::string before = dump_json(s.to_json());
  for (const char* type : {"user-message", "iteration-start", "code-generated", "code-result", "sub-llm-complete", "iteration-end", "checkpoint",
                           "goal_added", "goal_updated", "resumed", "complete"})
    for (const json& data : {json(nullptr), json("text"), json(42), json::array({1, 2}), json(true)}) {
      EXPECT_NO_THROW(apply_event(s, type, data)) << type << " " << data;
      EXPECT_EQ(dump_json(s.to_json()), before) << type << " " << data;
    }
  EXPECT_NO_THROW(apply_event(s, "screenshot", {{"iteration", 1}, {"tabId", "t1"}}));
  EXPECT_NO_THROW(apply_event(s, "", {{"final", "x"}, {"goals", json::array()}}));
  EXPECT_NO_THROW(apply_event(s, "COMPLETE", {{"final", "x"}}));
  EXPECT_EQ(dump_json(s.to_json()), before);
}

TEST(RunEvents, MissingOrMistypedFieldsReadAsNone) {
  RunState s;
  EXPECT_NO_THROW(apply_event(s, "code-generated", {{"iteration", 1}, {"code", json::array({"not", "text"})}}));
  EXPECT_NO_THROW(apply_event(s, "code-result", {{"iteration", 1}}));
  ASSERT_EQ(s.history.size(), 1u);
  ASSERT_EQ(s.history[0].blocks.size(), 1u) << "no block index is the first block";
  EXPECT_EQ(s.history[0].blocks[0].code, "");
  EXPECT_TRUE(s.history[0].blocks[0].ok) << "a result that does not say is ok";
  EXPECT_EQ(s.history[0].blocks[0].summary, "");
  EXPECT_FALSE(s.history[0].blocks[0].set_final);
  EXPECT_NO_THROW(apply_event(s, "code-result", {{"iteration", 1}, {"metadata", {{"summary", 7}, {"oneLiner", json::object()}, {"logs", "one line"}}}}));
  EXPECT_EQ(s.history[0].blocks[0].summary, "");
  EXPECT_EQ(s.history[0].blocks[0].one_liner, "");
  EXPECT_TRUE(s.history[0].blocks[0].logs.empty());
  EXPECT_NO_THROW(apply_event(s, "iteration-end", {{"iteration", 1}, {"usage", "lots"}, {"cost", "cheap"}}));
  EXPECT_EQ(s.last_iteration, 1);
  EXPECT_EQ(s.usage.input_tokens, 0);
  EXPECT_FALSE(s.cost_known);
  EXPECT_NO_THROW(apply_event(s, "sub-llm-complete", {{"resultMeta", "done"}}));
  EXPECT_NO_THROW(apply_event(s, "sub-llm-complete", {{"resultMeta", {{"usage", {{"input_tokens", "100"}, {"output_tokens", nullptr}}}}}}));
  EXPECT_EQ(s.usage.input_tokens, 0);
  EXPECT_EQ(s.usage.output_tokens, 0);
  EXPECT_NO_THROW(apply_event(s, "checkpoint", json::object()));
  EXPECT_EQ(s.checkpoint_iteration, 0);
  EXPECT_EQ(s.tabs, json::array());
  EXPECT_NO_THROW(apply_event(s, "user-message", {{"text", 42}}));
  EXPECT_EQ(s.turn, 2);
  EXPECT_EQ(s.task, "") << "a message whose text is not a string asks nothing";
}

// Stored events are read back after a crash: a damaged row (a number stored as text, null where an
// object was) reads as its default, never as an exception that would stop the rebuild.
TEST(RunEvents, FieldsOfTheWrongTypeReadAsTheirDefaultInsteadOfThrowing) {
  RunState s;
  EXPECT_NO_THROW(apply_event(s, "iteration-start", {{"iteration", "2"}}));
  EXPECT_NO_THROW(apply_event(s, "code-generated", {{"iteration", nullptr}, {"blockIndex", "3"}, {"code", "x"}}));
  EXPECT_NO_THROW(apply_event(s, "code-result", {{"iteration", 0}, {"metadata", nullptr}}));
  EXPECT_NO_THROW(apply_event(s, "code-result", {{"iteration", 0}, {"metadata", "x"}}));
  EXPECT_NO_THROW(apply_event(s, "code-result", {{"iteration", 0}, {"metadata", {{"ok", "no"}, {"setFinal", 1}}}}));
  ASSERT_FALSE(s.history.empty());
  ASSERT_FALSE(s.history.back().blocks.empty());
  EXPECT_TRUE(s.history.back().blocks[0].ok) << "an ok that is not a boolean reads as the default";
  EXPECT_FALSE(s.history.back().blocks[0].set_final);
  EXPECT_NO_THROW(apply_event(s, "iteration-end", {{"iteration", 1e300}}));
  EXPECT_EQ(s.last_iteration, 1000000) << "a count held in range, so that the next one is a number too";
  EXPECT_NO_THROW(apply_event(s, "complete", {{"final", {{"message", "x"}, {"partial", "yes"}}}, {"partial", "yes"}}));
  EXPECT_TRUE(s.ended);
  EXPECT_FALSE(s.partial);
  EXPECT_NO_THROW(apply_event(s, "user-message", {{"text", "next"}, {"turn", "3"}}));
  EXPECT_EQ(s.task, "next");
  ASSERT_EQ(s.turns.size(), 1u);
  EXPECT_EQ(s.turns[0].result, R"({"message":"x","partial":"yes"})") << "a partial flag that is not a boolean is not a stopped turn";
  EXPECT_NO_THROW(final_text(json{{"message", "x"}, {"partial", "yes"}}));
}

TEST(RunCheckpoint, AStoredStateWithFieldsOfTheWrongTypeReadsWithoutThrowing) {
  const json damaged = {{"turn", "x"},          {"turns", "none"},  {"lastIteration", nullptr},
                        {"turnIterations", 2.5}, {"history", json::array({1, "two", {{"number", "3"}, {"blocks", {{{"ok", 1}, {"setFinal", "y"}}}}}})},
                        {"usage", "lots"},       {"ended", "yes"},  {"checkpointIteration", json::array()}};
  RunState s;
  EXPECT_NO_THROW(s = RunState::from_json(damaged));
  EXPECT_EQ(s.turn, 1);
  EXPECT_TRUE(s.turns.empty());
  EXPECT_EQ(s.last_iteration, 0);
  EXPECT_EQ(s.turn_iterations, 2);
  ASSERT_EQ(s.history.size(), 3u);
  EXPECT_EQ(s.history[2].number, 0);
  ASSERT_EQ(s.history[2].blocks.size(), 1u);
  EXPECT_TRUE(s.history[2].blocks[0].ok);
  EXPECT_FALSE(s.history[2].blocks[0].set_final);
  EXPECT_FALSE(s.ended);
}

TEST(RunCheckpoint, ItNamesEveryPartOfTheStateAndTheFinalValueOnlyOnceTheTurnEnded) {
  RunState s;
  const std::vector<std::string> parts = {"turn", "turns", "task", "lastIteration", "turnIterations", "history", "usage", "cost",
                                          "tabs", "activeTab", "provider", "checkpointIteration", "ended", "goals"};
  EXPECT_EQ(keys(checkpoint_json(s)), parts);
  EXPECT_EQ(keys(s.to_json()), parts);
  EXPECT_EQ(keys(checkpoint_json(s)["usage"]), (std::vector<std::string>{"input_tokens", "output_tokens", "estimated", "cache_read_tokens", "cache_write_tokens"}));
  apply_event(s, "complete", {{"final", "done"}, {"partial", true}});
  std::vector<std::string> ended = parts;
  ended.push_back("final");
  ended.push_back("partial");
  json c = checkpoint_json(s);
  EXPECT_EQ(keys(c), ended);
  EXPECT_EQ(c["final"], "done");
  EXPECT_EQ(c["partial"], true);
}

TEST(RunCheckpoint, AnIterationIsKeptWithItsBlocksInFull) {
  RunState s;
  iteration(s, 1, "setFinal(3)", {{"ok", true}, {"summary", "Result: number 3"}, {"oneLiner", "→ number 3"}, {"logs", json::array({"a"})}, {"setFinal", true}});
  iteration(s, 2, "env.n = 3", {{"ok", false}, {"summary", "ERROR — x"}, {"oneLiner", "→ ERROR: x"}});
  apply_event(s, "iteration-end", {{"iteration", 3}, {"note", "Done, I think."}, {"cost", 0.25}});
  const json want = json::array({
      json{{"number", 1},
           {"blocks", json::array({json{{"code", "setFinal(3)"}, {"ok", true}, {"oneLiner", "→ number 3"}, {"summary", "Result: number 3"}, {"logs", json::array({"a"})}, {"setFinal", true}}})}},
      json{{"number", 2}, {"blocks", json::array({json{{"code", "env.n = 3"}, {"ok", false}, {"oneLiner", "→ ERROR: x"}, {"summary", "ERROR — x"}}})}},
      json{{"number", 3}, {"blocks", json::array()}, {"note", "Done, I think."}},
  });
  EXPECT_EQ(checkpoint_json(s)["history"], want);
}

TEST(RunCheckpoint, PastTenIterationsTheOlderOnesKeepTheStartOfTheirCodeAndTheirOneLiner) {
  const std::string long_code(500, 'x');
  RunState ten;
  for (int n = 1; n <= static_cast<int>(kCheckpointFullIterations); ++n) iteration(ten, n, long_code);
  const json whole = checkpoint_json(ten);
  for (const auto& r : whole["history"]) EXPECT_FALSE(r.contains("compacted")) << "ten iterations are kept whole";
  RunState s;
  for (int n = 1; n <= static_cast<int>(kCheckpointFullIterations) + 2; ++n) iteration(s, n, long_code);
  json c = checkpoint_json(s);
  ASSERT_EQ(c["history"].size(), kCheckpointFullIterations + 2);
  for (size_t i = 0; i < 2; ++i) {
    const json& r = c["history"][i];
    EXPECT_EQ(r["number"], i + 1);
    EXPECT_EQ(r["compacted"], true);
    const json& b = r["blocks"][0];
    const json compacted = {{"code", std::string(400, 'x')}, {"ok", true}, {"oneLiner", "→ number 3"}};
    EXPECT_EQ(b, compacted) << "no summary, no logs";
  }
  for (size_t i = 2; i < c["history"].size(); ++i) {
    const json& r = c["history"][i];
    EXPECT_FALSE(r.contains("compacted")) << i;
    EXPECT_EQ(r["blocks"][0]["code"], long_code) << i;
    EXPECT_EQ(r["blocks"][0]["summary"], "Result: number 3") << i;
  }
  // The state itself, and its JSON, keep every iteration whole.
  EXPECT_EQ(s.history[0].blocks[0].code, long_code);
  const json state = s.to_json();
  for (const auto& r : state["history"]) EXPECT_FALSE(r.contains("compacted"));
}

TEST(RunCheckpoint, ACheckpointReadBackGivesTheSameCheckpoint) {
  RunState s;
  s.task = "count the rows";
  iteration(s, 1, "env.n = 3");
  apply_event(s, "complete", {{"final", "3 rows"}});
  apply_event(s, "user-message", {{"text", "and the columns?"}, {"turn", 2}});
  for (int n = 2; n <= 13; ++n) iteration(s, n, "env.c = " + std::to_string(n));
  apply_event(s, "iteration-end", {{"iteration", 14}, {"note", "thinking"}, {"usage", {{"input_tokens", 40}, {"output_tokens", 4}}}, {"cost", 0.5}});
  apply_event(s, "sub-llm-complete", {{"resultMeta", {{"usage", {{"input_tokens", 9}, {"estimated", true}}}, {"cost", 0.25}}}});
  const json tabs = json::array({json{{"id", "t1"}, {"url", "https://example.org/"}, {"title", "Example"}}});
  apply_event(s, "checkpoint", {{"iteration", 14}, {"tabs", tabs}, {"activeTab", "t1"}, {"provider", {{"used", 15}}}});
  const json goals = json::array({json{{"id", "g1"}, {"text", "Count"}, {"status", "done"}}});
  apply_event(s, "goal_updated", {{"goals", goals}});
  apply_event(s, "complete", {{"final", {{"partial", true}, {"message", "stopped at the cap"}}}, {"partial", true}});

  const json c = checkpoint_json(s);
  RunState back = RunState::from_json(c);
  EXPECT_EQ(dump_json(checkpoint_json(back)), dump_json(c));
  EXPECT_EQ(back.turn, 2);
  ASSERT_EQ(back.turns.size(), 1u);
  EXPECT_EQ(back.turns[0].task, "count the rows");
  EXPECT_EQ(back.turns[0].result, "3 rows");
  EXPECT_EQ(back.task, "and the columns?");
  EXPECT_EQ(back.last_iteration, 14);
  EXPECT_EQ(back.turn_iterations, 13);
  ASSERT_EQ(back.history.size(), 13u);
  EXPECT_EQ(back.usage.input_tokens, 49);
  EXPECT_TRUE(back.usage.estimated);
  EXPECT_TRUE(back.cost_known);
  EXPECT_DOUBLE_EQ(back.cost, 12 * 0.25 + 0.25 + 0.5 + 0.25);
  EXPECT_EQ(back.tabs, tabs);
  EXPECT_EQ(back.active_tab, "t1");
  EXPECT_EQ(back.provider, (json{{"used", 15}}));
  EXPECT_EQ(back.checkpoint_iteration, 14);
  EXPECT_EQ(back.goals, goals);
  EXPECT_TRUE(back.ended);
  EXPECT_TRUE(back.partial);
  // A compacted iteration reads back with its one-liner standing in for its summary.
  EXPECT_EQ(back.history[0].blocks[0].summary, "Result: → number 3");
  EXPECT_TRUE(back.history[0].blocks[0].logs.empty());
  EXPECT_EQ(back.history[12].note, "thinking");
  EXPECT_EQ(back.history[11].blocks[0].summary, "Result: number 3");
  EXPECT_EQ(back.history[11].blocks[0].logs, (std::vector<std::string>{"read 3 rows"}));
  // The whole state reads back as itself.
  EXPECT_EQ(dump_json(RunState::from_json(s.to_json()).to_json()), dump_json(s.to_json()));
}

TEST(RunCheckpoint, AStoredStateOfAnotherShapeReadsAsAFreshRun) {
  const std::string fresh = dump_json(RunState().to_json());
  for (const json& j : {json(nullptr), json("state"), json::array({1}), json(3)}) EXPECT_EQ(dump_json(RunState::from_json(j).to_json()), fresh) << j;
  RunState empty = RunState::from_json(json::object());
  EXPECT_EQ(empty.turn, 1);
  EXPECT_TRUE(empty.turns.empty());
  EXPECT_TRUE(empty.history.empty());
  EXPECT_EQ(empty.tabs, json::array());
  EXPECT_EQ(empty.goals, json::array());
  EXPECT_TRUE(empty.provider.is_null());
  EXPECT_FALSE(empty.ended);
  EXPECT_FALSE(empty.cost_known) << "a state that does not give its cost has an unknown cost";
  RunState odd = RunState::from_json({{"tabs", "t1"}, {"goals", {{"g1", "x"}}}, {"activeTab", 3}, {"task", json::array()}, {"cost", "free"}});
  EXPECT_EQ(odd.tabs, json::array());
  EXPECT_EQ(odd.goals, json::array());
  EXPECT_EQ(odd.active_tab, "");
  EXPECT_EQ(odd.task, "");
  EXPECT_FALSE(odd.cost_known);
  // A final value is read only for a turn that ended.
  RunState not_ended = RunState::from_json({{"ended", false}, {"final", "early"}, {"partial", true}});
  EXPECT_TRUE(not_ended.final.is_null());
  EXPECT_FALSE(not_ended.partial);
}

TEST(FinalText, AStringAnswerIsShownAsItIsWhateverItsLength) {
  EXPECT_EQ(final_text("There are 3 rows."), "There are 3 rows.");
  const std::string long_answer(5000, 'w');
  EXPECT_EQ(final_text(long_answer), long_answer);
  EXPECT_EQ(final_text(""), "");
}

TEST(FinalText, AStoppedTurnReadsAsWhyItStopped) {
  EXPECT_EQ(final_text(json{{"partial", true}, {"message", "cancelled"}}), "(stopped) cancelled");
  EXPECT_EQ(final_text(json{{"partial", true}, {"message", 42}}), "(stopped) ") << "a message that is not text says nothing";
  EXPECT_EQ(final_text(json{{"partial", false}, {"message", "fine"}}), R"({"partial":false,"message":"fine"})");
  EXPECT_EQ(final_text(json{{"message", "fine"}}), R"({"message":"fine"})");
  EXPECT_EQ(final_text(json{{"partial", true}}), R"({"partial":true})");
}

TEST(FinalText, OtherValuesAreTheirJsonCutAtTwoThousandBytesOnACharacterBoundary) {
  EXPECT_EQ(final_text(json()), "null");
  EXPECT_EQ(final_text(json(3)), "3");
  EXPECT_EQ(final_text(json{{"total", 3}, {"names", json::array({"a", "b"})}}), R"({"total":3,"names":["a","b"]})");
  json items = json::array();
  for (int i = 0; i < 1000; ++i) items.push_back("item");
  const std::string text = dump_json(items);
  EXPECT_EQ(final_text(items), text.substr(0, 2000) + "…");
  // ["aaa…aé…: byte 2,000 falls inside the "é", which is left out whole.
  EXPECT_EQ(final_text(json::array({std::string(1997, 'a') + "é" + "tail"})), "[\"" + std::string(1997, 'a') + "…");
}

}  // namespace
}  // namespace ouro::agent
