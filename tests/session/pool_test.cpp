// Browser pools (session/pool.h): `ouro serve --browser-pool FILE` over three local Chromium processes
// started with --remote-debugging-port=0 (their ports read from DevToolsActivePort). Scripted runs
// spread over the three; one Chromium is killed with SIGKILL in the middle of a run, which must
// move to another endpoint and end with the final an undisturbed run gives; the pool shows the
// endpoint down; with every endpoint killed a run ends with a clear error in bounded time. The
// pool file's hostile cases (junk, bad URLs, duplicates, unreachable endpoints) are checked too.
#include "remote_chromium.h"
#include "serve_process.h"

#include "session/pool.h"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <thread>

namespace ouro::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Each a Chromium started as an operator would for a pool (tests/support/remote_chromium.h).
struct PoolChromium : RemoteChromium {
  PoolChromium() : RemoteChromium(temp_dir() + "/chromium") {}
};

struct Server : ServeProcess {
  using ServeProcess::ServeProcess;
  json endpoint_state(const std::string& url) {
    for (const auto& e : get("/api/pool").body.value("endpoints", json::array()))
      if (e.value("url", "") == url) return e;
    return json();
  }
};

bool has_event(const std::vector<json>& events, const std::string& type, int iteration = -1) {
  return std::any_of(events.begin(), events.end(), [&](const json& e) {
    return e["type"] == type && (iteration < 0 || e["data"].value("iteration", -1) == iteration);
  });
}

// Four iterations on the fixture site: a login (cookies of the run's own context), the page's
// localStorage, env values of several types, and a final that depends on all of them.
// The third answer waits (up to two minutes) for the file `hold` to exist: a test holds the run
// there to kill its browser mid-run on any machine.
std::string pool_script(const std::string& hold) {
  return script_file({
      {{"text", repl_reply("env.seen = new Map([['first', tabs.length]]);\nenv.count = 1;\nawait navigate(activeTab, " +
                           json(site().url("/cookies")).dump() + ");\n'started'")}},
      {{"delay_ms", 500}, {"text", repl_reply("env.count += 1;\nenv.seen.set('second', 2);\n"
                                                      "await execInTab(activeTab, \"localStorage.setItem('basket', '3 items')\");\n'second'")}},
      {{"delay_ms", 120000}, {"until_file", hold}, {"text", repl_reply("env.count += 1;\nawait navigate(activeTab, " + json(site().url("/account")).dump() + ");\n'third'")}},
      {{"delay_ms", 500},
       {"text", repl_reply("const text = await getText(activeTab);\n"
                           "setFinal({count: env.count, isMap: env.seen instanceof Map, seen: [...env.seen.entries()],\n"
                           "  signedIn: /signed in|welcome/i.test(text), cart: await execInTab(activeTab, \"localStorage.getItem('basket')\")})")}},
  });
}

std::string start_run(Server& s, const std::string& script) {
  Http r = s.post("/api/runs", {{"task", "Count, sign in and report"},
                                {"urls", {site().url("/")}},
                                {"options", {{"provider", "script:" + script}, {"mode", "autonomous"}}}});
  EXPECT_EQ(r.status, 201) << r.raw;
  return r.body.value("id", "");
}

std::string write_file(const std::string& text) {
  std::string path = temp_dir() + "/pool.json";
  std::ofstream(path) << text;
  return path;
}

TEST(BrowserPool, SpreadsRunsAndMovesARunOffAKilledEndpoint) {
  PoolChromium chromium[3];
  for (auto& c : chromium) ASSERT_GT(c.port, 0) << "a Chromium with --remote-debugging-port did not start";
  json endpoints = json::array();
  for (auto& c : chromium) endpoints.push_back({{"url", c.url()}, {"capacity", 2}});
  std::string pool_file = write_file(json{{"endpoints", endpoints}}.dump());
  std::string dir = temp_dir();
  Server s(dir, {}, {"--browser-pool", pool_file});
  ASSERT_FALSE(s.base.empty()) << "ouro serve did not start: " << s.log();

  EXPECT_EQ(s.get("/api/settings").body.value("pool", false), true) << "the Command Center asks for the pool only when told there is one";
  json pool = s.get("/api/pool").body;
  ASSERT_EQ(pool.value("healthy", 0), 3) << pool.dump();
  EXPECT_EQ(pool.value("capacity", 0), 6);

  // Three runs at once: one on each endpoint (least loaded first).
  const std::string hold = temp_dir() + "/hold";
  std::ofstream(hold) << "go";
  std::string script = pool_script(hold);
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) ids.push_back(start_run(s, script));
  std::set<std::string> placed;
  for (const auto& id : ids) {
    ASSERT_TRUE(s.wait_events(id, [](const auto& ev) { return has_event(ev, "placement"); })) << s.log();
    placed.insert(s.get("/api/runs/" + id).body.value("endpoint", ""));
  }
  EXPECT_EQ(placed.size(), 3u) << "the runs were not spread over the endpoints";
  json expected;
  for (const auto& id : ids) {
    json done = s.wait_state(id, {"done", "failed", "partial"});
    ASSERT_EQ(done.value("state", ""), "done") << done.dump();
    if (expected.is_null()) expected = done["final"];
    EXPECT_EQ(done["final"], expected);
  }
  EXPECT_EQ(expected["count"], 3);
  EXPECT_EQ(expected["signedIn"], true);
  EXPECT_EQ(expected["cart"], "3 items");

  // A run whose Chromium is killed after its first iteration moves to another endpoint and ends
  // with the same final.
  std::filesystem::remove(hold);  // held in its third model call until its browser is gone
  std::string id = start_run(s, script);
  ASSERT_TRUE(s.wait_events(id, [](const auto& ev) { return has_event(ev, "iteration-end", 2); })) << s.log();
  std::string victim = s.get("/api/runs/" + id).body.value("endpoint", "");
  RemoteChromium* killed = nullptr;
  for (auto& c : chromium)
    if (c.url() == victim) killed = &c;
  ASSERT_NE(killed, nullptr) << "endpoint " << victim;
  killed->kill9();
  auto killed_at = Clock::now();
  std::ofstream(hold) << "go";
  json done = s.wait_state(id, {"done", "failed", "partial"});
  ASSERT_EQ(done.value("state", ""), "done") << done.dump() << "\n" << s.log();
  EXPECT_EQ(done["final"], expected) << "the moved run's final differs from an undisturbed run's";
  EXPECT_NE(done.value("endpoint", ""), victim);
  auto events = s.events(id);
  auto moved = std::find_if(events.begin(), events.end(), [](const json& e) { return e["type"] == "failover"; });
  ASSERT_NE(moved, events.end());
  EXPECT_EQ((*moved)["data"].value("from", ""), victim);
  EXPECT_EQ((*moved)["data"].value("to", ""), done.value("endpoint", ""));
  EXPECT_TRUE(has_event(events, "resumed"));
  for (size_t i = 0; i < events.size(); ++i) ASSERT_EQ(events[i].value("seq", 0), static_cast<int64_t>(i + 1)) << "events are one gap-free sequence";
  // The pool says the endpoint is down, with why.
  json state = s.endpoint_state(victim);
  EXPECT_EQ(state.value("state", ""), "down") << state.dump();
  EXPECT_TRUE(state["lastError"].is_string()) << state.dump();
  std::cerr << "failover: run done " << std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - killed_at).count()
            << " ms after the kill\n";

  // Every endpoint killed under a run: it ends with a clear error, in bounded time.
  std::string last = start_run(s, script);
  ASSERT_TRUE(s.wait_events(last, [](const auto& ev) { return has_event(ev, "iteration-end", 1); })) << s.log();
  for (auto& c : chromium) c.kill9();
  auto all_killed = Clock::now();
  json failed = s.wait_state(last, {"done", "failed", "partial"}, 30s);
  EXPECT_LT(Clock::now() - all_killed, 30s);
  ASSERT_EQ(failed.value("state", ""), "failed") << failed.dump();
  EXPECT_NE(failed.value("error", "").find("no other endpoint is healthy"), std::string::npos) << failed.dump();
  EXPECT_TRUE(has_event(s.events(last), "complete"));
  // And a new run is refused a browser at once, saying why.
  std::string refused = start_run(s, script);
  json no = s.wait_state(refused, {"done", "failed", "partial"}, 15s);
  EXPECT_EQ(no.value("state", ""), "failed");
  EXPECT_NE(no.value("error", "").find("no browser endpoint is healthy"), std::string::npos) << no.dump();
}

TEST(BrowserPool, HostilePoolFilesAreRefusedOrMarkedDown) {
  std::string dir = temp_dir();
  auto serve = [&](const std::string& args) { return ouro_shell(dir, "serve --port 0 " + args); };
  struct Case {
    std::string text, says;
  } cases[] = {
      {"not json at all", "malformed"},
      {"{\"endpoints\": []}", "no endpoints"},
      {"{\"endpoints\": [{\"url\": \"ftp://127.0.0.1:9\"}]}", "ws:// or http://"},
      {"{\"endpoints\": [{\"url\": \"wss://cloud.example:443/?token=SECRET123\"}]}", "TLS"},
      {"{\"endpoints\": [{\"url\": \"ws://127.0.0.1:9222/x\", \"capacity\": 0}]}", "capacity"},
      {"{\"endpoints\": [{\"url\": \"ws://127.0.0.1:9222/x\", \"capacity\": \"lots\"}]}", "capacity"},
      {"{\"endpoints\": [{\"url\": \"http://127.0.0.1:9222\"}, {\"url\": \"HTTP://127.0.0.1:9222/\"}]}", "twice"},
      {"{\"endpoints\": [{\"url\": \"http://127.0.0.1:9222\", \"weight\": 3}]}", "unknown field"},
      {"{\"browsers\": []}", "unknown field"},
      {"[1, 2]", "expected"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    auto r = serve("--browser-pool " + write_file(c.text));
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("SECRET123"), std::string::npos) << "a token in an endpoint URL is never shown";
  }
  auto missing = serve("--browser-pool /nonexistent/pool.json");
  EXPECT_NE(missing.code, 0);
  EXPECT_NE(missing.err.find("cannot read the pool file"), std::string::npos) << missing.err;
  auto twice = serve("--browser ws://127.0.0.1:9/a --browser ws://127.0.0.1:9/a");
  EXPECT_NE(twice.err.find("twice"), std::string::npos) << twice.err;
  auto elsewhere = ouro_shell(dir, "exec --browser ws://127.0.0.1:9/a --browser ws://127.0.0.1:9/b '1'");
  EXPECT_NE(elsewhere.code, 0);
  EXPECT_NE(elsewhere.err.find("ouro serve takes several"), std::string::npos) << elsewhere.err;

  // An endpoint that does not answer: the server starts, the endpoint is down with its error (the
  // token in its URL not shown), and runs are refused a browser at once, saying why.
  Server s(dir, {}, {"--browser", "http://127.0.0.1:1", "--browser", "ws://127.0.0.1:1/devtools/browser/x?token=SECRET123"});
  ASSERT_FALSE(s.base.empty()) << s.log();
  json pool = s.get("/api/pool").body;
  ASSERT_EQ(pool["endpoints"].size(), 2u) << pool.dump();
  for (const auto& e : pool["endpoints"]) {
    EXPECT_EQ(e.value("state", ""), "down");
    EXPECT_TRUE(e["lastError"].is_string());
  }
  EXPECT_EQ(pool.dump().find("SECRET123"), std::string::npos) << pool.dump();
  std::string id = start_run(s, pool_script(temp_dir() + "/never-held"));  // refused before any answer
  json failed = s.wait_state(id, {"done", "failed", "partial"}, 20s);
  EXPECT_EQ(failed.value("state", ""), "failed");
  EXPECT_NE(failed.value("error", "").find("no browser endpoint is healthy"), std::string::npos) << failed.dump();
  EXPECT_EQ(failed.dump().find("SECRET123"), std::string::npos);
  EXPECT_EQ(s.log().find("SECRET123"), std::string::npos) << "the log never shows an endpoint's token";
}

TEST(BrowserPool, EndpointUrlsAreRedacted) {
  EXPECT_EQ(session::redact_endpoint("ws://user:pw@host:3000/devtools/browser/1?token=abc#x"), "ws://host:3000/devtools/browser/1");
  EXPECT_EQ(session::redact_endpoint("http://127.0.0.1:9222"), "http://127.0.0.1:9222");
  auto list = session::parse_pool_file(R"(["ws://10.0.0.1:9222/devtools/browser/a", {"url": "http://10.0.0.2:9222", "capacity": 8}])");
  ASSERT_TRUE(list) << list.error().message;
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].capacity, 4);
  EXPECT_EQ((*list)[1].capacity, 8);
}

}  // namespace
}  // namespace ouro::testing
