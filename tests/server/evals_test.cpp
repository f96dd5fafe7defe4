// The Command Center's view of `ouro eval`'s results (server/evals.h): a result is named, never
// reached by a path; the list is newest first and reads each result's small summary when it has
// one; what is not a result is left out rather than failing the list; and the report page's one
// style block is exactly what the page's Content-Security-Policy lets apply.
#include "server/evals.h"
#include "../support/scoped_temp_dir.h"

#include "base/base64.h"

#include <gtest/gtest.h>
#include <openssl/sha.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace ouro::server {
namespace {

namespace fs = std::filesystem;
using testing::ScopedTempDir;

json result(const std::string& provider, int64_t started_ms) {
  json task = {{"id", "bank-a"}, {"base", "bank-a"}, {"site", "bank"}, {"injected", false}, {"repeat", 1}, {"success", true}, {"steps", 3},
               {"input_tokens", 100}, {"output_tokens", 20}, {"cost_usd", 0.0}, {"cost_known", true}, {"wall_ms", 1000}, {"questions", 0},
               {"instruction", "Pay the rent"}, {"answer", "paid"}, {"stopped", ""}, {"checks", json::array()}};
  return {{"format", "ouro-eval/1"}, {"suite", "shipped"}, {"provider", provider}, {"mode", "autonomous"}, {"repeats", 1},
          {"concurrency", 1}, {"wall_ms", 1000}, {"started_ms", started_ms}, {"tasks", json::array({task})}};
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::trunc) << text;
}

TEST(Evals, ANameIsOneResultsNameNeverAPath) {
  ScopedTempDir tmp;
  write(fs::path(tmp.path) / "secret.json", result("script:@perfect", 1).dump());
  write(fs::path(tmp.path) / "eval/x/result.json", result("script:@perfect", 1).dump());
  for (const char* name : {"", "..", "../secret.json", "x/../x", "x/result.json", "/etc", ".x", "x\n", "a b"}) {
    auto r = eval_report(tmp.path, name);
    ASSERT_FALSE(r) << name;
    EXPECT_EQ(r.error().code, Code::InvalidArgument) << name;
  }
  auto compared = eval_compare(tmp.path, "x", "../x");
  ASSERT_FALSE(compared);
  EXPECT_EQ(compared.error().code, Code::InvalidArgument);
}

TEST(Evals, AMissingResultSaysWhereResultsAre) {
  ScopedTempDir tmp;
  auto r = eval_report(tmp.path, "2026-12-01-nothing");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::NotFound);
  EXPECT_NE(r.error().message.find(tmp.path + "/eval"), std::string::npos) << r.error().message;
}

TEST(Evals, TheListIsNewestFirstAndLeavesOutWhatIsNotAResult) {
  ScopedTempDir tmp;
  const fs::path eval = fs::path(tmp.path) / "eval";
  write(eval / "20261201-0900-a/result.json", result("script:@perfect", 100).dump());
  write(eval / "20261202-0900-b/result.json", result("script:@useless", 200).dump());
  // A summary written beside its result is what the list shows (the result may be large).
  write(eval / "20261202-0900-b/summary.json", json{{"provider", "from-summary"}, {"started_ms", 200}}.dump());
  write(eval / "20261203-0900-c/result.json", "{ still being written");
  write(eval / "20261204-0900-d/notes.txt", "no result here");
  write(eval / "20261205-0900-e/result.json", json{{"format", "something-else"}}.dump());
  write(eval / "loose-file.json", "{}");
  auto listed = list_evals(tmp.path);
  ASSERT_TRUE(listed) << listed.error().message;
  const json& results = (*listed)["results"];
  ASSERT_EQ(results.size(), 2u) << results.dump();
  EXPECT_EQ(results[0]["name"], "20261202-0900-b");
  EXPECT_EQ(results[0]["provider"], "from-summary");
  EXPECT_EQ(results[1]["name"], "20261201-0900-a");
  EXPECT_EQ(results[1]["provider"], "script:@perfect");
  EXPECT_EQ(results[1]["started_ms"], 100);
  EXPECT_EQ(results[1]["summary"]["runs"], 1) << results[1].dump();
}

TEST(Evals, NoResultsYetIsAnEmptyList) {
  ScopedTempDir tmp;
  auto listed = list_evals(tmp.path + "/never-made");
  ASSERT_TRUE(listed) << listed.error().message;
  EXPECT_TRUE((*listed)["results"].empty());
}

TEST(Evals, TheReportsStyleIsTheOneThePagesPolicyAllows) {
  ScopedTempDir tmp;
  write(fs::path(tmp.path) / "eval/a/result.json", result("script:@perfect", 1).dump());
  write(fs::path(tmp.path) / "eval/b/result.json", result("script:@useless", 2).dump());
  for (auto page : {eval_report(tmp.path, "a"), eval_compare(tmp.path, "a", "b")}) {
    ASSERT_TRUE(page) << page.error().message;
    EXPECT_EQ(page->find("<script"), std::string::npos);
    auto open = page->find("<style>");
    ASSERT_NE(open, std::string::npos);
    open += 7;
    auto close = page->find("</style>", open);
    ASSERT_NE(close, std::string::npos);
    EXPECT_EQ(page->find("<style", close), std::string::npos) << "one style block";
    unsigned char digest[SHA256_DIGEST_LENGTH];
    SHA256(reinterpret_cast<const unsigned char*>(page->data() + open), close - open, digest);
    EXPECT_EQ(eval_report_style_source(),
              "'sha256-" + base64_encode(std::string_view(reinterpret_cast<const char*>(digest), sizeof digest)) + "'");
  }
}

}  // namespace
}  // namespace ouro::server
