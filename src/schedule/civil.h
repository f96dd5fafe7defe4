// Civil (proleptic Gregorian) dates and times as plain integers, with no time zone attached.
// The day-count conversions are Howard Hinnant's algorithms
// (http://howardhinnant.github.io/date_algorithms.html): exact, branch-light and constexpr.
// GCC 12's <chrono> has the calendar types but no time zone database, so the schedule module keeps
// its own small vocabulary and does not mix the two.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <compare>
#include <cstdint>
#include <string>

namespace ouro::schedule {

// The instants the schedule module works with: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z.
// Anything outside is clamped (conversions) or refused (parsers), so no arithmetic overflows.
inline constexpr int64_t kMinInstant = -62135596800;
inline constexpr int64_t kMaxInstant = 253402300799;

// A wall-clock reading: what a calendar and a clock on the wall show, in some zone.
struct CivilTime {
  int year = 1970;
  int month = 1;   // 1-12
  int day = 1;     // 1-31
  int hour = 0;    // 0-23
  int minute = 0;  // 0-59
  int second = 0;  // 0-59

  friend bool operator==(const CivilTime&, const CivilTime&) = default;
  friend auto operator<=>(const CivilTime&, const CivilTime&) = default;
};

constexpr bool is_leap_year(int64_t y) { return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0); }

constexpr int days_in_month(int64_t y, int m) {
  constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && is_leap_year(y) ? 29 : kDays[(m - 1) % 12];
}

// Days since 1970-01-01 of y-m-d (m 1-12, d 1-31).
constexpr int64_t days_from_civil(int64_t y, int m, int d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

struct CivilDate {
  int64_t year;
  int month;
  int day;
};

constexpr CivilDate civil_from_days(int64_t z) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  const int m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  return {yoe + era * 400 + (m <= 2), m, d};
}

// 0 = Sunday … 6 = Saturday, for a day count from days_from_civil.
constexpr int weekday_from_days(int64_t z) { return static_cast<int>(z >= -4 ? (z + 4) % 7 : (z + 5) % 7 + 6); }

constexpr int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// The reading of `t` on a UTC clock; `t` is clamped to [kMinInstant, kMaxInstant].
constexpr CivilTime civil_from_unix(int64_t t) {
  t = std::clamp(t, kMinInstant, kMaxInstant);
  const int64_t days = floor_div(t, 86400);
  const int64_t secs = t - days * 86400;
  const CivilDate d = civil_from_days(days);
  return {static_cast<int>(d.year), d.month, d.day, static_cast<int>(secs / 3600), static_cast<int>(secs / 60 % 60),
          static_cast<int>(secs % 60)};
}

// The instant a UTC clock shows `c` (fields outside their ranges are carried, as timegm does).
constexpr int64_t unix_from_civil(const CivilTime& c) {
  return days_from_civil(c.year, c.month, c.day) * 86400 + int64_t{c.hour} * 3600 + int64_t{c.minute} * 60 + c.second;
}

// True when every field is in its range and the day exists in its month (2026-02-29 does not).
constexpr bool is_valid_civil(const CivilTime& c) {
  return c.year >= 1 && c.year <= 9999 && c.month >= 1 && c.month <= 12 && c.day >= 1 &&
         c.day <= days_in_month(c.year, c.month) && c.hour >= 0 && c.hour <= 23 && c.minute >= 0 && c.minute <= 59 &&
         c.second >= 0 && c.second <= 59;
}

// "2026-03-29 02:30" (seconds shown only when not zero).
inline std::string to_string(const CivilTime& c) {
  if (c.second != 0)
    return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}", c.year, c.month, c.day, c.hour, c.minute, c.second);
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}", c.year, c.month, c.day, c.hour, c.minute);
}

}  // namespace ouro::schedule
