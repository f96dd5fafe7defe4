// What a recording says about an element, in words (perception/targets.h): what a replay's heal
// event and its errors show a person.
#include "perception/targets.h"

#include <gtest/gtest.h>

namespace ouro::perception {
namespace {

TEST(Targets, RecordedDetailsReadAsWords) {
  json d = {{"role", "button"}, {"name", "Subscribe"}, {"label", "Subscribe to the newsletter"}, {"landmark", {{"role", "main"}, {"name", "Offers"}}},
            {"heading", "Stay in touch"}, {"attrs", {{"type", "submit"}, {"data-testid", "sub"}, {"class", "x"}}}};
  EXPECT_EQ(describe_details(d),
            "button \"Subscribe\" (label \"Subscribe to the newsletter\", in main \"Offers\", under \"Stay in touch\", type=submit, data-testid=sub)");
  EXPECT_EQ(describe_details(json{{"tag", "input"}, {"placeholder", "Email"}}), "input \"\" (placeholder \"Email\")");
  EXPECT_EQ(describe_details(json::object()), "element \"\"") << "nothing recorded: still a phrase";
  EXPECT_EQ(describe_details(json{{"role", "link"}, {"name", "Home"}, {"label", "Home"}}), "link \"Home\"") << "a label equal to the name is said once";
}

TEST(Targets, AHostilePagesLongNamesAreCut) {
  std::string huge(100000, 'A');
  std::string said = describe_details(json{{"role", "button"}, {"name", huge}, {"label", huge}, {"heading", huge}, {"attrs", {{"href", huge}}}});
  EXPECT_LT(said.size(), 600u) << said.size();
  EXPECT_TRUE(describe_details(json{{"role", 5}, {"name", json::array()}, {"landmark", "main"}, {"attrs", "x"}}).size() > 0) << "wrong types read as absent";
}

}  // namespace
}  // namespace ouro::perception
