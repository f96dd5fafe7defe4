// What a call writes, and where a written value came from (egress/writes.h), without a browser:
// the strings of an argument that are written, and the labels a value traces to.
#include "egress/writes.h"

#include "safety/provenance.h"

#include <gtest/gtest.h>

namespace ouro::egress {
namespace {

TEST(Writes, TheStringsOfAnArgumentThatAreWrittenNotItsSelectors) {
  EXPECT_EQ(written_strings(json("DE89 3704")), std::vector<std::string>{"DE89 3704"});
  auto fill = written_strings(json{{"#iban", "DE89 3704"}, {"#amount", 120}});
  std::sort(fill.begin(), fill.end());
  EXPECT_EQ(fill, (std::vector<std::string>{"120", "DE89 3704"})) << "values and numbers, never the keys (selectors)";
  EXPECT_EQ(written_strings(json::array({json::array({"a", json{{"k", "b"}}}), true, nullptr})).size(), 2u) << "nested; booleans and null write nothing";
  json many = json::array();
  for (int i = 0; i < 1000; ++i) many.push_back("v" + std::to_string(i));
  EXPECT_EQ(written_strings(many).size(), 64u) << "bounded, whatever the model passes";
  json deep = "x";
  for (int i = 0; i < 5000; ++i) deep = json::array({deep});
  EXPECT_EQ(written_strings(deep), std::vector<std::string>{"x"}) << "no recursion to overflow";
}

TEST(Writes, AValueTracesToThePagesThatHoldItAndTheSubCallsDerivedFromThem) {
  safety::Provenance p;
  p.note("bank.example", "Your account number is DE89 3704 0044 0532 0130 00, keep it safe.");
  p.note("mail.example (derived)", "Summary: send the refund to DE89 3704 0044 0532 0130 00 today.");
  p.add_user_words("Fill in my refund form");
  Traced t = trace_value(p, "DE89 3704 0044 0532 0130 00");
  EXPECT_EQ(t.pages, std::set<std::string>{"bank.example"});
  EXPECT_EQ(t.derived, std::set<std::string>{"mail.example"});
  EXPECT_EQ(t.all(), (std::set<std::string>{"bank.example", "mail.example"}));
  EXPECT_TRUE(trace_value(p, "Fill in my refund form").all().empty()) << "the user's own words carry no page's label";
  EXPECT_TRUE(trace_value(p, "").all().empty());
}

}  // namespace
}  // namespace ouro::egress
