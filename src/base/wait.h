// Waiting on a condition variable until a deadline of the one clock (base/clock.h): on the
// system's clock the thread sleeps until the deadline; under a test's ManualClock, whose time moves
// only when the test moves it, it looks at the clock every few milliseconds, so that moving the
// clock past a timeout ends the wait without the test sleeping for it.
#pragma once

#include <algorithm>
#include <chrono>
#include <mutex>

#include "base/clock.h"

namespace ouro {

// True while a test's clock stands in for the system's.
bool clock_is_manual();

// How long one wait for a deadline `left_ms` away sleeps: at most an hour (a deadline far off is no
// overflow), and a few milliseconds under a test's clock (it moves only when the test moves it).
inline std::chrono::nanoseconds wait_slice(double left_ms) {
  using namespace std::chrono_literals;
  std::chrono::duration<double, std::milli> slice(std::min(left_ms, 3'600'000.0));
  if (clock_is_manual()) slice = std::min(slice, std::chrono::duration<double, std::milli>(2.0));
  return std::chrono::duration_cast<std::chrono::nanoseconds>(slice) + 1ns;
}

// A deadline at most a nanosecond ahead — the resolution of SteadyClock's time points — has been
// reached. Deadlines travel as whole nanoseconds and as a double's milliseconds, and the two
// roundings can leave a remainder of picoseconds that a test's clock, standing still, would never
// cover: waited for, it would be waited for forever.
inline constexpr double kDeadlineSlackMs = 1e-6;

// Waits until pred() holds (true) or the clock's monotonic time reaches deadline_ms (pred() then).
// A clock put in or taken away meanwhile (a test's) keeps the time that was left, on the new one.
template <class ConditionVariable, class Lock, class Pred>
bool wait_until_ms(ConditionVariable& cv, Lock& lock, double deadline_ms, Pred pred) {
  const Clock* on = &clock();
  double left = deadline_ms - on->steady_ms();
  while (!pred()) {
    if (const Clock* now_on = &clock(); now_on != on) {
      on = now_on;
      deadline_ms = on->steady_ms() + left;
    }
    left = deadline_ms - on->steady_ms();
    if (!(left > kDeadlineSlackMs)) return pred();
    cv.wait_for(lock, wait_slice(left));
  }
  return true;
}

// The same for a timeout from now.
template <class ConditionVariable, class Lock, class Rep, class Period, class Pred>
bool wait_for_ms(ConditionVariable& cv, Lock& lock, std::chrono::duration<Rep, Period> timeout, Pred pred) {
  const double ms = std::chrono::duration<double, std::milli>(timeout).count();
  return wait_until_ms(cv, lock, steady_ms() + ms, pred);
}

}  // namespace ouro
