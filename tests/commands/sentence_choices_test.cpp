// The planner of steps that choose (commands/sentence_choices.cpp), through the sentence parser:
// several boxes beside their labels, on and off on either side of the name, nothing to choose,
// an option by its place from the end, a menu path with empty steps, a tab to change to. The
// readings sentence_parts_test.cpp and plans.json pin are not repeated.
#include "commands/sentence.h"
#include "plan_lines.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ouro::commands {
namespace {

using testing::L;
using testing::plan_of;

TEST(ChoicePlans, TheBoxesNextToSeveralLabelsAreEachTickedInTheirOwnRow) {
  auto r = parse_request("Tick the boxes next to alpha and beta");
  ASSERT_EQ(r.plan.size(), 2u) << to_json(r).dump();
  EXPECT_EQ(to_line(r.plan[0]), "check the box next to alpha");
  EXPECT_EQ(to_line(r.plan[1]), "check the box next to beta");
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(r.plan[i].verb, Verb::Check);
    EXPECT_EQ(r.plan[i].target.roles, L{"checkbox"});
  }
  EXPECT_EQ(r.plan[0].target.near, "alpha");
  EXPECT_EQ(r.plan[1].target.near, "beta");
}

TEST(ChoicePlans, OnAndOffMayStandBeforeOrAfterWhatTheyTurn) {
  EXPECT_EQ(plan_of("Switch the Wi-Fi off"), (L{"uncheck the Wi-Fi"}));
  EXPECT_EQ(plan_of("Turn on notifications and sounds"), (L{"check notifications", "check sounds"}));
}

// On or off of nothing named is not understood for "switch" as for "turn" (sentence_parts_test.cpp),
// never a click on a tab called "on" or "off".
TEST(ChoicePlans, SwitchingOnOrOffWithNothingNamedIsNoStep) {
  EXPECT_EQ(plan_of("Switch on"), (L{"?? Switch on"}));
  EXPECT_EQ(plan_of("Switch off"), (L{"?? Switch off"}));
}

TEST(ChoicePlans, NoneOfThemIsNoStepEvenWhereItReadsAsACommand) {
  auto r = parse_request("Uncheck none of them");
  EXPECT_TRUE(r.plan.empty()) << to_json(r).dump();
  EXPECT_TRUE(r.not_understood.empty()) << to_json(r).dump();
}

TEST(ChoicePlans, AnOptionByItsPlaceFromTheEndAndAMenuPathWithEmptySteps) {
  EXPECT_EQ(plan_of("Select the last option from the Size list"), (L{"select \"#-1\" from the Size list"}));
  EXPECT_EQ(plan_of("Select File >> Export"), (L{"hover \"File\"", "click \"Export\""}));
}

TEST(ChoicePlans, ChangingToANamedTabClicksIt) {
  auto r = parse_request("Change to the Billing tab");
  ASSERT_EQ(r.plan.size(), 1u) << to_json(r).dump();
  EXPECT_EQ(to_line(r.plan[0]), "click the Billing tab");
  EXPECT_EQ(r.plan[0].target.roles, L{"tab"});
  EXPECT_EQ(r.plan[0].target.name, "Billing");
}

}  // namespace
}  // namespace ouro::commands
