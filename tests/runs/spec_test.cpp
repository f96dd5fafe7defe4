// A run's request read once for every face: the same checks and the same words.
#include "runs/spec.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace ouro::runs {
namespace {

std::string error_of(const json& body) {
  auto r = parse_request(body);
  return r ? std::string() : r.error().message;
}

TEST(RunSpec, AWellFormedRequestIsTyped) {
  auto s = parse_request({{"task", "  $ open https://example.com"},
                          {"urls", {"https://example.com/a"}},
                          {"options",
                           {{"max_iterations", 7}, {"profile", true}, {"agent", "tools"}, {"remember", false},
                            {"script", {{"name", "prices"}, {"version", 2}, {"vars", {{"q", "tea"}}}, {"fallback", true}}}}}});
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->task, "$ open https://example.com") << "commands start at their '$'";
  EXPECT_TRUE(s->commands());
  EXPECT_EQ(s->max_iterations, 7);
  EXPECT_EQ(s->context, "mine") << "profile true is context mine";
  EXPECT_EQ(s->agent, "tools");
  EXPECT_FALSE(s->remember);
  ASSERT_TRUE(s->script);
  EXPECT_EQ(s->script->name, "prices");
  EXPECT_EQ(s->script->version, 2);
  EXPECT_EQ(s->script->vars.at("q"), "tea");
  EXPECT_TRUE(s->script->fallback);
  // Kept with the run: the options as given, the start pages beside them.
  EXPECT_EQ(s->stored_options()["urls"], json::array({"https://example.com/a"}));
  EXPECT_EQ(s->stored_options()["max_iterations"], 7);
}

// Every option is typed once, here: nothing after the spec is made reads the options JSON.
TEST(RunSpec, EveryOptionIsTyped) {
  auto s = parse_request({{"task", "Compare the prices"},
                          {"options",
                           {{"provider", "anthropic"}, {"model", "m-main"}, {"sub_model", "m-sub"}, {"base_url", "http://127.0.0.1:9/v1"},
                            {"max_tokens", 4000}, {"temperature", 0.3}, {"thinking", 2048}, {"context", "clean"}, {"browser", "extension"},
                            {"schedule", "s0123456789"}, {"mode", "autonomous"}, {"allowed_domains", json::array({"shop.example.com", "*.example.org"})},
                            {"permissions", {{"setCookie", "deny"}, {"getCookies", "ask"}}}}}});
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->provider, "anthropic");
  EXPECT_EQ(s->model, "m-main");
  EXPECT_EQ(s->sub_model, "m-sub");
  EXPECT_EQ(s->base_url, "http://127.0.0.1:9/v1");
  EXPECT_EQ(s->params.max_tokens, 4000);
  ASSERT_TRUE(s->params.temperature);
  EXPECT_DOUBLE_EQ(*s->params.temperature, 0.3);
  EXPECT_EQ(s->params.thinking, 2048);
  EXPECT_EQ(s->context, "clean");
  EXPECT_EQ(s->browser, "extension");
  EXPECT_EQ(s->schedule, "s0123456789");
  ASSERT_TRUE(s->safety.mode);
  EXPECT_EQ(*s->safety.mode, safety::GateMode::Autonomous);
  EXPECT_EQ(s->safety.allowed_domains, (std::vector<std::string>{"shop.example.com", "*.example.org"}));
  EXPECT_EQ(s->safety.permissions, (std::map<std::string, std::string>{{"getCookies", "ask"}, {"setCookie", "deny"}}));
  EXPECT_FALSE(s->safety.secrets) << "no option names a secret";

  auto off = parse_request({{"task", "t"}, {"options", {{"thinking", "off"}, {"temperature", 0}, {"max_tokens", nullptr}}}});
  ASSERT_TRUE(off) << off.error().message;
  EXPECT_EQ(off->params.thinking, 0) << "'off' is a budget of 0";
  EXPECT_EQ(off->params.temperature, 0.0);
  EXPECT_FALSE(off->params.max_tokens) << "a null parameter is not given";
}

TEST(RunSpec, AnOptionNotGivenLeavesTheDefault) {
  for (const json& options : {json(), json::object(), json{{"provider", ""}, {"model", ""}}}) {
    auto s = make_spec("Read the news", {}, options);
    ASSERT_TRUE(s) << s.error().message;
    EXPECT_FALSE(s->provider) << options.dump() << ": an empty name chooses nothing";
    EXPECT_FALSE(s->model);
    EXPECT_FALSE(s->sub_model);
    EXPECT_FALSE(s->base_url);
    EXPECT_FALSE(s->params.max_tokens) << "Settings', else the model table's";
    EXPECT_FALSE(s->params.temperature);
    EXPECT_FALSE(s->params.thinking);
    EXPECT_FALSE(s->max_iterations) << "the face's";
    EXPECT_EQ(s->context, "") << "the face's";
    EXPECT_EQ(s->browser, "");
    EXPECT_EQ(s->agent, "rlm");
    EXPECT_TRUE(s->remember);
    EXPECT_FALSE(s->script);
    EXPECT_EQ(s->schedule, "");
    EXPECT_FALSE(s->safety.mode) << "the settings file's, else careful";
    EXPECT_TRUE(s->safety.allowed_domains.empty());
    EXPECT_TRUE(s->safety.permissions.empty());
    EXPECT_TRUE(s->options.is_object());
  }
}

// The options alone (no run to make) are checked and typed the same way.
TEST(RunSpec, OptionsAloneAreTypedAsARequestsAre) {
  auto s = parse_options({{"provider", "script:x.jsonl"}, {"temperature", 1.5}});
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->provider, "script:x.jsonl");
  ASSERT_TRUE(s->params.temperature);
  EXPECT_DOUBLE_EQ(*s->params.temperature, 1.5);
  EXPECT_TRUE(s->task.empty());
  auto wrong = parse_options({{"api_key", "sk-not-an-option"}});
  ASSERT_FALSE(wrong) << "a key is never a run's option";
  EXPECT_EQ(wrong.error().message, error_of({{"task", "t"}, {"options", {{"api_key", "sk-not-an-option"}}}}));
  EXPECT_EQ(wrong.error().message.find("sk-not-an-option"), std::string::npos) << "the value is not echoed";
}

TEST(RunSpec, EachWrongFieldIsOneErrorNamingIt) {
  for (const auto& [body, says] : std::vector<std::pair<json, std::string>>{
           {json::array(), "a run needs {\"task\": \"what to do\"}"},
           {{{"task", "   "}}, "a run needs {\"task\": \"what to do\"}"},
           {{{"task", 5}}, "a run needs {\"task\": \"what to do\"}"},
           {{{"task", "t"}, {"urls", "https://x"}}, "urls must be a list of strings, got string \"https://x\""},
           {{{"task", "t"}, {"urls", json::array({1})}}, "urls must be a list of strings"},
           {{{"task", "t"}, {"urls", std::vector<std::string>(21, "https://x")}}, "urls: at most 20 start pages, got 21"},
           {{{"task", "t"}, {"options", "fast"}}, "options must be an object, got string \"fast\""},
           {{{"task", "t"}, {"options", {{"max_iterations", 0}}}}, "options.max_iterations must be a whole number from 1 to 500, got number 0"},
           {{{"task", "t"}, {"options", {{"max_iterations", 2.5}}}}, "options.max_iterations must be a whole number from 1 to 500"},
           {{{"task", "t"}, {"options", {{"context", "yours"}}}}, "options.context must be 'mine'"},
           {{{"task", "t"}, {"options", {{"mode", "reckless"}}}}, "mode"},
           {{{"task", "t"}, {"options", {{"temperature", 5}}}}, "options.temperature must be a number from 0 to 2, got 5"},
           {{{"task", "t"}, {"options", {{"max_tokens", 0}}}}, "options.max_tokens must be a whole number from 1 to 1000000, got 0"},
           {{{"task", "t"}, {"options", {{"thinking", true}}}}, "options.thinking must be a token budget (1024 to 200000) or 'off', got true"},
           {{{"task", "t"}, {"options", {{"allowed_domains", "example.com"}}}}, "options: \"allowed_domains\" must be an array of strings"},
           {{{"task", "t"}, {"options", {{"permissions", {{"setCookie", "never"}}}}}}, "setCookie"},
           {{{"task", "t"}, {"options", {{"permissions", {{"noSuchThing", "deny"}}}}}}, "permissions: 'noSuchThing' is not a capability"},
           {{{"task", "t"}, {"options", {{"api_key", "k"}}}}, "unknown option 'api_key'"},
           {{{"task", "t"}, {"options", {{"colour", "red"}}}}, "unknown option 'colour'; the options are provider"},
           {{{"task", "t"}, {"options", {{"script", {{"name", "s"}, {"vars", {{"q", 1}}}}}}}}, "options.script.vars.q must be a string, got number 1"},
       }) {
    std::string got = error_of(body);
    EXPECT_NE(got.find(says), std::string::npos) << body.dump() << " said: " << got;
  }
}

// `ouro run`'s flags become the same options, so they fail in the same words.
TEST(RunSpec, FlagsTurnedIntoOptionsFailInTheApisWords) {
  auto s = make_spec("Find the price", {}, {{"max_iterations", 0}});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, Code::InvalidArgument);
  EXPECT_EQ(s.error().message, error_of({{"task", "Find the price"}, {"options", {{"max_iterations", 0}}}}));
  EXPECT_FALSE(make_spec(" \n", {}, json::object())) << "a run needs a task";
}

}  // namespace
}  // namespace ouro::runs
