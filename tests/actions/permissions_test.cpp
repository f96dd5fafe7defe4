// Permission levels from the registry, overridden per session: auto runs, ask goes through the
// run's confirmation channel, deny is an error the model sees.
#include "actions/host.h"
#include "actions/registry.h"
#include "browser_env.h"
#include "safety/secrets.h"

namespace ouro::testing {
namespace {

TEST(Permissions, AskDenyAndAutoFromTheRegistry) {
  EXPECT_EQ(actions::find("setCookie")->permission, actions::Permission::Ask);
  EXPECT_EQ(actions::find("getText")->permission, actions::Permission::Auto);
  EXPECT_NE(actions::reference_text().find("[asks the user first]"), std::string::npos);

  auto s = isolated_session();
  ASSERT_TRUE(s->open_urls({site().url("/")}));
  const std::string set = with_urls("await setCookie({ name: 'a', value: '1', url: '{{/}}' })");
  // Nobody installed a confirmer: a person drives this REPL and is the one who would be asked.
  EXPECT_TRUE(ok(set, s.get()));

  std::vector<json> asked;
  auto hooks = std::make_shared<host::Context::Hooks>();
  hooks->confirm = [&](const json& req) {
    asked.push_back(req);
    return false;
  };
  s->host().context().set_hooks(hooks);
  std::string err = fails(set, s.get());
  EXPECT_NE(err.find("setCookie was denied by the user"), std::string::npos) << err;
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0]["action"], "setCookie");
  EXPECT_TRUE(ok("await getCookies()", s.get()).is_array()) << "reads stay automatic";

  // A session whose settings deny a read: an error, and nobody asked.
  auto denied = isolated_session([](session::SessionOptions& o) { o.permissions["getCookies"] = static_cast<int>(actions::Permission::Deny); });
  ASSERT_TRUE(denied->open_urls({site().url("/")}));
  denied->host().context().set_hooks(hooks);
  err = fails("await getCookies()", denied.get());
  EXPECT_NE(err.find("getCookies: not permitted in this run"), std::string::npos) << err;
  EXPECT_EQ(asked.size(), 1u) << "deny does not ask";
}

// A secret is typed by handle on its own site only, and nothing read back from the page shows it.
TEST(Secrets, TypedByHandleOnTheirSiteAndNeverReadBack) {
  auto store = std::make_shared<safety::SecretStore>();
  std::string origin = site().url("/");
  origin.pop_back();  // http://127.0.0.1:PORT: a secret's site is an origin, port included
  ASSERT_TRUE(store->add("bank_pw", "S3cret-Value-42", {origin}));
  auto made = isolated_session([&](session::SessionOptions& o) { o.secrets = store; });
  auto& s = *made;
  ASSERT_TRUE(s.open_urls({site().url("/form")}));
  json r = ok(R"(
    const t = activeTab;
    await type(t, '#name', secret('bank_pw'));
    await fill(t, { '#notes': secret('bank_pw') });
    ({ value: await execInTab(t, 'document.querySelector("#name").value'),
       inputs: (await getInputs(t)).filter(i => i.id === 'name' || i.id === 'notes').map(i => i.value),
       text: await getText(t, '#state'),
       handle: secret('bank_pw') }))", &s);
  std::string all = r.dump();
  EXPECT_EQ(all.find("S3cret-Value-42"), std::string::npos) << all;
  EXPECT_EQ(r["value"], "[SECRET:bank_pw]");
  EXPECT_EQ(r["inputs"], json::array({"[SECRET:bank_pw]", "[SECRET:bank_pw]"}));
  EXPECT_EQ(r["handle"], json({{"__ouroSecret", "bank_pw"}}));
  // The page really got it.
  EXPECT_EQ(s.browser().eval_page(s.active_tab(), "document.querySelector('#name').value").value(), "S3cret-Value-42");

  // Another site (the same server reached as localhost) is not the secret's site.
  std::string other = site().url("/form");
  other.replace(other.find("127.0.0.1"), 9, "localhost");
  std::string err = fails("const u = await openTab('" + other + "'); await type(u, '#name', secret('bank_pw'))", &s);
  EXPECT_NE(err.find("secret 'bank_pw' may only be typed into pages of " + origin), std::string::npos) << err;
  err = fails("await type(activeTab, '#name', secret('nope'))", &s);
  EXPECT_NE(err.find("no secret named 'nope' (configured: bank_pw)"), std::string::npos) << err;
  err = fails("await type(activeTab, '#name', { __ouroSecret: 5 })", &s);
  EXPECT_NE(err.find("type: text.__ouroSecret must be a string"), std::string::npos) << err;
}

// A secret goes only into a field whose own frame's origin is one of the secret's — not into a
// cross-site frame on the secret's page, nor a sandboxed (opaque) one — and there it asks nothing,
// even with someone to ask: the user granted it for that site, so an unattended run can sign in.
TEST(Secrets, GoOnlyIntoTheirOwnFramesOriginAndAskNothingThere) {
  auto store = std::make_shared<safety::SecretStore>();
  std::string origin = site().url("/");
  origin.pop_back();
  ASSERT_TRUE(store->add("card", "4242-4242-4242-4242", {origin}));
  auto made = isolated_session([&](session::SessionOptions& o) { o.secrets = store; });
  auto& s = *made;
  std::vector<json> asked;
  auto hooks = std::make_shared<host::Context::Hooks>();
  hooks->confirm = [&](const json& req) {
    asked.push_back(req);
    return false;
  };
  s.host().context().set_hooks(hooks);

  // On its own site, in a password field (a question for any other text): typed, nothing asked.
  ASSERT_TRUE(s.open_urls({site().url("/act/pages/enter-password.html")}));
  ok("await type(activeTab, '#password', secret('card'))", &s);
  EXPECT_TRUE(asked.empty()) << asked.front().dump();
  EXPECT_EQ(s.browser().eval_page(s.active_tab(), "document.querySelector('#password').value").value(), "4242-4242-4242-4242");
  std::string err = fails("await type(activeTab, '#verify', 'typed by the model')", &s);
  ASSERT_EQ(asked.size(), 1u) << err;
  EXPECT_EQ(asked[0]["frame"], origin) << asked[0].dump();

  // A page of the secret's site with a cross-site frame (localhost:PORT) and a sandboxed one.
  ok(with_urls("await navigate(activeTab, '{{/pcd/frames}}'); await waitForLoad(activeTab); env.s = await snapshot(activeTab); 1"), &s);
  std::string cross = site().url("/");
  cross.replace(cross.find("127.0.0.1"), 9, "localhost");
  cross.pop_back();
  err = fails("const f = env.s.frames.find(f => f.url.includes('n=cross')).frame;"
              "const card = env.s.forms.flatMap(f => f.fields).find(x => x.ref.startsWith(f + 'e'));"
              "await type(activeTab, card.ref, secret('card'))", &s);
  EXPECT_NE(err.find("secret 'card' may only be typed into pages of " + origin), std::string::npos) << err;
  EXPECT_NE(err.find("in a document of " + cross), std::string::npos) << err;
  err = fails("const f = env.s.frames.find(f => f.url.includes('n=sandboxed')).frame;"
              "const card = env.s.forms.flatMap(f => f.fields).find(x => x.ref.startsWith(f + 'e'));"
              "await fill(activeTab, { [card.ref]: secret('card') })", &s);
  EXPECT_NE(err.find("in a document of null"), std::string::npos) << err;
  // Nothing reached either frame's field (each reports its value when its Pay button is pressed;
  // no one to ask about pressing it now).
  s.host().context().set_hooks(std::make_shared<host::Context::Hooks>());
  // Each press changes what the page shows: waited for as it comes.
  std::string values = ok("const out = []; let shown = await execInTab(activeTab, 'document.getElementById(\"out\").textContent');"
                          "for (const n of ['Pay cross', 'Pay sandboxed']) {"
                          "  await click(activeTab, (await find(activeTab, n))[0].ref); let v = shown;"
                          "  for (let i = 0; i < 100 && v === shown; i++) { await sleep(50); v = await execInTab(activeTab, 'document.getElementById(\"out\").textContent') }"
                          "  out.push(v); shown = v } out.join('|')", &s)
                           .get<std::string>();
  EXPECT_EQ(values, "cross pay |sandboxed pay ") << values;
}

}  // namespace
}  // namespace ouro::testing
