// Live views of tabs (browser/screencast.cpp): every viewer of a tab gets its JPEG frames as the
// page repaints, a viewer of another tab none of them, one viewer's stop leaves the others
// watching, the last stop ends the frames, and a tab that is not there is named.
#include "browser_env.h"

#include "browser/browser.h"
#include "browser/screencast.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace ouro::testing {
namespace {

using namespace std::chrono_literals;

// Frames one viewer got, and a wait for more of them.
struct Frames {
  std::mutex mutex;
  std::condition_variable more;
  int count = 0;
  std::string first;

  std::function<void(const std::string&)> sink() {
    return [this](const std::string& jpeg) {
      std::lock_guard lock(mutex);
      if (count++ == 0) first = jpeg.substr(0, 8);
      more.notify_all();
    };
  }
  int now() {
    std::lock_guard lock(mutex);
    return count;
  }
  // Whether the count passes `than` within 20 s.
  bool beyond(int than) {
    std::unique_lock lock(mutex);
    return more.wait_for(lock, 20s, [&] { return count > than; });
  }
};

// A tab whose page repaints on every animation frame.
std::string animated_tab(browser::Browser& b, session::Session& s) {
  auto t = b.open_tab(site().url("/"), 10s, s.context());
  if (!t) throw std::runtime_error(t.error().message);
  auto started = b.eval_page(*t, "(() => { let i = 0; const step = () => { document.body.style.background = `hsl(${i++ % 360} 80% 60%)`; "
                                 "requestAnimationFrame(step); }; step(); return 1; })()");
  if (!started) throw std::runtime_error(started.error().message);
  return *t;
}

TEST(Screencast, EveryViewerOfATabGetsItsFramesUntilItsOwnStop) {
  auto s = isolated_session();
  browser::Browser& b = s->browser();
  std::string watched = animated_tab(b, *s);
  auto other_tab = b.open_tab(site().url("/"), 10s, s->context());
  ASSERT_TRUE(other_tab) << other_tab.error().message;
  // A page paints, and so is cast, while its tab is in front.
  ASSERT_TRUE(b.switch_tab(watched));

  Frames one, two, other;
  auto a = b.screencast().start(watched, one.sink());
  auto c = b.screencast().start(watched, two.sink());
  auto o = b.screencast().start(*other_tab, other.sink());
  ASSERT_TRUE(a && c && o);
  ASSERT_TRUE(one.beyond(2)) << "no frames for the first viewer";
  ASSERT_TRUE(two.beyond(2)) << "no frames for the second viewer";
  {
    std::lock_guard lock(one.mutex);
    EXPECT_EQ(one.first.substr(0, 4), "/9j/") << "a JPEG, base64: " << one.first;
  }
  b.screencast().stop(*o);

  // One viewer stops; the other keeps getting frames.
  b.screencast().stop(*a);
  int stopped_at = two.now();
  EXPECT_TRUE(two.beyond(stopped_at + 2)) << "the second viewer lost its frames when the first stopped";

  // The last viewer stops: once the tab has answered a command sent after the stop (a session's
  // commands are answered in order, and its events come before the answer), no frame comes.
  b.screencast().stop(*c);
  ASSERT_TRUE(b.eval_page(watched, "1"));
  int one_after = one.now(), two_after = two.now();
  std::this_thread::sleep_for(1s);
  EXPECT_EQ(one.now(), one_after) << "a stopped viewer got frames";
  EXPECT_EQ(two.now(), two_after) << "frames went on after the last viewer stopped";
  (void)b.close_tab(watched);
  (void)b.close_tab(*other_tab);
}

TEST(Screencast, ATabThatIsNotThereIsNamedAndAStopOfNoViewerIsNothing) {
  browser::Browser& b = shared_session().browser();
  Frames f;
  auto r = b.screencast().start("t999999", f.sink());
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("t999999"), std::string::npos) << r.error().message;
  b.screencast().stop(-1);
  b.screencast().stop(123456);
  EXPECT_EQ(f.now(), 0);
}

}  // namespace
}  // namespace ouro::testing
