// Where an input that ends early left something open, as the REPL's syntax errors report it.
#include "jsrt/syntax.h"

#include <gtest/gtest.h>

namespace ouro::jsrt {
namespace {

TEST(LastUnclosed, NamesTheInnermostOpenerWithItsLineAndColumn) {
  auto paren = last_unclosed("foo(");
  ASSERT_TRUE(paren);
  EXPECT_EQ(paren->opener, '(');
  EXPECT_EQ(paren->line, 1);
  EXPECT_EQ(paren->column, 4);
  auto brace = last_unclosed("if (a) {\n  call(1, [2, 3])\n  more({x: 1}");
  ASSERT_TRUE(brace);
  EXPECT_EQ(brace->opener, '(');
  EXPECT_EQ(brace->line, 3);
  EXPECT_EQ(brace->column, 7);
  auto outer = last_unclosed("if (a) {\n  call(1)\n");
  ASSERT_TRUE(outer);
  EXPECT_EQ(outer->opener, '{');
  EXPECT_EQ(outer->line, 1);
  EXPECT_EQ(outer->column, 8);
}

TEST(LastUnclosed, StringsTemplatesCommentsAndRegexesHideTheirBrackets) {
  EXPECT_FALSE(last_unclosed("const s = '(['; f(\"{\")"));
  EXPECT_FALSE(last_unclosed("// a comment with (\nx"));
  EXPECT_FALSE(last_unclosed("/* ( */ x"));
  EXPECT_FALSE(last_unclosed("const r = /[(]/.test(s)"));
  EXPECT_FALSE(last_unclosed("const t = `a ${f({b: 1})} (`"));
  EXPECT_FALSE(last_unclosed("const half = a / b; g(c / 2)"));
  auto string = last_unclosed("const a = 1;\nconst s = \"never");
  ASSERT_TRUE(string);
  EXPECT_EQ(string->opener, '"');
  EXPECT_EQ(string->line, 2);
  EXPECT_EQ(string->column, 11);
  auto tmpl = last_unclosed("const t = `a ${b");
  ASSERT_TRUE(tmpl);
  EXPECT_EQ(tmpl->opener, '{');
  EXPECT_EQ(tmpl->column, 14);
  auto comment = last_unclosed("x /* never");
  ASSERT_TRUE(comment);
  EXPECT_EQ(comment->opener, '*');
  EXPECT_EQ(comment->column, 3);
  // Columns count characters, not bytes.
  auto wide = last_unclosed("'é' + f(");
  ASSERT_TRUE(wide);
  EXPECT_EQ(wide->column, 8);
}

TEST(LastUnclosed, HostileInputEndsWithAnAnswer) {
  EXPECT_FALSE(last_unclosed(""));
  EXPECT_FALSE(last_unclosed(")))]]]}}}"));
  std::string deep(100000, '(');
  auto d = last_unclosed(deep);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->column, 100000);
  EXPECT_FALSE(last_unclosed("\\"));  // a lone backslash opens nothing
}

}  // namespace
}  // namespace ouro::jsrt
