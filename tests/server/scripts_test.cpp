// The scripts routes of the API (server/scripts.h), on a database of their own: a request of the
// wrong shape is refused saying what it should be; a version is a whole number from 1; a diff of a
// first version says there is nothing to compare; a replay's body fills in the task, keeps the
// caller's options and, unless the caller sets them, iterations that fit the script; delete says
// how many versions went.
#include "server/scripts.h"

#include "scripts/store.h"
#include "store/database.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace ouro::server {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

scripts::Script search_script(const std::string& code = "await type(activeTab, '#q', 'pens'); setFinal(1)") {
  scripts::Script s;
  s.name = "search";
  s.task = "search the shop for {{q}}";
  s.params.push_back({"q", "pens", "task"});
  s.urls = {"http://127.0.0.1:9/shop"};
  scripts::Step st;
  st.iteration = 1;
  st.code = code;
  st.set_final = true;
  s.steps.push_back(st);
  return s;
}

class ScriptsApi : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = store::Database::open(":memory:");
    ASSERT_TRUE(opened) << opened.error().message;
    db = std::move(*opened);
    ASSERT_TRUE(scripts::save(*db, search_script()));
  }
  std::unique_ptr<store::Database> db;
};

TEST_F(ScriptsApi, AVersionIsAWholeNumberFromOne) {
  for (const char* bad : {"abc", "0", "-1", "2x", "1.5", " 1"}) {
    auto r = show_script(*db, "search", bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, Code::InvalidArgument) << bad;
    EXPECT_TRUE(has(r.error().message, "whole number from 1")) << r.error().message;
  }
  // A hostile version text is quoted only in part.
  auto r = show_script(*db, "search", std::string(5000, '9') + "x");
  ASSERT_FALSE(r);
  EXPECT_LT(r.error().message.size(), 200u) << r.error().message;
  auto latest = show_script(*db, "search", "");
  ASSERT_TRUE(latest) << latest.error().message;
  EXPECT_EQ((*latest)["version"], 1);
  EXPECT_EQ((*latest)["task"], "search the shop for {{q}}");
}

TEST_F(ScriptsApi, ADiffComparesAVersionWithTheOneBeforeAndTheFirstHasNone) {
  auto first = show_script(*db, "search", "", "1");
  ASSERT_FALSE(first);
  EXPECT_EQ(first.error().code, Code::FailedPrecondition);
  EXPECT_TRUE(has(first.error().message, "first version")) << first.error().message;

  ASSERT_TRUE(scripts::save(*db, search_script("await type(activeTab, '#search', 'pens'); setFinal(1)")));
  auto second = show_script(*db, "search", "", "2");
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ((*second)["version"], 2);
  EXPECT_EQ((*second)["diff_from"], 1);
  EXPECT_TRUE(has((*second)["diff"].get<std::string>(), "#search")) << (*second)["diff"];
  // The diff's version wins over version=, which a client may send beside it.
  auto both = show_script(*db, "search", "1", "2");
  ASSERT_TRUE(both) << both.error().message;
  EXPECT_EQ((*both)["version"], 2);
}

TEST_F(ScriptsApi, AnUnknownScriptIsNotFound) {
  auto shown = show_script(*db, "nope", "");
  ASSERT_FALSE(shown);
  EXPECT_EQ(shown.error().code, Code::NotFound);
  auto replay = replay_run_body(*db, "nope", json::object());
  ASSERT_FALSE(replay);
  EXPECT_EQ(replay.error().code, Code::NotFound);
}

TEST_F(ScriptsApi, AReplaysBodyOfTheWrongShapeSaysWhatItShouldBe) {
  struct Case {
    json body;
    const char* says;
  };
  for (const auto& c : std::initializer_list<Case>{{json::array(), "a replay takes"},
                                                   {"run it", "a replay takes"},
                                                   {{{"fallback", "yes"}}, "fallback must be true"},
                                                   {{{"version", "2"}}, "version must be a whole number"},
                                                   {{{"version", 1.5}}, "version must be a whole number"},
                                                   {{{"vars", json::array({"pens"})}}, "vars must be an object of strings"},
                                                   {{{"vars", {{"q", 7}}}}, "vars.q must be a string"}}) {
    auto r = replay_run_body(*db, "search", c.body);
    ASSERT_FALSE(r) << c.body.dump();
    EXPECT_EQ(r.error().code, Code::InvalidArgument) << c.body.dump();
    EXPECT_TRUE(has(r.error().message, c.says)) << c.body.dump() << ": " << r.error().message;
  }
  // A variable the script does not have is the request's error, naming the ones it has.
  auto unknown = replay_run_body(*db, "search", {{"vars", {{"query", "ink"}}}});
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, Code::InvalidArgument);
  EXPECT_TRUE(has(unknown.error().message, "no parameter query (its parameters: q)")) << unknown.error().message;
}

TEST_F(ScriptsApi, AReplaysBodyFillsInTheTaskAndKeepsTheCallersOptions) {
  auto plain = replay_run_body(*db, "search", {{"vars", {{"q", "ink"}}}});
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_EQ((*plain)["task"], "search the shop for ink");
  EXPECT_EQ((*plain)["urls"], json::array({"http://127.0.0.1:9/shop"})) << "the recorded start pages";
  const json& script = (*plain)["options"]["script"];
  EXPECT_EQ(script["name"], "search");
  EXPECT_EQ(script["version"], 1);
  EXPECT_EQ(script["vars"], json({{"q", "ink"}}));
  EXPECT_FALSE(script.contains("fallback"));
  int cap = (*plain)["options"]["max_iterations"].get<int>();
  EXPECT_EQ(cap, 2) << "every step of the script and one more";

  auto given = replay_run_body(*db, "search", {{"urls", json::array({"http://127.0.0.1:9/other"})},
                                               {"fallback", true},
                                               {"options", {{"max_iterations", 7}, {"mode", "careful"}}}});
  ASSERT_TRUE(given) << given.error().message;
  EXPECT_EQ((*given)["task"], "search the shop for pens") << "a parameter not given keeps its default";
  EXPECT_EQ((*given)["urls"], json::array({"http://127.0.0.1:9/other"}));
  EXPECT_EQ((*given)["options"]["max_iterations"], 7);
  EXPECT_EQ((*given)["options"]["mode"], "careful");
  EXPECT_EQ((*given)["options"]["script"]["fallback"], true);
}

TEST_F(ScriptsApi, SavingARunTakesANameAndParametersOfNameAndValue) {
  for (const json& body : {json::array(), json{{"name", 3}}, json{{"params", json::array()}}}) {
    auto r = save_script_from_run(*db, "r1", body);
    ASSERT_FALSE(r) << body.dump();
    EXPECT_EQ(r.error().code, Code::InvalidArgument);
    EXPECT_TRUE(has(r.error().message, "{\"name\"")) << r.error().message;
  }
  auto not_list = save_script_from_run(*db, "r1", {{"name", "x"}, {"params", {{"q", "pens"}}}});
  ASSERT_FALSE(not_list);
  EXPECT_TRUE(has(not_list.error().message, "params must be a list")) << not_list.error().message;
  auto no_value = save_script_from_run(*db, "r1", {{"name", "x"}, {"params", json::array({{{"name", "q"}}})}});
  ASSERT_FALSE(no_value);
  EXPECT_TRUE(has(no_value.error().message, "each parameter is")) << no_value.error().message;
  // A run that is not there saves nothing.
  auto no_run = save_script_from_run(*db, "no-such-run", {{"name", "x"}});
  ASSERT_FALSE(no_run);
  auto listed = list_scripts(*db);
  ASSERT_TRUE(listed);
  EXPECT_EQ((*listed)["scripts"].size(), 1u);
}

TEST_F(ScriptsApi, TheListCountsVersionsAndDeleteSaysHowManyWent) {
  ASSERT_TRUE(scripts::save(*db, search_script("setFinal(2)")));
  auto listed = list_scripts(*db);
  ASSERT_TRUE(listed) << listed.error().message;
  ASSERT_EQ((*listed)["scripts"].size(), 1u);
  EXPECT_EQ((*listed)["scripts"][0]["name"], "search");
  EXPECT_EQ((*listed)["scripts"][0]["version"], 2) << "the latest";
  EXPECT_EQ((*listed)["scripts"][0]["versions"], 2);
  auto gone = delete_script(*db, "search");
  ASSERT_TRUE(gone) << gone.error().message;
  EXPECT_EQ(*gone, json({{"deleted", "search"}, {"versions", 2}}));
  auto after = list_scripts(*db);
  ASSERT_TRUE(after);
  EXPECT_TRUE((*after)["scripts"].empty());
  auto again = delete_script(*db, "search");
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, Code::NotFound);
}

}  // namespace
}  // namespace ouro::server
