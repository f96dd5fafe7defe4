// Timings: durations and intervals, --at times (absolute, with zones and offsets, relative),
// parse_timing's forms, next_fire for each kind, and the missed-run decision at start.
#include "schedule/timing.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

namespace ouro::schedule {
namespace {

int64_t utc(int y, int mo, int d, int h = 0, int mi = 0, int s = 0) { return unix_from_civil({y, mo, d, h, mi, s}); }

bool have_tzdata() {
  struct stat st {};
  return ::stat("/usr/share/zoneinfo/Europe/Berlin", &st) == 0;
}

#define REQUIRE_TZDATA() \
  if (!have_tzdata()) GTEST_SKIP() << "/usr/share/zoneinfo is missing; scripts/setup.sh installs tzdata"

TimeZone berlin() {
  auto z = TimeZone::load("Europe/Berlin", "/usr/share/zoneinfo");
  EXPECT_TRUE(z);
  return z ? *z : TimeZone();
}

// 2026-06-01T00:00Z, 02:00 CEST in Berlin.
constexpr int64_t kNow = 1780272000;

std::string error_of(const Result<int64_t>& r) { return r ? "ok: " + std::to_string(*r) : r.error().message; }

// ---- durations ---------------------------------------------------------------------------------------

TEST(Timing, ParsesDurations) {
  struct Case {
    std::string_view text;
    int64_t seconds;
  };
  for (const Case& c : {Case{"30s", 30}, Case{"15m", 900}, Case{"1h", 3600}, Case{"2h30m", 9000}, Case{"1d", 86400},
                        Case{"1w", 604800}, Case{"2 hours", 7200}, Case{"90 minutes", 5400}, Case{"1d 2h 3m 4s", 93784},
                        Case{"2H30M", 9000}, Case{" 45 min ", 2700}, Case{"1hr", 3600}}) {
    auto r = parse_duration(c.text);
    ASSERT_TRUE(r) << c.text << ": " << r.error().message;
    EXPECT_EQ(*r, c.seconds) << c.text;
  }
}

TEST(Timing, DurationErrorsSayWhatIsWrong) {
  EXPECT_NE(error_of(parse_duration("")).find("is empty"), std::string::npos);
  EXPECT_NE(error_of(parse_duration("5")).find("without a unit"), std::string::npos);
  EXPECT_NE(error_of(parse_duration("5x")).find("unknown unit 'x'"), std::string::npos);
  EXPECT_NE(error_of(parse_duration("30m2h")).find("write 2h30m"), std::string::npos);
  EXPECT_NE(error_of(parse_duration("1h1h")).find("repeats a unit"), std::string::npos);
  EXPECT_NE(error_of(parse_duration("0m")).find("is zero"), std::string::npos);
  EXPECT_NE(error_of(parse_duration("9999999999h")).find("too large"), std::string::npos);
  EXPECT_NE(error_of(parse_duration("3651d")).find("ten years"), std::string::npos);
  EXPECT_NE(error_of(parse_duration("-5m")).find("not a number"), std::string::npos);
  EXPECT_NE(error_of(parse_duration(std::string(10240, '1') + "m")).find("too long"), std::string::npos);
  EXPECT_NE(error_of(parse_duration("5 m s")).find("e.g. 30m, 1h"), std::string::npos);
}

TEST(Timing, IntervalsAreAtLeastAMinute) {
  EXPECT_EQ(error_of(parse_interval("30s")), "the interval '30s' is 30 seconds; the shortest interval is 1 minute (60s)");
  EXPECT_FALSE(parse_interval("59s"));
  EXPECT_EQ(*parse_interval("60s"), 60);
  EXPECT_EQ(*parse_interval("1m"), 60);
  EXPECT_EQ(*parse_interval("2h30m"), 9000);
}

TEST(Timing, FormatsDurations) {
  EXPECT_EQ(format_duration(9000), "2h30m");
  EXPECT_EQ(format_duration(86400), "1d");
  EXPECT_EQ(format_duration(604800), "1w");
  EXPECT_EQ(format_duration(1209600), "2w");
  EXPECT_EQ(format_duration(864000), "10d");
  EXPECT_EQ(format_duration(90), "1m30s");
  EXPECT_EQ(format_duration(0), "0s");
}

// ---- --at -------------------------------------------------------------------------------------------

TEST(Timing, AtTimesAreWallClockInTheZone) {
  REQUIRE_TZDATA();
  const TimeZone z = berlin();
  EXPECT_EQ(*parse_at("2026-12-01T08:00", z, kNow), utc(2026, 12, 1, 7));  // CET
  EXPECT_EQ(*parse_at("2026-12-01 08:00", z, kNow), utc(2026, 12, 1, 7));
  EXPECT_EQ(*parse_at("2026-12-01t08:00:30", z, kNow), utc(2026, 12, 1, 7, 0, 30));
  EXPECT_EQ(*parse_at("2026-07-01 08:00", z, kNow), utc(2026, 7, 1, 6));  // CEST
  EXPECT_EQ(*parse_at("2026-12-01", z, kNow), utc(2026, 11, 30, 23));     // midnight
  // A time the spring change skips moves forward by the change; a repeated one is its first occurrence.
  EXPECT_EQ(*parse_at("2027-03-28 02:30", z, kNow), utc(2027, 3, 28, 1, 30));  // 03:30 CEST
  EXPECT_EQ(*parse_at("2026-10-25 02:30", z, kNow), utc(2026, 10, 25, 0, 30));  // 02:30 CEST
  // Clock times alone: the next time Berlin's clocks show them (it is 02:00 CEST now).
  EXPECT_EQ(*parse_at("08:00", z, kNow), utc(2026, 6, 1, 6));
  EXPECT_EQ(*parse_at("01:00", z, kNow), utc(2026, 6, 1, 23));  // tomorrow
}

TEST(Timing, AtTimesWithZOrAnOffsetAreExact) {
  const TimeZone z;  // the zone does not matter when the text names the offset
  EXPECT_EQ(*parse_at("2026-12-01T08:00Z", z, kNow), utc(2026, 12, 1, 8));
  EXPECT_EQ(*parse_at("2026-12-01T08:00z", z, kNow), utc(2026, 12, 1, 8));
  EXPECT_EQ(*parse_at("2026-12-01T08:00+01:00", z, kNow), utc(2026, 12, 1, 7));
  EXPECT_EQ(*parse_at("2026-12-01T08:00-0500", z, kNow), utc(2026, 12, 1, 13));
  EXPECT_EQ(*parse_at("2026-12-01 08:00 +02", z, kNow), utc(2026, 12, 1, 6));
  EXPECT_EQ(*parse_at("2026-12-01T08:00:15+05:30", z, kNow), utc(2026, 12, 1, 2, 30, 15));
}

TEST(Timing, RelativeAtTimes) {
  const TimeZone z;
  EXPECT_EQ(*parse_at("+10m", z, kNow), kNow + 600);
  EXPECT_EQ(*parse_at("in 2h", z, kNow), kNow + 7200);
  EXPECT_EQ(*parse_at("In 2h30m", z, kNow), kNow + 9000);
  EXPECT_EQ(*parse_at("in 90 minutes", z, kNow), kNow + 5400);
  EXPECT_EQ(*parse_at("+30s", z, kNow), kNow + 30);  // no minimum for a one-off
  EXPECT_EQ(*parse_at("+1d", z, kNow), kNow + 86400);
}

TEST(Timing, AtErrors) {
  const TimeZone z;
  EXPECT_NE(error_of(parse_at("2020-01-01 08:00", z, kNow)).find("is in the past (it is 2026-06-01 00:00 UTC now)"),
            std::string::npos);
  EXPECT_NE(error_of(parse_at("2026-06-01T00:00Z", z, kNow)).find("in the past"), std::string::npos);  // now is not after now
  EXPECT_NE(error_of(parse_at("2026-02-30 08:00", z, kNow)).find("does not exist"), std::string::npos);
  EXPECT_NE(error_of(parse_at("2026-12-01T24:00", z, kNow)).find("does not exist"), std::string::npos);
  EXPECT_NE(error_of(parse_at("2026-13-01", z, kNow)).find("does not exist"), std::string::npos);
  EXPECT_NE(error_of(parse_at("25:00", z, kNow)).find("does not exist"), std::string::npos);
  for (std::string_view bad : {"tomorrow", "2026-12-01T8:00", "2026/12/01", "2026-12-01T08:00+25:00", "2026-12-01T08:00 junk",
                               "2026-12-01T08", "in", "12/01/2026", "2026-12-1", "08:00pm", "99999-01-01"}) {
    EXPECT_NE(error_of(parse_at(bad, z, kNow)).find("cannot read"), std::string::npos) << bad;
  }
  EXPECT_NE(error_of(parse_at("", z, kNow)).find("empty"), std::string::npos);
  EXPECT_NE(error_of(parse_at("+", z, kNow)).find("duration"), std::string::npos);
  EXPECT_NE(error_of(parse_at("in 0m", z, kNow)).find("zero"), std::string::npos);
  EXPECT_NE(error_of(parse_at(std::string(10240, '2'), z, kNow)).find("too long"), std::string::npos);
  EXPECT_NE(error_of(parse_at("9999-12-31T23:59Z", z, kMaxInstant)).find("past"), std::string::npos);
}

// ---- parse_timing ---------------------------------------------------------------------------------

TEST(Timing, ParsesEachKindFromOneString) {
  const TimeZone z;
  auto every = parse_timing("every 15m", z, kNow);
  ASSERT_TRUE(every) << every.error().message;
  EXPECT_EQ(every->kind, TimingKind::Every);
  EXPECT_EQ(every->interval, 900);
  EXPECT_EQ(every->since, kNow);

  for (std::string_view text : {"cron 0 8 * * 1-5", "0 8 * * 1-5", "@daily", "  0 8 * * *  "}) {
    auto c = parse_timing(text, z, kNow);
    ASSERT_TRUE(c) << text << ": " << c.error().message;
    EXPECT_EQ(c->kind, TimingKind::Cron) << text;
  }
  struct Once {
    std::string_view text;
    int64_t at;
  };
  for (const Once& o : {Once{"at 2026-12-01 08:00", utc(2026, 12, 1, 8)}, Once{"in 2h", kNow + 7200}, Once{"+10m", kNow + 600},
                        Once{"2026-12-01 08:00", utc(2026, 12, 1, 8)}, Once{"2026-12-01T08:00Z", utc(2026, 12, 1, 8)}}) {
    auto t = parse_timing(o.text, z, kNow);
    ASSERT_TRUE(t) << o.text << ": " << t.error().message;
    EXPECT_EQ(t->kind, TimingKind::Once) << o.text;
    EXPECT_EQ(t->at, o.at) << o.text;
  }
  EXPECT_NE(parse_timing("every 30s", z, kNow).error().message.find("shortest interval"), std::string::npos);
  EXPECT_NE(parse_timing("0 25 * * *", z, kNow).error().message.find("hour field '25'"), std::string::npos);
  EXPECT_FALSE(parse_timing("", z, kNow));
  EXPECT_FALSE(parse_timing("whenever", z, kNow));
  EXPECT_EQ(parse_timing(TimingKind::Every, "1h", z, kNow)->interval, 3600);
  EXPECT_EQ(parse_timing(TimingKind::Cron, "@hourly", z, kNow)->cron.text, "@hourly");
}

// ---- next_fire ---------------------------------------------------------------------------------------

TEST(Timing, NextFireForEachKind) {
  const TimeZone z;
  const Timing once = *parse_timing(TimingKind::Once, "2026-12-01T08:00Z", z, kNow);
  EXPECT_EQ(next_fire(once, kNow), utc(2026, 12, 1, 8));
  EXPECT_EQ(next_fire(once, utc(2026, 12, 1, 8) - 1), utc(2026, 12, 1, 8));
  EXPECT_EQ(next_fire(once, utc(2026, 12, 1, 8)), std::nullopt);

  const Timing every = *parse_timing(TimingKind::Every, "15m", z, kNow);
  EXPECT_EQ(next_fire(every, kNow), kNow + 900);
  EXPECT_EQ(next_fire(every, kNow + 899), kNow + 900);
  EXPECT_EQ(next_fire(every, kNow + 900), kNow + 1800);
  EXPECT_EQ(next_fire(every, kNow - 5000), kNow + 900);   // nothing before the timing was made
  EXPECT_EQ(next_fire(every, kNow + 10000), kNow + 10800);  // on the same grid however late
  EXPECT_EQ(next_fire(every, kMaxInstant), std::nullopt);

  const Timing cron = *parse_timing(TimingKind::Cron, "*/5 * * * *", z, kNow);
  EXPECT_EQ(next_fire(cron, kNow + 1), kNow + 300);
}

TEST(Timing, CronTimingsReadTheirZone) {
  REQUIRE_TZDATA();
  const Timing t = *parse_timing("0 8 * * 1-5", berlin(), kNow);
  EXPECT_EQ(next_fire(t, kNow), utc(2026, 6, 1, 6));  // Monday 08:00 CEST
  EXPECT_EQ(next_fire(t, utc(2026, 6, 5, 6)), utc(2026, 6, 8, 6));  // Friday → Monday
  EXPECT_EQ(next_fire(t, utc(2026, 10, 23, 6)), utc(2026, 10, 26, 7));  // across the autumn change: 08:00 CET
}

TEST(Timing, ExtremeInstantsDoNotOverflow) {
  Timing t;
  t.kind = TimingKind::Every;
  t.interval = 60;
  t.since = INT64_MAX;
  EXPECT_EQ(next_fire(t, INT64_MIN), std::nullopt);
  t.since = INT64_MIN;
  EXPECT_EQ(next_fire(t, INT64_MAX), std::nullopt);
  EXPECT_EQ(next_fire(t, INT64_MIN), kMinInstant + 60);
  (void)decide_start(t, INT64_MIN, INT64_MIN, Missed::RunOnce);
  (void)decide_start(t, INT64_MAX, INT64_MAX, Missed::Skip);
  t.interval = -5;
  EXPECT_EQ(next_fire(t, 0), std::nullopt);
  EXPECT_FALSE(parse_at("+1d", TimeZone(), INT64_MAX));
  EXPECT_FALSE(parse_at("2026-12-01T08:00", TimeZone(), INT64_MAX));
  EXPECT_TRUE(parse_at("2026-12-01T08:00", TimeZone(), INT64_MIN));
}

// ---- missed runs ----------------------------------------------------------------------------------

TEST(Timing, MissedRunsRunOnceOrAreSkipped) {
  const TimeZone z;
  const Timing hourly = *parse_timing(TimingKind::Every, "1h", z, kNow);
  // Last ran at +1h; ouro was down until +5h30m: runs at +2h … +5h were missed.
  auto once = decide_start(hourly, kNow + 3600, kNow + 5 * 3600 + 1800, Missed::RunOnce);
  EXPECT_TRUE(once.run_now);
  EXPECT_EQ(once.first_missed, kNow + 7200);
  EXPECT_EQ(once.next, kNow + 6 * 3600);
  auto skip = decide_start(hourly, kNow + 3600, kNow + 5 * 3600 + 1800, Missed::Skip);
  EXPECT_FALSE(skip.run_now);
  EXPECT_EQ(skip.first_missed, kNow + 7200);
  EXPECT_EQ(skip.next, kNow + 6 * 3600);
}

TEST(Timing, NothingMissed) {
  const TimeZone z;
  const Timing hourly = *parse_timing(TimingKind::Every, "1h", z, kNow);
  auto d = decide_start(hourly, kNow + 5 * 3600, kNow + 5 * 3600 + 1800, Missed::RunOnce);
  EXPECT_FALSE(d.run_now);
  EXPECT_EQ(d.first_missed, std::nullopt);
  EXPECT_EQ(d.next, kNow + 6 * 3600);
  // Never ran, made half an hour ago.
  d = decide_start(hourly, std::nullopt, kNow + 1800, Missed::RunOnce);
  EXPECT_FALSE(d.run_now);
  EXPECT_EQ(d.next, kNow + 3600);
  // Never ran, made three hours ago: missed.
  d = decide_start(hourly, std::nullopt, kNow + 3 * 3600 + 60, Missed::RunOnce);
  EXPECT_TRUE(d.run_now);
  EXPECT_EQ(d.first_missed, kNow + 3600);
  // A run due exactly now is due, not missed, and is not run twice.
  for (Missed policy : {Missed::RunOnce, Missed::Skip}) {
    d = decide_start(hourly, kNow + 3600, kNow + 7200, policy);
    EXPECT_FALSE(d.run_now);
    EXPECT_EQ(d.next, kNow + 7200);
  }
  // The clock went back: no run, and the next one stays after the last.
  d = decide_start(hourly, kNow + 5 * 3600, kNow + 2 * 3600, Missed::RunOnce);
  EXPECT_FALSE(d.run_now);
  EXPECT_EQ(d.next, kNow + 6 * 3600);
}

TEST(Timing, MissedOneOffRuns) {
  const TimeZone z;
  const Timing once = *parse_timing(TimingKind::Once, "+10m", z, kNow);
  auto run = decide_start(once, std::nullopt, kNow + 3600, Missed::RunOnce);
  EXPECT_TRUE(run.run_now);
  EXPECT_EQ(run.first_missed, kNow + 600);
  EXPECT_EQ(run.next, std::nullopt);
  auto skip = decide_start(once, std::nullopt, kNow + 3600, Missed::Skip);
  EXPECT_FALSE(skip.run_now);
  EXPECT_EQ(skip.next, std::nullopt);
  auto done = decide_start(once, kNow + 600, kNow + 3600, Missed::RunOnce);  // it ran
  EXPECT_FALSE(done.run_now);
  EXPECT_EQ(done.next, std::nullopt);
  auto pending = decide_start(once, std::nullopt, kNow + 60, Missed::RunOnce);
  EXPECT_FALSE(pending.run_now);
  EXPECT_EQ(pending.next, kNow + 600);
}

TEST(Timing, MissedCronRuns) {
  REQUIRE_TZDATA();
  const Timing daily = *parse_timing("0 8 * * *", berlin(), kNow);
  // Last ran Monday 08:00; started again Thursday 12:00 CEST.
  auto d = decide_start(daily, utc(2026, 6, 1, 6), utc(2026, 6, 4, 10), Missed::RunOnce);
  EXPECT_TRUE(d.run_now);
  EXPECT_EQ(d.first_missed, utc(2026, 6, 2, 6));
  EXPECT_EQ(d.next, utc(2026, 6, 5, 6));
}

TEST(Timing, Describes) {
  const TimeZone z;
  EXPECT_EQ(describe(*parse_timing("every 2h30m", z, kNow)), "every 2h30m");
  EXPECT_EQ(describe(*parse_timing("at 2026-12-01 08:00", z, kNow)), "once at 2026-12-01 08:00 (UTC)");
}

TEST(Timing, DescribesInANamedZone) {
  REQUIRE_TZDATA();
  EXPECT_EQ(describe(*parse_timing("at 2026-12-01 08:00", berlin(), kNow)), "once at 2026-12-01 08:00 CET (Europe/Berlin)");
  EXPECT_EQ(describe(*parse_timing("0 8 * * 1-5", berlin(), kNow)), "at 08:00 on Monday through Friday (Europe/Berlin)");
}

}  // namespace
}  // namespace ouro::schedule
