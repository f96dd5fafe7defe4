// A result as people read it: the totals, the terminal's table, and HTML pages in which nothing a
// page or a model wrote can become markup.
#include "eval/report.h"

#include <gtest/gtest.h>

namespace ouro::eval {
namespace {

json task(const std::string& id, bool ok, bool injected = false, bool attack = false, bool tried = false) {
  json t = {{"id", id}, {"base", id}, {"site", id.substr(0, id.find('-'))}, {"injected", injected}, {"repeat", 1}, {"success", ok},
            {"steps", 3}, {"input_tokens", 1000}, {"output_tokens", 200}, {"cost_usd", 0.01}, {"cost_known", true}, {"wall_ms", 4000},
            {"questions", 1}, {"instruction", "Pay <b>rent</b>"}, {"answer", "</pre><script>alert(1)</script>"}, {"stopped", ok ? "" : "no transfer was sent"},
            {"checks", json::array({json{{"check", {{"log", {{"action", "transfer"}}}}}, {"passed", ok}, {"detail", "<img src=x onerror=alert(2)>"}}})},
            {"trace", json::array({json{{"ms", 10}, {"type", "code-generated"}, {"text", "await click(t, '<x>')"}}})},
            {"site_log", json::array({json{{"seq", 1}, {"action", "transfer"}, {"body", {{"to", "<svg onload=alert(3)>"}}}}})}};
  if (injected) t["attack"] = {{"goal", "steal"}, {"succeeded", attack}, {"attempted", attack || tried}, {"detail", "x"}};
  return t;
}

json result(std::vector<json> tasks) {
  return {{"format", "ouro-eval/1"}, {"suite", "shipped"}, {"provider", "script:@perfect"}, {"mode", "autonomous"}, {"repeats", 1},
          {"concurrency", 2}, {"wall_ms", 9000}, {"tasks", tasks}};
}

TEST(Report, TheSummaryCountsRunsSuccessesAndAttacks) {
  json r = result({task("bank-a", true), task("bank-a+inject", false, true, true), task("mail-b+inject", true, true, false, true), task("mail-c", false)});
  r["tasks"].push_back({{"id", "x"}, {"skipped", true}, {"success", false}});
  json s = summarize(r);
  EXPECT_EQ(s["runs"], 4);
  EXPECT_EQ(s["succeeded"], 2);
  EXPECT_DOUBLE_EQ(s["success_rate"].get<double>(), 0.5);
  EXPECT_EQ(s["skipped"], 1);
  EXPECT_EQ(s["injected"], 2);
  EXPECT_EQ(s["attacks_succeeded"], 1);
  EXPECT_EQ(s["attacks_attempted"], 2);
  EXPECT_EQ(s["questions"], 4);
  EXPECT_EQ(s["input_tokens"], 4000);
  EXPECT_NEAR(s["cost_usd"].get<double>(), 0.04, 1e-9);
  const std::string t = table(r, false);
  EXPECT_NE(t.find("bank-a+inject"), std::string::npos);
  EXPECT_NE(t.find("succeeded"), std::string::npos);
  EXPECT_NE(t.find("2 of 4 runs succeeded (50%)"), std::string::npos) << t;
  EXPECT_NE(t.find("attacks succeeded: 1 of 2 injected runs (2 tried)"), std::string::npos) << t;
  EXPECT_EQ(t.find("\033["), std::string::npos);  // no colour when asked for none
}

TEST(Report, PagesAreSelfContainedAndEscapeWhatRunsWrote) {
  json a = result({task("bank-a", true), task("bank-b", true), task("bank-b+inject", true, true)});
  json b = result({task("bank-a", false), task("bank-b", true), task("bank-b+inject", true, true, true)});
  for (const std::string& html : {html_report(b), html_compare(a, b, "before", "after")}) {
    EXPECT_EQ(html.rfind("<!doctype html>", 0), 0u);
    EXPECT_EQ(html.find("<script"), std::string::npos);
    EXPECT_EQ(html.find("<img"), std::string::npos);
    EXPECT_EQ(html.find("<svg onload"), std::string::npos);
    EXPECT_EQ(html.find("http://"), std::string::npos);  // nothing loaded from elsewhere
    EXPECT_EQ(html.find("style=\""), std::string::npos);  // one style block, allowed by its hash
    EXPECT_NE(html.find("<style>" + std::string(report_style()) + "</style>"), std::string::npos);
  }
  const std::string report = html_report(b);
  EXPECT_NE(report.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(report.find("no transfer was sent"), std::string::npos);
  // Failures first.
  EXPECT_LT(report.find("<b>bank-a</b>"), report.find("<b>bank-b</b>"));
  const std::string cmp = html_compare(a, b, "before", "after");
  EXPECT_LT(cmp.find("<td>bank-a</td>"), cmp.find("<td>bank-b</td>"));  // what got worse leads
  EXPECT_NE(cmp.find("attack got through"), std::string::npos);
}

TEST(Report, AFileThatIsNotAResultIsRefused) {
  auto r = read_result("/nonexistent/result.json");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::NotFound);
}

}  // namespace
}  // namespace ouro::eval
