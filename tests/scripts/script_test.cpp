// A script's text, without a database or a browser (scripts/script.h), from the parts
// scripts_test.cpp, heal_unit_test.cpp and rewrite_test.cpp leave: which blocks of a run's events
// make the script (guidance is not a new turn, a block that threw after delivering the final
// ends it, results matched by iteration and block index, shapes kept), which values are proposed
// as parameters and what they are named, that a longer value is lifted before one inside it,
// literals compared by their value, the targets the code names, names checked, storage's JSON
// read leniently, values as JavaScript literals, placeholders substituted once, and the diff.
#include "scripts/script.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ouro::scripts {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// One block of a run: its code, then its result with this metadata.
void add_block(std::vector<RecordedEvent>& ev, int it, int index, const std::string& code, const json& meta) {
  ev.push_back({"code-generated", {{"iteration", it}, {"blockIndex", index}, {"code", code}}});
  ev.push_back({"code-result", {{"iteration", it}, {"blockIndex", index}, {"metadata", meta}}});
}

const json kOk = {{"ok", true}};
const json kFinal = {{"ok", true}, {"setFinal", true}};

// --- Which blocks make the script ------------------------------------------------------------------

TEST(ScriptExtraction, GuidanceWhileTheRunWorksIsNotANewTurn) {
  std::vector<RecordedEvent> ev;
  add_block(ev, 1, 0, "env.a = 1", kOk);
  ev.push_back({"user-message", {{"text", "also look at the footer"}, {"guidance", true}}});
  add_block(ev, 2, 0, "setFinal(env.a)", kFinal);
  auto s = from_events("Read the page", ev, std::vector<Param>{});
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_EQ(s->steps.size(), 2u) << "the block before the guidance is still part of the turn";
  EXPECT_EQ(s->steps[0].code, "env.a = 1");
  EXPECT_EQ(s->task, "Read the page") << "guidance does not replace the task";
}

TEST(ScriptExtraction, ABlockThatThrewAfterDeliveringTheFinalEndsTheScript) {
  std::vector<RecordedEvent> ev;
  // A block whose result never came is not a step.
  ev.push_back({"code-generated", {{"iteration", 1}, {"blockIndex", 0}, {"code", "env.unfinished = 1"}}});
  add_block(ev, 2, 0, "setFinal(1); throw new Error('after')", json{{"ok", false}, {"setFinal", true}, {"error", "Error: after"}});
  add_block(ev, 3, 0, "env.later = 1", kOk);
  auto s = from_events("t", ev, std::vector<Param>{});
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_EQ(s->steps.size(), 1u);
  EXPECT_EQ(s->steps[0].code, "setFinal(1); throw new Error('after')");
  EXPECT_TRUE(s->steps[0].set_final);
  EXPECT_EQ(s->steps[0].iteration, 2);
}

TEST(ScriptExtraction, AResultBelongsToTheBlockOfItsIterationAndIndex) {
  std::vector<RecordedEvent> ev;
  ev.push_back({"code-generated", {{"iteration", 1}, {"blockIndex", 0}, {"code", "await click(activeTab, '#gone')"}}});
  ev.push_back({"code-generated", {{"iteration", 1}, {"blockIndex", 1}, {"code", "env.b = 2"}}});
  // The results come in the other order: the second block worked, the first did not.
  ev.push_back({"code-result", {{"iteration", 1}, {"blockIndex", 1}, {"metadata", kOk}}});
  ev.push_back({"code-result", {{"iteration", 1}, {"blockIndex", 0}, {"metadata", {{"ok", false}, {"error", "no element"}}}}});
  // A result for a block that was never generated changes nothing.
  ev.push_back({"code-result", {{"iteration", 9}, {"blockIndex", 0}, {"metadata", kFinal}}});
  add_block(ev, 2, 0, "setFinal(env.b)", kFinal);
  auto s = from_events("t", ev, std::vector<Param>{});
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_EQ(s->steps.size(), 2u);
  EXPECT_EQ(s->steps[0].code, "env.b = 2");
  EXPECT_EQ(s->steps[1].code, "setFinal(env.b)");
}

TEST(ScriptExtraction, TheShapesOfWhatABlockReadAreKeptOnlyWhenTheyAreObjects) {
  const json value_shape = {{"kind", "string"}, {"size", 3}};
  const json final_shape = {{"kind", "object"}, {"size", 2}};
  std::vector<RecordedEvent> ev;
  add_block(ev, 1, 0, "env.t = await getText(activeTab, 'h1')", json{{"ok", true}, {"shape", value_shape}});
  add_block(ev, 2, 0, "setFinal({a: 1, b: 2})", json{{"ok", true}, {"setFinal", true}, {"shape", "big"}, {"finalShape", final_shape}});
  auto s = from_events("t", ev, std::vector<Param>{});
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_EQ(s->steps.size(), 2u);
  EXPECT_EQ(s->steps[0].shape, value_shape);
  EXPECT_TRUE(s->steps[0].final_shape.is_null());
  EXPECT_TRUE(s->steps[1].shape.is_null()) << "a shape that is not an object is unknown";
  EXPECT_EQ(s->steps[1].final_shape, final_shape);
  json j0 = s->steps[0].to_json(), j1 = s->steps[1].to_json();
  EXPECT_EQ(j0["shape"], value_shape);
  EXPECT_FALSE(j0.contains("finalShape"));
  EXPECT_FALSE(j1.contains("shape"));
  EXPECT_EQ(j1["finalShape"], final_shape);
}

// --- Parameters ------------------------------------------------------------------------------------

TEST(ScriptParams, ANameComesFromTheFieldAndARefNamesNothing) {
  auto p = propose_params("", {"await type(activeTab, '[name=email]', 'ada@example.com');\n"
                               "await type(activeTab, 'e12', 'Ada');\n"
                               "await type(activeTab, 'f2e7', 'Lovelace');\n"
                               "await type(activeTab, '#1st-line', '1 Main St')"});
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0].name, "email");
  EXPECT_EQ(p[0].value, "ada@example.com");
  EXPECT_EQ(p[0].source, "typed");
  EXPECT_EQ(p[1].name, "text") << "a ref (e12) says nothing about the field";
  EXPECT_EQ(p[1].value, "Ada");
  EXPECT_EQ(p[2].name, "text_2") << "a frame's ref neither, and the name is made unique";
  EXPECT_EQ(p[2].value, "Lovelace");
  EXPECT_EQ(p[3].name, "v_1st_line") << "a name never starts with a digit";
  EXPECT_EQ(p[3].value, "1 Main St");
}

TEST(ScriptParams, TheTasksQuotedTextUrlDateAndNumberAreProposedOnce) {
  auto p = propose_params("Find \xE2\x80\x9C" "blue shoes\xE2\x80\x9D and 'red hats', then open https://shop.example/list?q=1. on 2026-03-04 for 12 items",
                          {});
  std::map<std::string, std::string> got;
  for (const auto& x : p) {
    EXPECT_EQ(x.source, "task") << x.name;
    got[x.name] = x.value;
  }
  EXPECT_EQ(got["text"], "blue shoes") << "typographic quotes count as quotes";
  EXPECT_EQ(got["text_2"], "red hats");
  EXPECT_EQ(got["url"], "https://shop.example/list?q=1") << "the sentence's full stop is not part of the URL";
  EXPECT_EQ(got["date"], "2026-03-04");
  EXPECT_EQ(got["number"], "12") << "the digits inside the URL and the date are not numbers of their own";
  EXPECT_EQ(p.size(), 5u);
}

TEST(ScriptParams, AValueIsProposedOnceAndNeverWhenHugeOrSecret) {
  const std::string huge(2001, 'x');
  auto p = propose_params("type \"same\" twice",
                          {"type(t, '#a', 'same'); type(t, '#b', 'same'); type(t, '#c', '" + huge + "'); type(t, '#d', secret('pw'))"});
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].name, "a");
  EXPECT_EQ(p[0].value, "same");
  EXPECT_EQ(p[0].source, "typed") << "what was typed wins over the task's mention of it";
}

TEST(ScriptParams, ALongerValueIsLiftedBeforeAValueInsideIt) {
  std::vector<RecordedEvent> ev;
  add_block(ev, 1, 0, "await type(activeTab, '#first', 'Ada'); await type(activeTab, '#full', 'Ada Lovelace')", kOk);
  add_block(ev, 2, 0, "setFinal('ok')", kFinal);
  // The shorter value first: the order of lifting is by length, not the order given.
  auto s = from_events("Register Ada Lovelace as Ada", ev, std::vector<Param>{{"first", "Ada", "typed"}, {"full", "Ada Lovelace", "typed"}});
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->steps[0].code, "await type(activeTab, '#first', {{first}}); await type(activeTab, '#full', {{full}})");
  EXPECT_EQ(s->task, "Register {{full}} as {{first}}");
  ASSERT_EQ(s->params.size(), 2u);
  EXPECT_EQ(s->params[0].name, "first") << "the parameters keep the caller's order";
}

TEST(ScriptParams, ANameIsAnIdentifierOfAtMostFortyCharacters) {
  std::vector<RecordedEvent> ev;
  add_block(ev, 1, 0, "setFinal(1)", kFinal);
  const std::string forty = "a" + std::string(39, 'b');
  for (const std::string& good : {forty, std::string("_x"), std::string("A1")}) {
    auto s = from_events("t", ev, std::vector<Param>{{good, "v", ""}});
    ASSERT_TRUE(s) << good << ": " << s.error().message;
    EXPECT_EQ(s->params[0].source, "user") << "no source given: the user's";
  }
  for (const std::string& bad : {forty + "c", std::string("$x"), std::string("caf\xC3\xA9"), std::string("a-b"), std::string("")}) {
    auto s = from_events("t", ev, std::vector<Param>{{bad, "v", ""}});
    ASSERT_FALSE(s) << bad;
    EXPECT_EQ(s.error().code, Code::InvalidArgument) << bad;
  }
  // A hostile name is cut in the message.
  auto s = from_events("t", ev, std::vector<Param>{{"a" + std::string(500, 'b'), "v", ""}});
  ASSERT_FALSE(s);
  EXPECT_FALSE(has(s.error().message, std::string(60, 'b'))) << s.error().message.size();
}

// A value typed from a template literal without ${} (`Ada`) is proposed as a parameter and placed
// in the code, so a replay with --var first=Grace types Grace; the same for act()'s quoted text in
// a template.
TEST(ScriptParams, EveryProposedTypedValueBecomesAPlaceholderInTheCode) {
  std::vector<RecordedEvent> ev;
  add_block(ev, 1, 0, "await type(activeTab, '#first', `Ada`)", kOk);
  add_block(ev, 2, 0, "await act(activeTab, `type \"Lovelace\" into Last name`)", kOk);
  add_block(ev, 3, 0, "setFinal('ok')", kFinal);
  auto s = from_events("Sign up", ev);
  ASSERT_TRUE(s) << s.error().message;
  for (const auto& p : s->params) {
    if (p.source != "typed") continue;
    bool placed = false;
    for (const auto& st : s->steps) placed = placed || has(st.code, "{{" + p.name + "}}");
    EXPECT_TRUE(placed) << "parameter " << p.name << " (" << p.value << ") is in no step's code, so a replay cannot change it";
  }
}

// --- Literals and targets ---------------------------------------------------------------------------

TEST(ScriptLifting, ALiteralIsComparedByItsValueNotItsSpelling) {
  EXPECT_EQ(lift("x('it\\'s')", "it's", "n"), "x({{n}})");
  EXPECT_EQ(lift("x('caf\\u00e9')", "caf\xC3\xA9", "n"), "x({{n}})");
  EXPECT_EQ(lift("x('\"hi\"')", "\"hi\"", "n"), "x({{n}})");
  // A value with a quote in it is lifted only as a whole literal, never cut out of one.
  EXPECT_EQ(lift("x('say \"hi\" now')", "\"hi\"", "n"), "x('say \"hi\" now')");
  // Every occurrence in a literal, and an empty value never.
  EXPECT_EQ(lift("x('Ada and Ada')", "Ada", "n"), "x(({{n}} + ' and ' + {{n}}))");
  EXPECT_EQ(lift("x('')", "", "n"), "x('')");
}

TEST(ScriptLifting, AHealedSelectorReplacesOnlyWholeLiteralsInCode) {
  EXPECT_EQ(replace_literal("// click(t, '#a')\nclick(t, \"#a\"); click(t, '#ab')", "#a", "#b"),
            "// click(t, '#a')\nclick(t, \"#b\"); click(t, '#ab')");
  EXPECT_EQ(replace_literal("click(t, '#a')", "", "#b"), "click(t, '#a')") << "nothing to replace";
}

TEST(ScriptTargets, OnlyActionsOnALiteralSelectorAreTargets) {
  auto t = targets_of(
      "// click(t, '#commented')\n"
      "log('click(t, \"#quoted\")');\n"
      "await hover(activeTab, \"#menu\");\n"
      "await click(activeTab, sel);\n"
      "await click(activeTab, `#x-${i}`);\n"
      "await fill(activeTab, {email: 'a@b.c', '#pw': secret('pw')});\n"
      "const h = await getText(activeTab, 'h1');\n"
      "await click('#lonely')");
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[0].action, "hover");
  EXPECT_EQ(t[0].target, "#menu");
  EXPECT_EQ(t[1].action, "fill");
  EXPECT_EQ(t[1].target, "email");
  EXPECT_EQ(t[2].action, "fill");
  EXPECT_EQ(t[2].target, "#pw");
  EXPECT_EQ(t[3].action, "getText") << "a read's target is found again like an action's";
  EXPECT_EQ(t[3].target, "h1");
  for (const auto& x : t) EXPECT_TRUE(x.details.is_null());
  EXPECT_TRUE(targets_of("").empty());
  EXPECT_TRUE(targets_of("click(").empty()) << "an unfinished call";
}

// --- Names, JSON, values ----------------------------------------------------------------------------

TEST(ScriptNames, ANameIsOneToSixtyFourSafeCharacters) {
  for (const std::string& good : {std::string("a"), std::string(64, 'x'), std::string("signup.v2-final_1")})
    EXPECT_TRUE(check_name(good)) << good;
  for (const std::string& bad : {std::string(""), std::string(65, 'x'), std::string("a b"), std::string("a/b"), std::string("caf\xC3\xA9"),
                                 std::string("x';DROP"), std::string("\n")}) {
    auto r = check_name(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, Code::InvalidArgument);
  }
  auto r = check_name("a b");
  ASSERT_FALSE(r);
  EXPECT_TRUE(has(r.error().message, "got \"a b\"")) << r.error().message;
  auto huge = check_name(std::string(1000, 'y'));
  ASSERT_FALSE(huge);
  EXPECT_FALSE(has(huge.error().message, std::string(81, 'y'))) << "the name is cut in the message";
}

TEST(ScriptJson, StorageJsonIsReadLenientlyButAScriptNeedsAStep) {
  for (const json& bad : {json::array(), json("script"), json(nullptr)}) {
    auto r = script_from_json(bad);
    ASSERT_FALSE(r) << bad.dump();
    EXPECT_EQ(r.error().code, Code::InvalidArgument);
  }
  auto none = script_from_json({{"name", "s"}, {"steps", json::array()}});
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, Code::InvalidArgument);
  EXPECT_TRUE(has(none.error().message, "at least one step")) << none.error().message;

  auto s = script_from_json(json::parse(R"json({
    "name": "s", "version": 2, "task": "t",
    "params": [{"name": "a", "value": "1"}],
    "steps": [{"iteration": 1, "code": "setFinal(1)", "setFinal": true, "shape": "big",
               "targets": [{"action": "click", "target": "#a", "details": "not an object"}]}],
    "urls": ["http://127.0.0.1:9/a", 5, null],
    "changes": {"not": "a list"}})json"));
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->version, 2);
  ASSERT_EQ(s->params.size(), 1u);
  EXPECT_EQ(s->params[0].source, "user") << "a parameter without a source is the user's";
  ASSERT_EQ(s->steps.size(), 1u);
  EXPECT_TRUE(s->steps[0].set_final);
  EXPECT_TRUE(s->steps[0].shape.is_null());
  ASSERT_EQ(s->steps[0].targets.size(), 1u);
  EXPECT_TRUE(s->steps[0].targets[0].details.is_null());
  EXPECT_EQ(s->urls, std::vector<std::string>{"http://127.0.0.1:9/a"}) << "what is not a string is not a start page";
  EXPECT_EQ(s->based_on, 0);
  EXPECT_TRUE(s->changes.is_array() && s->changes.empty());
  json back = s->to_json();
  EXPECT_FALSE(back.contains("based_on"));
  EXPECT_FALSE(back.contains("changes"));
  EXPECT_FALSE(back["steps"][0]["targets"][0].contains("details"));
}

TEST(ScriptValues, AnyValueBecomesOneValidStringLiteral) {
  EXPECT_EQ(js_string(""), "\"\"");
  EXPECT_EQ(js_string("\x01\t\"\\"), "\"\\u0001\\t\\\"\\\\\"");
  EXPECT_EQ(js_string("x\xE2\x80\xA8\xE2\x80\xA9y"), "\"x\\u2028\\u2029y\"") << "both separators escaped";
  EXPECT_EQ(js_string("a\xFF"), "\"a\xEF\xBF\xBD\"") << "invalid UTF-8 is replaced, not thrown on";
  EXPECT_EQ(js_string("caf\xC3\xA9 \xF0\x9F\x8C\x8D"), "\"caf\xC3\xA9 \xF0\x9F\x8C\x8D\"") << "other characters stay as they are";
}

TEST(ScriptValues, PlaceholdersAreSubstitutedOnceAndOnlyForDeclaredNames) {
  const std::vector<Param> params = {{"a", "{{b}}", "user"}, {"b", "B", "user"}};
  EXPECT_EQ(substitute_text("{{a}} {{b}}", params, {}), "{{b}} B") << "a value is never expanded again";
  EXPECT_EQ(substitute_text("{{zz}}{{b}}", params, {}), "{{zz}}B");
  EXPECT_EQ(substitute_text("{{c}}", params, {{"c", "C"}}), "{{c}}") << "a value for an undeclared name is ignored";
  EXPECT_EQ(substitute_text("{{b", params, {}), "{{b") << "an unclosed placeholder is text";
  EXPECT_EQ(substitute_code("type(t, '#a', {{b}})", params, {{"b", ""}}), "type(t, '#a', \"\")") << "an empty value is an empty literal";
  EXPECT_EQ(substitute_code("f({{a}})", params, {}), "f(\"{{b}}\")");
}

// --- Diff -------------------------------------------------------------------------------------------

Step step_of(const std::string& code, bool final = false) {
  Step s;
  s.iteration = 1;
  s.code = code;
  s.set_final = final;
  return s;
}

TEST(ScriptDiff, ARemovedStepIsShownWhole) {
  Script a, b;
  a.name = b.name = "s";
  a.version = 1;
  b.version = 2;
  a.steps = {step_of("env.a = 1"), step_of("env.b = 2\nsetFinal(env.b)", true)};
  b.steps = {step_of("env.a = 1")};
  EXPECT_EQ(diff(a, b), "--- s v1\n+++ s v2\n@@ step 2 (removed)\n-env.b = 2\n-setFinal(env.b)\n");
}

TEST(ScriptDiff, AHugeStepIsSummarisedInsteadOfCompared) {
  std::string big = "x";
  for (int i = 1; i < 2001; ++i) big += "\nx";
  Script a, b;
  a.name = b.name = "s";
  a.version = 1;
  b.version = 2;
  a.steps = {step_of(big, true)};
  b.steps = {step_of(big + "\ny", true)};
  EXPECT_EQ(diff(a, b), "--- s v1\n+++ s v2\n@@ step 1\n-(2001 lines)\n+(2002 lines)\n");
}

}  // namespace
}  // namespace ouro::scripts
