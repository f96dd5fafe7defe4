// Skills on the task pages: each binds its slots from the snapshot, acts,
// and says whether its effects hold — including when they do not.
#include "browser_env.h"
#include "safety/secrets.h"

namespace ouro::testing {
namespace {

std::string page(const std::string& name) { return "{{/act/pages/" + name + ".html}}"; }

TEST(Skills, LoginFollowsATwoStepFormWithASecretAndChecksItWorked) {
  auto store = std::make_shared<safety::SecretStore>();
  std::string origin = site().url("/");
  origin.pop_back();
  ASSERT_TRUE(store->add("pw", "Correct-Horse-7", {origin}));
  auto s = isolated_session([&](session::SessionOptions& o) { o.secrets = store; });
  json r = ok(with_urls("const t = await openTab('" + page("login-two-step") + "'); await login(t, { email: 'ada@example.com', password: secret('pw') })"), s.get());
  EXPECT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_EQ(r["bound"]["username"]["name"], "Email");
  EXPECT_EQ(r["bound"]["password"]["name"], "Password");
  EXPECT_EQ(r.dump().find("Correct-Horse-7"), std::string::npos) << "the secret is never in the result";
  EXPECT_EQ(s->browser().eval_page(s->active_tab(), "window.__done.password").value(), "Correct-Horse-7");
  EXPECT_TRUE(r["effects"][0]["met"].get<bool>());
}

TEST(Skills, LoginThatLeavesTheFormInPlaceSaysSo) {
  json r = ok(with_urls("const t = await openTab('" + page("login") + "'); await login(t, { username: 'kanesha', password: 'nope' })"));
  EXPECT_FALSE(r["ok"].get<bool>());
  EXPECT_NE(get_str(r, "error").find("the login form is still there"), std::string::npos) << r.dump();
  EXPECT_EQ(r.dump().find("nope"), std::string::npos) << "the password is not echoed";
  std::string err = fails(with_urls("await login(activeTab, { username: 'x' })"));
  EXPECT_NE(err.find("password is missing"), std::string::npos) << err;
}

TEST(Skills, SearchSubmitsAndNamesTheResults) {
  json r = ok(with_urls("const t = await openTab('" + page("store-search") + "'); await search(t, 'red')"));
  EXPECT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_NE(get_str(r, "url").find("store-results.html?q=red"), std::string::npos) << r.dump();
  EXPECT_EQ(r["bound"]["field"]["name"], "Search the store");
  ASSERT_TRUE(r.contains("results")) << r.dump();
  EXPECT_EQ(r["results"]["count"], 3);
  // Nothing changes on a page whose search does nothing: not ok, and it says why.
  r = ok(with_urls("const u = await openTab('" + page("search") + "'); await search(u, 'hats')"));
  EXPECT_FALSE(r["ok"].get<bool>());
  EXPECT_NE(get_str(r, "error").find("nothing on the page changed"), std::string::npos);
}

TEST(Skills, FillFormByLabelsChecksEachValueAndSubmits) {
  json r = ok(with_urls("const t = await openTab('" + page("signup") + "');"
                        "await fillForm(t, { 'First name': 'Ada', 'Last name': 'Lovelace', 'E-mail address': 'ada@example.com', "
                        "'I accept the terms': true, 'Send me news': false }, { submit: true })"));
  EXPECT_TRUE(r["ok"].get<bool>()) << r.dump();
  for (const auto& e : r["effects"]) EXPECT_TRUE(e["met"].get<bool>()) << e.dump();
  json done = ok("await execInTab(activeTab, 'window.__done')");
  EXPECT_EQ(done, json({{"first", "Ada"}, {"last", "Lovelace"}, {"email", "ada@example.com"}, {"terms", "yes"}}));
  // Lists and boxes from a schema's [{field, value}]; an unknown field fails by name, the rest is done.
  r = ok(with_urls("const u = await openTab('" + page("shop-form") + "');"
                   "await fillForm(u, [{ field: 'Size', value: 'Large' }, { field: 'Shoe width', value: 'wide' }, { field: 'This is a gift', value: true }])"));
  EXPECT_FALSE(r["ok"].get<bool>());
  EXPECT_NE(get_str(r, "error").find("'Shoe width'"), std::string::npos) << r.dump();
  EXPECT_EQ(ok("await execInTab(activeTab, '[size.value, gift.checked]')"), json::array({"Large", true}));
}

TEST(Skills, PaginateCollectsEveryPageUntilThereIsNoNext) {
  json r = ok(with_urls("const t = await openTab('" + page("orders-1") + "'); await paginate(t, { maxPages: 10 })"));
  EXPECT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_EQ(r["pages"], 3);
  EXPECT_EQ(r["rows"].size(), 12u);
  EXPECT_EQ(r["stoppedBecause"], "no next-page control");
  EXPECT_EQ(r["bound"]["next"]["name"], "Next");
  r = ok(with_urls("const u = await openTab('" + page("orders-1") + "'); await paginate(u, { maxPages: 2 })"));
  EXPECT_EQ(r["rows"].size(), 8u);
  EXPECT_EQ(r["stoppedBecause"], "maxPages reached");
}

TEST(Skills, NavigateByMenuThroughHoverAndClickMenus) {
  json r = ok(with_urls("const t = await openTab('" + page("menu") + "'); await navigateByMenu(t, 'Products > Laptops')"));
  EXPECT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_NE(get_str(r, "url").find("#laptops"), std::string::npos) << r.dump();
  EXPECT_EQ(r["did"][0], "hovered Products");
  r = ok("await navigateByMenu(activeTab, ['Services', 'Repairs'])");
  EXPECT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_NE(get_str(r, "url").find("#repairs"), std::string::npos) << r.dump();
  EXPECT_EQ(r["did"][0], "clicked Services") << "a click menu is opened by a click";
  r = ok("await navigateByMenu(activeTab, 'Products > Televisions')");
  EXPECT_FALSE(r["ok"].get<bool>());
  EXPECT_NE(get_str(r, "error").find("'Televisions' (2 of 2) is not on the page"), std::string::npos) << r.dump();
}

// Beam search from the home page: the goal two links away is found, the losers are closed, the
// winner is focused, and the graph says what was looked at.
TEST(Explore, FindsACollectionTwoLinksAwayAndClosesTheLosers) {
  auto s = isolated_session();
  json r = ok(with_urls("const t = await openTab('" + page("site-home") + "'); const before = tabs.length;"
                        "env.r = await explore(t, { collection: ['date', 'amount'] });"
                        "({ r: env.r, added: tabs.length - before, active: activeTab, start: t })"), s.get());
  const json& x = r["r"];
  EXPECT_TRUE(x["found"].get<bool>()) << x.dump();
  EXPECT_NE(get_str(x, "url").find("site-billing.html"), std::string::npos) << x.dump();
  EXPECT_NE(get_str(x, "why").find("Invoices"), std::string::npos);
  EXPECT_EQ(r["added"], 1) << "the winner stays open, every other page explore opened is closed";
  EXPECT_EQ(r["active"], x["tab"]) << "the winner is focused";
  EXPECT_LE(x["pagesVisited"].get<int>(), 8);
  bool account_to_billing = false;
  for (const auto& e : x["graph"]["edges"])
    if (get_str(e, "label") == "Billing and invoices" && get_str(e, "from").find("site-account.html") != std::string::npos) account_to_billing = true;
  EXPECT_TRUE(account_to_billing) << x["graph"].dump();
}

TEST(Explore, FormsActionsTextAndAGoalThatIsNowhere) {
  auto s = isolated_session();
  json r = ok(with_urls("const t = await openTab('" + page("site-home") + "'); const before = tabs.length;"
                        "const a = await explore(t, { form: 'contact' }, { beam: 2, depth: 2 }); await switchTab(t);"
                        "const b = await explore(t, { action: 'download_invoice' }); await switchTab(t);"
                        "const c = await explore(t, 'Founded in 1901'); await switchTab(t);"
                        "const n = await explore(t, { text: 'unicorn' }, { beam: 2, depth: 2 });"
                        "({ a, b, c, n, added: tabs.length - before })"), s.get());
  EXPECT_NE(get_str(r["a"], "url").find("site-support.html"), std::string::npos) << r["a"].dump();
  EXPECT_NE(get_str(r["b"], "why").find("Download invoice"), std::string::npos) << r["b"].dump();
  EXPECT_NE(get_str(r["c"], "url").find("site-about.html"), std::string::npos) << r["c"].dump();
  EXPECT_FALSE(r["n"]["found"].get<bool>());
  EXPECT_NE(get_str(r["n"], "error").find("was not found within depth 2"), std::string::npos) << r["n"].dump();
  EXPECT_EQ(r["added"], 3) << "each search left its winner open; the one that found nothing closed all it opened";
  std::string err = fails("await explore(activeTab, {})", s.get());
  EXPECT_NE(err.find("goal is {form: purpose}"), std::string::npos) << err;
}

}  // namespace
}  // namespace ouro::testing
