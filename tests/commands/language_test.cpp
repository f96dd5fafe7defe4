// The command language itself (commands/language.h): every command's canonical line reads back as
// the same command, quotes and escapes survive it, lines split only outside quotes, key names and
// chords, waits and scrolls by number, a page tool's input, and how a target's words are read
// (refs, selectors, ordinals). Each verb's basic parse is in sentence_test.cpp.
#include "commands/language.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ouro::commands {
namespace {

using L = std::vector<std::string>;

TEST(CommandLine, EveryCommandsLineReadsBackAsTheSameCommand) {
  for (const char* line : {"navigate https://example.com/a?b=c", "back", "forward", "reload", "click e12", "tap the Like button",
                           "double-click the report file", "hover the Menu button", "focus the Email field", "expand the Details section",
                           "collapse e9", "type \"x\" into #name", "type secret:pw into the password field", "type \"Zo\xc3\xab \xf0\x9f\x98\x80\" into e3",
                           "select \"Red\" from the Colour list", "choose \"Large\"", "check the Terms box", "uncheck e4", "clear the search box",
                           "press Control+Shift+Tab", "scroll down 400", "scroll to the Reviews heading", "wait for load", "wait for \"Thank you\"",
                           "wait 2s", "extract title, price from the results", "submit", "use the page's search tool with \"ink\""}) {
    auto c = parse_command(line);
    ASSERT_TRUE(c) << line << ": " << c.error().message;
    auto again = parse_command(to_line(*c));
    ASSERT_TRUE(again) << line << " -> " << to_line(*c) << ": " << again.error().message;
    EXPECT_EQ(to_line(*again), to_line(*c)) << line;
    EXPECT_EQ(to_json(*again), to_json(*c)) << line;
  }
}

TEST(CommandLine, QuotesAndBackslashesInTextSurviveTheLine) {
  const std::string line = R"(type "say \"hi\" C:\\dir" into e3)";
  auto c = parse_command(line);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->text, "say \"hi\" C:\\dir");
  EXPECT_EQ(to_line(*c), line);
  // Typographic quotes are quotes.
  auto curly = parse_command("type \xe2\x80\x9c" "Ada\xe2\x80\x9d into e3");
  ASSERT_TRUE(curly) << curly.error().message;
  EXPECT_EQ(curly->text, "Ada");
  // A quote never closed is no text.
  auto open = parse_command("type \"unterminated into e1");
  ASSERT_FALSE(open);
  EXPECT_EQ(open.error().code, Code::InvalidArgument);
  EXPECT_FALSE(parse_command(""));
  EXPECT_FALSE(parse_command("   "));
}

TEST(CommandLine, LinesSplitOnlyOutsideQuotesAndCommentsAndBlanksGo) {
  EXPECT_EQ(split_lines("click e1; type \"a;b\" into e2\n\n  # a comment\r\npress Tab"), (L{"click e1", "type \"a;b\" into e2", "press Tab"}));
  // An escaped quote does not end the quoted text.
  auto lines = split_lines(R"(type "a\";b" into e2; press Tab)");
  ASSERT_EQ(lines, (L{R"(type "a\";b" into e2)", "press Tab"}));
  auto c = parse_command(lines[0]);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->text, "a\";b");
  EXPECT_TRUE(split_lines("").empty());
  EXPECT_TRUE(split_lines(";;\n\r\n # only this").empty());
}

TEST(KeyNames, ChordsFunctionKeysAndWhatIsNoKey) {
  EXPECT_EQ(key_name("Shift + Tab"), "Shift+Tab");
  EXPECT_EQ(key_name("ctrl+shift+ArrowDown"), "Control+Shift+ArrowDown");
  EXPECT_EQ(key_name("cmd+k"), "Meta+k");
  EXPECT_EQ(key_name("F5"), "F5");
  EXPECT_EQ(key_name("f12"), "F12");
  EXPECT_EQ(key_name("the enter key"), "Enter");
  EXPECT_EQ(key_name("'Escape'."), "Escape");
  EXPECT_EQ(key_name("Page Down"), "PageDown");
  EXPECT_EQ(key_name("+"), "+");
  for (const char* no : {"F13", "F0", "hyper+a", "Control+", "", "   ", "the moon", "\xc3\xa9"})
    EXPECT_FALSE(key_name(no).has_value()) << no;
}

TEST(CommandLine, AWaitWithoutAUnitUnderAHundredIsSecondsAndEveryWaitIsCapped) {
  EXPECT_EQ(parse_command("wait 5")->amount, 5000);
  EXPECT_EQ(parse_command("wait 250")->amount, 250);
  EXPECT_EQ(parse_command("wait 1.5 s")->amount, 1500);
  EXPECT_EQ(parse_command("wait for 3 seconds")->amount, 3000);
  EXPECT_EQ(parse_command("wait 90000 ms")->amount, 60000) << "a minute at most";
  EXPECT_EQ(to_line(*parse_command("wait 5")), "wait 5000 ms");
  auto text = parse_command("wait until \"Saved\" appears");
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(text->text, "Saved");
  EXPECT_TRUE(text->target.empty());
  auto target = parse_command("wait for the results table to appear");
  ASSERT_TRUE(target) << target.error().message;
  EXPECT_EQ(target->target.text, "the results table");
}

TEST(CommandLine, ScrollAmountsArePixelsWithinBounds) {
  EXPECT_EQ(parse_command("scroll down 400px")->amount, 400);
  EXPECT_EQ(parse_command("scroll Right 99999999")->amount, 1000000);
  EXPECT_EQ(parse_command("scroll right 99999999")->direction, "right");
  auto back = parse_command("scroll up -50");
  ASSERT_TRUE(back);
  EXPECT_EQ(back->amount, 0);
  EXPECT_EQ(to_line(*back), "scroll up");
  EXPECT_EQ(parse_command("scroll")->direction, "down");
  EXPECT_EQ(parse_command("scroll to the top")->direction, "top");
  EXPECT_EQ(parse_command("scroll to the end")->direction, "bottom");
  auto words = parse_command("scroll down lots");
  ASSERT_FALSE(words);
  EXPECT_NE(words.error().message.find("pixels"), std::string::npos) << words.error().message;
}

TEST(CommandLine, APageToolsInputIsAJsonObjectAQuotedTextOrTypedPairs) {
  auto pairs = parse_command("use the page's search tool with q=\"pens\", max=5, exact=true");
  ASSERT_TRUE(pairs) << pairs.error().message;
  EXPECT_EQ(pairs->verb, Verb::UseTool);
  EXPECT_EQ(pairs->text, "search");
  EXPECT_EQ(pairs->input["q"], "pens");
  EXPECT_EQ(pairs->input["max"], 5);
  EXPECT_EQ(pairs->input["exact"], true);
  auto object = parse_command("use the page's search tool with {\"q\": \"a with b\"}");
  ASSERT_TRUE(object) << object.error().message;
  EXPECT_EQ(object->input["q"], "a with b");
  auto text = parse_command("call tool search with \"ink\"");
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(text->text, "search");
  EXPECT_EQ(text->input, "ink");
  for (const char* bad : {"use the page's search tool with [1,2]", "use the page's search tool with {\"q\":", "use my favourite search tool"}) {
    auto r = parse_command(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, Code::InvalidArgument) << bad;
  }
}

TEST(CommandLine, FillTakesItsTextAfterWithAndNothingAfterIt) {
  auto secret = parse_command("fill the Email field with secret:mail_pw");
  ASSERT_TRUE(secret) << secret.error().message;
  EXPECT_EQ(secret->verb, Verb::Type);
  EXPECT_EQ(secret->secret, "mail_pw");
  EXPECT_TRUE(secret->text.empty());
  EXPECT_EQ(to_line(*secret), "type secret:mail_pw into the Email field");
  auto in = parse_command("fill in the Email field with \"a@b.c\"");
  ASSERT_TRUE(in) << in.error().message;
  EXPECT_EQ(in->text, "a@b.c");
  EXPECT_EQ(in->target.name, "Email");
  EXPECT_FALSE(parse_command("fill the Email field with \"a@b.c\" now"));
  EXPECT_FALSE(parse_command("fill the Email field"));
}

TEST(Targets, RefsSelectorsAndWordsAreToldApart) {
  EXPECT_EQ(parse_target("f12e345").kind, Target::Kind::Ref);
  for (const char* words : {"E12", "e12x", "a > b", ". btn", "Room 101"}) EXPECT_EQ(parse_target(words).kind, Target::Kind::Words) << words;
  for (const char* selector : {"text=Sign in", "XPATH=//a", ".btn-primary", "//div[@id='x']", "nav > a.active", "#main button"})
    EXPECT_EQ(parse_target(selector).kind, Target::Kind::Selector) << selector;
  EXPECT_EQ(target_json(parse_target("f12e345")), (json{{"ref", "f12e345"}}));
  EXPECT_EQ(target_json(parse_target(".btn-primary")), (json{{"selector", ".btn-primary"}}));
  EXPECT_TRUE(parse_target("  ...  ").empty());
  EXPECT_TRUE(target_json(parse_target("")).is_null());
}

TEST(Targets, OrdinalsAndNumbersByWhereTheyStand) {
  auto top = parse_target("the top link");
  EXPECT_EQ(top.ordinal, 1);
  EXPECT_EQ(top.roles, L{"link"});
  auto stories = parse_target("Top Stories");
  EXPECT_EQ(stories.ordinal, 0) << "\"top\" before other words is part of a name";
  EXPECT_EQ(stories.name, "Top Stories");
  auto third = parse_target("link 3");
  EXPECT_EQ(third.ordinal, 3);
  EXPECT_TRUE(third.name.empty());
  auto numbered = parse_target("the button number 12");
  EXPECT_EQ(numbered.ordinal, 12);
  EXPECT_EQ(numbered.roles, L{"button"});
  auto tenth = parse_target("the 10th item");
  EXPECT_EQ(tenth.ordinal, 10);
  EXPECT_EQ(tenth.roles, L{"option"});
  auto room = parse_target("Room 101");
  EXPECT_EQ(room.ordinal, 0) << "a number without a kind of element is part of the name";
  EXPECT_EQ(room.name, "Room 101");
}

// The role is the role word that ends the target's words ("the X button"); one inside the name
// ("Add to list", "Open menu") is part of the name, not another role.
TEST(Targets, ARoleWordInsideANameStaysPartOfTheName) {
  auto t = parse_target("the Add to list button");
  EXPECT_EQ(t.name, "Add to list") << target_json(t).dump();
  EXPECT_EQ(t.roles, L{"button"}) << target_json(t).dump();
}

}  // namespace
}  // namespace ouro::commands
