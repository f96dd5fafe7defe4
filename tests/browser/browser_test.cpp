// The browser kernel under failure: a killed browser, a crashed tab, attaching by ws:// URL,
// a missing Chromium. Each test has its own browser.
#include "browser_env.h"

#include "browser/discovery.h"
#include "browser/notices.h"
#include "browser/records.h"
#include "browser/screencast.h"
#include "net/io.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

namespace ouro::testing {
namespace {

using namespace std::chrono_literals;

TEST(Kernel, ABrowserKilledMidCommandFailsFastWithTheReason) {
  auto s = session::Session::start(test_options());
  ASSERT_TRUE(s) << s.error().message;
  int pid = *(*s)->browser().process_id();
  std::thread killer([pid] {
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
    kill(pid, SIGKILL);
  });
  auto t0 = std::chrono::steady_clock::now();
  std::string err = fails("const t = await openTab('{{/}}'); await execInTab(t, 'await new Promise(r => setTimeout(r, 20000))')", s->get());
  killer.join();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5)) << "no hang";
  EXPECT_NE(err.find("killed by signal 9"), std::string::npos) << err;
  // Everything after says the same, at once.
  std::string again = fails("await getText(tabs[0].id)", s->get());
  EXPECT_NE(again.find("the browser is gone"), std::string::npos) << again;
  EXPECT_NE(again.find("Run the command again"), std::string::npos) << again;
}

TEST(Kernel, ACrashedTabIsReportedNotHung) {
  auto s = session::Session::start(test_options());
  ASSERT_TRUE(s) << s.error().message;
  json t = ok("await openTab('{{/}}')", s->get());
  (*s)->browser().send_async(t.get<std::string>(), "Page.crash", json::object());
  std::string err;
  for (int i = 0; i < 50; ++i) {
    auto r = eval("await getText('" + t.get<std::string>() + "', 'h1')", s->get());
    if (!r.ok) {
      err = r.error_message;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_NE(err.find("crashed"), std::string::npos) << err;
  // The tab list follows the browser's crash event, which may arrive just after a command's own
  // "crashed" error: wait for it rather than read the list once.
  json status;
  for (int i = 0; i < 50; ++i) {
    status = ok("tabs.find(x => x.id === '" + t.get<std::string>() + "').status", s->get());
    if (status == "crashed") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(status, "crashed");
  // Other tabs keep working.
  EXPECT_EQ(ok("const u = await openTab('{{/b}}'); await getText(u, 'h1')", s->get()), "Page B");
}

TEST(Kernel, AttachesToARunningBrowserByWebSocketUrl) {
  std::string profile = temp_dir();
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execl("/usr/bin/chromium", "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
          "--disable-component-update", "--no-first-run", "--disable-sync", "--remote-debugging-port=0",
          ("--user-data-dir=" + profile).c_str(), "about:blank", nullptr);
    _exit(127);
  }
  std::string port, path;
  for (int i = 0; i < 600 && path.empty(); ++i) {  // up to a minute on a loaded machine
    std::ifstream in(profile + "/DevToolsActivePort");
    std::getline(in, port);
    std::getline(in, path);
    if (path.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_FALSE(path.empty()) << "Chromium did not write DevToolsActivePort";
  // --browser auto: the first directory with a well-formed DevToolsActivePort (a garbled one and
  // one without are passed over).
  std::string garbled = temp_dir(), empty = temp_dir();
  std::ofstream(garbled + "/DevToolsActivePort") << "9222; rm -rf /\n/devtools/browser/x?y\n";
  auto found = browser::find_devtools_url({empty, garbled, profile});
  ASSERT_TRUE(found) << found.error().message;
  EXPECT_EQ(*found, "ws://127.0.0.1:" + port + path);
  auto none = browser::find_devtools_url({empty, garbled});
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("--remote-debugging-port"), std::string::npos) << none.error().message;
  EXPECT_NE(none.error().message.find("Chrome 136"), std::string::npos);
  auto opts = test_options();
  opts.browser.connect_url = *found;
  {
    auto s = session::Session::start(opts);
    ASSERT_TRUE(s) << s.error().message;
    EXPECT_FALSE((*s)->browser().process_id().has_value());
    json r = ok("const t = await openTab('{{/}}'); ({ text: await getText(t, 'h1'), n: tabs.length })", s->get());
    EXPECT_EQ(r["text"], "Fixture Home");
    EXPECT_GE(r["n"].get<int>(), 2);
  }
  // Detaching leaves the user's browser running.
  EXPECT_EQ(waitpid(pid, nullptr, WNOHANG), 0);
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

TEST(Kernel, ABrowserDestroyedWhileCommandsAndEventsAreInFlightCallsNothingAfterward) {
  auto io = net::IoThread::start();
  std::atomic<bool> gone{false};
  std::atomic<int> late{0}, answered{0}, sent{0}, frames{0};
  {
    auto b = browser::Browser::start(*io, test_options().browser);
    ASSERT_TRUE(b) << b.error().message;
    auto t = (*b)->open_tab(site().url("/console-flood?mode=many"), 10s);
    ASSERT_TRUE(t) << t.error().message;
    (*b)->set_tabs_listener([&] { late += gone.load(); });
    (*b)->notices().add_listener([&](const browser::PageNotice&) { late += gone.load(); });
    (*b)->records().add_request_observer(*t, [&](const std::string&, const browser::RequestRecord&) { late += gone.load(); });
    ASSERT_TRUE((*b)->screencast().start(*t, [&](const std::string&) {
      ++frames;
      late += gone.load();
    }));
    // Evaluations that take seconds, and browser commands with callbacks, in flight.
    for (int i = 0; i < 10; ++i)
      (*b)->send_async(*t, "Runtime.evaluate", {{"expression", "new Promise(r => setTimeout(r, 5000))"}, {"awaitPromise", true}});
    for (int i = 0; i < 50; ++i, ++sent)
      (*b)->cdp().send("Target.getTargets", json::object(), "", 30s, [&](Result<json>) {
        ++answered;
        late += gone.load();
      });
    // The page floods the console meanwhile.
    for (int i = 0; i < 1000 && (*b)->records().console(*t).size() < 100; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_GE((*b)->records().console(*t).size(), 100u) << "events were arriving";
    b->reset();
    gone = true;
    EXPECT_EQ(answered.load(), sent.load()) << "every command was answered or cancelled by the time the browser is gone";
  }
  io.reset();  // whatever the network thread still held runs or is dropped now
  EXPECT_EQ(late.load(), 0) << "a listener or callback ran after the browser was destroyed";
}

TEST(Kernel, BadEndpointsAndMissingChromiumSayWhatToDo) {
  auto io = net::IoThread::start();
  browser::BrowserOptions bad_ws;
  bad_ws.connect_url = "ws://127.0.0.1:1/devtools/browser/x";
  auto a = browser::Browser::start(*io, bad_ws);
  ASSERT_FALSE(a);
  EXPECT_NE(a.error().message.find("cannot connect to ws://127.0.0.1:1"), std::string::npos) << a.error().message;
  browser::BrowserOptions not_ws;
  not_ws.connect_url = "http://localhost:9222";
  auto b = browser::Browser::start(*io, not_ws);
  ASSERT_FALSE(b);
  EXPECT_NE(b.error().message.find("is not a ws://host:port/path URL"), std::string::npos);
  browser::BrowserOptions missing;
  missing.launch.executable = "/nonexistent/chromium";
  auto c = browser::Browser::start(*io, missing);
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("apt-get install chromium"), std::string::npos) << c.error().message;
}

}  // namespace
}  // namespace ouro::testing
