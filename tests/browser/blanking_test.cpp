// Ending what a run left running in its pages (browser/blanking.cpp), on real headless Chromium:
// every tab goes blank within the budget however many frames do not answer, a tab that cannot be
// blanked has its renderer crashed, and either way the page's timer sends nothing more. Each test
// works in a browser context of its own (a crash takes its renderer process with it, and
// processes are never shared across contexts).
#include "browser/shared_tabs.h"
#include "browser_env.h"

#include <chrono>
#include <thread>

namespace ouro::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Every 25 ms the page asks the fixture site for PATH (a timer a run could have planted).
std::string plant_timer(const std::string& path) {
  return "setInterval(() => fetch('" + path + "?' + Math.random()).catch(() => 0), 25); 1";
}

// Opens `n` tabs of `path` in the session's own context, each with the timer planted that asks
// for `timer_path`; empty (the test failed) when one cannot be opened.
std::vector<std::string> tabs_sending(session::Session& s, const std::string& path, int n, const std::string& timer_path) {
  std::vector<std::string> tabs;
  for (int i = 0; i < n; ++i) {
    auto t = s.browser().open_tab(site().url(path), 10s, s.context());
    if (!t) {
      ADD_FAILURE() << "opening " << path << ": " << t.error().message;
      return {};
    }
    ok("await execInTab('" + *t + "', " + json(plant_timer(timer_path)).dump() + ")", &s);
    tabs.push_back(*t);
  }
  return tabs;
}

// Polls until the fixture site has seen `n` requests under `prefix` (false after 10 s).
bool sends(const std::string& prefix, int n) {
  for (auto until = Clock::now() + 10s; Clock::now() < until; std::this_thread::sleep_for(20ms))
    if (site().hits(prefix) >= n) return true;
  return false;
}

// The tab as the context lists it (a crashed tab is listed, though it answers nothing).
browser::TabInfo listed(session::Session& s, const std::string& id) {
  for (const auto& t : s.browser().tabs(s.context()))
    if (t.id == id) return t;
  return {};
}

// What arrives under `prefix` in one second, from 300 ms after the call (a request already on the
// wire as the page stopped may still land in those 300 ms). A live 25 ms timer sends about 40.
int sent_later(const std::string& prefix) {
  std::this_thread::sleep_for(300ms);
  const int before = site().hits(prefix);
  std::this_thread::sleep_for(1s);
  return site().hits(prefix) - before;
}

TEST(Blanking, EveryTabGoesBlankInTimeThoughItsFramesDoNotAnswer) {
  auto s = isolated_session();
  // A tab with four other-site frames whose one renderer is kept busy for 30 s once the page has
  // loaded: it answers nothing meanwhile. Asked one frame after another (2 s each, twice), they
  // would spend the whole budget before the tab was even told to go; a frame that does not answer
  // is crashed instead (its unload handler would run once it is free, its requests unjudged).
  auto tabs = tabs_sending(*s, "/pcd/busyframes", 1, "/blanking/busy");
  ASSERT_EQ(tabs.size(), 1u);
  ASSERT_TRUE(sends("/pcd/holdframe", 4));
  ASSERT_TRUE(sends("/blanking/busy", 20));
  auto began = Clock::now();
  auto left = s->browser().shared().blank(tabs, 10s);
  auto took = Clock::now() - began;
  EXPECT_TRUE(left.empty()) << left.size() << " tab did not go blank";
  EXPECT_LT(took, 10s);
  for (const auto& t : tabs) EXPECT_EQ(listed(*s, t).url, "about:blank");
  EXPECT_EQ(sent_later("/blanking/busy"), 0) << "a blanked page's timer still sends";
}

TEST(Blanking, ACrashedTabRunsNothingMore) {
  auto s = isolated_session();
  auto tabs = tabs_sending(*s, "/b", 1, "/blanking/crash");
  ASSERT_EQ(tabs.size(), 1u);
  ASSERT_TRUE(sends("/blanking/crash", 10));
  EXPECT_EQ(s->browser().shared().crash(tabs, 5s), 0u);
  EXPECT_EQ(listed(*s, tabs[0]).status, "crashed");
  EXPECT_EQ(sent_later("/blanking/crash"), 0) << "a crashed page's timer still sends";
  // A tab that is gone or already crashed is not running: nothing to wait for.
  EXPECT_EQ(s->browser().shared().crash({tabs[0], "t99999"}, 1s), 0u);
}

TEST(Blanking, StoppingPagesThatHadNoTimeToGoBlankCrashesThem) {
  auto s = isolated_session();
  auto tabs = tabs_sending(*s, "/b", 2, "/blanking/stop");
  ASSERT_EQ(tabs.size(), 2u);
  ASSERT_TRUE(sends("/blanking/stop", 20));
  // No time at all to go blank: every tab is left to the crash, which stops them all.
  EXPECT_TRUE(s->browser().shared().stop_pages(tabs, 0ms, 5s));
  EXPECT_EQ(sent_later("/blanking/stop"), 0) << "a stopped page's timer still sends";
  for (const auto& t : tabs) {
    auto info = listed(*s, t);
    EXPECT_TRUE(info.status == "crashed" || info.url == "about:blank") << t << ": " << info.status << " " << info.url;
  }
}

}  // namespace
}  // namespace ouro::testing
