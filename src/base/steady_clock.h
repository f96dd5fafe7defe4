// The one clock's monotonic time (base/clock.h) as a std::chrono clock, for code that keeps
// time points and durations: deadlines, backoffs, the time since something happened. Its now() is
// steady_ms(), so a test's ManualClock moves these too; nothing in ouro reads
// std::chrono::steady_clock itself.
#pragma once

#include <chrono>
#include <cstdint>

#include "base/clock.h"
#include "base/wait.h"

namespace ouro {

struct SteadyClock {
  using duration = std::chrono::nanoseconds;
  using rep = duration::rep;
  using period = duration::period;
  using time_point = std::chrono::time_point<SteadyClock>;
  static constexpr bool is_steady = true;

  static time_point now() noexcept { return time_point(duration(static_cast<rep>(steady_ms() * 1e6))); }
  // The time point as milliseconds of the one clock (time_point::max() is a deadline never met).
  static double ms(time_point t) noexcept { return std::chrono::duration<double, std::milli>(t.time_since_epoch()).count(); }
};

// Waits until pred() holds (true) or the one clock reaches `deadline` (pred() then): wait_until_ms
// (base/wait.h) for a time point.
template <class ConditionVariable, class Lock, class Pred>
bool wait_until(ConditionVariable& cv, Lock& lock, SteadyClock::time_point deadline, Pred pred) {
  return wait_until_ms(cv, lock, SteadyClock::ms(deadline), pred);
}

// Waits once: for a notification, a spurious wake-up or the deadline, whichever comes first (under
// a test's clock, a few milliseconds at most); the caller then looks again at what it waits for.
// True when the deadline has passed.
template <class ConditionVariable, class Lock>
bool wait_once_until(ConditionVariable& cv, Lock& lock, SteadyClock::time_point deadline) {
  if (double left = SteadyClock::ms(deadline) - steady_ms(); left > kDeadlineSlackMs) cv.wait_for(lock, wait_slice(left));
  return !(SteadyClock::ms(deadline) - steady_ms() > kDeadlineSlackMs);
}

}  // namespace ouro
