// The one clock as a std::chrono clock (base/steady_clock.h): its time is the one clock's, and a
// wait for one of its deadlines ends when a test moves the clock past it.
#include "base/steady_clock.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

namespace ouro {
namespace {

TEST(SteadyClock, IsTheOneClocksMonotonicTime) {
  EXPECT_NEAR(SteadyClock::ms(SteadyClock::now()), steady_ms(), 50);
  ManualClock manual(0);
  const auto before = SteadyClock::now();
  manual.advance(90'000);
  EXPECT_NEAR((std::chrono::duration<double, std::milli>(SteadyClock::now() - before).count()), 90'000, 0.01);
  EXPECT_NEAR(SteadyClock::ms(before) + 90'000, steady_ms(), 0.01);
}

// A wait for a deadline an hour away ends when the test moves the clock an hour, not an hour later.
TEST(SteadyClock, AWaitEndsWhenTheClockPassesItsDeadline) {
  ManualClock manual(0);
  std::mutex mutex;
  std::condition_variable cv;
  std::atomic<bool> waiting{false};
  const auto deadline = SteadyClock::now() + std::chrono::hours(1);
  auto waited = std::async(std::launch::async, [&] {
    std::unique_lock lock(mutex);
    waiting = true;
    return wait_until(cv, lock, deadline, [] { return false; });
  });
  while (!waiting) std::this_thread::yield();
  EXPECT_EQ(waited.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout) << "it waits while the clock stands";
  manual.advance(3'600'000);
  ASSERT_EQ(waited.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  EXPECT_FALSE(waited.get()) << "the condition never held";

  std::unique_lock lock(mutex);
  EXPECT_TRUE(wait_once_until(cv, lock, deadline)) << "a deadline passed";
  EXPECT_FALSE(wait_once_until(cv, lock, SteadyClock::now() + std::chrono::hours(1))) << "one slice, then the caller looks again";
}

// A deadline a rounding's worth ahead of a clock that stands still is reached, not waited for
// forever (it hung this suite once: an hour's deadline, the clock moved an hour, and a few
// nanoseconds left between the two roundings).
TEST(SteadyClock, ADeadlineARoundingAheadOfAStandingClockIsReached) {
  ManualClock manual(0);
  std::mutex mutex;
  std::condition_variable cv;
  const double deadline_ms = steady_ms() + 1e-7;  // a tenth of a nanosecond ahead: a rounding's worth
  ASSERT_GT(deadline_ms, steady_ms());
  auto waited = std::async(std::launch::async, [&] {
    std::unique_lock lock(mutex);
    return wait_until_ms(cv, lock, deadline_ms, [] { return false; });
  });
  const bool ended = waited.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
  if (!ended) manual.advance(1);  // let the old wait go, so that the test fails instead of hanging
  EXPECT_TRUE(ended) << "the wait never ended while the clock stood a rounding short of its deadline";
  EXPECT_FALSE(waited.get());
}

}  // namespace
}  // namespace ouro
