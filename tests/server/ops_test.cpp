// What operators see of `ouro serve` (server/metrics.h, server/api.h): GET /metrics in
// Prometheus' text format moves with a scripted run (its iterations, tokens, its end, a gate
// refusal); /healthz and /readyz answer without a token and /metrics only with it; --listen off
// loopback is refused without OURO_API_TOKEN and, with it, takes the operator's token only.
#include "serve_process.h"

#include <gtest/gtest.h>

#include <fstream>

#include <cmath>
#include <map>
#include <set>
#include <thread>
#include <regex>
#include <sstream>

namespace ouro::testing {
namespace {

using namespace std::chrono_literals;

// The samples of an exposition: "name{labels}" -> value. Every line that is not a comment must
// be a sample, and every sample's family must have had its # TYPE line first.
std::map<std::string, double> parse_exposition(const std::string& text) {
  std::map<std::string, double> out;
  std::set<std::string> typed;
  std::istringstream in(text);
  std::string line;
  static const std::regex sample(R"(^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$)");
  static const std::regex type(R"(^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$)");
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_match(line, m, type)) {
      typed.insert(m[1]);
      continue;
    }
    if (line.rfind("# HELP ", 0) == 0) continue;
    EXPECT_TRUE(std::regex_match(line, m, sample)) << "not a sample line: '" << line << "'";
    if (m.empty()) continue;
    std::string family = std::regex_replace(m[1].str(), std::regex("_(bucket|sum|count)$"), "");
    EXPECT_TRUE(typed.count(m[1]) || typed.count(family)) << "no # TYPE before " << line;
    out[m[1].str() + m[2].str()] = m[3] == "+Inf" ? INFINITY : std::stod(m[3]);
  }
  return out;
}

TEST(Operations, MetricsMoveWithARunAndProbesAnswer) {
  ServeProcess s(temp_dir());
  ASSERT_FALSE(s.base.empty()) << s.log();

  // The probes need no token; /metrics does.
  Http health = request("GET", s.base + "/healthz", "");
  EXPECT_EQ(health.status, 200) << health.raw;
  Http ready = request("GET", s.base + "/readyz", "");
  EXPECT_EQ(ready.status, 200) << ready.raw;
  EXPECT_EQ(ready.body.value("ready", false), true) << ready.raw;
  EXPECT_EQ(ready.body["checks"].value("store", ""), "ok") << ready.raw;
  EXPECT_EQ(request("GET", s.base + "/metrics", "").status, 401);
  EXPECT_EQ(request("GET", s.base + "/metrics", "wrong-token").status, 401);

  Http before = s.get("/metrics");
  ASSERT_EQ(before.status, 200) << before.raw;
  auto m0 = parse_exposition(before.raw);
  EXPECT_EQ(m0["ouro_iterations_total"], 0);
  EXPECT_EQ(m0["ouro_runs_finished_total{outcome=\"done\"}"], 0);
  EXPECT_EQ(m0["ouro_scheduler_leader"], 1) << "one node on its data directory fires its schedules";
  EXPECT_EQ(m0["ouro_schedule_fires_total{result=\"started\"}"], 0);
  // Every answer is timed, by kind: the two probes and the two refused scrapes so far.
  EXPECT_GE(m0["ouro_http_request_duration_seconds_count{kind=\"probe\"}"], 4);
  EXPECT_EQ(m0["ouro_http_request_duration_seconds_bucket{kind=\"probe\",le=\"+Inf\"}"],
            m0["ouro_http_request_duration_seconds_count{kind=\"probe\"}"]);

  // A scripted run: two iterations, a navigation off its allowed site (refused by the gate:
  // autonomous mode, nobody to ask), and its end.
  std::string elsewhere = site().url("/");
  elsewhere.replace(elsewhere.find("127.0.0.1"), 9, "localhost");  // another site: the gate tells hosts apart
  std::string script = script_file({
      {{"text", repl_reply("await navigate(activeTab, " + json(site().url("/")).dump() + ");\n'there'")}},
      {{"text", repl_reply("try { await navigate(activeTab, " + json(elsewhere).dump() +
                           "); env.left = true; } catch (e) { env.left = false; }\nsetFinal({left: env.left})")}},
  });
  Http created = s.post("/api/runs", {{"task", "Look around"},
                                      {"urls", {site().url("/")}},
                                      {"options", {{"provider", "script:" + script}, {"mode", "autonomous"}}}});
  ASSERT_EQ(created.status, 201) << created.raw;
  std::string id = created.body.value("id", "");
  json done = s.wait_state(id, {"done", "failed", "partial"});
  ASSERT_EQ(done.value("state", ""), "done") << done.dump() << s.log();

  // The counters follow the run's events as they are published; the scrape waits for the last.
  std::map<std::string, double> m;
  for (auto deadline = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < deadline;) {
    m = parse_exposition(s.get("/metrics").raw);
    if (m["ouro_runs_finished_total{outcome=\"done\"}"] >= 1) break;
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_EQ(m["ouro_runs_finished_total{outcome=\"done\"}"], 1);
  EXPECT_EQ(m["ouro_iterations_total"], 2);
  EXPECT_EQ(m["ouro_iteration_duration_seconds_count"], 2);
  EXPECT_EQ(m["ouro_iteration_duration_seconds_bucket{le=\"+Inf\"}"], 2);
  EXPECT_EQ(m["ouro_run_duration_seconds_count"], 1);
  EXPECT_GT(m["ouro_run_duration_seconds_sum"], 0);
  EXPECT_GT(m["ouro_model_tokens_total{kind=\"output\"}"], 0) << "the scripted model's estimated tokens";
  EXPECT_GE(m["ouro_runs{state=\"done\"}"], 1);
  EXPECT_EQ(m["ouro_run_queue_depth"], 0);
  EXPECT_GE(m["ouro_http_request_duration_seconds_count{kind=\"api\"}"], 2) << "the run's creation and its polls";
  EXPECT_GT(m["ouro_http_request_duration_seconds_sum{kind=\"api\"}"], 0);
  EXPECT_EQ(done["final"].value("left", true), false) << "the gate let the run leave its site";
  EXPECT_GE(m["ouro_gate_decisions_total{decision=\"refused\"}"], 1);
  EXPECT_GE(m["ouro_repl_workers"], 1) << "the server's own session has a REPL worker";
  EXPECT_TRUE(m.count("ouro_gate_decisions_total{decision=\"asked\"}"));
  // The terminal that runs the server says what it did: one line when the run started, one when it ended.
  std::string out;
  for (auto deadline = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < deadline;) {
    out = s.out();
    if (out.find("run " + id + " done in ") != std::string::npos) break;
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_NE(out.find("run " + id + " started: Look around\n"), std::string::npos) << out;
  EXPECT_NE(out.find("run " + id + " done in "), std::string::npos) << out;
  EXPECT_NE(out.find("(2 iterations"), std::string::npos) << out;
}

// `ouro serve --secret NAME@SITE` is every run's secret, as `ouro run --secret` is the run's
// (docs/reference/commands.md): the run types it on its site, reads back only its mask, and a
// missing $OURO_SECRET_NAME stops the server at start, naming it.
TEST(Operations, ServesSecretIsEveryRunsSecret) {
  std::string origin = site().url("/");
  origin.pop_back();
  auto missing = ouro_shell(temp_dir(), "serve --port 0 --secret vault@" + origin);
  EXPECT_NE(missing.code, 0);
  EXPECT_NE(missing.err.find("OURO_SECRET_VAULT"), std::string::npos) << missing.err;

  ServeProcess s(temp_dir(), {{"OURO_SECRET_VAULT", "vault-pass-8841"}}, {"--secret", "vault@" + origin});
  ASSERT_FALSE(s.base.empty()) << s.log();
  std::string code = "await type(activeTab, '#name', secret('vault'));\nsetFinal(await execInTab(activeTab, \"document.getElementById('name').value\"))";
  Http r = s.post("/api/runs", {{"task", "Type the vault's pass"}, {"urls", {site().url("/form")}},
                                {"options", {{"provider", "script:" + script_file({{{"text", repl_reply(code)}}})}}}});
  ASSERT_EQ(r.status, 201) << r.raw;
  json run = s.wait_state(r.body["id"], {"done", "failed", "partial"});
  EXPECT_EQ(run.value("state", ""), "done") << run.dump();
  EXPECT_EQ(run["final"], "[SECRET:vault]") << run.dump();
}

TEST(Operations, ListenOffLoopbackNeedsTheOperatorsToken) {
  auto refused = ouro_shell(temp_dir(), "serve --port 0 --no-open --listen 0.0.0.0:0");
  EXPECT_NE(refused.code, 0);
  EXPECT_NE(refused.err.find("OURO_API_TOKEN"), std::string::npos) << refused.err;
  auto junk = ouro_shell(temp_dir(), "serve --port 0 --no-open --listen nowhere:80");
  EXPECT_NE(junk.code, 0);
  EXPECT_NE(junk.err.find("not an IP address"), std::string::npos) << junk.err;

  // With the token set, it listens on every address; a proxy's Host is taken, the token decides.
  const std::string token = "ops-test-token-0123456789abcdef";
  ServeProcess s(temp_dir(), {{"OURO_API_TOKEN", token}}, {"--listen", "0.0.0.0:0"});
  ASSERT_FALSE(s.base.empty()) << s.log();
  EXPECT_EQ(request("GET", s.base + "/api/runs", token, "", {"Host: ouro.example.com"}).status, 200);
  EXPECT_EQ(request("GET", s.base + "/api/runs", "", "", {"Host: ouro.example.com"}).status, 401);
  EXPECT_EQ(request("GET", s.base + "/readyz", "", "", {"Host: 10.0.0.5:8765"}).status, 200);
  EXPECT_EQ(request("GET", s.base + "/metrics", token).status, 200);
  // A token the operator gave is theirs to know: it is printed nowhere (journald and container
  // logs keep what a service prints).
  EXPECT_EQ(s.out().find(token), std::string::npos) << s.out();
  EXPECT_EQ(s.log().find(token), std::string::npos) << s.log();
  EXPECT_NE(s.out().find("Authorization: Bearer <your API token>"), std::string::npos) << s.out();
}

// The same token from a file (OURO_API_TOKEN_FILE, as systemd's credentials hand one over).
TEST(Operations, ATokenFromAFileIsTakenAndNeverPrinted) {
  const std::string token = "file-token-fedcba9876543210";
  std::string dir = temp_dir();
  {
    std::ofstream f(dir + "/token");
    f << token << "\n";
  }
  ServeProcess s(temp_dir(), {{"OURO_API_TOKEN_FILE", dir + "/token"}});
  ASSERT_FALSE(s.base.empty()) << s.log();
  EXPECT_EQ(request("GET", s.base + "/api/runs", token).status, 200);
  EXPECT_EQ(request("GET", s.base + "/api/runs", "wrong").status, 401);
  EXPECT_EQ(s.out().find(token), std::string::npos) << s.out();
  EXPECT_EQ(s.log().find(token), std::string::npos) << s.log();
  auto empty = ouro_shell(temp_dir(), "serve --port 0 --no-open", "", "OURO_API_TOKEN_FILE=/dev/null");
  EXPECT_NE(empty.code, 0);
  EXPECT_NE(empty.err.find("first line is empty"), std::string::npos) << empty.err;
}

}  // namespace
}  // namespace ouro::testing
