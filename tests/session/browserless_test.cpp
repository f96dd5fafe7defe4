// A browser pool on the real browserless platform (npm's @browserless.io/browserless, pinned in
// tests/session/browserless/package.json and installed by scripts/setup.sh), started by the test
// without Docker on the system Chromium (tests/session/browserless/start.sh), on a loopback port,
// with a token and a short session limit (TIMEOUT 5 s). The URL forms of
// docs/guides/pools-and-scaling.md work as written, runs are isolated from each other, the one
// connection ouro keeps per endpoint outlives the session limit, capacity follows browserless's
// CONCURRENT, and the token shows nowhere: not in ouro's log, the API, the events or its argv.
#include "browserless.h"
#include "serve_process.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <thread>

namespace ouro::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

std::string run_on(ServeProcess& s, const std::string& script) {
  Http r = s.post("/api/runs", {{"task", "Leave a mark and report what the page kept"},
                                {"urls", {site().url("/")}},
                                {"options", {{"provider", "script:" + script}, {"mode", "autonomous"}}}});
  EXPECT_EQ(r.status, 201) << r.raw;
  return r.body.value("id", "");
}

// Everything of a run a client can read: the run, its events.
std::string everything_about(ServeProcess& s, const std::string& id) {
  std::string all = s.get("/api/runs/" + id).raw;
  for (const auto& e : s.events(id)) all += e.dump();
  return all;
}

// A run that marks its context (cookie and localStorage), waits past the session limit in three
// steps, and reports what it finds.
std::string marking_script(const std::string& mark) {
  std::string set = "await navigate(activeTab, " + json(site().url("/")).dump() + ");\nenv.before = await execInTab(activeTab, " +
                    json("JSON.stringify({ls: localStorage.getItem('who'), cookie: document.cookie})").dump() +
                    ");\nawait execInTab(activeTab, " + json("localStorage.setItem('who', '" + mark + "'); document.cookie = 'who=" + mark + "'; 1").dump() +
                    ");\n'marked'";
  return script_file({
      {{"text", repl_reply(set)}},
      {{"delay_ms", 2500}, {"text", repl_reply("env.n = 2;\n'waiting'")}},
      {{"delay_ms", 2500}, {"text", repl_reply("env.n += 1;\n'still waiting'")}},
      {{"delay_ms", 2000},
       {"text", repl_reply("let pageTools; try { pageTools = await tools(activeTab) } catch (e) { pageTools = e.message }\n"
                           "setFinal({before: JSON.parse(env.before), now: await execInTab(activeTab, \"localStorage.getItem('who')\"), n: env.n, pageTools})")}},
  });
}

TEST(Browserless, TokenUrlFormsIsolatedRunsAndTheSessionLimit) {
  if (!Browserless::installed()) GTEST_SKIP() << "@browserless.io/browserless is not installed in tests/session/browserless (scripts/setup.sh installs it with npm)";
  Browserless bl(3);
  ASSERT_TRUE(bl.ready) << "browserless did not start:\n" << bl.log();
  const std::string& token = bl.token;

  // One --browser in the docs' first form: a pool of one, over one connection that must outlive
  // browserless's 5 s session limit while a run works on it for longer.
  {
    ServeProcess s(temp_dir(), {}, {"--browser", "ws://127.0.0.1:" + std::to_string(bl.port) + "?token=" + token});
    ASSERT_FALSE(s.base.empty()) << s.log();
    json pool = s.get("/api/pool").body;
    ASSERT_EQ(pool.value("healthy", 0), 1) << pool.dump() << s.log();
    EXPECT_EQ(pool["endpoints"][0].value("capacity", 0), 3) << "browserless's CONCURRENT caps the endpoint: " << pool.dump();
    EXPECT_EQ(pool["endpoints"][0]["engine"].value("maxConcurrent", 0), 3) << pool.dump();
    auto started = Clock::now();
    std::string id = run_on(s, marking_script("A"));
    json done = s.wait_state(id, {"done", "failed", "partial"}, 120s);
    ASSERT_EQ(done.value("state", ""), "done") << done.dump() << "\n" << s.log();
    EXPECT_GT(Clock::now() - started, 6s) << "the run did not outlast the session limit";
    EXPECT_EQ(done["final"]["n"], 3);
    EXPECT_EQ(done["final"]["now"], "A");
    EXPECT_NE(get_str(done["final"], "pageTools").find("does not expose page tools"), std::string::npos)
        << "a browser without page tools (WebMCP) says so: " << done["final"].dump();
    // Past the limit the endpoint has stayed up all along, and the server with it.
    std::this_thread::sleep_for(1s);
    EXPECT_EQ(s.get("/api/pool").body.value("healthy", 0), 1) << s.log();
    EXPECT_EQ(s.log().find("is down"), std::string::npos) << s.log();
    EXPECT_EQ(everything_about(s, id).find(token), std::string::npos);
    EXPECT_EQ(s.get("/api/pool").raw.find(token), std::string::npos);
    EXPECT_EQ(s.log().find(token), std::string::npos) << "the log never shows the token";
    s.stop();
  }

  // A pool file in the other forms: /chromium with the token in the query, http:// discovery with
  // the token from the environment (token_env, so it is in no file and no argv), and one with a
  // wrong token (down, saying so, and showing neither token).
  const std::string host = "127.0.0.1:" + std::to_string(bl.port);
  json file = {{"endpoints",
                {{{"url", "ws://" + host + "/chromium?token=" + token}, {"capacity", 4}},
                 {{"url", "http://" + host}, {"token_env", "BROWSERLESS_TOKEN"}},
                 {{"url", "ws://" + host + "/?token=wrongTokenXYZ123"}}}}};
  std::string pool_file = temp_dir() + "/pool.json";
  std::ofstream(pool_file) << file.dump();
  ServeProcess s(temp_dir(), {{"BROWSERLESS_TOKEN", token}}, {"--browser-pool", pool_file});
  ASSERT_FALSE(s.base.empty()) << s.log();
  json pool = s.get("/api/pool").body;
  EXPECT_EQ(pool.value("healthy", 0), 2) << pool.dump() << "\n" << s.log() << "\n" << bl.log();
  // Each healthy endpoint's places are what browserless says it takes (its /pressure, asked at
  // the connection and again at each health check: a first answer missed under load comes later).
  auto engine_limits = [&] {
    pool = s.get("/api/pool").body;
    for (const auto& e : pool["endpoints"])
      if (e.value("state", "") != "down" && e.value("capacity", 0) != 3) return false;
    return true;
  };
  for (auto until = std::chrono::steady_clock::now() + 60s; !engine_limits() && std::chrono::steady_clock::now() < until;)
    std::this_thread::sleep_for(200ms);
  for (const auto& e : pool["endpoints"]) {
    if (e.value("state", "") == "down") {
      EXPECT_EQ(e.value("url", ""), "ws://" + host + "/") << pool.dump();
    } else {
      EXPECT_EQ(e.value("capacity", 0), 3) << pool.dump();
    }
  }
  // Two runs at once, each in its own context: the second, started after the first has left its
  // mark, finds none of it.
  std::string first = run_on(s, marking_script("A"));
  // Its first iteration is over (cookie and localStorage set) once a checkpoint is stored.
  auto checkpointed = [](const std::vector<json>& ev) {
    for (const auto& e : ev)
      if (e["type"] == "checkpoint") return true;
    return false;
  };
  ASSERT_TRUE(s.wait_events(first, checkpointed, 60s)) << s.log();
  std::string second = run_on(s, marking_script("B"));
  json a = s.wait_state(first, {"done", "failed", "partial"}, 120s);
  json b = s.wait_state(second, {"done", "failed", "partial"}, 120s);
  ASSERT_EQ(a.value("state", ""), "done") << a.dump() << "\n" << s.log();
  ASSERT_EQ(b.value("state", ""), "done") << b.dump() << "\n" << s.log();
  EXPECT_EQ(b["final"]["before"]["ls"], nullptr) << "the second run saw the first's localStorage: " << b.dump();
  EXPECT_EQ(b["final"]["before"]["cookie"].get<std::string>().find("who=A"), std::string::npos) << b.dump();
  EXPECT_EQ(a["final"]["now"], "A");
  EXPECT_EQ(b["final"]["now"], "B");
  EXPECT_EQ(s.get("/api/pool").body.value("healthy", 0), 2) << "an endpoint went down past the session limit\n" << s.log();

  // The token nowhere: log, API answers, events, metrics, the process's argv.
  std::string seen = s.log() + s.get("/api/pool").raw + everything_about(s, first) + everything_about(s, second) + s.get("/metrics").raw;
  EXPECT_EQ(seen.find(token), std::string::npos) << seen;
  EXPECT_EQ(seen.find("wrongTokenXYZ123"), std::string::npos) << seen;
  std::ifstream cmdline("/proc/" + std::to_string(s.pid) + "/cmdline");
  std::string argv(std::istreambuf_iterator<char>(cmdline), {});
  EXPECT_FALSE(argv.empty());
  EXPECT_EQ(argv.find(token), std::string::npos);
}

TEST(Browserless, TokenEnvThatIsNotSetStopsTheServerSayingWhich) {
  std::string pool_file = temp_dir() + "/pool.json";
  std::ofstream(pool_file) << R"({"endpoints": [{"url": "ws://127.0.0.1:9/chromium", "token_env": "OURO_TEST_UNSET_TOKEN"}]})";
  auto r = ouro_shell(temp_dir(), "serve --port 0 --browser-pool " + pool_file);
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("OURO_TEST_UNSET_TOKEN"), std::string::npos) << r.err;
  std::ofstream(pool_file) << R"({"endpoints": [{"url": "ws://127.0.0.1:9/?token=secretABC123", "token_env": "X"}]})";
  r = ouro_shell(temp_dir(), "serve --port 0 --browser-pool " + pool_file);
  EXPECT_NE(r.err.find("give one of them"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("secretABC123"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ouro::testing
