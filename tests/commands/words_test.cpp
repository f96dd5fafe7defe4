// The command language's small text helpers (pure): trimming and case, splitting at separators
// outside quotes, typographic quotes, quoted parts, the person's own spelling, what looks like a URL.
#include "commands/words.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ouro::commands {
namespace {

using L = std::vector<std::string>;

TEST(Words, TrimRemovesOnlyAsciiWhitespaceAtTheEnds) {
  EXPECT_EQ(trim("  Sign in \t\r\n"), "Sign in");
  EXPECT_EQ(trim("a  b"), "a  b");
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(trim(" \t\n "), "");
  // A no-break space (U+00A0) is a character of the text, not ASCII whitespace: its bytes stay whole.
  EXPECT_EQ(trim("\xC2\xA0x\xC2\xA0"), "\xC2\xA0x\xC2\xA0");
}

TEST(Words, LowerChangesAsciiLettersAndKeepsOtherBytes) {
  EXPECT_EQ(lower("Sign IN 42!"), "sign in 42!");
  // UTF-8 letters keep their bytes (never half a character).
  EXPECT_EQ(lower("ÉCOLE Ünï"), "École Ünï");
  EXPECT_EQ(lower(""), "");
}

TEST(Words, PrefixesAndSuffixesIncludingEmptyAndLongerOnes) {
  EXPECT_TRUE(starts_with("click e12", "click "));
  EXPECT_TRUE(starts_with("abc", ""));
  EXPECT_FALSE(starts_with("ab", "abc"));
  EXPECT_FALSE(starts_with("Click", "click"));
  EXPECT_TRUE(ends_with("the Email field", " field"));
  EXPECT_TRUE(ends_with("", ""));
  EXPECT_FALSE(ends_with("d", "field"));
  EXPECT_FALSE(ends_with("fields", "field"));
}

TEST(Words, SplitKeepsSeparatorsInsideDoubleQuotes) {
  EXPECT_EQ(split("a,b,,c", ','), (L{"a", "b", "", "c"}));
  EXPECT_EQ(split("", ','), (L{""}));
  EXPECT_EQ(split("x,\"a,b\",y", ','), (L{"x", "\"a,b\"", "y"}));
  // An unclosed quote protects the rest; single quotes protect nothing.
  EXPECT_EQ(split("a,\"b,c", ','), (L{"a", "\"b,c"}));
  EXPECT_EQ(split("'a,b'", ','), (L{"'a", "b'"}));
  EXPECT_EQ(split("File > Export", '>'), (L{"File ", " Export"}));
}

TEST(Words, SplitWsDropsEmptyWords) {
  EXPECT_EQ(split_ws("  click\tthe \n\n button  "), (L{"click", "the", "button"}));
  EXPECT_TRUE(split_ws("").empty());
  EXPECT_TRUE(split_ws(" \t\r\n").empty());
}

TEST(Words, TypographicQuotesBecomeStraightOnes) {
  EXPECT_EQ(normalize_quotes("“Submit” ‘x’ «y»"), "\"Submit\" 'x' \"y\"");
  EXPECT_EQ(normalize_quotes("plain \"text\""), "plain \"text\"");
  // Other characters from the same block (an em dash, an ellipsis) are left alone.
  EXPECT_EQ(normalize_quotes("a — b…"), "a — b…");
  // A sequence cut short at the end is kept as it was, not read past.
  EXPECT_EQ(normalize_quotes("x\xE2\x80"), "x\xE2\x80");
  EXPECT_EQ(normalize_quotes("x\xC2"), "x\xC2");
  EXPECT_EQ(normalize_quotes(""), "");
}

TEST(Words, ExtractQuotedTakesTheValuesAndLeavesASpaceWhereEachStood) {
  std::vector<std::string> q;
  EXPECT_EQ(extract_quoted("type \"Kathy\" into \"Name\"", q), "type   into  ");
  EXPECT_EQ(q, (L{"Kathy", "Name"}));
  // It appends: what was there stays first.
  q = {"earlier"};
  EXPECT_EQ(extract_quoted("pick 'Blue' now", q), "pick   now");
  EXPECT_EQ(q, (L{"earlier", "Blue"}));
  // An empty pair is an empty value.
  q.clear();
  EXPECT_EQ(extract_quoted("a \"\" b", q), "a   b");
  EXPECT_EQ(q, (L{""}));
}

TEST(Words, ApostrophesAreNotQuotes) {
  std::vector<std::string> q;
  EXPECT_EQ(extract_quoted("don't stop", q), "don't stop");
  EXPECT_TRUE(q.empty());
  // A single quote opens at a word start and closes at a word end only.
  EXPECT_EQ(extract_quoted("'don't go' now", q), "  now");
  EXPECT_EQ(q, (L{"don't go"}));
  q.clear();
  EXPECT_EQ(extract_quoted("it's 'rock' time", q), "it's   time");
  EXPECT_EQ(q, (L{"rock"}));
}

TEST(Words, AnUnclosedQuoteIsKeptAsText) {
  std::vector<std::string> q;
  EXPECT_EQ(extract_quoted("say \"hi", q), "say \"hi");
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(extract_quoted("\"", q), "\"");
  EXPECT_TRUE(q.empty());
  // Hostile: 5,001 quotes in a row are 2,500 empty values and one quote left open.
  std::string many(5001, '"');
  many += "x";
  EXPECT_EQ(extract_quoted(many, q), std::string(2500, ' ') + "\"x");
  EXPECT_EQ(q.size(), 2500u);
}

TEST(Words, OriginalSpellingKeepsThePersonsCase) {
  EXPECT_EQ(original_spelling("Click the Sign In button", {"sign", "in"}), "Sign In");
  // Punctuation next to a word is not part of it.
  EXPECT_EQ(original_spelling("Hello, World!", {"hello", "world"}), "Hello World");
  // Words not found as written come back as kept, after those found, in order.
  EXPECT_EQ(original_spelling("b a", {"a", "b"}), "a b");
  EXPECT_EQ(original_spelling("abc", {"xyz"}), "xyz");
  EXPECT_EQ(original_spelling("anything", {}), "");
  EXPECT_EQ(original_spelling("", {"x", "y"}), "x y");
}

TEST(Words, WhatLooksLikeAUrl) {
  for (const char* yes : {"https://example.com/a?b=c", "http://x", "example.com", "example.com/path", "sub.example.co.uk:8443/p",
                          "EXAMPLE.COM", "localhost", "localhost:8080/x", "127.0.0.1:3000", "file:/tmp/page.html", "file:///tmp/page.html",
                          "about:blank", "data:text/html,hi", "  https://example.com  "})
    EXPECT_TRUE(looks_like_url(yes)) << yes;
  for (const char* no : {"", "   ", "hello", "the Sign in button", "3.14", "e.g.", "example.c", "https://", "go to example.com",
                         "mailto:a@b.co", "ftp://example.com", "Email field"})
    EXPECT_FALSE(looks_like_url(no)) << no;
}

TEST(Words, AHugeUrlIsNotOne) {
  EXPECT_FALSE(looks_like_url("https://example.com/" + std::string(5000, 'a')));
  EXPECT_FALSE(looks_like_url(std::string(4096, 'a') + ".com"));
}

int cut_at(std::string_view s, size_t i, char c) { return s[i] == c ? 1 : 0; }

TEST(Words, SplitOutsideQuotesCutsWhereToldButNeverInsideQuotes) {
  auto comma = [](std::string_view s, size_t i) { return cut_at(s, i, ','); };
  EXPECT_EQ(split_outside_quotes("a,\"b,c\",d", comma), (L{"a", "\"b,c\"", "d"}));
  // Always one piece at least; a trailing separator leaves an empty one.
  EXPECT_EQ(split_outside_quotes("", comma), (L{""}));
  EXPECT_EQ(split_outside_quotes("a,", comma), (L{"a", ""}));
  // An unclosed quote runs to the end.
  EXPECT_EQ(split_outside_quotes("a\"b,c", comma), (L{"a\"b,c"}));
}

TEST(Words, SplitOutsideQuotesKeepsOrDropsTheSeparatorAsTold) {
  // -1: the piece ends after this character, which it keeps (a full stop).
  auto stop = [](std::string_view s, size_t i) { return s[i] == '.' ? -1 : 0; };
  EXPECT_EQ(split_outside_quotes("One. Two", stop), (L{"One.", " Two"}));
  // n > 1: a separator of n characters, all dropped.
  auto bars = [](std::string_view s, size_t i) { return s.substr(i, 2) == "||" ? 2 : 0; };
  EXPECT_EQ(split_outside_quotes("a||b||c", bars), (L{"a", "b", "c"}));
}

TEST(Words, BackslashEscapesAQuoteOnlyWhenAsked) {
  auto semi = [](std::string_view s, size_t i) { return cut_at(s, i, ';'); };
  const std::string text = R"("a\"b;c";d)";
  EXPECT_EQ(split_outside_quotes(text, semi, true), (L{R"("a\"b;c")", "d"}));
  EXPECT_EQ(split_outside_quotes(text, semi, false), (L{R"("a\"b)", R"(c";d)"}));
}

TEST(Words, SplitOnAndReadsListsOfValues) {
  EXPECT_EQ(split_on_and("alpha, beta and gamma"), (L{"alpha", "beta", "gamma"}));
  EXPECT_EQ(split_on_and("salt & pepper or vinegar"), (L{"salt", "pepper", "vinegar"}));
  EXPECT_EQ(split_on_and("x AND y Or z"), (L{"x", "y", "z"}));
  EXPECT_EQ(split_on_and("a\tand\tb"), (L{"a", "b"}));
  EXPECT_EQ(split_on_and("Bob"), (L{"Bob"}));
}

TEST(Words, SplitOnAndNeedsWholeWords) {
  // "and" and "or" inside words are letters, not separators.
  EXPECT_EQ(split_on_and("Android and Oracle"), (L{"Android", "Oracle"}));
  EXPECT_EQ(split_on_and("brand new order"), (L{"brand new order"}));
  // Quoted values are never split.
  EXPECT_EQ(split_on_and("\"rock and roll\" and jazz"), (L{"\"rock and roll\"", "jazz"}));
}

TEST(Words, SplitOnAndDropsEmptyPieces) {
  EXPECT_TRUE(split_on_and("").empty());
  EXPECT_TRUE(split_on_and(" , , and , or &").empty());
  EXPECT_EQ(split_on_and("a,,b"), (L{"a", "b"}));
  EXPECT_EQ(split_on_and("and a or"), (L{"a"}));
}

TEST(Words, SplitOnAndOfAHugeListIsWhole) {
  std::string text;
  for (int i = 0; i < 10000; ++i) text += "v" + std::to_string(i) + (i % 2 ? " and " : ", ");
  auto parts = split_on_and(text);
  ASSERT_EQ(parts.size(), 10000u);
  EXPECT_EQ(parts.front(), "v0");
  EXPECT_EQ(parts.back(), "v9999");
}

}  // namespace
}  // namespace ouro::commands
