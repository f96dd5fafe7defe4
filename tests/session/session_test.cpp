// A working set for one user of the REPL (session/session.cpp): sessions in contexts of their own
// share the browser and nothing else; the URLs a session is given open with the first active; in
// the user's own browser a session lets go of its tabs between turns and takes back those still
// free, and at the end closes what it opened unless the person took it up; and env as it may be
// kept holds none of the session's secrets.
#include "browser_env.h"

#include "browser/browser.h"
#include "browser/shared_tabs.h"
#include "safety/secrets.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace ouro::testing {
namespace {

using namespace std::chrono_literals;

// One browser for the suite's sessions (started by the first test that needs it, gone with the
// suite): each test's sessions are its own, and each test closes the profile's tabs it opened.
class SessionSuite : public ::testing::Test {
 protected:
  static void TearDownTestSuite() { s_base.reset(); }
  static session::Session& base() {
    if (!s_base) {
      auto started = session::Session::start(test_options());
      if (!started) throw std::runtime_error(started.error().message);
      s_base = std::move(*started);
    }
    return *s_base;
  }
  static inline std::unique_ptr<session::Session> s_base;
};

// A session in the profile's own context, shared with the user, as `owner`.
std::unique_ptr<session::Session> users_browser(session::Session& base, const std::string& owner) {
  auto o = test_options();
  o.shared = true;
  o.owner = owner;
  auto s = session::Session::attach(base.runtime(), o);
  if (!s) throw std::runtime_error(s.error().message);
  return std::move(*s);
}

std::vector<std::string> ids(const std::vector<browser::TabInfo>& tabs) {
  std::vector<std::string> out;
  for (const auto& t : tabs) out.push_back(t.id);
  return out;
}

TEST(Session, IsolatedSessionsShareTheBrowserButNotTabsOrCookies) {
  auto base = session::Session::start(test_options());
  ASSERT_TRUE(base) << base.error().message;
  auto opts = test_options();
  opts.isolated = true;
  auto a = session::Session::attach((*base)->runtime(), opts);
  ASSERT_TRUE(a) << a.error().message;
  auto b = session::Session::attach((*base)->runtime(), opts);
  ASSERT_TRUE(b) << b.error().message;
  json ra = ok("const t = await openTab('{{/cookies}}'); ({ t, n: tabs.length, cookies: (await getCookies(t)).map(c => c.name).sort(), "
               "local: await getLocalStorage(t, 'user') })", a->get());
  json rb = ok("const t = await openTab('{{/b}}'); ({ t, n: tabs.length, cookies: (await getCookies()).length, "
               "local: await execInTab(t, \"fetch('/cookies').then(() => document.cookie)\") })", b->get());
  EXPECT_EQ(ra["cookies"], json::parse(R"(["session","theme"])"));
  EXPECT_EQ(ra["local"], "ada");
  EXPECT_EQ(ra["n"], 2) << "its own blank tab and the one it opened";
  EXPECT_EQ(rb["n"], 2) << "the other session's tabs are not listed";
  EXPECT_EQ(rb["cookies"], 0) << "cookies do not cross contexts";
  // A tab of another session does not exist here.
  std::string err = fails("await getText('" + ra["t"].get<std::string>() + "')", b->get());
  EXPECT_NE(err.find("no tab '" + ra["t"].get<std::string>() + "'"), std::string::npos) << err;
  // The profile's session sees neither.
  json base_tabs = ok("tabs.map(t => t.url)", base->get());
  for (const auto& u : base_tabs) EXPECT_EQ(u.get<std::string>().find("/cookies"), std::string::npos);
  // Closing a session closes its context's tabs.
  std::string a_tab = ra["t"];
  ASSERT_TRUE((*base)->browser().tab_info(a_tab).has_value());
  a->reset();
  bool gone = false;
  for (int i = 0; i < 40 && !gone; ++i) {
    gone = !(*base)->browser().tab_info(a_tab).has_value();
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(gone) << "the disposed context's tabs are closed";
}

TEST_F(SessionSuite, TheGivenUrlsOpenWithTheFirstActive) {
  auto o = test_options();
  o.isolated = true;
  auto s = session::Session::attach(base().runtime(), o);
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_TRUE((*s)->open_urls({site().url("/b"), site().url("/list")}));
  auto tabs = (*s)->tabs();
  ASSERT_EQ(tabs.size(), 2u) << "the context's first tab, then a new one";
  EXPECT_EQ(tabs[0].url, site().url("/b"));
  EXPECT_EQ(tabs[1].url, site().url("/list"));
  EXPECT_EQ((*s)->active_tab(), tabs[0].id);
  auto bad = (*s)->open_urls({"http://127.0.0.1:1/nothing-listens"});
  EXPECT_FALSE(bad) << "a page that cannot load is the call's error";
}

TEST_F(SessionSuite, BetweenTurnsItsTabsAreLetGoAndTakenBackWhileStillFree) {
  auto s = users_browser(base(), "run turns");
  json opened = ok("env.a = await openTab('{{/}}'); env.b = await openTab('{{/b}}'); [env.a, env.b]", s.get());
  std::string a = opened[0], b = opened[1];
  EXPECT_EQ(ids(s->held_tabs()), (std::vector<std::string>{a, b}));
  auto held = s->let_go();
  EXPECT_EQ(held.tabs, (std::vector<std::string>{a, b}));
  EXPECT_EQ(held.active, b);
  EXPECT_EQ(held.urls[b], site().url("/b"));
  browser::Browser& browser = base().browser();
  EXPECT_EQ(browser.shared().tab_owner(a), "") << "let go: another run or the user may use it";
  // Meanwhile another run takes one of them: it is not taken back.
  ASSERT_TRUE(browser.shared().claim_tab(a, "run other"));
  s->take_back(held);
  EXPECT_EQ(ids(s->held_tabs()), std::vector<std::string>{b});
  EXPECT_EQ(browser.shared().tab_owner(a), "run other");
  EXPECT_EQ(s->active_tab(), b) << "the active one stays active";
  browser.shared().release_tabs("run other");
  s->let_go();
  (void)browser.close_tab(a);
  (void)browser.close_tab(b);
}

TEST_F(SessionSuite, AtTheEndItClosesWhatItOpenedButNotWhatThePersonTookUp) {
  browser::Browser& browser = base().browser();
  auto persons = browser.open_tab(site().url("/"), 10s);  // open before the session: the person's
  ASSERT_TRUE(persons) << persons.error().message;
  auto s = users_browser(base(), "run ends");
  json opened = ok("env.a = await openTab('{{/}}'); env.b = await openTab('{{/b}}'); [env.a, env.b]", s.get());
  std::string a = opened[0], b = opened[1];
  auto held = s->let_go();
  // The person loads a page of their own in one of them.
  ASSERT_TRUE(browser.navigate(b, site().url("/list"), 10s));
  auto closed = s->close_what_it_opened(held);
  EXPECT_EQ(closed, std::vector<std::string>{a});
  EXPECT_FALSE(browser.tab_info(a).has_value());
  EXPECT_TRUE(browser.tab_info(b).has_value()) << "the person's page stays";
  EXPECT_TRUE(browser.tab_info(*persons).has_value()) << "a tab open before the session is the person's";
  (void)browser.close_tab(b);
  (void)browser.close_tab(*persons);
}

TEST(Session, EnvAsItMayBeKeptHoldsNoneOfTheSessionsSecrets) {
  auto store = std::make_shared<safety::SecretStore>();
  ASSERT_TRUE(store->add("pw", "S3cret-Value-42", {"http://127.0.0.1"}));
  auto s = isolated_session([&](session::SessionOptions& o) { o.secrets = store; });
  ok("env.note = 'the pass is ' + ['S3cret', 'Value', '42'].join('-'); env.encoded = 'UzNjcmV0LVZhbHVlLTQy'; "
     "env.nested = {deep: ['S3cret-Value-42']}; env.plain = 'nothing secret'; 1",
     s.get());
  std::string kept = s->storable_env();
  EXPECT_EQ(kept.find("S3cret-Value-42"), std::string::npos) << kept;
  EXPECT_EQ(kept.find("UzNjcmV0LVZhbHVlLTQy"), std::string::npos) << "nor its base64: " << kept;
  EXPECT_NE(kept.find("[SECRET:pw]"), std::string::npos) << kept;
  EXPECT_NE(kept.find("nothing secret"), std::string::npos) << "the rest is kept as it was: " << kept;
}

}  // namespace
}  // namespace ouro::testing
