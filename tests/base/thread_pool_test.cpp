// The bounded pool behind host calls: work past the queue's bound is refused, not buffered, and a
// task that throws costs only itself.
#include "base/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <stdexcept>

namespace ouro {
namespace {

TEST(ThreadPool, RefusesWorkPastTheQueueBoundAndSurvivesThrowingTasks) {
  std::mutex m;
  std::condition_variable cv;
  bool release = false;
  std::atomic<int> ran{0}, started{0};
  {
    ThreadPool pool(2, 3);
    auto blocker = [&] {
      ++started;
      std::unique_lock lock(m);
      cv.wait(lock, [&] { return release; });
      ++ran;
    };
    ASSERT_TRUE(pool.try_post(blocker));
    ASSERT_TRUE(pool.try_post(blocker));
    // Both threads are busy once both blockers started; then the queue holds exactly 3.
    while (started < 2) std::this_thread::yield();
    EXPECT_TRUE(pool.try_post([&] { throw std::runtime_error("boom"); }));
    EXPECT_TRUE(pool.try_post([&] { ++ran; }));
    EXPECT_TRUE(pool.try_post([&] { ++ran; }));
    EXPECT_FALSE(pool.try_post([&] { ++ran; })) << "a fourth waiting task is refused";
    {
      std::lock_guard lock(m);
      release = true;
    }
    cv.notify_all();
  }  // the destructor finishes queued work, the throwing task included, then joins
  EXPECT_EQ(ran, 4) << "the two blockers and the two tasks after the one that threw";
}

}  // namespace
}  // namespace ouro
