// Tool-calling mode, replayed from scripts against real Chromium: the model
// is shown the page's text (fenced as untrusted) and its elements by ref, calls tools from the
// registry, is stopped when it loops or stops making progress, and its text answers are read
// leniently when it has no native function calling.
#include "harness.h"

#include "actions/registry.h"

#include <set>

namespace ouro::testing {
namespace {

json call(const std::string& name, const json& args = json::object()) { return {{"tool_calls", {{{"name", name}, {"arguments", args}}}}}; }

struct ToolHarness : Harness {
  ToolHarness(const std::vector<json>& script, const std::string& page) : Harness(script, {"/act/pages/" + page}) { agent_kind = "tools"; }
  json page(const std::string& expr) { return session->browser().eval_page(session->active_tab(), expr).value_or(json()); }
};

TEST(ToolMode, TheToolsAreTheRegistrysWithoutTheTab) {
  json defs = actions::tool_definitions();
  std::set<std::string> names;
  for (const auto& d : defs) {
    names.insert(get_str(d, "name"));
    EXPECT_FALSE(d["parameters"]["properties"].contains("tabId")) << d.dump();
  }
  for (const char* n : {"observe", "read", "click", "type", "select", "press", "scroll", "navigate", "extract", "act", "ask_user", "finish"})
    EXPECT_TRUE(names.count(n)) << n;
  auto args = actions::tool_args(*actions::find_tool("click"), {{"selector", "e3"}}, "t1");
  ASSERT_TRUE(args);
  EXPECT_EQ(*args, json::array({"t1", "e3"}));
  auto bad = actions::tool_args(*actions::find_tool("click"), {{"selectr", "e3"}}, "t1");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("the argument 'selector' is missing"), std::string::npos) << bad.error().message;
}

// The answer is in the page's text, not in any control: the prompt carries it, main content
// first, bounded, inside the untrusted-content fence.
TEST(ToolMode, ThePromptCarriesThePageTextToAnswerFrom) {
  ToolHarness h({call("finish", {{"value", "4.2 million euros"}})}, "article.html");
  auto r = h.go("What was the revenue for the third quarter?");
  EXPECT_FALSE(r.partial) << r.final.dump();
  EXPECT_EQ(r.final, "4.2 million euros");
  ASSERT_EQ(h.prompts().size(), 1u);
  const std::string p = h.prompts()[0];
  size_t fence = p.find("<untrusted_page_content source=\"" + site().url("/act/pages/article.html") + "\">");
  ASSERT_NE(fence, std::string::npos) << p.substr(0, 2000);
  size_t fact = p.find("Revenue for the third quarter was 4.2 million euros");
  size_t sidebar = p.find("Sidebar: subscribe");
  ASSERT_NE(fact, std::string::npos);
  EXPECT_GT(fact, fence);
  EXPECT_TRUE(sidebar == std::string::npos || sidebar > fact) << "main content first";
  EXPECT_LT(p.find("</untrusted_page_content>"), p.size());
  EXPECT_LT(p.size(), 12000u) << "the page text is bounded (~6,000 characters)";
  EXPECT_NE(p.find("read() for more"), std::string::npos);
  EXPECT_NE(p.find("] link \"Archive\""), std::string::npos) << "the elements by ref";
  EXPECT_NE(p.find("TASK: What was the revenue"), std::string::npos);
}

// A model that clicks the same thing over and over is stopped before the third click runs.
TEST(ToolMode, ALoopingModelIsStoppedBeforeTheThirdRepeat) {
  std::vector<json> script(6, call("click", {{"selector", "css=button:nth-of-type(5)"}}));
  ToolHarness h(script, "buttons.html");
  auto r = h.go("Click ONE until something happens");
  EXPECT_TRUE(r.partial);
  EXPECT_NE(r.error.find("loop detected: the same action three times in a row"), std::string::npos) << r.error;
  EXPECT_EQ(h.of("loop-detected").size(), 1u);
  EXPECT_EQ(h.page("window.__clicks.length"), 2) << "the repeat was not run";
  EXPECT_EQ(r.iterations, 3);
}

// Nothing works for ten steps: the reflections at steps 5 and 10 are low, and the run ends.
TEST(ToolMode, TwoLowEfficiencyReflectionsEndTheRun) {
  std::vector<json> script;
  for (int i = 0; i < 12; ++i)
    script.push_back(i % 2 ? call("press", {{"key", "NoSuchKey" + std::to_string(i)}}) : call("read", {{"selector", "#missing" + std::to_string(i)}}));
  ToolHarness h(script, "buttons.html");
  auto r = h.go("Do something useful");
  EXPECT_TRUE(r.partial);
  EXPECT_NE(r.error.find("two low-efficiency reflections"), std::string::npos) << r.error;
  auto refl = h.of("reflection");
  ASSERT_EQ(refl.size(), 2u);
  EXPECT_EQ(refl[0].data["reflection"]["efficiency"], "low");
  EXPECT_EQ(r.iterations, 10);
  // The first reflection was in the prompt of step 6, with the errors in the history.
  ASSERT_GE(h.prompts().size(), 6u);
  EXPECT_NE(h.prompts()[5].find("SELF-REFLECTION:\nAfter step 5: efficiency low"), std::string::npos) << h.prompts()[5];
  EXPECT_NE(h.prompts()[5].find("Step 2: press {\"key\":\"NoSuchKey1\"} → ERROR: keyPress: unknown key"), std::string::npos) << h.prompts()[5];
}

// A model without function calling answers in text; the JSON is read leniently.
TEST(ToolMode, TextAnswersAreReadAsActionsLeniently) {
  ToolHarness h({{{"text", "I will type first.\n```json\n{'type': 'tool_call', 'tool': {'name': 'type', 'arguments': {'selector': '#tt', 'text': 'Kathy'},},}\n```"}},
                 {{"text", R"({"tool": "click", "args": {"selector": "#subbtn"}})"}},
                 {{"text", "Nothing to do here."}},
                 {{"text", R"(Done. {"type": "final", "answer": "typed and submitted"})"}}},
                "enter-text.html");
  h.confirm = [](const json&) { return true; };  // Submit asks: the user says yes
  auto r = h.go("Enter Kathy and submit");
  EXPECT_FALSE(r.partial) << r.error;
  EXPECT_EQ(r.final, "typed and submitted");
  EXPECT_EQ(h.page("window.__done ? window.__done.text : null"), "Kathy");
  // The answer without an action was told so at the next step.
  ASSERT_EQ(h.prompts().size(), 4u);
  EXPECT_NE(h.prompts()[3].find("Your last answer held no tool call"), std::string::npos);
}

// The safety gate still holds: a sensitive click asks, a denial is an error the model reads.
TEST(ToolMode, SensitiveActionsAskAndADenialIsReported) {
  ToolHarness h({call("act", {{"commands", "click Remove next to Bob"}}), call("finish", {{"value", "could not remove"}})}, "table-actions.html");
  std::vector<json> asked;
  h.confirm = [&](const json& q) {
    asked.push_back(q);
    return false;
  };
  auto r = h.go("Remove Bob");
  EXPECT_EQ(asked.size(), 1u);
  EXPECT_EQ(h.page("window.__done === undefined"), true);
  ASSERT_EQ(h.prompts().size(), 2u);
  EXPECT_NE(h.prompts()[1].find("denied by the user"), std::string::npos) << h.prompts()[1];
}

// Page text that reads as instructions is flagged where the model sees it, and stays fenced.
TEST(ToolMode, InjectedPageTextIsFlaggedAndFenced) {
  ToolHarness h({call("read", {{"selector", "css=main"}}), call("finish", {{"value", "5 stars"}})}, "injected.html");
  auto r = h.go("Summarise the reviews");
  EXPECT_FALSE(h.of("injection-flag").empty());
  const std::string p0 = h.prompts().at(0), p1 = h.prompts().at(1);
  EXPECT_NE(p0.find("⚠ possible prompt injection"), std::string::npos) << p0;
  size_t open = p1.find("LAST RESULT:\nread: <untrusted_page_content");
  ASSERT_NE(open, std::string::npos) << p1;
  EXPECT_LT(open, p1.find("IGNORE ALL PREVIOUS INSTRUCTIONS"));
  EXPECT_NE(p1.find("⚠ possible prompt injection", open), std::string::npos);
}

}  // namespace
}  // namespace ouro::testing
