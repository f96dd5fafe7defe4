// The conversation's goals: a bounded checklist, changed only as its rules allow, folded back from
// its events (a resume) and shown in the prompt.
#include "agent/goals.h"
#include "agent/state.h"

#include <gtest/gtest.h>

namespace ouro::agent {
namespace {

TEST(Goals, AddedOpenMarkedAndNotedAndShownInThePrompt) {
  Goals g;
  auto first = g.add("  Find the cheapest flight to Lisbon \n");
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ((*first)["id"], "g1");
  EXPECT_EQ((*first)["text"], "Find the cheapest flight to Lisbon");
  EXPECT_EQ((*first)["status"], "open");
  ASSERT_TRUE(g.add("Book it"));
  auto done = g.update("g1", {{"status", "done"}, {"note", "89 EUR on example-air"}});
  ASSERT_TRUE(done);
  EXPECT_EQ((*done)["status"], "done");
  ASSERT_TRUE(g.update("g2", {{"status", "dropped"}}));
  std::string section = g.prompt_section();
  EXPECT_NE(section.find("- [x] g1 Find the cheapest flight to Lisbon — 89 EUR on example-air"), std::string::npos) << section;
  EXPECT_NE(section.find("- [-] g2 Book it"), std::string::npos) << section;
  EXPECT_EQ(Goals().prompt_section(), "") << "no goals, no section";
}

TEST(Goals, WrongChangesAreErrorsThatSayWhatIsAllowed) {
  Goals g;
  EXPECT_EQ(g.add("   ").error().code, Code::InvalidArgument);
  ASSERT_TRUE(g.add("One"));
  auto unknown = g.update("g9", {{"status", "done"}});
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("the goals: g1"), std::string::npos) << unknown.error().message;
  EXPECT_NE(g.update("g1", {{"status", "finished"}}).error().message.find("'open', 'done' or 'dropped'"), std::string::npos);
  EXPECT_NE(g.update("g1", {{"colour", "red"}}).error().message.find("unknown change 'colour'"), std::string::npos);
  EXPECT_FALSE(g.update("g1", json::array()));
  EXPECT_EQ(g.list()[0]["status"], "open") << "a refused change changes nothing";
}

TEST(Goals, AConversationKeepsAtMostTwentyAndLongTextIsCut) {
  Goals g;
  for (size_t i = 0; i < kMaxGoals; ++i) ASSERT_TRUE(g.add("goal " + std::to_string(i)));
  auto more = g.add("one too many");
  ASSERT_FALSE(more);
  EXPECT_EQ(more.error().code, Code::ResourceExhausted);
  Goals h;
  auto long_one = h.add(std::string(5000, 'x') + "\nsecond line");
  ASSERT_TRUE(long_one);
  EXPECT_LE((*long_one)["text"].get<std::string>().size(), kGoalChars + 4);
  EXPECT_EQ((*long_one)["text"].get<std::string>().find('\n'), std::string::npos);
}

TEST(Goals, TheEventsGiveTheListBackAndNumberingGoesOn) {
  Goals g;
  ASSERT_TRUE(g.add("Find"));
  ASSERT_TRUE(g.add("Book"));
  ASSERT_TRUE(g.update("g1", {{"status", "done"}}));
  RunState s;
  apply_event(s, "goal_added", {{"goal", g.list()[0]}, {"goals", g.list()}});
  apply_event(s, "goal_updated", {{"goal", g.list()[0]}, {"goals", g.list()}});
  RunState back = RunState::from_json(checkpoint_json(s));
  EXPECT_EQ(back.goals, g.list());
  Goals resumed(back.goals);
  auto next = resumed.add("Pay");
  ASSERT_TRUE(next);
  EXPECT_EQ((*next)["id"], "g3") << "ids are not reused after a resume";
  // A damaged record gives no goals rather than failing the run.
  EXPECT_TRUE(Goals(json{{"not", "a list"}}).list().empty());
  EXPECT_EQ(Goals(json::array({json{{"id", "g1"}, {"text", "t"}, {"status", "weird"}}})).list()[0]["status"], "open");
}

}  // namespace
}  // namespace ouro::agent
