// Tabs and the DOM through the REPL (actions/tabs_dom.cpp), against real headless Chromium and the
// fixture site: tabs opened, switched and closed; text, links, inputs, queries, shadow roots,
// frames and the accessibility tree.
#include "browser_env.h"

#include <regex>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace ouro::testing {
namespace {

TEST(Tabs, OpenTabLoadsThePageAndListsItLive) {
  json r = ok(R"(
    const t = await openTab('{{/}}');
    const info = tabs.find(x => x.id === t);
    ({ t, info, active: activeTab }))");
  std::string t = r["t"];
  EXPECT_TRUE(std::regex_match(t, std::regex("t[0-9]+"))) << t;
  EXPECT_EQ(r["info"]["status"], "loaded");
  EXPECT_EQ(r["info"]["title"], "Fixture Home");
  EXPECT_EQ(r["info"]["url"], site().url("/"));
  EXPECT_EQ(r["active"], t);
}

TEST(Tabs, NavigateUpdatesUrlAndTitle) {
  json r = ok(R"(
    const t = await openTab('{{/}}');
    const nav = await navigate(t, '{{/b}}');
    ({ nav, listed: tabs.find(x => x.id === t) }))");
  EXPECT_EQ(r["nav"]["url"], site().url("/b"));
  EXPECT_EQ(r["nav"]["status"], "loaded");
  EXPECT_EQ(r["listed"]["title"], "Page B");
}

TEST(Tabs, SwitchAndCloseKeepIdsStable) {
  json r = ok(R"(
    const a = await openTab('{{/}}');
    const b = await openTab('{{/b}}');
    await switchTab(a);
    const activeAfterSwitch = activeTab;
    await closeTab(b);
    const c = await openTab('{{/b}}');
    ({ a, b, c, activeAfterSwitch, ids: tabs.map(t => t.id) }))");
  EXPECT_EQ(r["activeAfterSwitch"], r["a"]);
  std::vector<std::string> ids = r["ids"];
  EXPECT_NE(std::find(ids.begin(), ids.end(), r["a"].get<std::string>()), ids.end());
  EXPECT_EQ(std::find(ids.begin(), ids.end(), r["b"].get<std::string>()), ids.end()) << "closed tab still listed";
  EXPECT_NE(r["c"], r["b"]) << "a closed tab's id must not be reused";
}

TEST(Tabs, PopupOpenedByThePageAppearsAsATab) {
  json r = ok(R"(
    const t = await openTab('{{/popup}}');
    const before = tabs.length;
    await click(t, '#open');
    for (let i = 0; i < 50 && tabs.length === before; i++) await sleep(100);
    const popup = tabs[tabs.length - 1];
    await waitForLoad(popup.id);
    ({ before, after: tabs.length, popup: tabs.find(x => x.id === popup.id), active: activeTab }))");
  EXPECT_EQ(r["after"].get<int>(), r["before"].get<int>() + 1);
  EXPECT_EQ(r["popup"]["url"], site().url("/b"));
  EXPECT_EQ(r["popup"]["title"], "Page B");
  EXPECT_EQ(r["active"], r["popup"]["id"]) << "a popup takes the focus";
}

TEST(Tabs, WaitForLoadTimesOutOnASlowPageWithAClearError) {
  std::string err = fails(R"(
    const t = await openTab('about:blank');
    execInTab(t, "location.href = '{{/slow?ms=8000}}'");
    // Once the slow page is on its way (its request sent), however long that took to start.
    for (let i = 0; i < 100 && !(await getRecentRequests(t, { type: 'all', url: '/slow' })).length; i++) await sleep(50);
    await waitForLoad(t, 500))");
  EXPECT_NE(err.find("did not finish loading within 500 ms"), std::string::npos) << err;
}

TEST(Tabs, UnknownTabIsNamedWithTheOpenOnes) {
  std::string err = fails("await getText('t999')");
  EXPECT_NE(err.find("no tab 't999'"), std::string::npos) << err;
  EXPECT_NE(err.find("open tabs: t1"), std::string::npos) << err;
}

TEST(Tabs, NavigationErrorsAreReported) {
  // A port nobody listens on: bind one, then let it go.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  std::string url = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) + "/nothing";
  std::string err = fails("const t = await openTab('about:blank'); await navigate(t, '" + url + "')");
  EXPECT_NE(err.find("ERR_CONNECTION_REFUSED"), std::string::npos) << err;
}

TEST(DomReads, TextDomLinksInputsAndQueries) {
  json r = ok(R"(
    const t = await openTab('{{/form}}');
    const home = await openTab('{{/}}');
    ({
      text: await getText(home, 'h1'),
      all: await getText(home),
      dom: await getDOM(home, 'p.intro'),
      links: await getLinks(home),
      inputs: await getInputs(t),
      one: await querySelector(home, '#go'),
      none: await querySelector(home, '#nope'),
      many: await querySelectorAll(t, 'input'),
    }))");
  EXPECT_EQ(r["text"], "Fixture Home");
  EXPECT_NE(r["all"].get<std::string>().find("Welcome to the fixture site."), std::string::npos);
  EXPECT_EQ(r["dom"], "<p class=\"intro\">Welcome to the fixture site.</p>");
  ASSERT_EQ(r["links"].size(), 3u);
  EXPECT_EQ(r["links"][2]["text"], "Page B");
  EXPECT_EQ(r["links"][2]["href"], site().url("/b"));
  bool saw_password = false;
  for (const auto& in : r["inputs"]) {
    if (in["type"] == "password") {
      saw_password = true;
      EXPECT_EQ(in["value"], "[REDACTED]") << "password values never leave the page";
    }
    if (in["id"] == "name") {
      EXPECT_EQ(in["label"], "Name");
    }
  }
  EXPECT_TRUE(saw_password);
  EXPECT_EQ(r["one"]["tag"], "button");
  EXPECT_EQ(r["one"]["text"], "Go");
  EXPECT_EQ(r["one"]["visible"], true);
  EXPECT_TRUE(r["none"].is_null());
  EXPECT_EQ(r["many"].size(), 5u);
}

TEST(DomReads, MissingSelectorNamesSelectorTabAndUrl) {
  std::string err = fails("const t = await openTab('{{/}}'); await getText(t, '.does-not-exist')");
  EXPECT_NE(err.find("'.does-not-exist'"), std::string::npos) << err;
  EXPECT_NE(err.find(site().url("/")), std::string::npos) << err;
  EXPECT_TRUE(std::regex_search(err, std::regex("tab t[0-9]+"))) << err;
}

TEST(DomReads, TextInsideShadowRootsIsRead) {
  // A web component's own text lives in its shadow tree, which innerText does not enter; reads
  // must see what the page shows: each shadow tree in its host's place, slotted light DOM in its
  // slot, hidden parts left out.
  json r = ok(R"(
    const t = await openTab('{{/}}');
    await execInTab(t, `
      class NoteCard extends HTMLElement {
        constructor() {
          super();
          this.attachShadow({ mode: 'open' }).innerHTML =
            '<h2>Cabin trip</h2><p>Wi-Fi password: pinecone-trail-88</p><slot></slot><p style="display:none">draft</p><inner-tag></inner-tag>';
        }
      }
      class InnerTag extends HTMLElement {
        constructor() { super(); this.attachShadow({ mode: 'open' }).innerHTML = '<span>tag: travel</span>'; }
      }
      customElements.define('note-card', NoteCard);
      customElements.define('inner-tag', InnerTag);
      document.body.innerHTML = '<main><h1>Jotter</h1><note-card id="n1"><em>Bring gloves</em></note-card></main>';`);
    ({ all: await getText(t), card: await getText(t, '#n1'), read: (await read(t)).text }))");
  for (const char* key : {"all", "card", "read"}) {
    const std::string text = r[key].get<std::string>();
    EXPECT_NE(text.find("Wi-Fi password: pinecone-trail-88"), std::string::npos) << key << ": " << text;
    EXPECT_NE(text.find("Bring gloves"), std::string::npos) << key << ": " << text;
    EXPECT_NE(text.find("tag: travel"), std::string::npos) << key << ": " << text;
    EXPECT_EQ(text.find("draft"), std::string::npos) << key << ": " << text;
  }
  // In the page's order, on lines of their own.
  const std::string all = r["all"].get<std::string>();
  EXPECT_LT(all.find("Jotter\n"), all.find("Cabin trip\n")) << all;
  EXPECT_LT(all.find("Cabin trip\n"), all.find("Wi-Fi password")) << all;
}

TEST(DomReads, IframesArePiercedWithTripleChevron) {
  json r = ok(R"(
    const t = await openTab('{{/frames}}');
    const before = await getText(t, '#inner >>> #msg');
    await click(t, '#inner >>> #btn');
    ({ before, after: await getText(t, '#inner >>> #btn') }))");
  EXPECT_EQ(r["before"], "inside the frame");
  EXPECT_EQ(r["after"], "pressed") << "the click lands inside the iframe, below the fold";
}

TEST(DomReads, AccessibilityTreeIsCompact) {
  json r = ok("const t = await openTab('{{/}}'); await getAccessibilityTree(t)");
  EXPECT_EQ(r["role"], "RootWebArea");
  EXPECT_EQ(r["name"], "Fixture Home");
  std::string text = r.dump();
  EXPECT_NE(text.find(R"({"role":"button","name":"Go"})"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("role":"heading","name":"Fixture Home")"), std::string::npos) << text;
  EXPECT_EQ(text.find("InlineTextBox"), std::string::npos);
  EXPECT_EQ(text.find("\"generic\""), std::string::npos) << "unnamed generic nodes are pruned";
}

}  // namespace
}  // namespace ouro::testing
