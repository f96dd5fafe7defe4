// Tab management through the REPL, against real headless Chromium and the fixture site.
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

}  // namespace
}  // namespace ouro::testing
