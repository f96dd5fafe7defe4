// A run in the user's Chrome through ouro's extension (docs/design/extension-bridge.md), as the
// held-out check does it: `ouro serve --port 0`; the folder `ouro extension` writes, loaded into
// a headless Chromium of the test's own with --load-extension and no debugging flag ouro could
// use (the test drives that Chromium over a DevTools pipe only it holds, as a person's hands
// would: it opens the side panel's page and types the port and the pairing code); then a scripted
// run with options.browser "extension" that reads a fixture page opened in its tab group. The
// tab the user has open outside the group is never attached, and the egress gate, working
// through chrome.debugger's Fetch, refuses the run's fetch to another loopback port.
#include "persons_chromium.h"
#include "serve_process.h"

#include "net/http_server.h"
#include "net/io.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <set>
#include <thread>

namespace ouro {
namespace {

using namespace std::chrono_literals;
using testing::Http;

using testing::eventually;
using testing::PersonsChromium;

// A site no run may send anything to: it counts what reaches it.
struct Collector {
  std::shared_ptr<std::atomic<int>> hits = std::make_shared<std::atomic<int>>(0);
  // When the last hit came (steady clock, ms), for what a failure says.
  std::shared_ptr<std::atomic<int64_t>> last = std::make_shared<std::atomic<int64_t>>(0);
  std::unique_ptr<net::IoThread> io = net::IoThread::start();
  std::unique_ptr<net::HttpServer> server;
  static int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
  Collector() {
    auto h = hits;
    auto l = last;
    server = *net::HttpServer::start(*io, {}, [h, l](const net::HttpRequest&) {
      ++*h;
      *l = now_ms();
      net::HttpResponse r;
      r.body = "got it";
      r.headers.push_back({"Access-Control-Allow-Origin", "*"});
      return r;
    });
  }
};

// A TCP port that counts the connections made to it (a preconnect sends nothing, it connects).
struct Listener {
  int fd = -1;
  uint16_t port = 0;
  std::atomic<int> connections{0};
  std::atomic<bool> stop{false};
  std::thread thread;
  Listener() {
    fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 16) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
      return;
    port = ntohs(a.sin_port);
    thread = std::thread([this] {
      while (!stop) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 100) > 0)
          if (int c = ::accept4(fd, nullptr, nullptr, SOCK_CLOEXEC); c >= 0) {
            ++connections;
            ::close(c);
          }
      }
    });
  }
  ~Listener() {
    stop = true;
    if (thread.joinable()) thread.join();
    if (fd >= 0) ::close(fd);
  }
};

TEST(Bridge, RunReadsAPageInItsGroupThroughThePairedExtension) {
  testing::ServeProcess serve(testing::temp_dir());
  ASSERT_FALSE(serve.base.empty()) << serve.log();

  // The folder `ouro extension` writes.
  std::string ext_dir = testing::temp_dir() + "/extension";
  auto written = testing::ouro_shell(testing::temp_dir(), "extension --out " + ext_dir);
  ASSERT_EQ(written.code, 0) << written.err;
  ASSERT_NE(written.out.find("Load unpacked"), std::string::npos) << written.out;

  // Before any extension: a run through it says how to load and pair one.
  std::string script = testing::script_file({{{"text", testing::repl_reply("setFinal(1)")}}});
  Http early = serve.post("/api/runs", {{"task", "Nothing"}, {"options", {{"provider", "script:" + script}, {"browser", "extension"}}}});
  ASSERT_EQ(early.status, 201) << early.raw;
  json failed = serve.wait_state(early.body["id"], {"failed"}, 60s);
  EXPECT_NE(failed.dump().find("Load unpacked"), std::string::npos) << failed.dump();

  PersonsChromium chrome(ext_dir);
  std::string ext = chrome.extension_id();
  ASSERT_EQ(ext.size(), 32u) << "the extension's service worker did not start";

  // A tab the person has open, outside any group.
  Collector collector;
  std::string mine = chrome.open(testing::site().url("/"));
  ASSERT_TRUE(eventually([&] { return chrome.eval(mine, "document.readyState") == "complete"; }, 15s));
  // The control: in this Chrome a page's <link rel=preconnect> does open a connection, to a port
  // of the page's choosing (while ouro holds no tab). The run's attempt goes to another port (a
  // connection made already could be reused instead of a new one).
  auto preconnect_to = [](const Listener& l) {
    return "document.head.insertAdjacentHTML('beforeend', '<link rel=preconnect href=\"http://127.0.0.1:" + std::to_string(l.port) + "\">')";
  };
  Listener control, preconnects;
  ASSERT_NE(control.port, 0);
  ASSERT_NE(preconnects.port, 0);
  // Chrome may not predict yet just after it started (under load a first preconnect was seen to
  // make no connection): the control asks again, once a second, until one connects.
  int asked = 0;
  EXPECT_TRUE(eventually([&] {
    if (asked++ % 10 == 0) chrome.eval(mine, preconnect_to(control) + "; 1");
    return control.connections.load() > 0;
  }, 30s)) << "the control: no preconnect in the person's tab";
  const std::string preconnect = preconnect_to(preconnects);

  // Pairing, as a person does it.
  std::string panel = testing::pair(chrome, ext, serve);
  ASSERT_FALSE(panel.empty());
  EXPECT_EQ(serve.get("/api/pairings").body[0]["origin"], "chrome-extension://" + ext);

  // The person shares a tab of theirs (Share this tab: the panel's message to the service worker)
  // before any conversation has a group; the next run claims that group and reads the tab.
  std::string shared = chrome.open(testing::site().url("/list"));
  ASSERT_TRUE(eventually([&] { return chrome.eval(shared, "document.readyState") == "complete"; }, 15s));
  // (chrome.tabs may report the tab's new URL a moment after its document loaded.)
  json share;
  ASSERT_TRUE(eventually([&] {
    share = chrome.eval(panel, "chrome.tabs.query({}).then(ts => new Promise(done => {"
                               "  const tab = ts.find(t => (t.url || '').endsWith('/list'));"
                               "  if (!tab) return done('no such tab yet');"
                               "  const port = chrome.runtime.connect({name: 'panel'});"
                               "  port.onMessage.addListener(m => { if (m.type === 'reply' && m.for === 'share-1') done(m.ok || m.error); });"
                               "  port.postMessage({type: 'share', tabId: tab.id, nonce: 'share-1'});"
                               "}))");
    return share == true;
  }, 10s)) << share.dump();
  std::string read_script = testing::script_file({{{"text", testing::repl_reply("setFinal(await execInTab(activeTab, 'return location.pathname'))")}}});
  Http from_shared = serve.post("/api/runs", {{"task", "Which page is shared?"}, {"options", {{"provider", "script:" + read_script}, {"browser", "extension"}}}});
  ASSERT_EQ(from_shared.status, 201) << from_shared.raw;
  json read = serve.wait_state(from_shared.body["id"], {"done", "failed", "partial", "cancelled"}, 120s);
  EXPECT_EQ(read["state"], "done") << read.dump();
  EXPECT_EQ(read["final"], "/list") << "the run reads the tab the person shared";

  // The run: read the page in its group, then try to send data to the collector.
  std::string leak = "http://127.0.0.1:" + std::to_string(collector.server->port()) + "/leak?secret=42";
  // New windows: chrome.debugger cannot hold a tab a page opens before its first request, so a
  // held tab opens none — not by window.open, nor a link aimed at a new window that the run's
  // click() follows, nor a form posted to one.
  std::string popup_leak = "http://127.0.0.1:" + std::to_string(collector.server->port()) + "/popup?secret=42";
  std::string plant = "const a = document.createElement('a'); a.id = 'ouro-test-popup'; a.href = '" + popup_leak +
                      "&by=link'; a.target = '_blank'; a.textContent = 'Open'; a.style = 'display:block;width:120px;height:40px';"
                      "document.body.prepend(a);"
                      "const f = document.createElement('form'); f.action = '" + popup_leak + "&by=form'; f.method = 'post'; f.target = 'w';"
                      "document.body.append(f); f.submit();"
                      "return String(window.open('" + popup_leak + "&by=open'))";
  std::string run_script = testing::script_file(
      {{{"text", testing::repl_reply("env.h = await getText(activeTab, 'h1')")}},
       {{"text", testing::repl_reply("env.sent = await execInTab(activeTab, \"return fetch('" + leak +
                                     "').then(r => 'sent', e => 'blocked: ' + e.message)\")")}},
       {{"text", testing::repl_reply("env.opened = await execInTab(activeTab, " + dump_json(plant) + "); await click(activeTab, '#ouro-test-popup')")}},
       {{"text", testing::repl_reply("await execInTab(activeTab, " + dump_json(preconnect + "; return 1") + "); await new Promise((r) => setTimeout(r, 1500))")}},
       {{"text", testing::repl_reply("setFinal({h: env.h, sent: env.sent, opened: env.opened})")}}});
  Http created = serve.post("/api/runs", {{"task", "Read the heading of the fixture"},
                                          {"urls", {testing::site().url("/")}},
                                          {"options", {{"provider", "script:" + run_script}, {"browser", "extension"}}}});
  ASSERT_EQ(created.status, 201) << created.raw;
  std::string id = created.body["id"];
  json run = serve.wait_state(id, {"done", "failed", "partial", "cancelled"}, 120s);
  ASSERT_EQ(run["state"], "done") << run.dump() << "\n" << serve.log().substr(0, 4000);
  EXPECT_EQ(run["final"]["h"], "Fixture Home");
  EXPECT_NE(run["final"]["sent"].get<std::string>().find("blocked"), std::string::npos) << run["final"].dump();
  EXPECT_EQ(run["final"]["opened"], "null") << "window.open in a held tab returns no window";
  bool placed = false;
  std::set<std::string> refused_windows;
  for (const auto& e : serve.events(id)) {
    if (e["type"] == "placement" && e["data"]["endpoint"] == "extension") placed = true;
    if (get_str(get_field(e, "data"), "rule") == "new window" && get_str(get_field(e, "data"), "decision") == "deny") {
      std::string url = get_str(get_field(e, "data"), "url");
      refused_windows.insert(url.substr(url.rfind("by=") + 3));
    }
  }
  EXPECT_EQ(refused_windows, (std::set<std::string>{"open", "link", "form"})) << "the gate records each refused window";
  // Nothing reached the collector, and no tab of the person's browser shows it.
  json tab_urls = chrome.eval(panel, "chrome.tabs.query({}).then(ts => ts.map(t => t.url || t.pendingUrl || ''))");
  EXPECT_EQ(tab_urls.dump().find("/popup?"), std::string::npos) << tab_urls.dump();
  EXPECT_EQ(collector.hits->load(), 0) << "the egress gate let a request through the bridge";
  EXPECT_EQ(preconnects.connections.load(), 0) << "a held tab preconnected to a port of the page's choosing";
  EXPECT_TRUE(placed) << "the run says it works in the user's Chrome through the extension";
  std::cout << "run through the bridge: " << run["final"].dump() << "\n";

  // The run's tab is in a group named after its task; the person's tab is in none and was never
  // attached.
  json tabs = chrome.eval(panel, "chrome.tabs.query({}).then(ts => ts.map(t => ({url: t.url, group: t.groupId})))");
  json groups = chrome.eval(panel, "chrome.tabGroups.query({}).then(gs => gs.map(g => g.title))");
  bool grouped_fixture = false;
  for (const auto& t : tabs)
    if (get_str(t, "url") == testing::site().url("/") && get_int(t, "group", -1) != -1) grouped_fixture = true;
  EXPECT_TRUE(grouped_fixture) << tabs.dump();
  EXPECT_NE(groups.dump().find("Read the heading of the fixture"), std::string::npos) << groups.dump();
  json person = chrome.eval(mine, "JSON.stringify({title: document.title, marks: Object.keys(window).filter(k => k.startsWith('__ouro'))})");
  EXPECT_EQ(person, json(dump_json(json{{"title", chrome.eval(mine, "document.title")}, {"marks", json::array()}})));
  json ungrouped = chrome.eval(panel, "chrome.tabs.query({}).then(ts => ts.filter(t => t.groupId === -1).map(t => t.url))");
  EXPECT_NE(ungrouped.dump().find(testing::site().url("/")), std::string::npos) << "the person's tab stays out of the group: " << ungrouped.dump();

  // Two conversations at once, each in a group of its own.
  std::string where = testing::script_file({{{"text", testing::repl_reply("setFinal(await execInTab(activeTab, 'return location.pathname'))")}}});
  Http first = serve.post("/api/runs", {{"task", "Side by side one"}, {"urls", {testing::site().url("/form")}},
                                        {"options", {{"provider", "script:" + where}, {"browser", "extension"}}}});
  Http second = serve.post("/api/runs", {{"task", "Side by side two"}, {"urls", {testing::site().url("/list")}},
                                         {"options", {{"provider", "script:" + where}, {"browser", "extension"}}}});
  ASSERT_EQ(first.status, 201);
  ASSERT_EQ(second.status, 201);
  json one = serve.wait_state(first.body["id"], {"done", "failed", "partial", "cancelled"}, 120s);
  json two = serve.wait_state(second.body["id"], {"done", "failed", "partial", "cancelled"}, 120s);
  EXPECT_EQ(one["final"], "/form") << one.dump();
  EXPECT_EQ(two["final"], "/list") << two.dump();
  json titles = chrome.eval(panel, "chrome.tabGroups.query({}).then(gs => gs.map(g => g.title))");
  EXPECT_NE(titles.dump().find("Side by side one"), std::string::npos) << titles.dump();
  EXPECT_NE(titles.dump().find("Side by side two"), std::string::npos) << titles.dump();

  // A clean context cannot exist through the extension: the run says so.
  Http clean = serve.post("/api/runs", {{"task", "Clean"},
                                        {"options", {{"provider", "script:" + script}, {"browser", "extension"}, {"context", "clean"}}}});
  ASSERT_EQ(clean.status, 201);
  json refused = serve.wait_state(clean.body["id"], {"failed"}, 60s);
  EXPECT_NE(refused.dump().find("clean context"), std::string::npos) << refused.dump();

  // Revoking the pairing closes the bridge at once.
  std::string pairing = serve.get("/api/pairings").body[0]["id"];
  EXPECT_EQ(serve.del("/api/pairings/" + pairing).status, 200);
  EXPECT_TRUE(eventually([&] { return chrome.eval(panel, "chrome.storage.local.get('credential').then(s => !s.credential)") == true; }, 10s));
}

// ouro's extension as `ouro extension` writes it, loaded into the person's Chromium and paired
// with `serve` through its side panel as a person does it; `error` says which step did not happen.
struct PairedChrome {
  std::unique_ptr<PersonsChromium> chrome;
  std::string panel, error;
  explicit PairedChrome(testing::ServeProcess& serve) {
    std::string dir = testing::temp_dir() + "/extension";
    if (testing::ouro_shell(testing::temp_dir(), "extension --out " + dir).code != 0) {
      error = "ouro extension did not write the extension";
      return;
    }
    chrome = std::make_unique<PersonsChromium>(dir);
    std::string ext = chrome->extension_id();
    if (ext.size() != 32) {
      error = "the extension's service worker did not start";
      return;
    }
    panel = testing::pair(*chrome, ext, serve);
    if (panel.empty()) error = "the extension did not pair";
  }
};

// The side panel's guide followed word for word: plain `ouro serve`, the extension paired, a task
// typed into the panel's Command Center runs in this Chrome, in a tab group named after it. Its
// tabs open behind the tab the person is on, the panel lists the page each shows, and a new tab
// the person opens that Chrome puts into the run's group is taken out and never attached.
TEST(Bridge, ATaskTypedInThePanelRunsInThatChromeInAGroup) {
  // The run reads its first tab's heading once the test says so (a flag in the site's storage).
  std::string script = testing::script_file(
      {{{"text", testing::repl_reply("for (let i = 0; i < 300 && !(await execInTab(activeTab, \"return localStorage.getItem('panel-go')\")); i++) "
                                     "await new Promise((r) => setTimeout(r, 100)); setFinal(await getText(activeTab, 'h1'))")}}});
  testing::ServeProcess serve(testing::temp_dir(), {{"OURO_PROVIDER", "script:" + script}});
  ASSERT_FALSE(serve.base.empty()) << serve.log();
  PairedChrome paired(serve);
  ASSERT_TRUE(paired.error.empty()) << paired.error;
  PersonsChromium& chrome = *paired.chrome;
  const std::string panel = paired.panel;

  // The person is on a page of theirs, in front.
  std::string mine = chrome.open(testing::site().url("/form"));
  ASSERT_TRUE(eventually([&] { return chrome.eval(mine, "document.readyState") == "complete"; }, 15s));
  ASSERT_TRUE(eventually([&] {
    return chrome.eval(panel, "chrome.tabs.query({}).then(ts => ts.find(t => (t.url || '').endsWith('/form'))).then(t => t ? "
                              "chrome.tabs.update(t.id, {active: true}).then(() => true) : false)") == true;
  }, 10s));

  // The task, typed into the panel's Command Center as a person does.
  ASSERT_TRUE(eventually([&] { return chrome.eval(panel, "!!document.getElementById('task-form')") == true; }, 30s))
      << "the panel shows no Command Center: " << chrome.eval(panel, "document.body.innerText").dump();
  chrome.eval(panel, "document.getElementById('task').value = 'Read the heading for me'; document.getElementById('urls').value = '" +
                         testing::site().url("/") + " " + testing::site().url("/list") + "'; document.getElementById('task-form').requestSubmit(); true");
  std::string id;
  ASSERT_TRUE(eventually([&] {
    Http runs = serve.get("/api/runs");
    for (const auto& r : runs.body.is_array() ? runs.body : json::array())
      if (get_str(r, "task") == "Read the heading for me") id = get_str(r, "id");
    return !id.empty();
  }, 30s)) << serve.get("/api/runs").raw;

  // Its two tabs are in a group named after it; the panel lists their pages.
  const std::string front = "chrome.tabs.query({active: true}).then(ts => ts.map(t => t.url))";
  json grouped;
  ASSERT_TRUE(eventually([&] {
    grouped = chrome.eval(panel, "chrome.tabs.query({}).then(ts => ts.filter(t => t.groupId !== -1).map(t => ({id: t.id, url: t.url, index: t.index})))");
    return grouped.is_array() && grouped.size() == 2 && grouped.dump().find("/list") != std::string::npos;
  }, 60s)) << grouped.dump() << "\n" << serve.get("/api/runs/" + id).raw.substr(0, 3000) << "\n" << serve.log().substr(0, 3000);
  json titles = chrome.eval(panel, "chrome.tabGroups.query({}).then(gs => gs.map(g => g.title))");
  EXPECT_NE(titles.dump().find("Read the heading for me"), std::string::npos) << titles.dump();
  json listed;
  EXPECT_TRUE(eventually([&] {
    listed = chrome.eval(panel, "[...document.querySelectorAll('#ext-groups [title]')].map(e => e.title).join(' | ')");
    return listed.is_string() && listed.get<std::string>().find(testing::site().url("/list")) != std::string::npos;
  }, 15s)) << "the panel's list of held tabs: " << listed.dump();
  EXPECT_EQ(listed.dump().find("about:blank"), std::string::npos) << listed.dump();
  // The person's tab is still the one in front.
  json active = chrome.eval(panel, front);
  EXPECT_NE(active.dump().find("/form"), std::string::npos) << "the run's tab took the person's focus: " << active.dump();

  // A new tab the person opens between the group's tabs (where Chrome groups it).
  int64_t between = std::max(get_int(grouped[0], "index", 0), get_int(grouped[1], "index", 0));
  json opened = chrome.eval(panel, "chrome.tabs.create({url: 'chrome://newtab/', index: " + std::to_string(between) +
                                       ", active: false}).then(t => t.id)");
  ASSERT_TRUE(opened.is_number()) << opened.dump();
  std::string tab = opened.dump();
  EXPECT_TRUE(eventually([&] { return chrome.eval(panel, "chrome.tabs.get(" + tab + ").then(t => t.groupId === -1)") == true; }, 10s))
      << "the person's new tab stayed in the run's group";
  json attached = chrome.eval(panel, "chrome.debugger.getTargets().then(ts => ts.filter(t => t.tabId === " + tab + " && t.attached).length)");
  EXPECT_EQ(attached, 0) << "the person's new tab was attached";

  // The person shares their own tab by moving it into the run's group (what a drag does), then
  // takes it back by moving it out: attached, then let go at once.
  json group = chrome.eval(panel, "chrome.tabs.get(" + get_field(grouped[0], "id").dump() + ").then(t => t.groupId)");
  json form = chrome.eval(panel, "chrome.tabs.query({}).then(ts => ts.find(t => (t.url || '').endsWith('/form')).id)");
  ASSERT_TRUE(group.is_number() && form.is_number()) << group.dump() << " " << form.dump();
  // (The test holds a DevTools session to that tab itself: the panel's list says whether the agent has it.)
  const std::string is_attached = "[...document.querySelectorAll('#ext-groups [title]')].some(e => e.title === " +
                                  json(testing::site().url("/form") + " — the agent is attached").dump() + ")";
  chrome.eval(panel, "chrome.tabs.group({tabIds: [" + form.dump() + "], groupId: " + group.dump() + "}).then(() => true)");
  EXPECT_TRUE(eventually([&] { return chrome.eval(panel, is_attached) == true; }, 15s)) << "a tab the person moved into the group is not the run's";
  chrome.eval(panel, "chrome.tabs.ungroup([" + form.dump() + "]).then(() => true)");
  EXPECT_TRUE(eventually([&] { return chrome.eval(panel, is_attached) == false; }, 15s)) << "a tab moved out of the group was not let go";

  chrome.eval(mine, "localStorage.setItem('panel-go', '1'); true");
  json run = serve.wait_state(id, {"done", "failed", "partial", "cancelled"}, 90s);
  EXPECT_EQ(run["state"], "done") << run.dump();
  EXPECT_EQ(run["final"], "Fixture Home") << run.dump();
  bool placed = false;
  for (const auto& e : serve.events(id)) placed = placed || (e["type"] == "placement" && e["data"]["endpoint"] == "extension");
  EXPECT_TRUE(placed) << "the panel's run did not go to the extension";
}

// ouro killed while a run holds a tab in the person's Chrome: the extension lets go of the tab, and
// what the run put into its page (a timer that keeps sending) must not go on unheld.
TEST(Bridge, AKilledOuroLeavesNoRunCodeWorkingInThePersonsTabs) {
  testing::ServeProcess serve(testing::temp_dir());
  ASSERT_FALSE(serve.base.empty()) << serve.log();
  PairedChrome paired(serve);
  ASSERT_TRUE(paired.error.empty()) << paired.error;
  PersonsChromium& chrome = *paired.chrome;
  const std::string panel = paired.panel;

  Collector collector;
  std::string leak = "http://127.0.0.1:" + std::to_string(collector.server->port()) + "/after-kill";
  std::string plant = "setInterval(() => { fetch('" + leak + "').catch(() => 0); }, 100); return 1";
  std::string script = testing::script_file({{{"text", testing::repl_reply("await execInTab(activeTab, " + dump_json(plant) + ")")}},
                                             {{"text", testing::repl_reply("await new Promise(r => setTimeout(r, 120000))")}}});
  Http created = serve.post("/api/runs", {{"task", "Keep the page busy"},
                                          {"urls", {testing::site().url("/")}},
                                          {"options", {{"provider", "script:" + script}, {"browser", "extension"}}}});
  ASSERT_EQ(created.status, 201) << created.raw;
  // The planted timer works, and the gate refuses what it sends.
  ASSERT_TRUE(serve.wait_events(created.body["id"], [&](const std::vector<json>& events) {
    for (const auto& e : events)
      if (e["type"] == "gate" && get_str(get_field(e, "data"), "decision") == "deny" && e.dump().find("/after-kill") != std::string::npos)
        return true;
    return false;
  })) << serve.log().substr(0, 3000);
  EXPECT_EQ(collector.hits->load(), 0);
  int64_t killed_at = Collector::now_ms();
  serve.kill9();
  // The extension sees its socket drop and lets go of the tab: it is blank once it is let go.
  EXPECT_TRUE(eventually([&] {
    json urls = chrome.eval(panel, "chrome.tabs.query({}).then(ts => ts.filter(t => t.groupId !== -1).map(t => t.url))");
    return urls.is_array() && !urls.empty() && urls.dump().find(testing::site().url("/")) == std::string::npos;
  }, 15s)) << chrome.eval(panel, "chrome.tabs.query({}).then(ts => ts.map(t => [t.groupId, t.url]))").dump();
  // A measurement window, not an ordering: the timer sent ten times a second while it ran.
  std::this_thread::sleep_for(2s);
  EXPECT_EQ(collector.hits->load(), 0) << "a timer the run planted sent after ouro was killed (the last "
                                        << (*collector.last - killed_at) << " ms after the kill)";
}

// `ouro serve --browser extension`: no Chromium of ouro's; runs go to the extension by default,
// and without one they say how to load and pair it.
TEST(Bridge, ServeWithTheExtensionAsItsBrowser) {
  testing::ServeProcess serve(testing::temp_dir(), {}, {"--browser", "extension"});
  ASSERT_FALSE(serve.base.empty()) << serve.log();
  Http hello = testing::request("GET", serve.base + "/api/hello", "");
  EXPECT_EQ(hello.body["service"], "ouro");
  std::string script = testing::script_file({{{"text", testing::repl_reply("setFinal(1)")}}});
  Http run = serve.post("/api/runs", {{"task", "Nothing"}, {"options", {{"provider", "script:" + script}}}});
  ASSERT_EQ(run.status, 201) << run.raw;
  json failed = serve.wait_state(run.body["id"], {"failed", "done"}, 60s);
  EXPECT_EQ(failed["state"], "failed");
  EXPECT_NE(failed.dump().find("no ouro extension is connected"), std::string::npos) << failed.dump();
  auto elsewhere = testing::ouro_shell(testing::temp_dir(), "run 'x' --browser extension");
  EXPECT_NE(elsewhere.code, 0);
  EXPECT_NE(elsewhere.err.find("goes with ouro serve"), std::string::npos) << elsewhere.err;
}

}  // namespace
}  // namespace ouro
