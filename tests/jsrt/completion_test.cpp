// Completion values for REPL inputs: the last expression statement becomes the result.
#include "jsrt/completion.h"

#include <gtest/gtest.h>

namespace ouro::jsrt {
namespace {

// A stand-in parser for the pure rewrite: balanced brackets and no "return (" followed by a
// statement keyword. The engine's real parser is exercised by the REPL tests.
bool rough_valid(const std::string& body) {
  int depth = 0;
  for (char c : body) depth += (c == '(' || c == '{' || c == '[') - (c == ')' || c == '}' || c == ']');
  if (depth != 0) return false;
  auto p = body.find("return (");
  if (p == std::string::npos) return true;
  std::string after = body.substr(p + 8);
  return after.rfind(".", 0) != 0;
}

TEST(Completion, LastExpressionIsReturned) {
  EXPECT_EQ(add_completion_return("1 + 1", rough_valid), ";return (1 + 1\n);");
  EXPECT_EQ(add_completion_return("const a = 1\na * 2", rough_valid), "const a = 1\n;return (a * 2\n);");
  EXPECT_EQ(add_completion_return("const a = 1; a * 2;", rough_valid), "const a = 1; ;return (a * 2\n);");
}

TEST(Completion, DeclarationsAndReturnsAreLeftAlone) {
  EXPECT_EQ(add_completion_return("const a = 1", rough_valid), "const a = 1");
  EXPECT_EQ(add_completion_return("return 5", rough_valid), "return 5");
  EXPECT_EQ(add_completion_return("if (x) { y() }", rough_valid), "if (x) { y() }");
  EXPECT_EQ(add_completion_return("for (const x of y) {\n  z(x)\n}", rough_valid), "for (const x of y) {\n  z(x)\n}");
}

TEST(Completion, SplitsOnlyAtTopLevel) {
  std::string code = "const rows = await f(`a;\nb`, { x: 1,\n y: 2 })\nrows.length";
  EXPECT_EQ(add_completion_return(code, rough_valid), "const rows = await f(`a;\nb`, { x: 1,\n y: 2 })\n;return (rows.length\n);");
  std::string strings = "log('a;b'); \"c;\\\"d\"; /* e; */ 7";
  EXPECT_EQ(add_completion_return(strings, rough_valid), "log('a;b'); \"c;\\\"d\"; ;return (/* e; */ 7\n);");
}

TEST(Completion, MultiLineChainsAreKeptWhole) {
  std::string code = "const x = 'a b'\nx\n  .split(' ')\n  .length";
  EXPECT_EQ(add_completion_return(code, rough_valid), "const x = 'a b'\n;return (x\n  .split(' ')\n  .length\n);");
}

TEST(Completion, KeepsLineNumbers) {
  std::string out = add_completion_return("a()\n\n\nb()", rough_valid);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 4);
  EXPECT_EQ(out.find("b()"), std::string("a()\n\n\n;return (").size());
}

TEST(Completion, GivesUpWhenTheParserSaysNo) {
  EXPECT_EQ(add_completion_return("x = 1 +\n2", [](const std::string&) { return false; }), "x = 1 +\n2");
}

bool no_reserved(std::string_view name) { return name == "tabs"; }

TEST(PersistDeclarations, TopLevelNamesOutliveTheInput) {
  EXPECT_EQ(persist_declarations("const t = activeTab", no_reserved), "globalThis.t = activeTab");
  EXPECT_EQ(persist_declarations("let a = 1; var b = await f()\nb", no_reserved), "globalThis.a = 1; globalThis.b = await f()\nb");
  EXPECT_EQ(persist_declarations("class A { m() { const x = 1 } }", no_reserved), "globalThis.A = class A { m() { const x = 1 } }");
  EXPECT_EQ(persist_declarations("x()\nasync function f() { let y = 2 }", no_reserved), "globalThis.f = f; x()\nasync function f() { let y = 2 }");
}

TEST(PersistDeclarations, DestructuredNamesAreCopiedAfterTheirStatement) {
  auto yes = [](const std::string&) { return true; };
  EXPECT_EQ(persist_declarations("const { a, b: c } = o", no_reserved, yes), "const { a, b: c } = o\n;globalThis.a = a; globalThis.c = c; ");
  EXPECT_EQ(persist_declarations("const [x, , y = 2, ...z] = f(); x", no_reserved, yes),
            "const [x, , y = 2, ...z] = f();globalThis.x = x; globalThis.y = y; globalThis.z = z;  x");
  EXPECT_EQ(persist_declarations("let { p: { q, r: [s] }, 'k k': t, [key]: u, tabs } = o;", no_reserved, yes),
            "let { p: { q, r: [s] }, 'k k': t, [key]: u, tabs } = o;\n;globalThis.q = q; globalThis.s = s; globalThis.t = t; globalThis.u = u; ");
  EXPECT_EQ(persist_declarations("const { a = { k: ',' }, b } = o", no_reserved, yes), "const { a = { k: ',' }, b } = o\n;globalThis.a = a; globalThis.b = b; ");
  // An initializer that runs on over lines: the copies go where the input still parses.
  auto no_dangling = [](const std::string& code) { return code.find("=\nglobalThis") == std::string::npos; };
  EXPECT_EQ(persist_declarations("const [x] =\n  await f()\nx", no_reserved, no_dangling), "const [x] =\n  await f()\nglobalThis.x = x; x");
  // Nowhere parses, or a pattern this does not read: left local.
  auto no = [](const std::string&) { return false; };
  EXPECT_EQ(persist_declarations("const [x] = f()", no_reserved, no), "const [x] = f()");
  EXPECT_EQ(persist_declarations("const { a = `t` } = o", no_reserved, yes), "const { a = `t` } = o");
  EXPECT_EQ(persist_declarations("const { a } == o", no_reserved, yes), "const { a } == o");
}

TEST(PersistDeclarations, AnInputOfManyDestructuringsCostsBoundedParses) {
  std::string code;
  for (int i = 0; i < 500; ++i) code += "const [a" + std::to_string(i) + "] = f()\n";
  int parses = 0;
  auto never = [&](const std::string&) { return ++parses, false; };
  EXPECT_EQ(persist_declarations(code, no_reserved, never), code);
  EXPECT_LE(parses, 16 * 5);
}

TEST(PersistDeclarations, LeavesNestedReservedAndDestructuringAlone) {
  EXPECT_EQ(persist_declarations("if (x) { const y = 1 }", no_reserved), "if (x) { const y = 1 }");
  EXPECT_EQ(persist_declarations("const { a, b } = o", no_reserved), "const { a, b } = o");
  EXPECT_EQ(persist_declarations("const tabs = 3", no_reserved), "const tabs = 3");
  EXPECT_EQ(persist_declarations("const s = `const z = 1`", no_reserved), "globalThis.s = `const z = 1`");
  EXPECT_EQ(persist_declarations("for (let i = 0; i < 2; i++) {}", no_reserved), "for (let i = 0; i < 2; i++) {}");
}

}  // namespace
}  // namespace ouro::jsrt
