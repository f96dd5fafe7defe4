// The planner of steps that click (commands/sentence_clicks.cpp), through the sentence parser: a
// key against a control named like one, refs joined by "and", a quoted item added to a list, a row
// action on a quoted name, and pronouns, which name no row. The readings sentence_parts_test.cpp
// and plans.json pin are not repeated.
#include "commands/sentence.h"
#include "plan_lines.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ouro::commands {
namespace {

using testing::L;
using testing::plan_of;

TEST(ClickPlans, AControlNamedLikeAKeyIsClickedAndAKeyIsPressed) {
  EXPECT_EQ(plan_of("Press the Delete button"), (L{"click the Delete button"}));
  EXPECT_EQ(plan_of("Press the Delete key"), (L{"press Delete"}));
  EXPECT_EQ(plan_of("Hit \"Enter\""), (L{"click \"Enter\""})) << "a quoted name is a control's";
  EXPECT_EQ(plan_of("Press Escape"), (L{"press Escape"}));
}

TEST(ClickPlans, RefsJoinedByAndAreEachClicked) {
  auto r = parse_request("Click e12 and e13");
  ASSERT_EQ(r.plan.size(), 2u) << to_json(r).dump();
  EXPECT_EQ(r.plan[0].target.kind, Target::Kind::Ref);
  EXPECT_EQ(to_line(r.plan[0]), "click e12");
  EXPECT_EQ(to_line(r.plan[1]), "click e13");
}

TEST(ClickPlans, AQuotedItemAddedToAListKeepsItsWholeName) {
  auto r = parse_request("Add \"Blue Mug (large)\" to the basket");
  ASSERT_EQ(r.plan.size(), 1u) << to_json(r).dump();
  EXPECT_EQ(r.plan[0].verb, Verb::Click);
  EXPECT_EQ(r.plan[0].target.name, "add to basket");
  EXPECT_EQ(r.plan[0].target.near, "Blue Mug (large)");
}

TEST(ClickPlans, ARowActionOnAQuotedNameWithAndInItIsOneStep) {
  auto r = parse_request("Delete \"Salt and Pepper\"");
  ASSERT_EQ(r.plan.size(), 1u) << to_json(r).dump();
  EXPECT_EQ(r.plan[0].verb, Verb::Click);
  EXPECT_EQ(r.plan[0].target.name, "delete");
  EXPECT_EQ(r.plan[0].target.near, "Salt and Pepper");
  EXPECT_TRUE(r.not_understood.empty());
}

// A row action on a pronoun names no row ("Delete it"), with words after the pronoun that name
// nothing as well: "Delete it now" and "Archive them all" never look for a row holding "it now".
TEST(ClickPlans, APronounWithAWordAfterItNamesNoRow) {
  for (const char* text : {"Delete it now", "Archive them all"}) {
    auto r = parse_request(text);
    ASSERT_EQ(r.plan.size(), 1u) << text << ": " << to_json(r).dump();
    EXPECT_EQ(r.plan[0].verb, Verb::Click) << text;
    EXPECT_TRUE(r.plan[0].target.near.empty()) << text << ": near '" << r.plan[0].target.near << "'";
  }
}

}  // namespace
}  // namespace ouro::commands
