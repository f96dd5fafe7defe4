// Cron expressions: what parses and what does not (with the messages a person sees), the Vixie
// day rule, and next_match — in UTC against a minute-by-minute brute force, and in Europe/Berlin
// and America/New_York across their DST changes.
#include "schedule/cron.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <vector>

namespace ouro::schedule {
namespace {

using namespace std::literals;

CronSpec cron(std::string_view text) {
  auto r = parse_cron(text);
  EXPECT_TRUE(r) << text << ": " << (r ? "" : r.error().message);
  return r ? *r : CronSpec{};
}

std::string error_of(std::string_view text) {
  auto r = parse_cron(text);
  if (r) return "parsed";
  EXPECT_EQ(r.error().code, Code::InvalidArgument) << text;
  return r.error().message;
}

template <size_t N>
std::vector<int> values(const std::bitset<N>& b) {
  std::vector<int> out;
  for (size_t i = 0; i < N; ++i)
    if (b[i]) out.push_back(static_cast<int>(i));
  return out;
}

int64_t utc(int y, int mo, int d, int h = 0, int mi = 0, int s = 0) { return unix_from_civil({y, mo, d, h, mi, s}); }

std::optional<int64_t> next_utc(std::string_view expr, int64_t after) { return next_match(cron(expr), TimeZone(), after); }

bool have_tzdata() {
  struct stat st {};
  return ::stat("/usr/share/zoneinfo/Europe/Berlin", &st) == 0;
}

TimeZone zone(std::string_view name) {
  auto z = TimeZone::load(name, "/usr/share/zoneinfo");
  EXPECT_TRUE(z) << name;
  return z ? *z : TimeZone();
}

#define REQUIRE_TZDATA() \
  if (!have_tzdata()) GTEST_SKIP() << "/usr/share/zoneinfo is missing; scripts/setup.sh installs tzdata"

// ---- parsing -------------------------------------------------------------------------------------

TEST(Cron, ParsesFieldForms) {
  const CronSpec every5 = cron("*/5 * * * *");
  EXPECT_EQ(values(every5.minutes), (std::vector<int>{0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55}));
  EXPECT_TRUE(every5.hours.all());
  EXPECT_EQ(values(cron("10-40/10 * * * *").minutes), (std::vector<int>{10, 20, 30, 40}));
  EXPECT_EQ(values(cron("1,3,5 * * * *").minutes), (std::vector<int>{1, 3, 5}));
  EXPECT_EQ(values(cron("0 9-17 * * *").hours), (std::vector<int>{9, 10, 11, 12, 13, 14, 15, 16, 17}));
  EXPECT_EQ(values(cron("5/20 * * * *").minutes), (std::vector<int>{5, 25, 45}));  // start/step runs to the end
  EXPECT_EQ(values(cron("0 0 1,15,31 * *").days_of_month), (std::vector<int>{1, 15, 31}));
  EXPECT_EQ(values(cron("0 0 * JAN,mar-May,Dec *").months), (std::vector<int>{1, 3, 4, 5, 12}));
  EXPECT_EQ(values(cron("0 0 * * mon-FRI").days_of_week), (std::vector<int>{1, 2, 3, 4, 5}));
  EXPECT_EQ(values(cron("0 0 * * 7").days_of_week), (std::vector<int>{0}));  // 7 is Sunday
  EXPECT_EQ(values(cron("0 0 * * 5-7").days_of_week), (std::vector<int>{0, 5, 6}));
  EXPECT_EQ(values(cron("0 0 * * SAT-SUN").days_of_week), (std::vector<int>{0, 6}));
  EXPECT_EQ(values(cron("0 0 * * */2").days_of_week), (std::vector<int>{0, 2, 4, 6}));
  EXPECT_EQ(values(cron("0-59/30,7 * * * *").minutes), (std::vector<int>{0, 7, 30}));
  EXPECT_EQ(cron("  */5\t*  * * *\n").text, "*/5\t*  * * *");  // surrounding space trimmed, any space between fields
}

TEST(Cron, Macros) {
  struct Case {
    std::string_view macro, same_as;
  };
  for (const Case& c : {Case{"@hourly", "0 * * * *"}, Case{"@daily", "0 0 * * *"}, Case{"@midnight", "0 0 * * *"},
                        Case{"@weekly", "0 0 * * 0"}, Case{"@monthly", "0 0 1 * *"}, Case{"@yearly", "0 0 1 1 *"},
                        Case{"@annually", "0 0 1 1 *"}, Case{"@DAILY", "0 0 * * *"}}) {
    const CronSpec a = cron(c.macro), b = cron(c.same_as);
    EXPECT_EQ(a.minutes, b.minutes) << c.macro;
    EXPECT_EQ(a.hours, b.hours) << c.macro;
    EXPECT_EQ(a.days_of_month, b.days_of_month) << c.macro;
    EXPECT_EQ(a.months, b.months) << c.macro;
    EXPECT_EQ(a.days_of_week, b.days_of_week) << c.macro;
    EXPECT_EQ(a.text, c.macro);
  }
  EXPECT_NE(error_of("@reboot").find("@hourly"), std::string::npos);
  EXPECT_NE(error_of("@every 5m").find("not a macro"), std::string::npos);
}

TEST(Cron, ErrorsNameTheFieldTheTextAndTheRange) {
  EXPECT_EQ(error_of("0 25 * * *"), "cron: hour field '25' is out of range 0-23");
  EXPECT_EQ(error_of("60 * * * *"), "cron: minute field '60' is out of range 0-59");
  EXPECT_EQ(error_of("0 0 0 * *"), "cron: day-of-month field '0' is out of range 1-31");
  EXPECT_EQ(error_of("0 0 32 * *"), "cron: day-of-month field '32' is out of range 1-31");
  EXPECT_EQ(error_of("0 0 * 13 *"), "cron: month field '13' is out of range 1-12");
  EXPECT_EQ(error_of("0 0 * * 8"), "cron: day-of-week field '8' is out of range 0-7");
  EXPECT_EQ(error_of("0 0-24 * * *"), "cron: hour field '24' is out of range 0-23");
  EXPECT_EQ(error_of("*/0 * * * *"), "cron: minute field step '0' is out of range 1-59");
  EXPECT_EQ(error_of("* */24 * * *"), "cron: hour field step '24' is out of range 1-23");
  EXPECT_EQ(error_of("1,,2 * * * *"), "cron: minute field '1,,2' has an empty list item");
  EXPECT_EQ(error_of(", * * * *"), "cron: minute field ',' has an empty list item");
  EXPECT_EQ(error_of("5,* * * *"), "cron: expected 5 fields (minute hour day-of-month month day-of-week), got 4 in '5,* * * *'");
  EXPECT_NE(error_of("-5 * * * *").find("minute field '-5' is negative"), std::string::npos);
  EXPECT_NE(error_of("5x * * * *").find("minute field '5x' is not a number"), std::string::npos);
  EXPECT_NE(error_of("0 0 * JANUARY *").find("months go 1-12 or JAN-DEC"), std::string::npos);
  EXPECT_NE(error_of("0 0 * * MON-FRIX").find("day-of-week field 'FRIX'"), std::string::npos);
  EXPECT_NE(error_of("0 0 * * MON-").find("missing end"), std::string::npos);
  EXPECT_NE(error_of("30-10 * * * *").find("runs backwards"), std::string::npos);
  EXPECT_NE(error_of("*/ * * * *").find("step '' in '*/' is not a number"), std::string::npos);
  EXPECT_NE(error_of("*/5/2 * * * *").find("is not a number"), std::string::npos);
  EXPECT_NE(error_of("0 0 L * *").find("extension"), std::string::npos);
  EXPECT_NE(error_of("0 0 15W * *").find("extension"), std::string::npos);
  EXPECT_NE(error_of("0 0 * * 5#3").find("extension"), std::string::npos);
  EXPECT_NE(error_of("0 0 ? * 1").find("extension"), std::string::npos);
  EXPECT_NE(error_of("* * * *").find("got 4"), std::string::npos);
  EXPECT_NE(error_of("0 * * * * *").find("seconds or year field"), std::string::npos);
  EXPECT_NE(error_of("").find("is empty"), std::string::npos);
  EXPECT_NE(error_of(" \t\n").find("is empty"), std::string::npos);
}

TEST(Cron, HostileInputGivesErrorsQuickly) {
  EXPECT_EQ(error_of("99999999999999999999 * * * *"), "cron: minute field '99999999999999999999' is out of range 0-59");
  EXPECT_EQ(error_of("0 4294967296 * * *"), "cron: hour field '4294967296' is out of range 0-23");
  EXPECT_NE(error_of("*/99999999999999999999 * * * *").find("step"), std::string::npos);
  EXPECT_NE(error_of(std::string(10240, '1')).find("10240 characters"), std::string::npos);
  EXPECT_NE(error_of(std::string(10240, ' ')).find("characters"), std::string::npos);
  // Long but under the cap: a list of 499 items is read, and a 999-character number is out of range.
  std::string list = "0";
  while (list.size() + 2 < 990) list += ",1";
  EXPECT_TRUE(parse_cron(list + " * * * *"));
  EXPECT_NE(error_of(std::string(990, '9') + " * * * *").find("out of range"), std::string::npos);
  EXPECT_NE(error_of("0 0 * * *junk").find("day-of-week field '*junk'"), std::string::npos);
  EXPECT_NE(error_of("0 0 * * * ;rm -rf /").find("got 8"), std::string::npos);
  EXPECT_NE(error_of("\0 0 * * *"sv).find("minute field"), std::string::npos);
  EXPECT_NE(error_of("0 0 * * \xff\xfe"sv).find("day-of-week"), std::string::npos);
  // A message quotes at most a bounded piece of a long field.
  EXPECT_LT(error_of(std::string(900, 'x') + " * * * *").size(), 300u);

  // Random texts over the characters cron uses, shaped like five fields and then damaged a
  // little: each gives a value or an error, and whatever parses gets a next time (or none)
  // without a long search.
  const std::string_view alphabet = "0123456789*/-, LW#?@aJANMONfriSUN\t";
  const std::vector<std::string_view> tokens = {"*", "MON", "jan", "sun", "L", "", "-"};
  const std::string_view separators = ",-/";
  constexpr uint64_t kTop[] = {62, 26, 34, 15, 10};  // a little past each field's range
  uint64_t seed = 42;
  auto rnd = [&](uint64_t n) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (seed >> 33) % n;
  };
  const auto start = std::chrono::steady_clock::now();
  int parsed = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    for (int f = 0; f < 5; ++f) {
      if (f > 0) text += ' ';
      const int pieces = 1 + static_cast<int>(rnd(3));
      for (int k = 0; k < pieces; ++k) {
        if (k > 0) text += separators[rnd(separators.size())];
        text += rnd(4) == 0 ? std::string(tokens[rnd(tokens.size())]) : std::to_string(rnd(kTop[f]));
      }
    }
    if (rnd(4) == 0 && !text.empty()) text[rnd(text.size())] = alphabet[rnd(alphabet.size())];
    auto r = parse_cron(text);
    if (!r) {
      ASSERT_FALSE(r.error().message.empty());
      continue;
    }
    ++parsed;
    (void)next_match(*r, TimeZone(), utc(2026, 1, 1) + static_cast<int64_t>(rnd(100000000)));
  }
  EXPECT_GT(parsed, 100);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
}

// ---- the day rule ----------------------------------------------------------------------------------

TEST(Cron, DayOfMonthOrDayOfWeekWhenBothAreRestricted) {
  const CronSpec first_or_monday = cron("0 0 1 * MON");
  EXPECT_TRUE(first_or_monday.matches_day(2026, 4, 1));   // a Wednesday, but the 1st
  EXPECT_TRUE(first_or_monday.matches_day(2026, 3, 9));   // a Monday
  EXPECT_FALSE(first_or_monday.matches_day(2026, 3, 10));
  EXPECT_EQ(next_utc("0 0 1 * 1", utc(2026, 3, 6)), utc(2026, 3, 9));   // Monday comes first
  EXPECT_EQ(next_utc("0 0 1 * 1", utc(2026, 3, 30)), utc(2026, 4, 1));  // then the 1st, before Monday the 6th

  // Only one restricted: it alone decides.
  EXPECT_FALSE(cron("0 0 1 * *").matches_day(2026, 3, 9));
  EXPECT_TRUE(cron("0 0 * * 1").matches_day(2026, 3, 9));
  EXPECT_FALSE(cron("0 0 * * 1").matches_day(2026, 4, 1));

  // A field led by '*' counts as unrestricted (Vixie cron): odd days AND Fridays, not odd days OR Fridays.
  const CronSpec odd_fridays = cron("0 0 */2 * 5");
  EXPECT_TRUE(odd_fridays.dom_unrestricted);
  EXPECT_EQ(next_utc("0 0 */2 * 5", utc(2026, 3, 6)), utc(2026, 3, 13));
  EXPECT_EQ(next_utc("0 0 1-31/2 * 5", utc(2026, 3, 6)), utc(2026, 3, 7));  // the same days written without '*': OR

  // February 30 never exists, but Mondays in February do.
  EXPECT_EQ(next_utc("0 0 30 2 1", utc(2026, 1, 1)), utc(2026, 2, 2));
}

// ---- next_match in UTC -----------------------------------------------------------------------------

TEST(Cron, EveryFiveMinutes) {
  EXPECT_EQ(next_utc("*/5 * * * *", utc(2026, 3, 6, 10, 2)), utc(2026, 3, 6, 10, 5));
  EXPECT_EQ(next_utc("*/5 * * * *", utc(2026, 3, 6, 10, 4, 59)), utc(2026, 3, 6, 10, 5));
  EXPECT_EQ(next_utc("*/5 * * * *", utc(2026, 3, 6, 10, 5)), utc(2026, 3, 6, 10, 10));  // strictly after
  EXPECT_EQ(next_utc("*/5 * * * *", utc(2026, 12, 31, 23, 58)), utc(2027, 1, 1));
  int64_t t = utc(2026, 3, 6, 10, 2);
  for (int i = 0; i < 20; ++i) t = *next_utc("*/5 * * * *", t);
  EXPECT_EQ(t, utc(2026, 3, 6, 11, 40));
}

TEST(Cron, WeekdaysAtEightAcrossAWeekend) {
  EXPECT_EQ(next_utc("0 8 * * 1-5", utc(2026, 3, 6, 7, 59, 59)), utc(2026, 3, 6, 8));  // Friday
  EXPECT_EQ(next_utc("0 8 * * 1-5", utc(2026, 3, 6, 8)), utc(2026, 3, 9, 8));         // to Monday
  EXPECT_EQ(next_utc("0 8 * * MON-FRI", utc(2026, 3, 7, 12)), utc(2026, 3, 9, 8));    // from Saturday
}

TEST(Cron, LeapDaysAndExpressionsThatNeverMatch) {
  EXPECT_EQ(next_utc("0 0 29 2 *", utc(2025, 1, 1)), utc(2028, 2, 29));
  EXPECT_EQ(next_utc("0 0 29 2 *", utc(2024, 2, 29)), utc(2028, 2, 29));
  EXPECT_EQ(next_utc("0 12 29 2 *", utc(2024, 2, 29)), utc(2024, 2, 29, 12));
  EXPECT_EQ(next_utc("0 0 29 2 *", utc(2096, 3, 1)), utc(2104, 2, 29));  // 2100 is not a leap year
  EXPECT_FALSE(cron("0 0 29 2 *").matches_day(2100, 2, 29));

  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(next_utc("0 0 30 2 *", utc(2026, 1, 1)), std::nullopt);
  EXPECT_EQ(next_utc("* * 31 4,6,9,11 *", utc(2026, 1, 1)), std::nullopt);
  EXPECT_EQ(next_utc("59 23 31 2 *", utc(1970, 1, 1)), std::nullopt);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));

  EXPECT_EQ(next_utc("* * * * *", kMaxInstant), std::nullopt);
  EXPECT_EQ(next_utc("59 23 31 12 *", utc(9999, 12, 31, 23, 59)), std::nullopt);
  EXPECT_EQ(next_utc("* * * * *", INT64_MIN), utc(1, 1, 1, 0, 1));
  EXPECT_EQ(next_utc("@yearly", utc(2026, 3, 6)), utc(2027, 1, 1));
}

// The search skips days and hours; a minute-by-minute walk over 45 days must agree with it.
TEST(Cron, AgreesWithBruteForceInUtc) {
  uint64_t seed = 7;
  auto rnd = [&](int n) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int>((seed >> 33) % static_cast<uint64_t>(n));
  };
  auto field = [&](int lo, int hi) -> std::string {
    const int a = lo + rnd(hi - lo + 1), b = a + rnd(hi - a + 1);
    switch (rnd(6)) {
      case 0: return "*";
      case 1: return "*/" + std::to_string(1 + rnd(hi - lo));
      case 2: return std::to_string(a);
      case 3: return std::to_string(a) + "-" + std::to_string(b);
      case 4: return std::to_string(a) + "-" + std::to_string(b) + "/" + std::to_string(1 + rnd(hi - lo));
      default: return std::to_string(a) + "," + std::to_string(lo + rnd(hi - lo + 1));
    }
  };
  for (int i = 0; i < 120; ++i) {
    const std::string expr = field(0, 59) + " " + field(0, 23) + " " + field(1, 31) + " " + field(1, 12) + " " + field(0, 6);
    const CronSpec spec = cron(expr);
    const int64_t after = utc(2026, 1, 1) + rnd(400) * 86400LL + rnd(86400);
    const auto got = next_match(spec, TimeZone(), after);
    std::optional<int64_t> want;
    const int64_t horizon = after + 45 * 86400LL;
    for (int64_t t = (after / 60 + 1) * 60; t <= horizon && !want; t += 60)
      if (spec.matches(civil_from_unix(t))) want = t;
    if (want) {
      EXPECT_EQ(got, want) << expr << " after " << to_string(civil_from_unix(after));
    } else {
      EXPECT_TRUE(!got || *got > horizon) << expr << " after " << to_string(civil_from_unix(after));
    }
  }
}

// ---- next_match across DST changes ------------------------------------------------------------------

TEST(Cron, EightOClockStaysEightOClockAcrossDstInBerlin) {
  REQUIRE_TZDATA();
  const TimeZone berlin = zone("Europe/Berlin");
  const CronSpec daily8 = cron("0 8 * * *");
  // Spring: 08:00 CET is 07:00Z, 08:00 CEST 06:00Z.
  EXPECT_EQ(next_match(daily8, berlin, utc(2024, 3, 29, 12)), utc(2024, 3, 30, 7));
  EXPECT_EQ(next_match(daily8, berlin, utc(2024, 3, 30, 7)), utc(2024, 3, 31, 6));
  EXPECT_EQ(next_match(daily8, berlin, utc(2024, 3, 31, 6)), utc(2024, 4, 1, 6));
  // Autumn, back again.
  EXPECT_EQ(next_match(daily8, berlin, utc(2024, 10, 26, 6)), utc(2024, 10, 27, 7));
  int64_t t = utc(2024, 3, 1);
  for (int i = 0; i < 400; ++i) {
    t = *next_match(daily8, berlin, t);
    ASSERT_EQ(berlin.to_local(t).hour, 8) << t;
    ASSERT_EQ(berlin.to_local(t).minute, 0) << t;
  }
}

TEST(Cron, WeekdaysAtEightAcrossTheUsChange) {
  REQUIRE_TZDATA();
  const TimeZone ny = zone("America/New_York");
  // Friday 2024-03-08 08:00 EST, then Monday 2024-03-11 08:00 EDT (DST began on the Sunday).
  EXPECT_EQ(next_match(cron("0 8 * * 1-5"), ny, utc(2024, 3, 8, 12)), utc(2024, 3, 8, 13));
  EXPECT_EQ(next_match(cron("0 8 * * 1-5"), ny, utc(2024, 3, 8, 13)), utc(2024, 3, 11, 12));
}

TEST(Cron, JobInTheSkippedHourRunsWhenTheGapEnds) {
  REQUIRE_TZDATA();
  const TimeZone berlin = zone("Europe/Berlin");
  const CronSpec at0230 = cron("30 2 * * *");
  EXPECT_EQ(next_match(at0230, berlin, utc(2024, 3, 30, 2)), utc(2024, 3, 31, 1));  // 03:00 CEST, once
  EXPECT_EQ(berlin.to_local(utc(2024, 3, 31, 1)), (CivilTime{2024, 3, 31, 3, 0, 0}));
  EXPECT_EQ(next_match(at0230, berlin, utc(2024, 3, 31, 1)), utc(2024, 4, 1, 0, 30));  // 02:30 CEST the next day

  const TimeZone ny = zone("America/New_York");
  // Every quarter hour of 02:xx on the spring-forward day collapses into one run at 03:00 EDT.
  const CronSpec quarter_past_two = cron("*/15 2 * * *");
  EXPECT_EQ(next_match(quarter_past_two, ny, utc(2024, 3, 10, 5)), 1710054000);
  EXPECT_EQ(next_match(quarter_past_two, ny, 1710054000), utc(2024, 3, 11, 6));  // 02:00 EDT on Monday
  // An every-30-minutes job: 01:30 EST, 03:00 EDT (the 02:00 and 02:30 readings do not exist), 03:30 EDT.
  const CronSpec half_hourly = cron("*/30 * * * *");
  int64_t t = utc(2024, 3, 10, 6, 15);
  std::vector<int64_t> runs;
  for (int i = 0; i < 3; ++i) runs.push_back(t = *next_match(half_hourly, ny, t));
  EXPECT_EQ(runs, (std::vector<int64_t>{utc(2024, 3, 10, 6, 30), utc(2024, 3, 10, 7), utc(2024, 3, 10, 7, 30)}));
}

TEST(Cron, RepeatedHourRunsOnceUnlessTheHourFieldIsStar) {
  REQUIRE_TZDATA();
  const TimeZone berlin = zone("Europe/Berlin");
  const CronSpec at0230 = cron("30 2 * * *");
  EXPECT_EQ(next_match(at0230, berlin, utc(2024, 10, 26, 12)), utc(2024, 10, 27, 0, 30));  // 02:30 CEST
  EXPECT_EQ(next_match(at0230, berlin, utc(2024, 10, 27, 0, 30)), utc(2024, 10, 28, 1, 30));  // not 02:30 CET again

  const TimeZone ny = zone("America/New_York");
  const CronSpec at0130 = cron("30 1 * * *");
  EXPECT_EQ(next_match(at0130, ny, utc(2024, 11, 3, 4)), 1730611800);                      // 01:30 EDT
  EXPECT_EQ(next_match(at0130, ny, 1730611800), utc(2024, 11, 4, 6, 30));                   // next day, 01:30 EST
  // Every 30 minutes keeps running through both 01:xx hours.
  const CronSpec half_hourly = cron("*/30 * * * *");
  int64_t t = utc(2024, 11, 3, 4, 45);  // 00:45 EDT
  std::vector<int64_t> runs;
  for (int i = 0; i < 5; ++i) runs.push_back(t = *next_match(half_hourly, ny, t));
  EXPECT_EQ(runs, (std::vector<int64_t>{utc(2024, 11, 3, 5), utc(2024, 11, 3, 5, 30), utc(2024, 11, 3, 6),
                                        utc(2024, 11, 3, 6, 30), utc(2024, 11, 3, 7)}));
  // Asked from inside the second 01:xx hour, the next run is in it too.
  EXPECT_EQ(next_match(half_hourly, ny, utc(2024, 11, 3, 6, 10)), utc(2024, 11, 3, 6, 30));
}

TEST(Cron, FarFutureUsesTheFooterRule) {
  REQUIRE_TZDATA();
  const TimeZone berlin = zone("Europe/Berlin");
  // 2050-07-01 08:00 CEST.
  EXPECT_EQ(next_match(cron("0 8 1 7 *"), berlin, utc(2050, 1, 1)), utc(2050, 7, 1, 6));
  EXPECT_EQ(next_match(cron("0 8 1 1 *"), berlin, utc(2050, 1, 2)), utc(2051, 1, 1, 7));
}

// ---- describe ------------------------------------------------------------------------------------

TEST(Cron, DescribesInEnglish) {
  EXPECT_EQ(describe(cron("* * * * *")), "every minute");
  EXPECT_EQ(describe(cron("*/5 * * * *")), "every 5 minutes");
  EXPECT_EQ(describe(cron("0 8 * * 1-5")), "at 08:00 on Monday through Friday");
  EXPECT_EQ(describe(cron("0 0 1 * 1")), "at 00:00 on day 1 of the month or on Monday");
  EXPECT_EQ(describe(cron("0 0 */2 * 5")), "at 00:00 on days 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29 and 31 "
                                            "of the month if it is Friday");
  EXPECT_EQ(describe(cron("@hourly")), "at minute 0 of every hour");
  EXPECT_EQ(describe(cron("30 9,17 * * *")), "at 09:30 and 17:30");
  EXPECT_EQ(describe(cron("0 0 29 2 *")), "at 00:00 on day 29 of the month in February");
  EXPECT_EQ(describe(cron("0 12 * JAN-MAR,DEC sat,sun")),
            "at 12:00 on Sunday and Saturday in January through March and December");
  EXPECT_EQ(describe(cron("*/15 9-17 * * *")), "every 15 minutes during hours 9 through 17");
  EXPECT_EQ(describe(cron("0,30 9-17 * * 1-5")), "every 30 minutes during hours 9 through 17 on Monday through Friday");
  EXPECT_EQ(describe(cron("0,20 9-17 * * 1-5")), "at minutes 0 and 20 during hours 9 through 17 on Monday through Friday");
  EXPECT_EQ(describe(cron("*/7 * * * *")), "at minutes 0, 7, 14, 21, 28, 35, 42, 49 and 56 of every hour");
}

}  // namespace
}  // namespace ouro::schedule
