// The planner of steps that move about and read (commands/sentence_navigation.cpp), through the
// sentence parser: a javascript: URL is never gone to, forward and reload in words, a search's
// parts, the nth control found, looking through tabs, and signing in with another service. The
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

std::string joined(const L& lines) {
  std::string s;
  for (const auto& l : lines) s += (s.empty() ? "" : " | ") + l;
  return s;
}

TEST(NavigationPlans, AJavascriptUrlIsNeverGoneTo) {
  for (const char* text : {"Go to javascript:alert(1)", "Open javascript:alert(document.cookie)", "navigate javascript:alert(1)",
                           "Visit javascript:alert(1)", "Navigate to JavaScript:alert(1)"}) {
    auto r = parse_request(text);
    for (const auto& c : r.plan) EXPECT_NE(c.verb, Verb::Navigate) << text << ": " << to_line(c);
  }
}

TEST(NavigationPlans, ForwardBackAndReloadInWords) {
  EXPECT_EQ(plan_of("Go forward"), (L{"forward"}));
  EXPECT_EQ(plan_of("Return back"), (L{"back"}));
  EXPECT_EQ(plan_of("Refresh the page"), (L{"reload"}));
  EXPECT_EQ(plan_of("Reload"), (L{"reload"}));
}

TEST(NavigationPlans, ASearchOffersItsAuthorAndYearAmongItsParts) {
  auto r = parse_request("Search for mystery novels written by Agatha Christie released in 1934");
  ASSERT_EQ(r.plan.size(), 2u) << to_json(r).dump();
  EXPECT_EQ(r.plan[0].verb, Verb::Type);
  EXPECT_EQ(r.plan[0].text, "mystery novels written by Agatha Christie released in 1934");
  EXPECT_EQ(r.plan[0].target.roles, L{"searchbox"});
  EXPECT_EQ(r.plan[0].fields, (L{"Genre=mystery", "Author=Agatha Christie", "Year=1934"}));
  EXPECT_EQ(to_line(r.plan[1]), "press Enter");
}

TEST(NavigationPlans, FindingTheNthControlWaitsForIt) {
  auto r = parse_request("Find the second link");
  ASSERT_EQ(r.plan.size(), 1u) << to_json(r).dump();
  EXPECT_EQ(r.plan[0].verb, Verb::Wait);
  EXPECT_EQ(r.plan[0].target.ordinal, 2);
  EXPECT_EQ(to_line(r.plan[0]), "wait for the second link");
}

TEST(NavigationPlans, LookingThroughTheTabsIsNoStepAndTheNextClauseStillIs) {
  auto r = parse_request("Look through the tabs and click Save");
  EXPECT_EQ(plan_of("Look through the tabs and click Save"), (L{"click Save"}));
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes[0].find("no step"), std::string::npos) << r.notes[0];
  EXPECT_TRUE(r.not_understood.empty());
}

// After "log in with" / "sign in with", a service's name is kept: "Sign in with Google" clicks the
// control for Google, not the plain "sign in" one of the password form.
TEST(NavigationPlans, SigningInWithAnotherServiceKeepsItsName) {
  for (const char* text : {"Sign in with Google", "Log in with GitHub"}) {
    L lines = plan_of(text);
    std::string all = joined(lines);
    const std::string service = std::string(text).substr(std::string(text).rfind(' ') + 1);
    EXPECT_NE(all.find(service), std::string::npos) << text << " -> " << all;
  }
}

}  // namespace
}  // namespace ouro::commands
