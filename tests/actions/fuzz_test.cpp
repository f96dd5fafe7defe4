// Hostile arguments through the REPL: every capability called with random argument shapes (wrong
// types, missing, extra, huge strings, deep nesting, NaN, negative sizes, shapes derived from the
// declarations with one field broken). Nothing may abort or hang ouro; every failure must be a
// clear error. Seeded (OURO_FUZZ_SEED) and bounded (OURO_FUZZ_CALLS per capability) so CI stays
// fast; the counts are printed.
#include "actions/host.h"
#include "actions/registry.h"
#include "browser_env.h"

#include <cstdlib>
#include <random>

namespace ouro::testing {
namespace {

using actions::Schema;

class Gen {
 public:
  explicit Gen(uint64_t seed) : m_rng(seed) {}

  size_t below(size_t n) { return n ? std::uniform_int_distribution<size_t>(0, n - 1)(m_rng) : 0; }
  bool chance(int percent) { return below(100) < static_cast<size_t>(percent); }

  // A JavaScript expression for a random value, hostile by preference.
  std::string any_value(int depth = 0) {
    switch (below(depth > 2 ? 14 : 18)) {
      case 0: return "''";
      case 1: return "'t1'";
      case 2: return "'#b'";
      case 3: return "'x'.repeat(200000)";
      case 4: return "'\\u{1F600}\\u0000<script>\\ud800'";
      case 5: return "NaN";
      case 6: return "-1";
      case 7: return "1e308";
      case 8: return "-Infinity";
      case 9: return "1.5";
      case 10: return "true";
      case 11: return "null";
      case 12: return "undefined";
      case 13: return "(() => 1)";
      case 14: return "[" + any_value(depth + 1) + ", " + any_value(depth + 1) + "]";
      case 15: return "{ a: " + any_value(depth + 1) + ", timeout: " + any_value(depth + 1) + ", double: " + any_value(depth + 1) + " }";
      case 16: return "JSON.parse('['.repeat(300) + ']'.repeat(300))";  // deep nesting
      default: return "Object.fromEntries([...Array(2000)].map((_, i) => ['k' + i, i]))";
    }
  }

  // A value shaped like the declaration, with a chance of one part broken.
  std::string shaped(const Schema& s, int depth = 0) {
    if (depth > 4 || chance(15)) return any_value(depth);
    switch (s.kind) {
      case Schema::Kind::String: return chance(50) ? "'t1'" : "'#b'";
      case Schema::Kind::Number:
      case Schema::Kind::Integer: return std::to_string(static_cast<int>(below(3)) - 1) + (chance(30) ? "000" : "");
      case Schema::Kind::Boolean: return chance(50) ? "true" : "false";
      case Schema::Kind::Literal: return "'" + s.literal + "'";
      case Schema::Kind::Union: return shaped(*s.items[below(s.items.size())], depth + 1);
      case Schema::Kind::Array: return "[" + shaped(*s.items[0], depth + 1) + "]";
      case Schema::Kind::Record: return "{ '#b': " + shaped(*s.items[0], depth + 1) + " }";
      case Schema::Kind::Object: {
        std::string out = "{";
        for (const auto& f : s.fields)
          if (!f.optional || chance(60)) out += " " + f.name + ": " + shaped(*f.type, depth + 1) + ",";
        if (chance(20)) out += " extraField: 1,";
        return out + " }";
      }
      default: return any_value(depth);
    }
  }

 private:
  std::mt19937_64 m_rng;
};

uint64_t env_number(const char* name, uint64_t dflt) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : dflt;
}

session::Session& fuzz_session() {
  static std::unique_ptr<session::Session> s = [] {
    auto o = test_options();
    o.limits.action_timeout = std::chrono::milliseconds(300);
    o.limits.exec_timeout = std::chrono::milliseconds(2000);
    o.limits.load_timeout = std::chrono::milliseconds(2000);
    o.repl.timeout = std::chrono::seconds(4);
    auto r = session::Session::start(o);
    if (!r) throw std::runtime_error(r.error().message);
    return std::move(*r);
  }();
  return *s;
}

TEST(Fuzz, EveryCapabilityWithRandomArgumentsFailsClearlyAndNeverBreaksOuro) {
  const uint64_t seed = env_number("OURO_FUZZ_SEED", 20261123), per_cap = env_number("OURO_FUZZ_CALLS", 12);
  Gen gen(seed);
  session::Session& s = fuzz_session();
  size_t calls = 0, ok_calls = 0, type_errors = 0, other_errors = 0, timeouts = 0;
  std::map<std::string, size_t> by_name;
  for (const auto& cap : actions::registry()) {
    if (cap.property || cap.internal || cap.name == "setFinal") continue;
    for (uint64_t i = 0; i < per_cap; ++i) {
      // A page to act on, made again if the fuzz closed or moved it.
      auto setup = s.repl().eval(with_urls(
          "if (!tabs.some(t => t.url.includes('fuzz-page'))) await openTab('{{/}}?fuzz-page'); "
          "globalThis.t1 = tabs.find(t => t.url.includes('fuzz-page')).id; await execInTab(t1, "
          "\"document.body.innerHTML = '<button id=b>B</button><input id=i><select id=s><option>a</option></select>'\")"));
      ASSERT_TRUE(setup) << setup.error().message;
      ASSERT_TRUE(setup->ok) << setup->error_message;
      std::string args;
      size_t n = gen.chance(70) ? cap.params.size() : gen.below(cap.params.size() + 3);
      for (size_t a = 0; a < n; ++a) {
        std::string v;
        if (a == 0 && !cap.params.empty() && cap.params[0].name == "tabId" && gen.chance(80)) v = "t1";
        else if (a < cap.params.size() && gen.chance(70)) v = gen.shaped(*cap.params[a].schema);
        else v = gen.any_value();
        args += (a ? ", " : "") + v;
      }
      std::string code = "await " + cap.name + "(" + args + ")";
      auto r = s.repl().eval(code);
      ++calls;
      ASSERT_TRUE(r) << "the REPL itself failed on " << code.substr(0, 300) << ": " << r.error().message;
      EXPECT_NE(r->kind, "crash") << code.substr(0, 300);
      if (r->ok) {
        ++ok_calls;
        continue;
      }
      ++by_name[r->error_name];
      if (r->kind == "timeout") {
        ++timeouts;
        continue;
      }
      EXPECT_FALSE(r->error_message.empty()) << code.substr(0, 300);
      if (r->error_name == "TypeError" && r->error_message.rfind(cap.name, 0) == 0) {
        ++type_errors;
        const std::string& m = r->error_message;
        EXPECT_TRUE(m.find(" must be ") != std::string::npos || m.find(" is missing") != std::string::npos ||
                    m.find("takes at most") != std::string::npos || m.find("has no field") != std::string::npos)
            << m;
      } else {
        ++other_errors;
        // Errors from ouro name the call that failed; errors raised by the code itself
        // (a thrown TypeError while building the arguments) name what went wrong.
        EXPECT_LT(r->error_message.size(), 4000u) << "error messages are bounded: " << r->error_message.substr(0, 200);
      }
    }
  }
  EXPECT_FALSE(s.browser().dead()) << s.browser().dead()->message;
  // Still works afterwards.
  auto after = s.repl().eval("1 + 1");
  ASSERT_TRUE(after);
  EXPECT_EQ(after->value, 2);
  std::string names;
  for (auto& [k, v] : by_name) names += " " + (k.empty() ? std::string("(none)") : k) + "=" + std::to_string(v);
  std::printf("fuzz (seed %llu): %zu calls, %zu ok, %zu argument TypeErrors, %zu other clear errors, %zu timeouts; error names:%s\n",
              static_cast<unsigned long long>(seed), calls, ok_calls, type_errors, other_errors, timeouts, names.c_str());
  EXPECT_GT(type_errors, calls / 5) << "most random shapes must be refused by the argument checks";
}

TEST(Fuzz, TheIssueExamplesAreTypeErrorsNotAborts) {
  session::Session& s = fuzz_session();
  auto r = s.repl().eval(with_urls(
      "const p = await openTab('{{/}}'); await execInTab(p, \"document.body.innerHTML = '<button id=b>B</button>'\"); "
      "try { await click(p, '#b', {double: 1}) } catch (e) { globalThis.e1 = [e instanceof TypeError, e.message] } "
      "try { await screenshot(p, {x: '1', y: 0, width: 10, height: 10}) } catch (e) { globalThis.e2 = [e instanceof TypeError, e.message] } "
      "try { await screenshot(p, {x: 0, y: 0, width: -10, height: 10}) } catch (e) { globalThis.e3 = e.message } "
      "[e1, e2, e3]"));
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_TRUE(r->ok) << r->error_message;
  EXPECT_EQ(r->value[0], json::array({true, "click: options.double must be a boolean, got number 1"}));
  EXPECT_EQ(r->value[1], json::array({true, "screenshot: rect.x must be a number ≥ 0, got string \"1\""}));
  EXPECT_EQ(r->value[2], "screenshot: rect.width must be a number above 0, got number -10");
}

TEST(TypedResults, LargeResultsKeepTheirType) {
  // The accessibility tree of 5,000 links takes Chromium a while on a loaded machine.
  auto o = test_options();
  o.isolated = true;
  o.limits.exec_timeout = std::chrono::seconds(20);
  o.repl.timeout = std::chrono::seconds(60);
  auto own = session::Session::attach(fuzz_session().runtime(), o);
  ASSERT_TRUE(own) << own.error().message;
  session::Session& s = **own;
  auto r = s.repl().eval(with_urls(R"(
    const p = await openTab('{{/}}');
    await execInTab(p, `for (let i = 0; i < 5000; i++) { const a = document.createElement('a'); a.href = '/page/' + i;
      a.textContent = 'a link with a longish text, number ' + i; document.body.append(a); }`);
    const links = await getLinks(p);
    const tree = await getAccessibilityTree(p);
    ({ isArray: Array.isArray(links), n: links.length, truncated: links.truncated, keys: Object.keys(links).length === links.length,
       first: links[0], treeRole: tree.role, treeKids: Array.isArray(tree.children), treeTrunc: tree.truncated,
       filtered: links.filter(l => l.href.includes('/page/1')).length > 0 }))"));
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_TRUE(r->ok) << r->error_message;
  const json& v = r->value;
  EXPECT_EQ(v["isArray"], true);
  EXPECT_GT(v["n"].get<int>(), 100);
  EXPECT_LT(v["n"].get<int>(), 5000);
  EXPECT_EQ(v["truncated"]["kind"], "items");
  EXPECT_GE(v["truncated"]["total"].get<int>(), 5000);
  EXPECT_EQ(v["keys"], true) << "the truncation is not an enumerable key";
  EXPECT_EQ(v["filtered"], true) << "model code such as links.filter(…) works";
  EXPECT_EQ(v["treeRole"], "RootWebArea");
  EXPECT_EQ(v["treeKids"], true);
  EXPECT_EQ(v["treeTrunc"]["kind"], "tree");
  // The model is told, in the metadata it reads.
  auto notes = s.host().take_notes();
  bool said = false;
  for (const auto& n : notes) said = said || n.find("getLinks returned") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(TypedResults, TooManyCallsAtOnceAreRefusedClearly) {
  // The point is that every call settles with a clear answer, not how fast: thousands of accepted
  // reads took over the shared session's 4 s budget on a loaded CI machine.
  auto o = test_options();
  o.isolated = true;
  o.repl.timeout = std::chrono::seconds(90);
  auto own = session::Session::attach(fuzz_session().runtime(), o);
  ASSERT_TRUE(own) << own.error().message;
  session::Session& s = **own;
  auto r = s.repl().eval(with_urls(R"(
    const p = await openTab('{{/}}');
    const all = await Promise.allSettled([...Array(3000)].map(() => getErrors(p)));
    const bad = all.filter(x => x.status === 'rejected');
    ({ ok: all.length - bad.length, unclear: bad.filter(x => !x.reason.message.includes('waiting already')).map(x => x.reason.message) }))"));
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_TRUE(r->ok) << r->error_message;
  EXPECT_GT(r->value["ok"].get<int>(), 0);
  // Every call settles; a refused one says why (the bound itself is tested in base_test).
  EXPECT_EQ(r->value["unclear"], json::array()) << r->value;
}

// A session ended while host calls it started are still waiting on its tabs: the calls fail as
// the context goes, the host's threads end at once, nothing is touched after it is freed.
TEST(Lifetimes, ASessionEndedWithHostCallsPending) {
  session::Session& shared = fuzz_session();
  auto o = test_options();
  o.isolated = true;
  o.limits.exec_timeout = std::chrono::seconds(30);  // the calls below would wait half a minute
  auto s = session::Session::attach(shared.runtime(), o);
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_TRUE((*s)->open_urls({site().url("/")}));
  // The block waits for the calls it did not await; its deadline ends it with them still pending.
  auto r = (*s)->repl().eval(
      "execInTab(activeTab, 'await new Promise(r => setTimeout(r, 30000))'); getText(activeTab); waitForLoad(activeTab, 30000); 1",
      std::chrono::milliseconds(500));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind, "timeout") << r->error_message;
  auto t0 = std::chrono::steady_clock::now();
  s->reset();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(15)) << "the end waited for the pending calls";
  auto after = shared.repl().eval("1 + 1");
  ASSERT_TRUE(after);
  EXPECT_EQ(after->value, 2);
}

}  // namespace
}  // namespace ouro::testing
