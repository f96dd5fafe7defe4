// act(): the command language and plain instructions without a model. The task pages of
// tests/act_tasks are solved through the REPL function as a user would call it; targets that are
// ambiguous or unknown fail with candidates and touch nothing; the command language takes refs,
// selectors and secrets; the safety gate still asks before a sensitive click.
#include "browser_env.h"
#include "actions/host.h"
#include "base/base64.h"
#include "safety/secrets.h"

#include <fstream>
#include <random>
#include <set>

namespace ouro::testing {
namespace {

json read_json(const std::string& path) {
  std::ifstream f(path);
  return json::parse(f, nullptr, false);
}

std::string act_url(const std::string& page) { return site().url("/act/pages/" + page + ".html"); }

// Every fixture task: the instruction alone, then the page's own record of what happened.
TEST(Act, SolvesEveryFixtureTaskFromItsPlainInstruction) {
  json tasks = read_json(std::string(OURO_SOURCE_DIR) + "/tests/act_tasks/tasks.json");
  ASSERT_TRUE(tasks.is_array() && tasks.size() >= 30) << "tests/act_tasks/tasks.json";
  // A dozen tasks an evaluation: each stays well inside the REPL's time limit on a loaded machine
  // (how fast act() is, is bench/act_tasks.mjs's business).
  json r = json::array();
  for (size_t from = 0; from < tasks.size(); from += 12) {
    json list = json::array();
    for (size_t i = from; i < tasks.size() && i < from + 12; ++i) {
      const auto& t = tasks[i];
      list.push_back({{"id", t["id"]}, {"url", act_url(t["page"])}, {"instruction", t["instruction"]}, {"check", t["check"]}});
    }
    json part = ok("const tasks = " + list.dump() + R"(;
    const out = [];
    for (const t of tasks) {
      const tab = await openTab(t.url);
      let res = null, err = null;
      try { res = await act(tab, t.instruction); } catch (e) { err = String(e.message || e); }
      const solved = !!(await execInTab(tab, t.check));
      out.push({ id: t.id, solved, ok: res ? res.ok : false, err: err || (res && res.error) || null, plan: res ? res.parsed.plan : null });
      await closeTab(tab);
    }
    out)");
    ASSERT_TRUE(part.is_array()) << part.dump();
    for (auto& t : part) r.push_back(std::move(t));
  }
  for (const auto& t : r) {
    EXPECT_TRUE(t["solved"].get<bool>()) << t.dump();
    EXPECT_TRUE(t["ok"].get<bool>()) << t.dump();
  }
}

// Two buttons say "Delete": act names both and clicks neither.
TEST(Act, AmbiguousTargetListsTheCandidatesAndDoesNothing) {
  ok("const t = await openTab('{{/act/pages/table-actions.html}}')");
  json r = ok("await act(activeTab, 'click Remove')");
  EXPECT_FALSE(r["ok"].get<bool>());
  std::string err = get_str(r, "error");
  EXPECT_NE(err.find("matches several elements"), std::string::npos) << err;
  EXPECT_NE(err.find("e1"), std::string::npos) << err;
  EXPECT_EQ(r["steps"][0]["status"], "failed");
  EXPECT_EQ(ok("await execInTab(activeTab, 'window.__done === undefined')"), true) << "nothing was clicked";
  // With the row named, it is one.
  r = ok("await act(activeTab, 'Click the Remove button next to Carol')");
  EXPECT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_EQ(ok("await execInTab(activeTab, '__done.removed')"), "Carol");
}

// The page shows the request itself (a task's instruction box): its words are never a target,
// so a control that is not there is refused rather than the instruction clicked.
TEST(Act, TheRequestShownOnThePageIsNeverATarget) {
  ok("const t = await openTab('{{/act/pages/instruction-box.html}}')");
  json r = ok("await act(activeTab, 'Click \\\"Archive\\\" and then press Done.', { timeout: 300 })");
  EXPECT_FALSE(r["ok"].get<bool>()) << r.dump();
  EXPECT_EQ(ok("await execInTab(activeTab, 'window.__done === undefined')"), true) << "nothing was clicked";
}

TEST(Act, WordsNothingMatchesFailWithTheClosestAndDoNothing) {
  ok("const t = await openTab('{{/act/pages/buttons.html}}')");
  json r = ok("await act(activeTab, 'click the Purple Elephant button', { timeout: 300 })");
  EXPECT_FALSE(r["ok"].get<bool>());
  EXPECT_NE(get_str(r, "error").find("nothing on tab"), std::string::npos) << r.dump();
  EXPECT_EQ(ok("await execInTab(activeTab, 'window.__done === undefined')"), true);
}

TEST(Act, SaysWhatItDoesNotUnderstandAndDoesNothing) {
  ok("const t = await openTab('{{/act/pages/buttons.html}}')");
  std::string err = fails("await act(activeTab, 'Frobnicate the quantum flux capacitor')");
  EXPECT_NE(err.find("I do not understand 'Frobnicate the quantum flux capacitor'"), std::string::npos) << err;
  EXPECT_NE(err.find("nothing was done"), std::string::npos) << err;
  // A partly understood instruction does nothing at all either.
  err = fails("await act(activeTab, 'Click ONE and then frobnicate TWO')");
  EXPECT_NE(err.find("frobnicate TWO"), std::string::npos) << err;
  EXPECT_EQ(ok("await execInTab(activeTab, 'window.__done === undefined')"), true);
  err = fails("await act(activeTab, '')");
  EXPECT_NE(err.find("nothing to do"), std::string::npos) << err;
}

// The command language itself: refs from a snapshot, selectors, keys, waits, extraction, back.
TEST(Act, CommandLanguageTakesRefsSelectorsKeysWaitsAndHistory) {
  ok("const t = await openTab('{{/act/pages/login.html}}'); env.s = await snapshot(t)");
  std::string user_ref = ok("env.s.forms.flatMap(f => f.fields).find(f => /user/i.test(f.label)).ref").get<std::string>();
  json r = ok("await act(activeTab, 'type \"kanesha\" into " + user_ref +
              "\\ntype \"4B\" into css=input[type=password]; press Enter\\nwait for load', { timeout: 3000 })");
  EXPECT_TRUE(r["ok"].get<bool>()) << r.dump();
  ASSERT_EQ(r["steps"].size(), 4u) << r.dump();
  EXPECT_NE(get_str(r["steps"][0], "did").find("typed \"kanesha\""), std::string::npos) << r.dump();
  EXPECT_EQ(ok("await execInTab(activeTab, '__done.user + \"/\" + __done.pass')"), "kanesha/4B");
  r = ok("await act(activeTab, 'wait for \"Welcome back\"', { timeout: 300 })");
  EXPECT_NE(get_str(r, "error").find("not on tab"), std::string::npos) << r.dump();
  // Steps after a failure are skipped, and the result says which criterion failed.
  r = ok("await act(activeTab, ['click the Nonexistent button', 'press Enter'], { timeout: 200 })");
  EXPECT_EQ(r["steps"][0]["status"], "failed");
  EXPECT_EQ(r["steps"][1]["status"], "skipped");
  EXPECT_FALSE(r["criteria"][0]["met"].get<bool>());
  EXPECT_EQ(r["assessment"]["status"], "failed");
  EXPECT_EQ(r["assessment"]["successCriteriaMet"][0], "✗ clicked the Nonexistent button");
  // dryRun plans and touches nothing.
  r = ok("await act(activeTab, 'Click the third link', { dryRun: true })");
  EXPECT_EQ(r["steps"][0]["status"], "planned");
  EXPECT_EQ(r["parsed"]["plan"][0], "click the third link");
  // navigate / back through the page's history.
  r = ok("await act(activeTab, 'navigate {{/act/pages/links.html}}; click Bananas; back')");
  EXPECT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_NE(get_str(r, "url").find("links.html"), std::string::npos) << r.dump();
  // A last step that follows a link answers with the page it led to, not the one it left.
  r = ok("await act(activeTab, 'navigate {{/act/pages/site-home.html}}; click Products')");
  EXPECT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_NE(get_str(r, "url").find("site-products.html"), std::string::npos) << r.dump();
  EXPECT_EQ(get_str(r, "title"), "Products") << r.dump();
  EXPECT_FALSE(r.contains("loading")) << r.dump();
}

TEST(Act, TypesASecretByHandleAndNeverShowsIt) {
  auto store = std::make_shared<safety::SecretStore>();
  std::string origin = site().url("/");
  origin.pop_back();
  ASSERT_TRUE(store->add("site_pw", "Hunter2-Value-99", {origin}));
  auto made = isolated_session([&](session::SessionOptions& o) { o.secrets = store; });
  auto& s = *made;
  ASSERT_TRUE(s.open_urls({act_url("enter-password")}));
  json r = ok("await act(activeTab, 'Enter secret:site_pw into the password field and press Submit')", &s);
  EXPECT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_EQ(r.dump().find("Hunter2-Value-99"), std::string::npos) << r.dump();
  EXPECT_NE(r.dump().find("secret site_pw"), std::string::npos) << r.dump();
  EXPECT_EQ(s.browser().eval_page(s.active_tab(), "window.__done && window.__done.a").value(), "Hunter2-Value-99");
}

// act() goes through the same gate as click(): a sensitive button asks, and a "no" stops it.
TEST(Act, SensitiveClicksStillAskAndADenialStopsTheRun) {
  auto made = isolated_session();
  auto& s = *made;
  std::vector<json> asked;
  auto hooks = std::make_shared<host::Context::Hooks>();
  hooks->confirm = [&asked](const json& q) {
    asked.push_back(q);
    return false;
  };
  s.host().context().set_hooks(hooks);
  ASSERT_TRUE(s.open_urls({act_url("table-actions")}));
  json r = ok("await act(activeTab, 'Click Remove in the row for Bob')", &s);
  EXPECT_FALSE(r["ok"].get<bool>()) << r.dump();
  EXPECT_NE(get_str(r, "error").find("denied by the user"), std::string::npos) << r.dump();
  ASSERT_FALSE(asked.empty());
  EXPECT_EQ(get_str(asked[0], "reason"), "it is labelled \"remove\"") << asked[0].dump();
  EXPECT_EQ(s.browser().eval_page(s.active_tab(), "window.__done === undefined").value(), true);
  // The question says which "Remove" it is: Bob's row, the page, and a picture with the button outlined.
  EXPECT_EQ(get_str(asked[0], "context"), "Bob Editor Remove") << asked[0].dump();
  EXPECT_EQ(get_str(asked[0], "pageTitle"), "Team");
  ASSERT_TRUE(asked[0].contains("crop")) << asked[0].dump();
  const json& crop = asked[0]["crop"];
  EXPECT_EQ(get_str(crop, "mime"), "image/jpeg");
  std::string jpeg = base64_decode(get_str(crop, "data"));
  ASSERT_GT(jpeg.size(), 100u);
  EXPECT_EQ(static_cast<unsigned char>(jpeg[0]), 0xFF);  // a JPEG's start-of-image marker
  EXPECT_EQ(static_cast<unsigned char>(jpeg[1]), 0xD8);
  const json& outline = crop["outline"];
  EXPECT_GT(outline.value("width", 0.0), 10);
  EXPECT_GT(outline.value("height", 0.0), 5);
  EXPECT_LE(outline.value("x", -1.0) + outline.value("width", 0.0), crop.value("width", 0.0));
  EXPECT_LE(outline.value("y", -1.0) + outline.value("height", 0.0), crop.value("height", 0.0));
  EXPECT_LE(crop.value("width", 1e9), 640);
  // The picture holds Bob's row, not just the button: its cells left of the button are in it
  // (the row starts 8 px from the page's edge; the button more than the 40 px margin further).
  EXPECT_GT(outline.value("x", 0.0), 60) << crop.dump().substr(0, 200);
}

// Random text never crashes act or the page, and never acts on a guess.
TEST(Act, RandomInstructionsFailCleanly) {
  ok("const t = await openTab('{{/act/pages/buttons.html}}')");
  std::mt19937 rng(17);
  const std::vector<std::string> words = {"click", "the", "and", "then", "\"", "type", "into", "select", "from", "check", "box", "3rd",
                                          "link", "e9", "css=#", "role=button[", "press", "Ctrl+", "wait", "for", "\\n", ";", "ő", "ONE"};
  std::string code = "const out = []; for (const s of [";
  for (int i = 0; i < 40; ++i) {
    std::string s;
    int n = 1 + static_cast<int>(rng() % 8);
    for (int k = 0; k < n; ++k) s += words[rng() % words.size()] + " ";
    code += json(s).dump() + ",";
  }
  code += "]) { try { const r = await act(activeTab, s, { timeout: 100 }); out.push({ ok: r.ok }); } "
          "catch (e) { out.push({ code: e.code || null, message: String(e.message) }); } } out";
  json r = ok(code);
  ASSERT_EQ(r.size(), 40u);
  // A result says whether it acted; a refusal is act's own, of a kind that names a wrong or unmatched
  // instruction — never a failure inside ouro (Internal) nor an engine error without a code.
  const std::set<std::string> refusals = {"InvalidArgument", "NotFound", "FailedPrecondition", "DeadlineExceeded"};
  for (const auto& x : r) {
    if (x.contains("ok")) {
      EXPECT_TRUE(x["ok"].is_boolean()) << x;
      continue;
    }
    EXPECT_TRUE(x["code"].is_string() && refusals.count(x["code"].get<std::string>())) << x;
    EXPECT_EQ(get_str(x, "message").rfind("act: ", 0), 0u) << x;
  }
  // The page is still there and answers.
  EXPECT_EQ(ok("await execInTab(activeTab, '1 + 1')"), 2);
}

}  // namespace
}  // namespace ouro::testing
