// `ouro eval` without a browser (cli/eval.cpp): flags that would change what a task may reach are
// refused, so that results compare; --list names the selected tasks of the shipped suite;
// --export-suite writes a suite that loads; --report writes a result's page again beside it; and
// --compare writes two results side by side, named after their folders, and says each one's figures.
#include "cli/eval.h"
#include "../support/scoped_temp_dir.h"
#include "../support/stream_capture.h"

#include "base/json.h"
#include "eval/suite.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

namespace ouro::cli {
namespace {

namespace fs = std::filesystem;
using TempDir = ouro::testing::ScopedTempDir;
using ouro::testing::StreamCapture;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A result as `ouro eval` writes it: one task, succeeded or not.
std::string write_result(const TempDir& dir, const std::string& folder, bool success) {
  json task = {{"id", "bank-a"}, {"base", "bank-a"}, {"site", "bank"}, {"injected", false}, {"repeat", 1}, {"success", success},
               {"steps", 3}, {"input_tokens", 100}, {"output_tokens", 20}, {"cost_usd", 0.0}, {"cost_known", true}, {"wall_ms", 1000},
               {"questions", 0}, {"instruction", "Pay the rent"}, {"answer", success ? "paid" : ""}, {"stopped", ""}, {"checks", json::array()}};
  json result = {{"format", "ouro-eval/1"}, {"suite", "shipped"}, {"provider", "script"}, {"mode", "autonomous"}, {"repeats", 1},
                 {"concurrency", 1}, {"wall_ms", 1000}, {"started_ms", 1700000000000}, {"tasks", json::array({task})}};
  fs::create_directories(dir.path + "/" + folder);
  std::string path = dir.path + "/" + folder + "/result.json";
  std::ofstream(path) << result.dump();
  return path;
}

TEST(CliEval, FlagsThatChangeWhatATaskMayReachAreRefused) {
  EvalFlags ef;
  CommonFlags url;
  url.urls = {"http://127.0.0.1:9/"};
  auto r = cmd_eval(url, ef);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::InvalidArgument);
  EXPECT_TRUE(has(r.error().message, "--url is not for ouro eval")) << r.error().message;

  CommonFlags domain;
  domain.allow_domains = {"example.com"};
  r = cmd_eval(domain, ef);
  ASSERT_FALSE(r);
  EXPECT_TRUE(has(r.error().message, "--allow-domain is not for ouro eval")) << r.error().message;

  CommonFlags mode;
  mode.mode = "reckless";
  r = cmd_eval(mode, ef);
  ASSERT_FALSE(r);
  EXPECT_TRUE(has(r.error().message, "--mode is autonomous or careful, not \"reckless\"")) << r.error().message;

  EvalFlags one;
  one.compare = {"a/result.json"};
  r = cmd_eval(CommonFlags{}, one);
  ASSERT_FALSE(r);
  EXPECT_TRUE(has(r.error().message, "--compare takes two results")) << r.error().message;
}

TEST(CliEval, ListNamesTheSelectedTasksOfTheShippedSuite) {
  EvalFlags ef;
  ef.list = true;
  ef.only = {"bank-*"};
  std::string out;
  {
    StreamCapture cout(std::cout);
    auto r = cmd_eval(CommonFlags{}, ef);
    out = cout.text();
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(*r, 0);
  }
  ASSERT_FALSE(out.empty());
  std::istringstream lines(out);
  int n = 0;
  for (std::string line; std::getline(lines, line); ++n) EXPECT_EQ(line.rfind("bank-", 0), 0u) << "only the selected tasks: " << line;
  EXPECT_GT(n, 0);

  EvalFlags none;
  none.list = true;
  none.only = {"no-such-task-*"};
  auto r = cmd_eval(CommonFlags{}, none);
  EXPECT_FALSE(r) << "a selection of nothing is said, not listed empty";
}

TEST(CliEval, AnExportedSuiteLoadsWithTheTasksItSays) {
  TempDir dir;
  EvalFlags ef;
  ef.export_suite = dir.path + "/suite";
  std::string out;
  {
    StreamCapture cout(std::cout);
    auto r = cmd_eval(CommonFlags{}, ef);
    out = cout.text();
    ASSERT_TRUE(r) << r.error().message;
  }
  auto suite = eval::Suite::load(dir.path + "/suite");
  ASSERT_TRUE(suite) << suite.error().message;
  EXPECT_GT(suite->tasks.size(), 0u);
  EXPECT_TRUE(has(out, std::to_string(suite->tasks.size()) + " tasks")) << out;
  EXPECT_TRUE(has(out, "ouro eval --suite " + dir.path + "/suite")) << out;
}

TEST(CliEval, AReportIsWrittenAgainAndTwoResultsCompare) {
  TempDir dir;
  std::string before = write_result(dir, "before", false), after = write_result(dir, "after", true);
  EvalFlags report;
  report.report = after;
  {
    StreamCapture cout(std::cout);
    auto r = cmd_eval(CommonFlags{}, report);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_TRUE(has(cout.text(), "report: " + dir.path + "/after/report.html")) << cout.text();
  }
  EXPECT_TRUE(fs::file_size(dir.path + "/after/report.html") > 0);

  EvalFlags compare;
  compare.compare = {before, after};
  compare.out = dir.path + "/compare.html";
  std::string out;
  {
    StreamCapture cout(std::cout);
    auto r = cmd_eval(CommonFlags{}, compare);
    out = cout.text();
    ASSERT_TRUE(r) << r.error().message;
  }
  EXPECT_TRUE(has(out, "A before: 0 of 1 succeeded")) << out;
  EXPECT_TRUE(has(out, "B after: 1 of 1 succeeded")) << out;
  std::ifstream page(dir.path + "/compare.html");
  std::string html((std::istreambuf_iterator<char>(page)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(has(html, "before") && has(html, "after")) << "the page names both";

  EvalFlags missing;
  missing.report = dir.path + "/nowhere/result.json";
  auto r = cmd_eval(CommonFlags{}, missing);
  ASSERT_FALSE(r);
  EXPECT_TRUE(has(r.error().message, dir.path + "/nowhere/result.json")) << r.error().message;
}

}  // namespace
}  // namespace ouro::cli
