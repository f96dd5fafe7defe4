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

}  // namespace
}  // namespace ouro::testing
