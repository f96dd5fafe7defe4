// The primitives of GET /metrics (server/metrics.h) as a Prometheus scraper reads them: counters
// only go up, histograms' buckets are cumulative with +Inf last, label values are escaped as the
// text format asks, and counts from many threads add up.
#include "server/metrics.h"

#include "server/runs.h"
#include "session/session.h"
#include "store/database.h"

#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <string>
#include <limits>
#include <thread>
#include <vector>

namespace ouro::server {
namespace {

TEST(Counter, GoesUpOnlyAndIgnoresWhatIsNotANumberAboveZero) {
  Counter c;
  EXPECT_EQ(c.value(), 0);
  c.add();
  c.add(2.5);
  c.add(0);
  c.add(-3);
  c.add(std::numeric_limits<double>::quiet_NaN());
  c.add(std::numeric_limits<double>::infinity());
  EXPECT_EQ(c.value(), 3.5) << "a counter never goes down, and a NaN or infinity would stick forever";
}

TEST(Counter, AddsFromManyThreadsWithoutLosingAny) {
  Counter c;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 20000; ++i) c.add(0.5);
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(c.value(), 80000);
}

TEST(Histogram, BucketsAreCumulativeWithInfLastAndSumAndCount) {
  Histogram h({0.1, 1, 10});
  for (double v : {0.0625, 0.5, 1.0, 3.0, 20.0}) h.observe(v);  // sums exactly in binary
  h.observe(-1);                                         // not a duration
  h.observe(std::numeric_limits<double>::quiet_NaN());  // nor this
  std::string out;
  h.render(out, "ouro_run_seconds");
  EXPECT_EQ(out,
            "ouro_run_seconds_bucket{le=\"0.1\"} 1\n"
            "ouro_run_seconds_bucket{le=\"1\"} 3\n"  // an observation on a bound is in its bucket (le: less or equal)
            "ouro_run_seconds_bucket{le=\"10\"} 4\n"
            "ouro_run_seconds_bucket{le=\"+Inf\"} 5\n"
            "ouro_run_seconds_sum 24.5625\n"
            "ouro_run_seconds_count 5\n");
}

TEST(Histogram, AnEmptyOneStillListsEveryBucket) {
  Histogram h({1, 2});
  std::string out;
  h.render(out, "x");
  EXPECT_EQ(out, "x_bucket{le=\"1\"} 0\nx_bucket{le=\"2\"} 0\nx_bucket{le=\"+Inf\"} 0\nx_sum 0\nx_count 0\n");
}

TEST(Histogram, ALabelledOneCarriesItsLabelOnEveryLine) {
  Histogram h({0.5});
  h.observe(0.25);
  std::string out;
  h.render(out, "ouro_http_request_duration_seconds", "kind=\"api\"");
  EXPECT_EQ(out,
            "ouro_http_request_duration_seconds_bucket{kind=\"api\",le=\"0.5\"} 1\n"
            "ouro_http_request_duration_seconds_bucket{kind=\"api\",le=\"+Inf\"} 1\n"
            "ouro_http_request_duration_seconds_sum{kind=\"api\"} 0.25\n"
            "ouro_http_request_duration_seconds_count{kind=\"api\"} 1\n");
}

TEST(Histogram, ObservationsFromManyThreadsAllLand) {
  Histogram h({1});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10000; ++i) h.observe(t % 2 ? 0.5 : 2.0);
    });
  for (auto& t : threads) t.join();
  std::string out;
  h.render(out, "h");
  EXPECT_NE(out.find("h_bucket{le=\"1\"} 20000\n"), std::string::npos) << out;
  EXPECT_NE(out.find("h_bucket{le=\"+Inf\"} 40000\n"), std::string::npos) << out;
  EXPECT_NE(out.find("h_sum 50000\n"), std::string::npos) << out;
}

// The value of one sample line of an exposition (`name{labels} value`), -1 when it is absent.
double sample_of(const std::string& text, const std::string& series) {
  auto at = text.find("\n" + series + " ");
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + series.size() + 2));
}

TEST(Metrics, EachAnswerIsTimedUnderItsKindOfPath) {
  auto runtime = std::make_shared<session::Runtime>();
  runtime->db = *store::Database::open(":memory:");
  RunManager runs(runtime, RunManager::Config{});
  auto metrics = Metrics::start(runs);
  metrics->answered("/api/runs", 2);
  metrics->answered("/api/runs/r1/events", 30);
  metrics->answered("/mcp", 1);
  metrics->answered("/healthz", 0.5);
  metrics->answered("/metrics", 0.5);
  metrics->answered("/", 1);
  metrics->answered("/static/app.js", 1);
  metrics->answered("", 0);  // a request whose header could not be read
  metrics->answered("/apix", 1);
  const std::string text = metrics->render();
  const std::string name = "ouro_http_request_duration_seconds";
  EXPECT_EQ(sample_of(text, name + "_count{kind=\"api\"}"), 2);
  EXPECT_DOUBLE_EQ(sample_of(text, name + "_sum{kind=\"api\"}"), 0.032);
  EXPECT_EQ(sample_of(text, name + "_bucket{kind=\"api\",le=\"0.025\"}"), 1) << "30 ms is over 25 ms";
  EXPECT_EQ(sample_of(text, name + "_count{kind=\"mcp\"}"), 1);
  EXPECT_EQ(sample_of(text, name + "_count{kind=\"probe\"}"), 2);
  EXPECT_EQ(sample_of(text, name + "_count{kind=\"page\"}"), 4);
}

TEST(EscapeLabel, BackslashQuoteAndNewlineAreEscapedAndNothingElse) {
  EXPECT_EQ(escape_label("plain value-1.2"), "plain value-1.2");
  EXPECT_EQ(escape_label("a\\b"), "a\\\\b");
  EXPECT_EQ(escape_label("say \"hi\""), "say \\\"hi\\\"");
  EXPECT_EQ(escape_label("two\nlines"), "two\\nlines");
  EXPECT_EQ(escape_label("tab\there é"), "tab\there é") << "the format escapes three characters only";
  EXPECT_EQ(escape_label(""), "");
}

}  // namespace
}  // namespace ouro::server
