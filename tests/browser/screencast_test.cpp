// Live views of tabs (browser/screencast.cpp): every viewer of a tab gets its JPEG frames as the
// page repaints, one viewer's stop leaves the others watching, the last stop ends the cast and a
// new viewer starts it again, and a tab that is not there is named.
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
  // A page paints, and so is cast, while its tab is in front.
  if (auto front = b.switch_tab(*t); !front) throw std::runtime_error(front.error().message);
  auto started = b.eval_page(*t, "(() => { let i = 0; const step = () => { document.body.style.background = `hsl(${i++ % 360} 80% 60%)`; "
                                 "requestAnimationFrame(step); }; step(); return 1; })()");
  if (!started) throw std::runtime_error(started.error().message);
  return *t;
}

// The viewers a test started, stopped when it ends however it ends (a viewer's sink is the test's).
struct Viewers {
  browser::Browser& b;
  std::vector<int> ids;
  int start(const std::string& tab, Frames& f) {
    auto id = b.screencast().start(tab, f.sink());
    EXPECT_TRUE(id) << id.error().message;
    if (!id) return -1;
    ids.push_back(*id);
    return *id;
  }
  void stop(int id) {
    b.screencast().stop(id);
    std::erase(ids, id);
  }
  ~Viewers() {
    for (int id : ids) b.screencast().stop(id);
  }
};

TEST(Screencast, EveryViewerOfATabGetsItsFramesUntilItsOwnStop) {
  auto s = isolated_session();
  browser::Browser& b = s->browser();
  std::string watched = animated_tab(b, *s);
  Frames one, two, again;  // declared before the viewers, which stop before these go
  Viewers viewers{b, {}};
  int a = viewers.start(watched, one), c = viewers.start(watched, two);
  ASSERT_TRUE(one.beyond(2)) << "no frames for the first viewer";
  ASSERT_TRUE(two.beyond(2)) << "no frames for the second viewer";
  {
    std::lock_guard lock(one.mutex);
    EXPECT_EQ(one.first.substr(0, 4), "/9j/") << "a JPEG, base64: " << one.first;
  }

  // One viewer stops; the other keeps getting frames.
  viewers.stop(a);
  int two_stopped = two.now();
  EXPECT_TRUE(two.beyond(two_stopped + 2)) << "the second viewer lost its frames when the first stopped";

  // The last viewer stops, and the cast with it: a new viewer then starts it again.
  viewers.stop(c);
  viewers.start(watched, again);
  EXPECT_TRUE(again.beyond(2)) << "a viewer after the last stop got no frames: the cast was not started again";
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
