// Cron expressions (the five fields of Vixie cron's crontab(5)) and when they next match.
//
//   minute hour day-of-month month day-of-week
//   0-59   0-23 1-31         1-12  0-7 (0 and 7 are Sunday)
//
// Each field is `*`, a number, a range `1-5`, a list `1,3,5`, or a step over either: `*/5`,
// `10-40/10` (and `5/15`, read as `5-59/15`). Months may be written JAN-DEC and days SUN-SAT, in
// any case. The macros @hourly, @daily, @midnight, @weekly, @monthly, @yearly and @annually stand
// for their usual expressions. Extensions of other crons (L, W, #, ?, a seconds field) are refused.
//
// Day rule (Vixie cron): when both day fields are restricted, a day matches when EITHER matches
// ("0 0 1 * MON": the 1st and every Monday). A field counts as unrestricted when it starts with
// `*` — also `*/2`, exactly as Vixie cron and cronie read it — and then the other field alone decides.
#pragma once

#include "base/error.h"
#include "schedule/civil.h"
#include "schedule/tz.h"

#include <bitset>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ouro::schedule {

struct CronSpec {
  std::bitset<60> minutes;
  std::bitset<24> hours;
  std::bitset<32> days_of_month;  // bits 1-31
  std::bitset<13> months;         // bits 1-12
  std::bitset<7> days_of_week;    // bit 0 = Sunday
  bool dom_unrestricted = true;   // the day-of-month field starts with '*'
  bool dow_unrestricted = true;   // the day-of-week field starts with '*'
  std::string text;               // the expression as written, trimmed

  // Whether the day y-m-d (in the expression's own zone) is one the expression runs on.
  bool matches_day(int64_t year, int month, int day) const;
  // Whether the expression runs at this wall-clock minute (seconds are ignored).
  bool matches(const CivilTime& t) const;
};

// Expressions are at most this long; a longer text is refused before it is read.
inline constexpr size_t kMaxCronChars = 1000;

// Parses an expression. Errors (InvalidArgument) name the field, the text at fault and what is
// allowed: "cron: hour field '25' is out of range 0-23". Any input gives a value or an error in
// time linear in its length.
Result<CronSpec> parse_cron(std::string_view text);

// A short English reading: "every 5 minutes", "at 08:00 on Monday through Friday",
// "at 00:00 on day 1 of the month or on Monday".
std::string describe(const CronSpec& spec);

// The first instant strictly after `after` at which `spec` fires, reading its fields as wall-clock
// times in `zone`; nullopt when it fires on none of the days of the next 8 years (e.g. "0 0 30 2 *";
// 8 years is the longest wait for a February 29, across 2100, which is not a leap year).
//
// Daylight-saving changes: a wall-clock time that is skipped fires once, when the skipped stretch
// ends (a 02:30 job runs at 03:00 on the spring-forward day, as Vixie cron runs skipped jobs
// "immediately" after the change); a wall-clock time that happens twice fires at its first
// occurrence only — unless the hour field covers every hour (`*`), where the job runs by the
// clock in both occurrences, so an every-15-minutes job does not stop for the repeated hour.
// The search visits days and hours, not minutes: at most ~3,000 day checks and a few hundred
// conversions for any expression.
std::optional<int64_t> next_match(const CronSpec& spec, const TimeZone& zone, int64_t after);

}  // namespace ouro::schedule
