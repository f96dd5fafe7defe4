// The command language and the plain-sentence parser/planner (pure): what a person writes, what
// steps come out. The browser half (binding targets on real pages) is in act_test.cpp.
#include "commands/language.h"
#include "commands/sentence.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

namespace ouro::commands {
namespace {

std::vector<std::string> plan_of(const std::string& text) {
  auto r = parse_request(text);
  std::vector<std::string> out;
  for (const auto& c : r.plan) out.push_back(to_line(c));
  for (const auto& n : r.not_understood) out.push_back("?? " + n);
  return out;
}

using L = std::vector<std::string>;

TEST(CommandLanguage, ParsesEachVerb) {
  EXPECT_EQ(to_line(*parse_command("navigate https://example.com/a")), "navigate https://example.com/a");
  EXPECT_EQ(parse_command("back")->verb, Verb::Back);
  EXPECT_EQ(to_line(*parse_command("click e12")), "click e12");
  EXPECT_EQ(parse_command("click e12")->target.kind, Target::Kind::Ref);
  EXPECT_EQ(parse_command("click f2e7")->target.kind, Target::Kind::Ref);
  EXPECT_EQ(parse_command("click role=button[name=\"OK\"]")->target.kind, Target::Kind::Selector);
  EXPECT_EQ(parse_command("click #submit")->target.kind, Target::Kind::Selector);
  EXPECT_EQ(parse_command("click input[type=submit]")->target.kind, Target::Kind::Selector);
  auto t = *parse_command("type \"Kathy\" into the Name field");
  EXPECT_EQ(t.verb, Verb::Type);
  EXPECT_EQ(t.text, "Kathy");
  EXPECT_EQ(t.target.name, "Name");
  EXPECT_EQ(t.target.roles, L{"textbox"});
  auto s = *parse_command("type secret:password into Password");
  EXPECT_EQ(s.secret, "password");
  EXPECT_TRUE(s.text.empty());
  EXPECT_EQ(parse_command("type secret(\"api-key\") into e4")->secret, "api-key");
  auto sel = *parse_command("select \"Bob\" from the list");
  EXPECT_EQ(sel.verb, Verb::Select);
  EXPECT_EQ(sel.text, "Bob");
  EXPECT_EQ(sel.target.roles, L{"list"});
  EXPECT_EQ(parse_command("check the Remember me checkbox")->target.name, "Remember me");
  EXPECT_EQ(parse_command("press Enter")->text, "Enter");
  EXPECT_EQ(parse_command("press ctrl+a")->text, "Control+a");
  EXPECT_EQ(parse_command("scroll down 400")->amount, 400);
  EXPECT_EQ(parse_command("scroll to the Reviews heading")->verb, Verb::ScrollTo);
  EXPECT_TRUE(parse_command("wait for load")->wait_load);
  EXPECT_EQ(parse_command("wait for \"Thank you\"")->text, "Thank you");
  EXPECT_EQ(parse_command("wait 2s")->amount, 2000);
  auto ex = *parse_command("extract title, price from the results");
  EXPECT_EQ(ex.fields, (L{"title", "price"}));
  EXPECT_EQ(ex.target.name, "results");
  EXPECT_EQ(parse_command("submit")->verb, Verb::Submit);
}

TEST(CommandLanguage, ErrorsSayHowToWriteIt) {
  auto bad = parse_command("frobnicate the widget");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("unknown command"), std::string::npos);
  auto nokey = parse_command("press the moon");
  ASSERT_FALSE(nokey);
  EXPECT_NE(nokey.error().message.find("Enter, Tab"), std::string::npos);
  auto nourl = parse_command("navigate to somewhere nice");
  ASSERT_FALSE(nourl);
  EXPECT_NE(nourl.error().message.find("URL"), std::string::npos);
  auto notext = parse_command("type into the box");
  ASSERT_FALSE(notext);
  EXPECT_NE(notext.error().message.find("quoted text"), std::string::npos);
  EXPECT_FALSE(parse_command("click"));
  EXPECT_FALSE(parse_command("scroll sideways"));
}

TEST(CommandLanguage, TargetsFromWords) {
  auto t = parse_target("the Sign in button");
  EXPECT_EQ(t.name, "Sign in");
  EXPECT_EQ(t.roles, L{"button"});
  t = parse_target("the third link");
  EXPECT_EQ(t.ordinal, 3);
  EXPECT_EQ(t.roles, L{"link"});
  EXPECT_TRUE(t.name.empty());
  t = parse_target("Tab #2");
  EXPECT_EQ(t.ordinal, 2);
  EXPECT_EQ(t.roles, L{"tab"});
  t = parse_target("the button in the dialog box labeled \"Cancel\"");
  EXPECT_EQ(t.name, "Cancel");
  EXPECT_TRUE(t.exact);
  EXPECT_EQ(t.within, "dialog");
  EXPECT_EQ(t.roles, L{"button"});
  t = parse_target("both text fields");
  EXPECT_TRUE(t.all);
  EXPECT_EQ(t.roles, L{"textbox"});
  t = parse_target("the last item");
  EXPECT_EQ(t.ordinal, -1);
  t = parse_target("“Submit”");  // typographic quotes
  EXPECT_EQ(t.name, "Submit");
  EXPECT_TRUE(t.exact);
  t = parse_target("Email field");
  EXPECT_EQ(t.name, "Email");
}

// The planner's cases are data: plans.json holds each sentence and the plan it must give, one
// line a step. OURO_REBASELINE=1 rewrites the file with the plans the planner gives now (review
// the diff before committing it); otherwise every case must match.
TEST(Sentences, PlansTheRecordedCases) {
  const std::string path = std::string(OURO_SOURCE_DIR) + "/tests/commands/plans.json";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  auto cases = nlohmann::ordered_json::parse(in);
  ASSERT_TRUE(cases.is_array() && !cases.empty()) << path;
  const char* rebaseline = std::getenv("OURO_REBASELINE");
  const bool rewrite = rebaseline && std::string_view(rebaseline) == "1";
  for (auto& c : cases) {
    L got = plan_of(c.at("sentence").get<std::string>());
    if (rewrite) c["plan"] = got;
    else EXPECT_EQ(got, c.at("plan").get<L>()) << c["sentence"];
  }
  if (rewrite) std::ofstream(path) << cases.dump(1) << "\n";
}

TEST(Sentences, FormsInManyPhrasings) {
  auto r = parse_request("Enter secret:password into the Password field and click Sign in");
  ASSERT_EQ(r.plan.size(), 2u);
  EXPECT_EQ(r.plan[0].secret, "password");
  EXPECT_EQ(r.intent, "fill_form");
  EXPECT_EQ(r.success_criteria[0], "secret password typed into the Password field");
}

TEST(Sentences, SaysWhatItDoesNotUnderstand) {
  auto r = parse_request("Make me a sandwich and click OK");
  ASSERT_EQ(r.not_understood.size(), 1u);
  EXPECT_EQ(r.not_understood[0], "Make me a sandwich");
  ASSERT_EQ(r.plan.size(), 1u);
  auto empty = parse_request("");
  EXPECT_TRUE(empty.plan.empty());
  EXPECT_EQ(empty.intent, "unknown");
}

TEST(Sentences, SurvivesHostileText) {
  // Long, quote-unbalanced, control characters: bounded, no throw, no hang.
  std::string junk(200000, '"');
  auto r = parse_request(junk);
  EXPECT_LE(r.goal.size(), 520u);
  std::string mixed;
  for (int i = 0; i < 5000; ++i) mixed += "click \"a and then type \x01 into ; ";
  auto m = parse_request(mixed);
  EXPECT_FALSE(m.goal.empty());
  // Random sentences from the grammar's own words, quotes and punctuation: no throw, plans bounded.
  const std::vector<std::string> vocab = {"click", "enter", "type", "select", "choose", "check", "uncheck", "from", "into", "in", "the", "and",
                                          "then", ",", ".", ";", "\"", "'", "list", "button", "box", "boxes", "for", "with", "as", "secret:",
                                          "secret(\"", "both", "third", "#", "2", "press", "go", "to", "https://x.y", "by", "clicking", "wait",
                                          "scroll", "extract", "log", "in", "search", "close", "dialog", "e12", "role=button[", "\n", ""};
  uint32_t seed = 12345;
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    int n = 1 + static_cast<int>((seed = seed * 1664525u + 1013904223u) >> 28);
    for (int k = 0; k < n; ++k) text += vocab[((seed = seed * 1664525u + 1013904223u) >> 8) % vocab.size()] + " ";
    auto p = parse_request(text);
    EXPECT_LE(p.plan.size(), 64u) << text;
  }
  for (unsigned char c = 0; c < 255; ++c) (void)parse_request(std::string("select ") + static_cast<char>(c) + " from " + static_cast<char>(c));
}

TEST(Sentence, RepetitionsAndJudgements) {
  auto r = parse_request("click Next three times");
  ASSERT_EQ(r.plan.size(), 3u);
  EXPECT_EQ(to_line(r.plan[2]), "click Next");
  r = parse_request("Press Tab twice, then type \"x\"");
  ASSERT_EQ(r.plan.size(), 3u) << to_json(r).dump();
  EXPECT_TRUE(r.not_understood.empty());
  for (const char* t : {"Pick the cheapest", "Click the best deal", "Open the most recent email"}) {
    r = parse_request(t);
    EXPECT_FALSE(r.not_understood.empty()) << t << ": " << to_json(r).dump();
  }
  r = parse_request("Click the \"Best Buy\" link");
  EXPECT_TRUE(r.not_understood.empty()) << to_json(r).dump();
}


TEST(Sentence, KindsScopesAndValues) {
  // A quoted kind word before widget/element names the element's kind, not its label.
  auto w = parse_target("a \"radio\" widget");
  EXPECT_EQ(w.roles, L{"radio"}) << target_json(w).dump();
  EXPECT_TRUE(w.name.empty());
  EXPECT_EQ(parse_target("the \"text\" element").roles, L{"textinput"});
  EXPECT_EQ(parse_target("the \"textarea\" widget").roles, L{"textarea"});
  EXPECT_EQ(parse_target("the \"Save\" button").name, "Save");
  // Words that say what kind of list it is are not its name.
  auto sl = parse_target("the scroll list");
  EXPECT_EQ(sl.roles, L{"list"});
  EXPECT_TRUE(sl.name.empty()) << target_json(sl).dump();
  EXPECT_EQ(parse_target("the spinner").roles, L{"spinbutton"});
  // The request's own kinds of judgement are refused.
  EXPECT_FALSE(parse_request("Select words similar to large, furious, calm and click Submit.").not_understood.empty());
  // A clause that only says where: the next step acts in the item with that text.
  auto r = parse_request("For the account @wren, press the \"Follow\" button.");
  ASSERT_EQ(r.plan.size(), 1u) << to_json(r).dump();
  EXPECT_EQ(r.plan[0].target.near, "@wren");
  EXPECT_EQ(r.plan[0].target.name, "Follow");
  r = parse_request("Find the message from Otto and click the flag icon to mark it as urgent.");
  ASSERT_EQ(r.plan.size(), 1u) << to_json(r).dump();
  EXPECT_EQ(r.plan[0].target.near, "Otto");
  EXPECT_EQ(r.plan[0].target.name, "flag");
  // A bare target after "then" takes the verb before it.
  // set X to Y: a field or a list; several pairs; dates keep their commas.
  r = parse_request("Set \"Items per page\" to \"50\"");
  ASSERT_EQ(r.plan.size(), 1u) << to_json(r).dump();
  EXPECT_TRUE(r.plan[0].or_select);
  EXPECT_EQ(r.plan[0].text, "50");
  EXPECT_EQ(r.plan[0].target.name, "Items per page");
  r = parse_request("Set the start date to March 3, 2021 and the start time to 7:15 PM, then press Book");
  ASSERT_EQ(r.plan.size(), 3u) << to_json(r).dump();
  EXPECT_EQ(r.plan[0].text, "March 3, 2021");
  EXPECT_EQ(r.plan[1].text, "7:15 PM");
  EXPECT_EQ(r.plan[1].target.name, "start time");
  // Purpose clauses, "use X to enter", ratings, "add X to the list", spinners, cookie walls, filters.
  r = parse_request("Add Green Teapot to the cart");
  ASSERT_EQ(r.plan.size(), 1u) << to_json(r).dump();
  EXPECT_EQ(r.plan[0].target.near, "Green Teapot");
  EXPECT_EQ(r.plan[0].target.name, "add to cart");
  r = parse_request("Pick 12 with the spinner");
  ASSERT_EQ(r.plan.size(), 1u) << to_json(r).dump();
  EXPECT_EQ(r.plan[0].verb, Verb::Type);
  EXPECT_EQ(r.plan[0].text, "12");
  r = parse_request("Accept all cookies");
  ASSERT_EQ(r.plan.size(), 1u);
  EXPECT_EQ(r.plan[0].verb, Verb::Click);
  EXPECT_FALSE(r.plan[0].target.all);
  EXPECT_TRUE(parse_request("Look through the folders. Click the file named \"notes\".").not_understood.empty());
}

}  // namespace
}  // namespace ouro::commands
