// The REPL worker process (jsrt/worker.cpp), JavaScriptCore in its sandbox: the language and the
// web's URL types are there; a loop that never yields, a promise that can never settle and an
// allocation without end each end the input with an error and leave its state; nothing outside
// the API is reachable (no require, fetch, files, sockets or processes); errors carry their line,
// and a thrown value, however hostile, is read safely.
#include "repl_harness.h"

#include <gtest/gtest.h>
#include "jsrt/summary.h"

#include <signal.h>
#include <sys/wait.h>

#include <cstdio>
#include <atomic>
#include <thread>

namespace ouro::jsrt {
namespace {

TEST(Worker, ModernSyntaxWorks) {
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

// URL and URLSearchParams as the URL Standard has them, without a browser around the engine.
TEST(Worker, UrlAndUrlSearchParamsAreThere) {
  TestHost h;
  auto repl = start(h);
  auto r = repl->eval(R"JS(const T = [];
const eq = (a, b, what) => T.push(a === b ? null : `${what}: got ${JSON.stringify(a)} want ${JSON.stringify(b)}`);
let u = new URL('/cart.html?x=1#top', 'http://127.0.0.1:8080/shop/index.html');
eq(u.href, 'http://127.0.0.1:8080/cart.html?x=1#top', 'abs path');
eq(u.origin, 'http://127.0.0.1:8080', 'origin');
eq(new URL('b/../c d', 'https://Ex.COM:443/a/x').href, 'https://ex.com/a/c%20d', 'relative dots default port');
eq(new URL('?q=é', 'http://h/p').href, 'http://h/p?q=%C3%A9', 'query only');
eq(new URL('#f', 'http://h/p?q').href, 'http://h/p?q#f', 'fragment only');
eq(new URL('//other.test/x', 'https://h/p').href, 'https://other.test/x', 'scheme relative');
eq(new URL('HTTP://user:pa ss@H.test:81/a\\b?c#d').href, 'http://user:pa%20ss@h.test:81/a/b?c#d', 'userinfo backslash');
eq(new URL('mailto:Someone@Example.com').pathname, 'Someone@Example.com', 'opaque');
eq(new URL('file:///etc/hosts').href, 'file:///etc/hosts', 'file');
eq(new URL('http://[::1]:3000/').host, '[::1]:3000', 'ipv6');
u = new URL('https://s.test/search?q=a+b&n=1');
eq(u.searchParams.get('q'), 'a b', 'params get');
u.searchParams.set('n', '2'); u.searchParams.append('t', 'x y&z');
eq(u.href, 'https://s.test/search?q=a+b&n=2&t=x+y%26z', 'params update');
u.search = '?k=v'; eq(u.searchParams.get('k'), 'v', 'search setter');
u.pathname = '/a/./b/../c'; eq(u.pathname, '/a/c', 'pathname setter');
u.hash = 'h'; eq(u.hash, '#h', 'hash');
u.port = '443'; eq(u.host, 's.test', 'default port dropped');
eq(String(new URLSearchParams({a: '1', b: 'ü'})), 'a=1&b=%C3%BC', 'params from object');
eq([...new URLSearchParams('a=1&a=2&b')].length, 3, 'iterate');
eq(URL.canParse('nope'), false, 'canParse');
let threw = ''; try { new URL('/x'); } catch (e) { threw = e.name; } eq(threw, 'TypeError', 'relative without base');
try { new URL('http://a b/'); T.push('space host accepted'); } catch (e) {}
try { new URL('http://h:99999/'); T.push('big port accepted'); } catch (e) {}
eq(JSON.stringify({u: new URL('http://h/')}), '{"u":"http://h/"}', 'toJSON');
T.filter(Boolean)
)JS");
  ASSERT_TRUE(r->ok) << r->error_message;
  EXPECT_EQ(r->value, json::array()) << r->value.dump(1);
  // A URL kept in the REPL's state comes back as its text.
  ASSERT_TRUE(repl->eval("const home = new URL('http://h.test/a?b=1')")->ok);
  EXPECT_EQ(repl->eval("home.searchParams.get('b')")->value, "1");
}

TEST(Worker, AnInfiniteLoopIsStoppedAndStateSurvives) {
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

TEST(Worker, APromiseThatCanNeverSettleIsReportedAtOnce) {
  TestHost h;
  auto repl = start(h);
  auto t0 = std::chrono::steady_clock::now();
  auto r = repl->eval("await new Promise(() => {})");
  EXPECT_FALSE(r->ok);
  EXPECT_NE(r->error_message.find("can never settle"), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
}

TEST(Worker, UnboundedAllocationFailsWithAnError) {
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

TEST(Worker, NoAmbientAuthority) {
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

TEST(Worker, TheWorkerCannotOpenFilesSocketsOrProcesses) {
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

TEST(Worker, ErrorsCarryMessageAndLine) {
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

// Thrown values of any shape come back as bounded error text, never as a crash of the reader.
TEST(Worker, HostileThrownValuesAreReadSafely) {
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
}  // namespace ouro::testing
