// The rules of tool-calling mode as pure functions: the three loop patterns, reflections, and
// reading a JSON answer leniently.
#include "agent/tool_policy.h"

#include <gtest/gtest.h>

namespace ouro::agent {
namespace {

ToolStep step(int n, const std::string& tool, json args, bool ok = true, std::string before = "p", std::string after = "p") {
  ToolStep s;
  s.number = n;
  s.tool = tool;
  s.arguments = std::move(args);
  s.ok = ok;
  s.page_before = std::move(before);
  s.page_after = std::move(after);
  return s;
}

std::string why(const std::optional<std::string>& loop) { return loop ? *loop : "no loop"; }

TEST(LoopDetection, TheThreePatternsAndNothingElse) {
  json e1 = {{"selector", "e1"}}, e2 = {{"selector", "e2"}}, e3 = {{"selector", "e3"}};
  // 1. The same action three times in a row.
  std::vector<ToolStep> s = {step(1, "observe", {}), step(2, "observe", {})};
  EXPECT_NE(why(detect_loop(s, "observe", {})).find("three times in a row"), std::string::npos);
  // Different targets are not a repeat…
  s = {step(1, "click", e1, true, "a", "b"), step(2, "click", e2, true, "b", "c"), step(3, "click", e3, true, "c", "d")};
  EXPECT_FALSE(detect_loop(s, "click", {{"selector", "e4"}}));
  // 2. …unless the page never changes: the same tool a fourth time is stuck.
  s = {step(1, "click", e1), step(2, "click", e2), step(3, "click", e3)};
  EXPECT_NE(why(detect_loop(s, "click", {{"selector", "e4"}})).find("four times in a row without the page changing"), std::string::npos);
  // 3. Alternating: the same action five times in the last seven steps.
  s = {step(1, "click", e1, true, "a", "b"), step(2, "type", e2, true, "b", "c"), step(3, "click", e1, true, "c", "d"),
       step(4, "type", e2, true, "d", "e"), step(5, "click", e1, true, "e", "f"), step(6, "click", e1, true, "f", "g")};
  EXPECT_NE(why(detect_loop(s, "click", e1)).find("three times in a row"), std::string::npos);
  s = {step(1, "click", e1, true, "a", "b"), step(2, "type", e2, true, "b", "c"), step(3, "click", e1, true, "c", "d"),
       step(4, "click", e1, true, "d", "e"), step(5, "type", e3, true, "e", "f"), step(6, "click", e1, true, "f", "g")};
  EXPECT_FALSE(detect_loop(s, "type", e2)) << why(detect_loop(s, "type", e2));
  EXPECT_NE(why(detect_loop(s, "click", e1)).find("five times in the last seven"), std::string::npos);
}

TEST(Reflection, EfficiencyFromTheLastFiveSteps) {
  std::vector<ToolStep> good;
  for (int i = 1; i <= 5; ++i) good.push_back(step(i, i % 2 ? "click" : "type", {{"selector", "e" + std::to_string(i)}}, true, std::to_string(i), std::to_string(i + 1)));
  EXPECT_EQ(reflect(good).efficiency, "high");
  std::vector<ToolStep> bad;
  for (int i = 1; i <= 5; ++i) bad.push_back(step(i, "read", {{"selector", "#x" + std::to_string(i)}}, false));
  Reflection r = reflect(bad);
  EXPECT_EQ(r.efficiency, "low");
  EXPECT_EQ(r.errors, 5);
  EXPECT_NE(r.text().find("Issue: 5 of the last 5 steps failed"), std::string::npos) << r.text();
}

TEST(TextActions, ReadLenientlyInEveryCommonShape) {
  auto a = parse_text_action("```json\n{\"type\": \"tool_call\", \"tool\": {\"name\": \"click\", \"arguments\": {\"selector\": \"e3\"}}}\n```");
  EXPECT_EQ(a.kind, TextAction::Kind::Tool);
  EXPECT_EQ(a.name, "click");
  EXPECT_EQ(a.arguments, json({{"selector", "e3"}}));
  a = parse_text_action("Sure! {'tool': 'type', 'args': {'selector': 'e1', 'text': \"it's \\\"quoted\\\"\"},}");
  EXPECT_EQ(a.kind, TextAction::Kind::Tool) << a.error;
  EXPECT_EQ(a.arguments["text"], "it's \"quoted\"");
  a = parse_text_action("{\"name\": \"navigate\", \"parameters\": \"{\\\"url\\\": \\\"https://a.b\\\"}\"}");
  EXPECT_EQ(a.arguments["url"], "https://a.b");
  a = parse_text_action("{\"type\": \"final\", \"answer\": {\"count\": 3}}");
  EXPECT_EQ(a.kind, TextAction::Kind::Final);
  EXPECT_EQ(a.answer["count"], 3);
  a = parse_text_action("{\"type\": \"ask_user\", \"question\": \"Which size?\"}");
  EXPECT_EQ(a.kind, TextAction::Kind::Ask);
  EXPECT_EQ(a.question, "Which size?");
  a = parse_text_action("{\"tool\": {\"name\": \"finish\", \"arguments\": {\"value\": \"done\"}}");  // unclosed
  EXPECT_EQ(a.kind, TextAction::Kind::Final);
  EXPECT_EQ(a.answer, "done");
  EXPECT_EQ(parse_text_action("I think the answer is 42.").kind, TextAction::Kind::None);
  EXPECT_EQ(parse_text_action("{\"thoughts\": \"hmm\"}").kind, TextAction::Kind::None);
  // Hostile text never throws.
  for (const char* t : {"{", "{{{{{{", "{'a': '", "{\"a\": [1, 2", "``` {", "\xff\xfe{\"tool\": 1}"}) EXPECT_NO_THROW(parse_text_action(t));
}

}  // namespace
}  // namespace ouro::agent
