// Time zones: TZif files as Debian ships them, TZif files built here (slim, v1, broken), POSIX
// rules, fixed offsets, names that try to leave the zoneinfo folder, and wall-clock readings that
// DST changes skip or repeat. Expected offsets were taken from `TZ=… date -d @T +%z`; one test
// compares every installed zone with glibc's localtime_r.
#include "schedule/tz.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>

namespace ouro::schedule {
namespace {

const std::string kZoneinfo = "/usr/share/zoneinfo";

bool have_tzdata() {
  struct stat st {};
  return ::stat((kZoneinfo + "/Europe/Berlin").c_str(), &st) == 0;
}

#define REQUIRE_TZDATA() \
  if (!have_tzdata()) GTEST_SKIP() << kZoneinfo << " is missing; scripts/setup.sh installs tzdata"

TimeZone zone(std::string_view name) {
  auto z = TimeZone::load(name, kZoneinfo);
  EXPECT_TRUE(z) << name << ": " << (z ? "" : z.error().message);
  return z ? *z : TimeZone();
}

int64_t utc(int y, int mo, int d, int h = 0, int mi = 0, int s = 0) { return unix_from_civil({y, mo, d, h, mi, s}); }

// A scratch folder, removed at the end of the test.
struct TempDir {
  std::string path;
  TempDir() {
    std::string tmpl = ::testing::TempDir() + "ouro-tz-XXXXXX";
    path = ::mkdtemp(tmpl.data()) ? tmpl : "";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  void write(const std::string& rel, std::string_view bytes) const {
    std::filesystem::create_directories(std::filesystem::path(path + "/" + rel).parent_path());
    std::ofstream(path + "/" + rel, std::ios::binary) << bytes;
  }
};

// ---- building TZif files (RFC 8536 §3) ----------------------------------------------------------

std::string be32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}
std::string be64(int64_t v) { return be32(static_cast<uint32_t>(static_cast<uint64_t>(v) >> 32)) + be32(static_cast<uint32_t>(v)); }

struct Type {
  int32_t utoff;
  bool isdst;
  std::string abbr;
};

std::string block(bool wide, const std::vector<int64_t>& times, const std::vector<uint8_t>& idx, const std::vector<Type>& types) {
  std::string chars, types_bytes;
  for (const auto& t : types) {
    types_bytes += be32(static_cast<uint32_t>(t.utoff)) + static_cast<char>(t.isdst) + static_cast<char>(chars.size());
    chars += t.abbr + '\0';
  }
  std::string out;
  for (int64_t t : times) out += wide ? be64(t) : be32(static_cast<uint32_t>(static_cast<int32_t>(t)));
  for (uint8_t i : idx) out += static_cast<char>(i);
  return out + types_bytes + chars;
}

std::string header(char version, size_t timecnt, size_t typecnt, size_t charcnt) {
  return std::string("TZif") + version + std::string(15, '\0') + be32(0) + be32(0) + be32(0) + be32(static_cast<uint32_t>(timecnt)) +
         be32(static_cast<uint32_t>(typecnt)) + be32(static_cast<uint32_t>(charcnt));
}

size_t chars_of(const std::vector<Type>& types) {
  size_t n = 0;
  for (const auto& t : types) n += t.abbr.size() + 1;
  return n;
}

// A version 2+ file whose version 1 block is minimal (one type, no transitions), as zic -b slim writes.
std::string tzif2(const std::vector<int64_t>& times, const std::vector<uint8_t>& idx, const std::vector<Type>& types,
                  std::string_view footer, char version = '2') {
  const std::vector<Type> v1_types = {types[0]};
  return header(version, 0, 1, chars_of(v1_types)) + block(false, {}, {}, v1_types) +
         header(version, times.size(), types.size(), chars_of(types)) + block(true, times, idx, types) + "\n" +
         std::string(footer) + "\n";
}

std::string tzif1(const std::vector<int64_t>& times, const std::vector<uint8_t>& idx, const std::vector<Type>& types) {
  return header('\0', times.size(), types.size(), chars_of(types)) + block(false, times, idx, types);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// ---- installed zones -----------------------------------------------------------------------------

TEST(TimeZone, NewYorkOffsetsMatchDate) {
  REQUIRE_TZDATA();
  const TimeZone ny = zone("America/New_York");
  EXPECT_EQ(ny.name(), "America/New_York");
  EXPECT_EQ(ny.utc_offset(1710053999), -5 * 3600);  // 2024-03-10 01:59:59 EST
  EXPECT_EQ(ny.utc_offset(1710054000), -4 * 3600);  // 03:00:00 EDT
  EXPECT_EQ(ny.abbreviation(1710054000), "EDT");
  EXPECT_TRUE(ny.is_dst(1710054000));
  EXPECT_EQ(ny.utc_offset(1730613599), -4 * 3600);  // 2024-11-03 01:59:59 EDT
  EXPECT_EQ(ny.utc_offset(1730613600), -5 * 3600);  // 01:00:00 EST
  EXPECT_EQ(ny.abbreviation(1730613600), "EST");
  // Past 2037, where the file's transitions end and its footer rule takes over.
  EXPECT_EQ(ny.utc_offset(2542838400), -4 * 3600);  // 2050-07-30
  EXPECT_EQ(ny.utc_offset(utc(2050, 1, 1, 12)), -5 * 3600);
  // Before the first transition: local mean time, -4:56:02.
  EXPECT_EQ(ny.utc_offset(-5000000000), -(4 * 3600 + 56 * 60 + 2));
}

TEST(TimeZone, BerlinOffsetsMatchDate) {
  REQUIRE_TZDATA();
  const TimeZone berlin = zone("Europe/Berlin");
  EXPECT_EQ(berlin.utc_offset(1711846799), 3600);  // 2024-03-31 01:59:59 CET
  EXPECT_EQ(berlin.utc_offset(1711846800), 7200);  // 03:00:00 CEST
  EXPECT_EQ(berlin.utc_offset(1729990799), 7200);  // 2024-10-27 02:59:59 CEST
  EXPECT_EQ(berlin.utc_offset(1729990800), 3600);  // 02:00:00 CET
  EXPECT_EQ(berlin.utc_offset(2540000000), 7200);  // 2050-06-28 CEST
  EXPECT_EQ(berlin.utc_offset(2560000000), 3600);  // 2051-02-14 CET
  EXPECT_EQ(berlin.abbreviation(2540000000), "CEST");
  EXPECT_EQ(berlin.utc_offset(-2208988800), 3600);  // 1900-01-01
  EXPECT_EQ(berlin.to_local(1711846800), (CivilTime{2024, 3, 31, 3, 0, 0}));
}

TEST(TimeZone, HalfHourAndSkippedDayZones) {
  REQUIRE_TZDATA();
  EXPECT_EQ(zone("Asia/Kolkata").utc_offset(0), 5 * 3600 + 1800);
  // Lord Howe Island moves its clocks by half an hour.
  EXPECT_EQ(zone("Australia/Lord_Howe").utc_offset(1712412000), 11 * 3600);
  EXPECT_EQ(zone("Australia/Sydney").utc_offset(2540000000), 10 * 3600);  // 2050-06-28, southern winter
  // Samoa skipped 2011-12-30 when it moved across the date line.
  const TimeZone apia = zone("Pacific/Apia");
  EXPECT_EQ(apia.to_local(1325239199), (CivilTime{2011, 12, 29, 23, 59, 59}));
  EXPECT_EQ(apia.to_local(1325239200), (CivilTime{2011, 12, 31, 0, 0, 0}));
  const auto r = apia.resolve({2011, 12, 30, 12, 0, 0});
  EXPECT_EQ(r.kind, LocalInstants::Kind::Gap);
  EXPECT_EQ(r.earliest, 1325239200);
}

TEST(TimeZone, SpringForwardGapMovesForward) {
  REQUIRE_TZDATA();
  const TimeZone berlin = zone("Europe/Berlin");
  const auto r = berlin.resolve({2024, 3, 31, 2, 30, 0});
  EXPECT_EQ(r.kind, LocalInstants::Kind::Gap);
  EXPECT_EQ(r.earliest, utc(2024, 3, 31, 1, 0));   // the gap ends at 03:00 CEST
  EXPECT_EQ(r.latest, utc(2024, 3, 31, 1, 30));    // 02:30 read as CET is 03:30 CEST
  EXPECT_EQ(berlin.to_utc({2024, 3, 31, 2, 30, 0}), utc(2024, 3, 31, 1, 30));
  EXPECT_EQ(berlin.to_local(berlin.to_utc({2024, 3, 31, 2, 30, 0})), (CivilTime{2024, 3, 31, 3, 30, 0}));
  // Just outside the gap, readings are unique.
  EXPECT_EQ(berlin.resolve({2024, 3, 31, 1, 59, 59}).kind, LocalInstants::Kind::Unique);
  EXPECT_EQ(berlin.to_utc({2024, 3, 31, 3, 0, 0}), utc(2024, 3, 31, 1, 0));

  const TimeZone ny = zone("America/New_York");
  const auto g = ny.resolve({2024, 3, 10, 2, 30, 0});
  EXPECT_EQ(g.kind, LocalInstants::Kind::Gap);
  EXPECT_EQ(g.earliest, 1710054000);
  EXPECT_EQ(ny.to_utc({2024, 3, 10, 2, 30, 0}), utc(2024, 3, 10, 7, 30));  // 03:30 EDT
}

TEST(TimeZone, FallBackOverlapTakesTheFirstOccurrence) {
  REQUIRE_TZDATA();
  const TimeZone berlin = zone("Europe/Berlin");
  const auto r = berlin.resolve({2024, 10, 27, 2, 30, 0});
  EXPECT_EQ(r.kind, LocalInstants::Kind::Overlap);
  EXPECT_EQ(r.earliest, utc(2024, 10, 27, 0, 30));  // 02:30 CEST
  EXPECT_EQ(r.latest, utc(2024, 10, 27, 1, 30));    // 02:30 CET
  EXPECT_EQ(berlin.to_utc({2024, 10, 27, 2, 30, 0}), utc(2024, 10, 27, 0, 30));

  const TimeZone ny = zone("America/New_York");
  const auto o = ny.resolve({2024, 11, 3, 1, 30, 0});
  EXPECT_EQ(o.kind, LocalInstants::Kind::Overlap);
  EXPECT_EQ(o.earliest, 1730611800);  // 05:30Z, 01:30 EDT
  EXPECT_EQ(o.latest, 1730615400);    // 06:30Z, 01:30 EST
}

TEST(TimeZone, LocalAndUtcRoundTrip) {
  REQUIRE_TZDATA();
  for (const char* name : {"Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kathmandu", "America/Sao_Paulo"}) {
    const TimeZone z = zone(name);
    for (int64_t t = utc(2020, 1, 1); t < utc(2052, 1, 1); t += 3 * 3600 + 1234) {
      const CivilTime local = z.to_local(t);
      const auto r = z.resolve(local);
      ASSERT_TRUE(r.earliest == t || r.latest == t) << name << " " << t << " " << to_string(local);
      ASSERT_NE(r.kind, LocalInstants::Kind::Gap) << name << " " << t;
    }
  }
}

// Every zone the system has, against glibc's own reading of the same files (localtime_r's
// tm_gmtoff), from 1900 to 2100: transitions, footers past 2037, slim or fat.
TEST(TimeZone, EveryInstalledZoneAgreesWithGlibc) {
  REQUIRE_TZDATA();
  std::vector<std::string> names;
  for (auto it = std::filesystem::recursive_directory_iterator(kZoneinfo); it != std::filesystem::recursive_directory_iterator(); ++it) {
    const std::string rel = std::filesystem::relative(it->path(), kZoneinfo).string();
    if (it->is_directory() && (rel == "posix" || rel == "right")) {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file() || rel.find('.') != std::string::npos) continue;
    if (read_file(it->path()).substr(0, 4) == "TZif") names.push_back(rel);
  }
  ASSERT_GT(names.size(), 300u);

  const char* saved = std::getenv("TZ");
  const std::string saved_tz = saved ? saved : "";
  int compared = 0;
  for (const auto& name : names) {
    auto z = TimeZone::load(name, kZoneinfo);
    ASSERT_TRUE(z) << name << ": " << z.error().message;
    ::setenv("TZ", (":" + kZoneinfo + "/" + name).c_str(), 1);
    ::tzset();
    for (int64_t t = utc(1900, 1, 1); t < utc(2100, 1, 1); t += 9 * 86400 + 3 * 3600 + 17) {
      const time_t tt = static_cast<time_t>(t);
      std::tm tm{};
      ASSERT_NE(::localtime_r(&tt, &tm), nullptr);
      ASSERT_EQ(z->utc_offset(t), tm.tm_gmtoff) << name << " at " << t << " (" << to_string(civil_from_unix(t)) << "Z)";
      ++compared;
    }
  }
  if (saved) ::setenv("TZ", saved_tz.c_str(), 1);
  else ::unsetenv("TZ");
  ::tzset();
  EXPECT_GT(compared, 1000000);
}

// ---- files built here ------------------------------------------------------------------------------

TEST(TimeZone, SlimFileFollowsItsFooterRule) {
  // One transition in 2007, then the US rule from the footer only — how zic -b slim writes zones.
  const std::vector<Type> types = {{-5 * 3600, false, "EST"}, {-4 * 3600, true, "EDT"}};
  const std::string bytes = tzif2({utc(2007, 3, 11, 7)}, {1}, types, "EST5EDT,M3.2.0,M11.1.0", '3');
  auto z = TimeZone::from_tzif("Test/Slim", bytes);
  ASSERT_TRUE(z) << z.error().message;
  EXPECT_EQ(z->utc_offset(1710053999), -5 * 3600);
  EXPECT_EQ(z->utc_offset(1710054000), -4 * 3600);
  EXPECT_EQ(z->abbreviation(1710054000), "EDT");
  EXPECT_EQ(z->utc_offset(1730613600), -5 * 3600);
  EXPECT_EQ(z->utc_offset(utc(2300, 7, 1)), -4 * 3600);
  EXPECT_EQ(z->utc_offset(utc(2000, 7, 1)), -5 * 3600);  // before the only transition: type 0
  EXPECT_EQ(z->resolve({2030, 3, 10, 2, 30, 0}).kind, LocalInstants::Kind::Gap);
  EXPECT_EQ(z->resolve({2030, 11, 3, 1, 30, 0}).kind, LocalInstants::Kind::Overlap);

  // The same file found by name in an overridden zoneinfo folder.
  TempDir dir;
  dir.write("Test/Slim", bytes);
  auto loaded = TimeZone::load("Test/Slim", dir.path);
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_EQ(loaded->utc_offset(1710054000), -4 * 3600);
}

TEST(TimeZone, FileWithNoTransitionsUsesItsFooterThroughout) {
  const std::vector<Type> types = {{3600, false, "CET"}};
  auto z = TimeZone::from_tzif("Test/Rule", tzif2({}, {}, types, "CET-1CEST,M3.5.0,M10.5.0/3"));
  ASSERT_TRUE(z) << z.error().message;
  EXPECT_EQ(z->utc_offset(1711846800), 7200);
  EXPECT_EQ(z->utc_offset(1729990800), 3600);
}

TEST(TimeZone, ReadsVersion1Files) {
  const std::vector<Type> types = {{3600, false, "CET"}, {7200, true, "CEST"}};
  auto z = TimeZone::from_tzif("Test/V1", tzif1({1711846800, 1729990800}, {1, 0}, types));
  ASSERT_TRUE(z) << z.error().message;
  EXPECT_EQ(z->utc_offset(1711846799), 3600);
  EXPECT_EQ(z->utc_offset(1711846800), 7200);
  EXPECT_EQ(z->utc_offset(1729990800), 3600);
  EXPECT_EQ(z->utc_offset(utc(2030, 7, 1)), 3600);  // no footer in v1: the last type stays
}

TEST(TimeZone, RefusesBrokenFiles) {
  const std::vector<Type> types = {{3600, false, "CET"}, {7200, true, "CEST"}};
  auto error_of = [](std::string_view bytes) {
    auto z = TimeZone::from_tzif("Test/Bad", bytes);
    return z ? std::string("loaded") : z.error().message;
  };
  EXPECT_NE(error_of("").find("TZif header"), std::string::npos);
  EXPECT_NE(error_of("not a zone file at all, but long enough to hold a header......").find("TZif header"), std::string::npos);
  EXPECT_NE(error_of(tzif2({20, 10}, {1, 0}, types, "")).find("ascending"), std::string::npos);
  EXPECT_NE(error_of(tzif2({10}, {5}, types, "")).find("type that does not exist"), std::string::npos);
  EXPECT_NE(error_of(tzif2({10}, {1}, types, "CET-1CEST,M13.5.0")).find("footer rule"), std::string::npos);
  std::string unclosed = tzif2({10}, {1}, types, "CET-1");
  unclosed.pop_back();
  EXPECT_NE(error_of(unclosed).find("footer"), std::string::npos);
  // Counts near 2^32 must not wrap around the size check.
  std::string huge = header('2', 0xffffffffu, 0xffffffffu, 0xffffffffu) + std::string(100, '\0');
  EXPECT_NE(error_of(huge).find("cut short"), std::string::npos);
  EXPECT_EQ(TimeZone::from_tzif("x", huge).error().code, Code::DataLoss);
}

TEST(TimeZone, SurvivesEveryTruncationAndCorruptionOfARealFile) {
  REQUIRE_TZDATA();
  const std::string bytes = read_file(kZoneinfo + "/America/New_York");
  ASSERT_GT(bytes.size(), 1000u);
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto z = TimeZone::from_tzif("cut", std::string_view(bytes).substr(0, n));
    if (z) (void)z->utc_offset(1710054000);  // a cut inside the v1 block's tail may still parse; it must work
  }
  // Deterministic byte flips: whatever loads must answer without crashing.
  uint64_t seed = 0x9e3779b97f4a7c15ull;
  for (int round = 0; round < 3000; ++round) {
    std::string b = bytes;
    for (int k = 0; k < 4; ++k) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      b[(seed >> 33) % b.size()] = static_cast<char>(seed >> 17);
    }
    auto z = TimeZone::from_tzif("flip", b);
    if (!z) continue;
    for (int64_t t : {int64_t{-5000000000}, int64_t{0}, int64_t{1710054000}, int64_t{4000000000}, kMaxInstant, kMinInstant}) {
      (void)z->utc_offset(t);
      (void)z->resolve(z->to_local(t));
    }
  }
}

// ---- names -------------------------------------------------------------------------------------

TEST(TimeZone, NamesCannotLeaveTheZoneinfoFolder) {
  auto code_of = [](std::string_view name) {
    auto z = TimeZone::load(name, kZoneinfo);
    return z ? Code::Ok : z.error().code;
  };
  using namespace std::literals;
  for (std::string_view bad : {"../../etc/passwd"sv, "Europe/../../etc/shadow"sv, "/etc/localtime"sv, "Europe/Berlin\n"sv,
                               "Europe Berlin"sv, "Europe/Berlin;rm"sv, "Europe//Berlin"sv, "Europe/"sv, ".."sv, "a.b"sv,
                               "Europe/Berlin\0x"sv, "Europe/Berlin\xff"sv}) {
    EXPECT_EQ(code_of(bad), Code::InvalidArgument) << bad;
  }
  EXPECT_EQ(code_of(""), Code::InvalidArgument);
  EXPECT_EQ(code_of(std::string(10240, 'A')), Code::InvalidArgument);
  auto dots = TimeZone::load("../../etc/passwd", kZoneinfo);
  EXPECT_NE(dots.error().message.find(".."), std::string::npos) << dots.error().message;
  EXPECT_NE(TimeZone::load("/etc/passwd", kZoneinfo).error().message.find("absolute"), std::string::npos);
}

TEST(TimeZone, UnknownZonesAndMissingDatabase) {
  REQUIRE_TZDATA();
  auto mars = TimeZone::load("Mars/Olympus_Mons", kZoneinfo);
  ASSERT_FALSE(mars);
  EXPECT_EQ(mars.error().code, Code::NotFound);
  EXPECT_NE(mars.error().message.find("Europe/Berlin"), std::string::npos) << mars.error().message;
  auto region = TimeZone::load("America", kZoneinfo);
  ASSERT_FALSE(region);
  EXPECT_NE(region.error().message.find("folder of zones"), std::string::npos) << region.error().message;
  auto not_tzif = TimeZone::load("leapseconds", kZoneinfo);  // a text file in the folder
  ASSERT_FALSE(not_tzif);
  EXPECT_EQ(not_tzif.error().code, Code::DataLoss);
  auto none = TimeZone::load("Europe/Berlin", "/nonexistent/zoneinfo");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, Code::NotFound);
  EXPECT_NE(none.error().message.find("tzdata"), std::string::npos);
}

TEST(TimeZone, UtcAndFixedOffsets) {
  EXPECT_EQ(TimeZone().name(), "UTC");
  EXPECT_EQ(TimeZone().utc_offset(1710054000), 0);
  for (std::string_view name : {"UTC", "utc", "Z"}) {
    auto z = TimeZone::load(name, "/nonexistent");  // no files needed
    ASSERT_TRUE(z) << name;
    EXPECT_EQ(z->name(), "UTC");
    EXPECT_EQ(z->utc_offset(0), 0);
  }
  struct Case {
    std::string_view name;
    int offset;
  };
  for (const Case& c : {Case{"+05:30", 19800}, Case{"-0800", -28800}, Case{"+02", 7200}, Case{"+2", 7200}, Case{"UTC+2", 7200},
                        Case{"UTC-03:30", -12600}, Case{"utc+14", 50400}, Case{"-18:00", -64800}}) {
    auto z = TimeZone::load(c.name, "/nonexistent");
    ASSERT_TRUE(z) << c.name << ": " << z.error().message;
    EXPECT_EQ(z->utc_offset(1710054000), c.offset) << c.name;
    EXPECT_EQ(z->name(), c.name);
    EXPECT_EQ(z->resolve({2024, 3, 10, 2, 30, 0}).kind, LocalInstants::Kind::Unique);
  }
  EXPECT_EQ(TimeZone::load("+05:30", "/nonexistent")->abbreviation(0), "+05:30");
  for (std::string_view bad : {"+25:00", "+18:01", "+05:60", "UTC+", "+5:3", "+123", "UTC+2x", "-99999999999999"}) {
    auto z = TimeZone::load(bad, "/nonexistent");
    ASSERT_FALSE(z) << bad;
    EXPECT_EQ(z.error().code, Code::InvalidArgument) << bad;
  }
}

// ---- POSIX rules ---------------------------------------------------------------------------------

TEST(TimeZone, PosixRulesMatchTheDatabase) {
  REQUIRE_TZDATA();
  struct Case {
    const char* rule;
    const char* name;
  };
  for (const Case& c : {Case{"CET-1CEST,M3.5.0,M10.5.0/3", "Europe/Berlin"}, Case{"EST5EDT,M3.2.0,M11.1.0", "America/New_York"},
                        Case{"AEST-10AEDT,M10.1.0,M4.1.0/3", "Australia/Sydney"},
                        Case{"<+1030>-10:30<+11>-11,M10.1.0,M4.1.0", "Australia/Lord_Howe"},
                        Case{"IST-2IDT,M3.4.4/26,M10.5.0", "Asia/Jerusalem"}, Case{"<-03>3", "America/Sao_Paulo"}}) {
    auto rule = TimeZone::from_posix(c.rule);
    ASSERT_TRUE(rule) << c.rule << ": " << rule.error().message;
    const TimeZone db = zone(c.name);
    for (int64_t t = utc(2025, 1, 1); t < utc(2036, 12, 31); t += 3600 * 7 + 60) {
      ASSERT_EQ(rule->utc_offset(t), db.utc_offset(t)) << c.rule << " at " << to_string(civil_from_unix(t)) << "Z";
    }
  }
}

TEST(TimeZone, PosixRuleDetails) {
  auto perm = TimeZone::from_posix("EST5EDT,0/0,J365/25");  // DST all year (tzcode's own example)
  ASSERT_TRUE(perm) << perm.error().message;
  for (int64_t t = utc(2024, 1, 1); t < utc(2027, 1, 1); t += 86400 * 5 + 3600) ASSERT_EQ(perm->utc_offset(t), -4 * 3600) << t;
  auto no_dates = TimeZone::from_posix("EST5EDT");  // the US dates, as tzcode assumes
  ASSERT_TRUE(no_dates);
  EXPECT_EQ(no_dates->utc_offset(1710054000), -4 * 3600);
  auto fixed = TimeZone::from_posix("<+0545>-5:45");
  ASSERT_TRUE(fixed);
  EXPECT_EQ(fixed->utc_offset(0), 5 * 3600 + 45 * 60);
  EXPECT_EQ(fixed->abbreviation(0), "+0545");
  auto julian = TimeZone::from_posix("XXX0YYY,J60/0,J300/0");  // J60 is March 1 in every year
  ASSERT_TRUE(julian);
  EXPECT_EQ(julian->utc_offset(utc(2024, 2, 29, 23, 59)), 0);
  EXPECT_EQ(julian->utc_offset(utc(2024, 3, 1, 0, 0)), 3600);
  for (std::string_view bad : {"", "E5", "EST", "EST5EDT,M3.2.0", "EST5EDT,M3.6.0,M11.1.0", "EST5EDT,M3.2.7,M11.1.0",
                               "EST99", "EST5EDT,J0,J365", "EST5EDT,M3.2.0/200,M11.1.0", "<AB>5", "EST5 junk"}) {
    EXPECT_FALSE(TimeZone::from_posix(bad)) << bad;
  }
  EXPECT_FALSE(TimeZone::from_posix(std::string(10240, 'A')));
}

// ---- the system's zone ---------------------------------------------------------------------------

TEST(TimeZone, LocalZoneName) {
  TempDir dir;
  const std::string lt = dir.path + "/localtime", tz = dir.path + "/timezone", zi = "/usr/share/zoneinfo";
  EXPECT_EQ(local_zone_name_from(":Europe/Paris", lt, tz, zi), "Europe/Paris");
  EXPECT_EQ(local_zone_name_from("/usr/share/zoneinfo/Asia/Tokyo", lt, tz, zi), "Asia/Tokyo");
  EXPECT_EQ(local_zone_name_from("EST5EDT,M3.2.0,M11.1.0", lt, tz, zi), "EST5EDT,M3.2.0,M11.1.0");
  EXPECT_EQ(local_zone_name_from(nullptr, lt, tz, zi), "UTC");  // nothing to go by
  EXPECT_EQ(local_zone_name_from("", lt, tz, zi), "UTC");
  dir.write("timezone", "Europe/Lisbon\n");
  EXPECT_EQ(local_zone_name_from(nullptr, lt, tz, zi), "Europe/Lisbon");
  ASSERT_EQ(::symlink("../usr/share/zoneinfo/America/Chicago", lt.c_str()), 0);
  EXPECT_EQ(local_zone_name_from(nullptr, lt, tz, zi), "America/Chicago");  // the symlink wins over /etc/timezone
  EXPECT_EQ(local_zone_name_from("Asia/Tokyo", lt, tz, zi), "Asia/Tokyo");  // and $TZ over both
  const std::string lt2 = dir.path + "/localtime2";
  ASSERT_EQ(::symlink("/usr/share/zoneinfo/posix/Europe/Oslo", lt2.c_str()), 0);
  EXPECT_EQ(local_zone_name_from(nullptr, lt2, tz, zi), "Europe/Oslo");
  EXPECT_EQ(local_zone_name_from((":" + lt).c_str(), lt2, tz, zi), "America/Chicago");  // TZ=:/etc/localtime
  // local() never fails.
  EXPECT_FALSE(TimeZone::local().name().empty());
}

}  // namespace
}  // namespace ouro::schedule
