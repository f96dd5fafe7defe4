// The sandboxed REPL worker: hostile code, limits, crashes, and the host-call bridge. The host
// here answers a few test functions itself; the browser-backed API is tested in tests/browser.
#include "browser_env.h"
#include "jsrt/repl.h"

#include <signal.h>
#include <sys/wait.h>

#include <cstdio>
#include <thread>

namespace ouro::jsrt {
namespace {

struct TestHost {
  std::vector<std::thread> threads;
  ~TestHost() {
    for (auto& t : threads) t.join();
  }
  HostCall fn() {
    return [this](const std::string& name, json args, HostReply reply) {
      if (name == "echo") return reply(args.empty() ? json(json::value_t::discarded) : args[0]);
      if (name == "fail") return reply(make_error(Code::NotFound, "no element matches selector '#x' on tab t1"));
      if (name == "later") {
        threads.emplace_back([args, reply] {
          std::this_thread::sleep_for(std::chrono::milliseconds(args.at(1).get<int>()));
          reply(args.at(0));
        });
        return;
      }
      // "never": no reply at all.
    };
  }
};

std::unique_ptr<Repl> start(TestHost& host, Millis timeout = 3s, size_t memory_mb = 128) {
  ReplOptions o;
  o.executable = testing::ouro_binary();
  o.host_functions = {"echo", "fail", "later", "never"};
  o.timeout = timeout;
  o.memory_mb = memory_mb;
  auto r = Repl::start(o, host.fn());
  if (!r) throw std::runtime_error(r.error().message);
  return std::move(*r);
}

TEST(Repl, ModernSyntaxWorks) {
  TestHost h;
  auto repl = start(h);
  auto r = repl->eval(R"(
    class Counter { #n = 0; inc() { return ++this.#n; } static make() { return new Counter(); } }
    const c = Counter.make(); c.inc(); c.inc();
    const { a, ...rest } = { a: 1, b: 2, c: 3 };
    const arr = [3, 1, 2].toSorted();
    const grouped = Object.groupBy([1, 2, 3, 4], x => x % 2 ? 'odd' : 'even');
    const f = async (x) => x?.y ?? 'dflt';
    ({ n: c.inc(), a, rest, arr, last: arr.findLast(x => x < 3), grouped, opt: await f(null), big: (2n ** 64n).toString() }))");
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_TRUE(r->ok) << r->error_message;
  EXPECT_EQ(r->value, json::parse(R"({"n":3,"a":1,"rest":{"b":2,"c":3},"arr":[1,2,3],"last":2,"grouped":{"odd":[1,3],"even":[2,4]},"opt":"dflt","big":"18446744073709551616"})"));
}

TEST(Repl, EnvPersistsAndValuesComeBackAsJson) {
  TestHost h;
  auto repl = start(h);
  ASSERT_TRUE(repl->eval("env.rows = [1, 2]; env.when = new Date(0)")->ok);
  auto r = repl->eval("env.rows.push(3); env");
  ASSERT_TRUE(r->ok);
  EXPECT_EQ(r->value["rows"], json::array({1, 2, 3}));
  EXPECT_EQ(r->value["when"], "1970-01-01T00:00:00.000Z");
  EXPECT_TRUE(repl->eval("undefined")->value.is_discarded());
}

TEST(Repl, TopLevelDeclarationsPersistBetweenInputs) {
  TestHost h;
  auto repl = start(h);
  ASSERT_TRUE(repl->eval("const n = await echo(40); function twice(x) { return 2 * x }")->ok);
  ASSERT_TRUE(repl->eval("class Box { constructor(v) { this.v = v } }")->ok);
  auto r = repl->eval("const n2 = n + 1\nnew Box(twice(n2)).v");
  ASSERT_TRUE(r->ok) << r->error_message;
  EXPECT_EQ(r->value, 82);
  auto shadow = repl->eval("const echo = 5; echo");
  EXPECT_TRUE(shadow->ok) << "an API name stays local: " << shadow->error_message;
  EXPECT_EQ(repl->eval("typeof echo")->value, "function");
}

TEST(Repl, HostCallsResolveAndRejectAsPromises) {
  TestHost h;
  auto repl = start(h);
  auto r = repl->eval(R"(
    const x = await echo({ deep: [1, 'two'] });
    let msg;
    try { await fail(); } catch (e) { msg = e.message; }
    const both = await Promise.all([later('a', 50), later('b', 20)]);
    ({ x, msg, both }))");
  ASSERT_TRUE(r->ok) << r->error_message;
  EXPECT_EQ(r->value["x"]["deep"][1], "two");
  EXPECT_EQ(r->value["msg"], "no element matches selector '#x' on tab t1");
  EXPECT_EQ(r->value["both"], json::array({"a", "b"}));
}

TEST(Repl, AnInfiniteLoopIsStoppedAndStateSurvives) {
  TestHost h;
  auto repl = start(h, 500ms);
  ASSERT_TRUE(repl->eval("env.kept = 'yes'; globalThis.counter = 41")->ok);
  for (const char* hostile : {"while (true) {}", "for (;;) { try { while(true){} } finally { continue; } }",
                              "await echo(1); while (true) {}", "[3,2,1].sort(() => { while (true) {} })"}) {
    auto t0 = std::chrono::steady_clock::now();
    auto r = repl->eval(hostile);
    auto took = std::chrono::steady_clock::now() - t0;
    ASSERT_TRUE(r);
    EXPECT_FALSE(r->ok) << hostile;
    EXPECT_EQ(r->kind, "timeout") << hostile;
    EXPECT_NE(r->error_message.find("500 ms deadline"), std::string::npos) << r->error_message;
    EXPECT_LT(took, 2500ms) << hostile;
  }
  auto r = repl->eval("[env.kept, ++counter]");
  ASSERT_TRUE(r->ok) << r->error_message;
  EXPECT_EQ(r->value, json::array({"yes", 42}));
}

TEST(Repl, AwaitingAHostCallPastTheDeadlineTimesOut) {
  TestHost h;
  auto repl = start(h, 400ms);
  auto r = repl->eval("await never()");
  EXPECT_EQ(r->kind, "timeout");
  EXPECT_TRUE(repl->eval("1")->ok);
}

TEST(Repl, APromiseThatCanNeverSettleIsReportedAtOnce) {
  TestHost h;
  auto repl = start(h);
  auto t0 = std::chrono::steady_clock::now();
  auto r = repl->eval("await new Promise(() => {})");
  EXPECT_FALSE(r->ok);
  EXPECT_NE(r->error_message.find("can never settle"), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
}

TEST(Repl, UnboundedAllocationFailsWithAnError) {
  TestHost h;
  auto repl = start(h, 20s, 128);
  ASSERT_TRUE(repl->eval("env.small = [1,2,3]")->ok);
  for (const char* bomb : {"const a = []; while (true) a.push(new Array(1e5).fill(1.5))",
                           "let s = 'x'; while (true) s = s + s + String(Math.random())",
                           "const b = []; while (true) b.push(new Float64Array(1e6))"}) {
    auto r = repl->eval(bomb);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_FALSE(r->ok) << bomb;
    EXPECT_TRUE(r->kind == "memory" || r->error_name == "RangeError" || r->kind == "crash") << bomb << ": " << r->kind << " " << r->error_message;
  }
  auto r = repl->eval("env.small.length");
  ASSERT_TRUE(r->ok) << r->error_message;
  EXPECT_EQ(r->value, 3);
}

TEST(Repl, NoAmbientAuthority) {
  TestHost h;
  auto repl = start(h);
  auto r = repl->eval(R"(
    ({ require: typeof require, process: typeof process, fetch: typeof fetch, xhr: typeof XMLHttpRequest,
       ws: typeof WebSocket, importScripts: typeof importScripts, Deno: typeof Deno, Bun: typeof Bun,
       host: typeof __ouroHost, ctor: (() => { try { return typeof Function('return this')().process } catch (e) { return 'threw' } })() }))");
  ASSERT_TRUE(r->ok) << r->error_message;
  for (auto& [k, v] : r->value.items()) EXPECT_EQ(v, "undefined") << k;
  auto imp = repl->eval("await import('file:///etc/hostname')");
  EXPECT_FALSE(imp->ok);
  EXPECT_NE(imp->error_message.find("Could not import"), std::string::npos) << imp->error_message;
}

TEST(Repl, TheWorkerCannotOpenFilesSocketsOrProcesses) {
  // The worker's own probe mode enters the same sandbox and tries what it must not do.
  std::string cmd = testing::ouro_binary() + " __jsrt-worker --fd 1 --probe";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[512];
  while (fgets(buf, sizeof buf, p)) out += buf;
  int status = pclose(p);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the probe ended with status " << status << "\n" << out;
  for (const char* what : {"open /etc/hostname: denied", "create /tmp/ouro-sandbox-probe: denied", "socket AF_INET: denied",
                           "socket AF_UNIX: denied", "fork: denied", "execve /bin/true: denied"})
    EXPECT_NE(out.find(what), std::string::npos) << what << "\n" << out;
  EXPECT_EQ(out.find("ALLOWED"), std::string::npos) << out;
}

TEST(Repl, AKilledWorkerIsReplacedAndEnvRestored) {
  TestHost h;
  auto repl = start(h, 10s);
  ASSERT_TRUE(repl->eval("env.saved = { a: 1 }; env.list = [1, 2]")->ok);
  int old_pid = repl->worker_pid();
  std::thread killer([old_pid] {
    std::this_thread::sleep_for(300ms);
    kill(old_pid, SIGKILL);
  });
  auto r = repl->eval("env.lost = true; await later(1, 1500)");
  killer.join();
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_FALSE(r->ok);
  EXPECT_EQ(r->kind, "crash");
  EXPECT_NE(r->error_message.find("killed by signal 9"), std::string::npos) << r->error_message;
  EXPECT_NE(r->error_message.find("env was restored"), std::string::npos) << r->error_message;
  EXPECT_NE(repl->worker_pid(), old_pid);
  auto after = repl->eval("env");
  ASSERT_TRUE(after->ok) << after->error_message;
  EXPECT_EQ(after->value, json::parse(R"({"saved":{"a":1},"list":[1,2]})")) << "restored from the last checkpoint";
}

TEST(Repl, InterruptStopsTheRunningInputOnly) {
  TestHost h;
  auto repl = start(h, 30s);
  ASSERT_TRUE(repl->eval("env.x = 1")->ok);
  std::thread stopper([&] {
    std::this_thread::sleep_for(300ms);
    repl->interrupt();
  });
  auto t0 = std::chrono::steady_clock::now();
  auto r = repl->eval("while (true) {}");
  stopper.join();
  EXPECT_EQ(r->kind, "interrupted");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
  EXPECT_EQ(repl->eval("env.x + 1")->value, 2);
}

TEST(Repl, ErrorsCarryMessageAndLine) {
  TestHost h;
  auto repl = start(h);
  auto r = repl->eval("const a = 1;\nconst b = null;\nb.field");
  EXPECT_FALSE(r->ok);
  EXPECT_EQ(r->error_name, "TypeError");
  EXPECT_EQ(r->error_line, 3);
  auto s = repl->eval("const x = 1\nfunction (");
  EXPECT_EQ(s->error_name, "SyntaxError");
  EXPECT_EQ(s->error_line, 2);
  auto t = repl->eval("throw 'plain string'");
  EXPECT_EQ(t->error_message, "plain string");
}

TEST(Repl, SetFinalTakesAnyJsonValueAndLogsStream) {
  TestHost h;
  std::vector<std::string> seen;
  ReplOptions o;
  o.executable = testing::ouro_binary();
  auto repl = Repl::start(o, h.fn(), [&](const std::string& line) { seen.push_back(line); });
  ASSERT_TRUE(repl);
  auto r = (*repl)->eval("log('working'); setFinal({ rows: Array.from({ length: 5000 }, (_, i) => ({ i })) }); 'done'");
  ASSERT_TRUE(r->ok);
  ASSERT_TRUE(r->final.has_value());
  EXPECT_EQ((*r->final)["rows"].size(), 5000u);
  EXPECT_EQ(r->value, "done");
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0], "working");
}

TEST(Repl, TabsAndActiveTabAreLiveReadOnlyState) {
  TestHost h;
  auto repl = start(h);
  repl->set_state({{"tabs", json::array({{{"id", "t1"}, {"url", "https://a.test/"}}})}, {"activeTab", "t1"}});
  auto r = repl->eval("tabs.push({ id: 'evil' }); 1");
  EXPECT_FALSE(r->ok) << "tabs is frozen";
  auto s = repl->eval("({ n: tabs.length, id: tabs[0].id, active: activeTab })");
  ASSERT_TRUE(s->ok) << s->error_message;
  EXPECT_EQ(s->value, json::parse(R"({"n":1,"id":"t1","active":"t1"})"));
}

// A host reply that arrives after its REPL is gone finds nothing to answer, and no freed memory
// (ASan checks it).
TEST(Repl, DestroyedWithAHostCallPending) {
  TestHost host;
  {
    auto repl = start(host, 300ms);
    auto r = repl->eval("await later('x', 800)");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->kind, "timeout");
    auto pending = repl->eval("later('y', 500); 1");  // not awaited: still pending as the REPL goes
    ASSERT_TRUE(pending);
  }
  // TestHost's destructor joins the late replies.
}

// Thrown values of any shape come back as bounded error text, never as a crash of the reader.
TEST(Repl, HostileThrownValuesAreReadSafely) {
  TestHost host;
  auto repl = start(host);
  for (const char* code : {"const e = new Error('m'); e.name = 5; throw e", "const e = new Error('m'); e.message = {a: 1}; e.stack = 7; throw e",
                           "throw 'x'.repeat(1000000)", "throw { name: [1], message: null }", "throw Symbol('s')"}) {
    auto r = repl->eval(code);
    ASSERT_TRUE(r) << code;
    EXPECT_FALSE(r->ok) << code;
    EXPECT_LE(r->error_message.size(), 2100u) << code;
  }
  auto ok = repl->eval("1 + 1");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->value, 2);
}

}  // namespace
}  // namespace ouro::jsrt
