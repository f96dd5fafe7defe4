// explore(): a beam search over the site's links for a goal, as the task pages hold it.
#include "browser_env.h"

namespace ouro::testing {
namespace {

std::string page(const std::string& name) { return "{{/act/pages/" + name + ".html}}"; }

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
