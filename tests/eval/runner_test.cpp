// `ouro eval` on the suite that ships with it, through the command as a person runs it: the
// scripted models give the figures they must — the perfect one every task, the useless one none,
// the obedient one an attack tried on every injected variant (and each either refused by the gate
// or found by its checker) — a recorded run replays to the same table, and careful mode answers
// every question no and counts it.
#include "serve_process.h"
#include "fixtures.h"
#include "basics.h"

#include "base/json.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace ouro::testing {
namespace {

json read_json(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  auto j = parse_json(ss.str());
  return j ? *j : json();
}

struct Eval {
  Exited exited;
  json result;
};

Eval eval(const std::string& data, const std::string& name, const std::string& args) {
  const std::string out = data + "/results/" + name;
  Eval e;
  e.exited = ouro_shell(data, "eval --out " + out + " " + args);
  e.result = read_json(out + "/result.json");
  return e;
}

// What must come out the same when ouro behaves the same (not the wall time).
std::map<std::string, std::string> table_of(const json& result) {
  std::map<std::string, std::string> out;
  for (const auto& t : get_array(result, "tasks"))
    out[get_str(t, "id")] = fmt::format("success={} steps={} in={} out={} cost={} asked={} attack={}", get_bool(t, "success"), get_int(t, "steps"),
                                        get_int(t, "input_tokens"), get_int(t, "output_tokens"), get_num(t, "cost_usd"), get_int(t, "questions"),
                                        get_bool(get_field(t, "attack"), "succeeded"));
  return out;
}

std::string failures(const json& result, bool want_success) {
  std::string out;
  for (const auto& t : get_array(result, "tasks"))
    if (get_bool(t, "success") != want_success) out += "\n  " + get_str(t, "id") + ": " + get_str(t, "stopped") + " " + get_str(t, "error");
  return out;
}

TEST(Eval, ScriptedModelsGiveTheFiguresTheyMustAndARecordReplays) {
  const std::string data = temp_dir();
  const std::string rec = data + "/recorded";
  Eval perfect = eval(data, "perfect", "--provider script:@perfect --record " + rec);
  ASSERT_EQ(perfect.exited.code, 0) << perfect.exited.err;
  const json& s = perfect.result["summary"];
  ASSERT_GE(get_int(s, "runs"), 50) << perfect.exited.err;
  EXPECT_EQ(get_int(s, "succeeded"), get_int(s, "runs")) << failures(perfect.result, true);
  EXPECT_EQ(get_int(s, "attacks_succeeded"), 0);
  EXPECT_GE(get_int(s, "injected") * 3, get_int(s, "runs") - get_int(s, "injected"));
  // The table says so too, and the report is written beside the result.
  EXPECT_NE(perfect.exited.out.find(fmt::format("{} of {} runs succeeded (100%)", get_int(s, "runs"), get_int(s, "runs"))), std::string::npos)
      << perfect.exited.out;
  EXPECT_TRUE(std::filesystem::exists(data + "/results/perfect/report.html"));

  // The recorded exchanges replay with no model to the same table (two sites' tasks, clean and
  // injected, to keep the test short).
  Eval replay = eval(data, "replay", "--replay " + rec + " --only 'shop-*' --only 'spa-*'");
  ASSERT_EQ(replay.exited.code, 0) << replay.exited.err;
  auto recorded = table_of(perfect.result);
  std::erase_if(recorded, [](const auto& kv) { return kv.first.rfind("shop-", 0) != 0 && kv.first.rfind("spa-", 0) != 0; });
  EXPECT_GE(recorded.size(), 10u);
  EXPECT_EQ(table_of(replay.result), recorded);
  EXPECT_EQ(replay.result["provider"], "replay:" + rec);

  // The useless model, on one site here (every task of the suite is checked against a run that
  // does nothing in eval_test): none.
  Eval useless = eval(data, "useless", "--provider script:@useless --only 'bank-*'");
  ASSERT_EQ(useless.exited.code, 0) << useless.exited.err;
  EXPECT_GE(get_int(useless.result["summary"], "runs"), 6);
  EXPECT_EQ(get_int(useless.result["summary"], "succeeded"), 0) << failures(useless.result, false);

  // The obedient model tries every injection: each is found by its checker or refused by the gate.
  Eval obedient = eval(data, "obedient", "--provider script:@obedient --variants injected");
  ASSERT_EQ(obedient.exited.code, 0) << obedient.exited.err;
  const json& o = obedient.result["summary"];
  EXPECT_EQ(get_int(o, "runs"), get_int(s, "injected"));
  EXPECT_EQ(get_int(o, "attacks_attempted"), get_int(o, "runs"));
  EXPECT_GE(get_int(o, "attacks_succeeded"), 1);
  for (const auto& t : get_array(obedient.result, "tasks")) {
    const json& a = get_field(t, "attack");
    EXPECT_TRUE(get_bool(a, "attempted")) << get_str(t, "id") << ": " << get_str(a, "detail");
    if (!get_bool(a, "succeeded")) {
      EXPECT_NE(get_str(a, "detail").find("refused"), std::string::npos) << get_str(t, "id");
    }
  }
}

TEST(Eval, CarefulModeAnswersEveryQuestionNoAndCountsIt) {
  const std::string data = temp_dir();
  Eval careful = eval(data, "careful", "--provider script:@perfect --mode careful --only bank-pay-rent");
  ASSERT_EQ(careful.exited.code, 0) << careful.exited.err;
  ASSERT_EQ(get_array(careful.result, "tasks").size(), 1u);
  const json& t = careful.result["tasks"][0];
  EXPECT_GE(get_int(t, "questions"), 1);
  EXPECT_FALSE(get_bool(t, "success")) << "the transfer was asked about and refused, so it was never sent";
  EXPECT_EQ(careful.result["mode"], "careful");
}

TEST(Eval, AUsersOwnSuiteRunsWithAScriptPerTask) {
  const std::string data = temp_dir();
  const std::string suite = data + "/mine";
  ASSERT_EQ(ouro_shell(data, "eval --export-suite " + suite).code, 0);
  // A task of the user's own on a shipped site, its own script beside it.
  {
    std::ofstream(suite + "/tasks/zz-mine.json")
        << R"([{"id":"mine-title","site":"bank","instruction":"What is the page's title?","check":[{"answer":{"contains":["Harborview"]}}]}])";
    std::filesystem::create_directories(data + "/scripts");
    json line = {{"text", "Reading it.\n```repl\nsetFinal(tabs[0].title)\n```"}};
    std::ofstream(data + "/scripts/mine-title.jsonl") << line.dump() << "\n";
  }
  Eval mine = eval(data, "mine", "--suite " + suite + " --only mine-title --provider script:" + data + "/scripts");
  ASSERT_EQ(mine.exited.code, 0) << mine.exited.err;
  EXPECT_EQ(get_int(mine.result["summary"], "succeeded"), 1) << failures(mine.result, true);
  // A task on a page of the user's own (here a site this test serves), checked on its answer.
  FixtureSite own;
  {
    const std::string tasks = suite + "/own-tasks";
    std::filesystem::create_directories(tasks + "/tasks");
    std::ofstream(tasks + "/tasks/own.json") << json::array({json{{"id", "own-heading"}, {"url", own.url("/")}, {"instruction", "What does the page's heading say?"},
                                                                  {"check", json::array({json{{"answer", {{"contains", {"Fixture"}}}}}})}}})
                                                    .dump();
    json line = {{"text", "Reading it.\n```repl\nsetFinal(await getText(activeTab, 'h1'))\n```"}};
    std::ofstream(data + "/scripts/own-heading.jsonl") << line.dump() << "\n";
    Eval on_url = eval(data, "own", "--suite " + tasks + " --provider script:" + data + "/scripts");
    ASSERT_EQ(on_url.exited.code, 0) << on_url.exited.err;
    EXPECT_EQ(get_int(on_url.result["summary"], "succeeded"), 1) << failures(on_url.result, true) << on_url.exited.err;
    EXPECT_EQ(on_url.result["tasks"][0]["site"], "127.0.0.1");
  }
  // A task without a script in the folder is named before anything runs.
  Exited missing = ouro_shell(data, "eval --suite " + suite + " --only bank-pay-rent --provider script:" + data + "/scripts");
  EXPECT_NE(missing.code, 0);
  EXPECT_NE(missing.err.find("no script for bank-pay-rent"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace ouro::testing
