// The MCP tools' definitions come from the capability registry, and argument errors are error
// results — checked without a browser (a null session: nothing here reaches it).
#include "actions/registry.h"
#include "mcp/server.h"

#include <gtest/gtest.h>

namespace ouro::mcp {
namespace {

class NoCancel : public CallContext {
 public:
  void progress(double, std::optional<double>, const std::string&) override {}
  bool cancelled() const override { return false; }
  void on_cancel(std::function<void()>) override {}
  Result<json> request(const std::string&, const json&, std::chrono::milliseconds, std::function<bool()>) override {
    return make_error(Code::Unavailable, "no client here");
  }
  json client_capabilities() const override { return json::object(); }
};

json tool_named(const json& tools, const std::string& name) {
  for (const auto& t : tools)
    if (get_str(t, "name") == name) return t;
  return json();
}

TEST(McpTools, DefinitionsComeFromTheRegistry) {
  auto tools = BrowserTools::create(nullptr, std::nullopt);
  ASSERT_TRUE(tools) << tools.error().message;
  json list = (*tools)->list();
  std::vector<std::string> names;
  for (const auto& t : list) names.push_back(get_str(t, "name"));
  EXPECT_EQ(names, (std::vector<std::string>{"browser_exec", "browser_snapshot", "browser_act", "browser_tabs", "browser_screenshot", "browser_page_tools",
                                              "browser_call_page_tool", "browser_task"}))
      << "browser_task is always listed; without a model it says how to get one";
  EXPECT_NE(get_str(tool_named(list, "browser_task"), "description").find("sampling"), std::string::npos);
  for (const auto& [tool, capability] : std::vector<std::pair<std::string, std::string>>{
           {"browser_snapshot", "snapshot"}, {"browser_act", "act"}, {"browser_screenshot", "screenshot"}, {"browser_tabs", "tabs"},
           {"browser_page_tools", "tools"}, {"browser_call_page_tool", "callTool"}}) {
    const actions::Capability* cap = actions::find(capability);
    ASSERT_NE(cap, nullptr);
    json t = tool_named(list, tool);
    EXPECT_EQ(get_str(t, "description"), cap->doc) << tool;
    json expected = actions::params_json_schema(*cap);
    json got = t["inputSchema"];
    ASSERT_EQ(got["type"], "object");
    for (const auto& p : cap->params) {
      ASSERT_TRUE(got["properties"].contains(p.name)) << tool << " " << p.name;
      json prop = got["properties"][p.name];
      prop.erase("description");
      EXPECT_EQ(prop, expected["properties"][p.name]) << tool << " " << p.name;
    }
    for (const auto& r : get_array(got, "required")) EXPECT_NE(r, "tabId") << tool << ": the tab is optional (the active one)";
  }
  EXPECT_EQ(tool_named(list, "browser_act")["inputSchema"]["required"], json::array({"commands"}));
  // browser_exec lists the REPL's functions from the registry.
  EXPECT_NE(get_str(tool_named(list, "browser_exec"), "description").find("click(tabId, selector, options?)"), std::string::npos);
}

// What a host reads to decide which tools it may run without asking (MCP 2025-06-18 tool
// annotations), from the registry's risk classes: the readers are read-only, act may destroy.
TEST(McpTools, EveryToolHasATitleAndAnnotationsFromItsRisk) {
  auto tools = BrowserTools::create(nullptr, std::nullopt);
  ASSERT_TRUE(tools);
  json list = (*tools)->list();
  for (const auto& t : list) {
    std::string name = get_str(t, "name");
    EXPECT_FALSE(get_str(t, "title").empty()) << name;
    const json& a = t["annotations"];
    ASSERT_TRUE(a.is_object()) << name;
    EXPECT_EQ(a["title"], t["title"]) << name;
    for (const char* hint : {"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}) EXPECT_TRUE(a[hint].is_boolean()) << name << " " << hint;
  }
  auto hints = [&](const std::string& name) {
    const json a = tool_named(list, name)["annotations"];
    return std::vector<bool>{a["readOnlyHint"].get<bool>(), a["destructiveHint"].get<bool>(), a["idempotentHint"].get<bool>(), a["openWorldHint"].get<bool>()};
  };
  //                                    read-only, destructive, idempotent, open world
  EXPECT_EQ(hints("browser_snapshot"), (std::vector<bool>{true, false, true, true}));
  EXPECT_EQ(hints("browser_screenshot"), (std::vector<bool>{true, false, true, true}));
  EXPECT_EQ(hints("browser_tabs"), (std::vector<bool>{true, false, true, false})) << "ouro's own tab list: a closed world";
  EXPECT_EQ(hints("browser_act"), (std::vector<bool>{false, true, false, true})) << "clicks and submits may destroy";
  EXPECT_EQ(hints("browser_page_tools"), (std::vector<bool>{true, false, true, true}));
  EXPECT_EQ(hints("browser_call_page_tool"), (std::vector<bool>{false, true, false, true})) << "a page's tool may do anything the page does";
  EXPECT_EQ(hints("browser_exec"), (std::vector<bool>{false, true, false, true}));
  EXPECT_EQ(hints("browser_task"), (std::vector<bool>{false, true, false, true}));
  // Derived, not listed: a capability's risk class decides.
  EXPECT_EQ(actions::find("snapshot")->risk, actions::Risk::Read);
  EXPECT_EQ(actions::find("act")->risk, actions::Risk::Act);
}

TEST(McpTools, WrongArgumentsAndUnknownToolsAreErrorResults) {
  auto tools = BrowserTools::create(nullptr, std::nullopt);
  ASSERT_TRUE(tools);
  NoCancel ctx;
  for (const auto& [name, args, says] : std::vector<std::tuple<std::string, json, std::string>>{
           {"browser_fly", json::object(), "unknown tool 'browser_fly'"},
           {"browser_task", {{"task", "x"}}, "no browser for tasks"},
           // A run's request, read as the API reads it, in the same words.
           {"browser_task", {{"task", ""}}, "a run needs {\"task\": \"what to do\"}"},
           {"browser_task", {{"task", "x"}, {"urls", "y"}}, "urls must be a list of strings, got string \"y\""},
           {"browser_task", {{"task", "x"}, {"options", {{"max_iterations", 0}}}}, "options.max_iterations must be a whole number from 1 to 500, got number 0"},
           {"browser_task", {{"task", "x"}, {"colour", "red"}}, "unknown argument 'colour'"},
           {"browser_exec", json::object(), "'code' must be a string, got nothing"},
           {"browser_exec", {{"code", 5}}, "'code' must be a string, got number"},
           {"browser_exec", {{"code", "1"}, {"extra", true}}, "unknown argument 'extra'"},
           {"browser_snapshot", {{"tabId", 3}}, "tabId must be a string"},
       }) {
    json r = (*tools)->call(name, args, ctx);
    EXPECT_EQ(r["isError"], true) << name << " " << args.dump();
    std::string text = get_str(r["content"][0], "text");
    EXPECT_NE(text.find(says), std::string::npos) << r.dump();
    EXPECT_NE(text.rfind("Error:", 0), 0u) << "a host puts \"Error:\" in front itself: " << text;
  }
}

TEST(McpTools, BrowserTaskWithoutAModelOrSamplingSaysHowToGetOne) {
  TaskSupport task;
  task.no_model_reason = "no API key found";
  task.setup = []() -> Result<runs::Setup> { return make_error(Code::Internal, "not reached: the model is checked first"); };
  // The model is looked for before the session is touched (there is none here).
  auto tools = BrowserTools::create(nullptr, task);
  ASSERT_TRUE(tools);
  NoCancel ctx;
  json r = (*tools)->call("browser_task", {{"task", "x"}}, ctx);
  EXPECT_EQ(r["isError"], true);
  std::string text = get_str(r["content"][0], "text");
  for (const char* says : {"needs a model", "ANTHROPIC_API_KEY", "sampling", "no API key found"})
    EXPECT_NE(text.find(says), std::string::npos) << says << " in " << text;
}

}  // namespace
}  // namespace ouro::mcp
