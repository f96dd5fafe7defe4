// The command language and the plain-sentence parser/planner (pure): what a person writes, what
// steps come out. The browser half (binding targets on real pages) is in act_test.cpp.
#include "commands/language.h"
#include "commands/sentence.h"

#include <gtest/gtest.h>

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

TEST(Sentences, TheIssueExamples) {
  EXPECT_EQ(plan_of("Enter \"Kathy\" into the text field and press Submit"), (L{"type \"Kathy\" into the text field", "click Submit"}));
  EXPECT_EQ(plan_of("Select Bob from the list and click Submit"), (L{"select \"Bob\" from the list", "click Submit"}));
  EXPECT_EQ(plan_of("Check the boxes for alpha and beta, then click OK"), (L{"check alpha", "check beta", "click OK"}));
  EXPECT_EQ(plan_of("Click the third link"), (L{"click the third link"}));
}

TEST(Sentences, FormsInManyPhrasings) {
  EXPECT_EQ(plan_of("Type hello world in the search box, then hit enter"), (L{"type \"hello world\" into the search box", "press Enter"}));
  EXPECT_EQ(plan_of("Enter the username \"kanesha\" and the password \"x9\" into the text fields and press login."),
            (L{"type \"kanesha\" into the username", "type \"x9\" into the password", "click login"}));
  EXPECT_EQ(plan_of("Enter the password \"abc\" into both text fields and press submit."),
            (L{"type \"abc\" into both text fields", "click submit"}));
  EXPECT_EQ(plan_of("Fill the Email field with \"a@b.c\" and submit the form"), (L{"type \"a@b.c\" into the Email field", "submit"}));
  EXPECT_EQ(plan_of("Enter 11/08/2016 as the date and hit submit."), (L{"type \"11/08/2016\" into the date", "click submit"}));
  EXPECT_EQ(plan_of("Put “Ada Lovelace” in the Name box"), (L{"type \"Ada Lovelace\" into the Name box"}));
  auto r = parse_request("Enter secret:password into the Password field and click Sign in");
  ASSERT_EQ(r.plan.size(), 2u);
  EXPECT_EQ(r.plan[0].secret, "password");
  EXPECT_EQ(r.intent, "fill_form");
  EXPECT_EQ(r.success_criteria[0], "secret password typed into the Password field");
  EXPECT_EQ(plan_of("Focus into the textbox."), (L{"focus the textbox"}));
}

TEST(Sentences, ChoicesChecksAndClicks) {
  EXPECT_EQ(plan_of("Select nXDl8, tVKLw and click Submit."), (L{"choose \"nXDl8\"", "choose \"tVKLw\"", "click Submit"}));
  EXPECT_EQ(plan_of("Select nothing and click Submit."), (L{"click Submit"}));
  EXPECT_EQ(plan_of("Choose \"Large\" from the Size dropdown"), (L{"select \"Large\" from the Size dropdown"}));
  EXPECT_EQ(plan_of("Pick the option Blue."), (L{"choose \"Blue\""}));
  EXPECT_EQ(plan_of("Tick alpha and gamma then press OK"), (L{"check alpha", "check gamma", "click OK"}));
  EXPECT_EQ(plan_of("Uncheck the Newsletter checkbox"), (L{"uncheck the Newsletter checkbox"}));
  EXPECT_EQ(plan_of("Click button ONE, then click button TWO."), (L{"click button ONE", "click button TWO"}));
  EXPECT_EQ(plan_of("Click on the \"ok\" button."), (L{"click the \"ok\" button"}));
  EXPECT_EQ(plan_of("Click on the link \"justo\"."), (L{"click the link \"justo\""}));
  EXPECT_EQ(plan_of("Switch to the second tab."), (L{"click the second tab"}));
  EXPECT_EQ(plan_of("Click on Tab #2."), (L{"click Tab #2"}));
  EXPECT_EQ(plan_of("Close the dialog box by clicking the \"x\"."), (L{"click the \"x\""}));
  EXPECT_EQ(plan_of("Expand the section below and click submit."), (L{"expand the section below", "click submit"}));
  EXPECT_EQ(plan_of("Go to https://example.com/login, then go back"), (L{"navigate https://example.com/login", "back"}));
  EXPECT_EQ(plan_of("Search for \"mechanical keyboard\""), (L{"type \"mechanical keyboard\" into the search box", "press Enter"}));
  EXPECT_EQ(plan_of("click e12; type \"x\" into e13\npress Tab"), (L{"click e12", "type \"x\" into e13", "press Tab"}));
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
  EXPECT_EQ(plan_of("Click View, then Zoom, then Fit width."), (L{"click View", "click Zoom", "click Fit width"}));
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
  EXPECT_EQ(plan_of("Fill in Town with \"Gent\" and Postcode with \"9000\""), (L{"type \"Gent\" into Town", "type \"9000\" into Postcode"}));
  // Purpose clauses, "use X to enter", ratings, "add X to the list", spinners, cookie walls, filters.
  EXPECT_EQ(plan_of("Use the input box to type \"kiwi\""), (L{"type \"kiwi\" into the input box"}));
  EXPECT_EQ(plan_of("Rate it 3 stars"), (L{"choose \"3 stars\""}));
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
  EXPECT_EQ(plan_of("Filter by colour Red and Blue"), (L{"choose \"Red\"", "choose \"Blue\""}));
  EXPECT_TRUE(parse_request("Look through the folders. Click the file named \"notes\".").not_understood.empty());
}

}  // namespace
}  // namespace ouro::commands
