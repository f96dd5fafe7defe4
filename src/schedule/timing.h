// When a scheduled task runs: once at an instant, every fixed interval, or by a cron expression
// read in a time zone. Pure: the caller passes the current time in, so tests need no clock.
// Instants are Unix seconds (int64_t) throughout.
#pragma once

#include "base/error.h"
#include "schedule/cron.h"
#include "schedule/tz.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ouro::schedule {

enum class TimingKind { Once, Every, Cron };

struct Timing {
  TimingKind kind = TimingKind::Once;
  int64_t at = 0;        // Once: the instant it runs
  int64_t interval = 0;  // Every: seconds between runs, at least kMinInterval
  CronSpec cron;         // Cron: the expression
  TimeZone zone;         // Cron: the zone its fields are read in; Once: the zone `at` was written in (for display)
  int64_t since = 0;     // when the timing was made: Every counts its intervals from here, and
                         // nothing before it counts as a missed run
};

inline constexpr int64_t kMinInterval = 60;
// Durations (intervals, "+10m") are at most ten years; longer ones are surely mistakes.
inline constexpr int64_t kMaxDuration = 3650LL * 86400;

// "30s", "15m", "1h", "2h30m", "1d", "1w", "2 hours", "90 minutes" → seconds. Units from the
// largest down, each at most once. Errors (InvalidArgument) say what was wrong and show examples.
Result<int64_t> parse_duration(std::string_view text);
// A duration of at least kMinInterval: "30s" is refused ("…the shortest interval is 1 minute").
Result<int64_t> parse_interval(std::string_view text);
// 9000 → "2h30m", 86400 → "1d".
std::string format_duration(int64_t seconds);

// An --at time, strictly after `now`:
//   "2026-12-01T08:00", "2026-12-01 08:00[:SS]", "2026-12-01" (midnight)  wall-clock time in `zone`
//     (a time skipped by a DST change moves forward by the change, 02:30 → 03:30; a repeated one is
//     its first occurrence);
//   the same followed by "Z" or an offset ("+01:00", "-0500", "+02")  that exact instant;
//   "08:00" or "08:00:30"  the next time the clock in `zone` shows it (today or tomorrow);
//   "+10m", "in 2h", "in 2h30m", "in 90 minutes"  relative to `now`.
// Errors (InvalidArgument): unreadable text, impossible dates (2026-02-30), times in the past.
Result<int64_t> parse_at(std::string_view text, const TimeZone& zone, int64_t now);

// A timing of the given kind from what a person wrote (--at, --every, --cron), made at `now`.
Result<Timing> parse_timing(TimingKind kind, std::string_view text, const TimeZone& zone, int64_t now);
// The same from one string: "every 15m", "at 2026-12-01 08:00", "in 2h", "+10m", "cron 0 8 * * 1-5",
// a bare five-field expression or @macro, or a bare --at time.
Result<Timing> parse_timing(std::string_view text, const TimeZone& zone, int64_t now);

// The first run strictly after `after`; nullopt when there is none (a past Once, a cron expression
// that never matches within 8 years).
std::optional<int64_t> next_fire(const Timing& timing, int64_t after);

// What to do about runs that fell due while ouro was not running.
enum class Missed {
  RunOnce,  // run once at start, however many were missed
  Skip,     // run none of them; wait for the next
};

struct StartDecision {
  bool run_now = false;                 // a missed run happens at start
  std::optional<int64_t> first_missed;  // the earliest run that fell due before `now`, if any
  std::optional<int64_t> next;          // the next run (after the one at start, if any); may equal
                                        // `now` when a run is due exactly now; nullopt when none
};

// The decision at start, given the last time the task ran (nullopt: never) and the time now. A run
// due before `now` and after the last run (or after timing.since) was missed. A clock that moved
// backwards (last > now) misses nothing and does not run the task again before its next time.
StartDecision decide_start(const Timing& timing, std::optional<int64_t> last_fire, int64_t now, Missed policy);

// "every 2h30m", "once at 2026-12-01 08:00 CET (Europe/Berlin)",
// "at 08:00 on Monday through Friday (Europe/Berlin)".
std::string describe(const Timing& timing);

}  // namespace ouro::schedule
