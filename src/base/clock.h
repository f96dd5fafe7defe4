// The one clock: wall time (Unix epoch) for what is recorded and scheduled, monotonic time for
// deadlines and timeouts, both in milliseconds. Everything in ouro reads time here, so a test can
// install a clock it moves (ManualClock) instead of sleeping.
#pragma once

#include <cstdint>
#include <memory>

namespace ouro {

class Clock {
 public:
  virtual ~Clock() = default;
  // Milliseconds since the Unix epoch, with their fraction (records, schedules).
  virtual double wall_ms() const = 0;
  // Milliseconds of a clock that never goes back (deadlines, timeouts, durations).
  virtual double steady_ms() const = 0;
};

// The clock in use: the system's, unless a test installed another.
const Clock& clock();

// Wall time: milliseconds since the epoch (with the fraction, and whole), and seconds.
inline double wall_ms() { return clock().wall_ms(); }
inline int64_t wall_ms_whole() { return static_cast<int64_t>(clock().wall_ms()); }
inline double wall_seconds() { return clock().wall_ms() / 1000.0; }
inline int64_t wall_seconds_whole() { return static_cast<int64_t>(clock().wall_ms() / 1000.0); }
// Monotonic time in milliseconds.
inline double steady_ms() { return clock().steady_ms(); }

// A clock a test sets and moves. While one is alive it is the clock (the last one made wins);
// when it goes, the one before it is back. Any thread may read it; move it from the test's.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(double wall_ms_at_start);
  ~ManualClock() override;
  ManualClock(const ManualClock&) = delete;
  ManualClock& operator=(const ManualClock&) = delete;
  double wall_ms() const override;
  double steady_ms() const override;
  // Moves both times forward by ms (never back).
  void advance(double ms);
  // Sets the wall time (forward or back, as a system clock can be set); steady time moves on by
  // the difference when it is forward.
  void set_wall(double wall_ms);

 private:
  struct State;
  std::unique_ptr<State> m;
  const Clock* m_previous;
};

}  // namespace ouro
