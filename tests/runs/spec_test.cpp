// A run's request read once for every face: the same checks and the same words.
#include "runs/spec.h"

#include <gtest/gtest.h>

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
