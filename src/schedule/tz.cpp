#include "schedule/tz.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

namespace ouro::schedule {

// One local time type of a zone (RFC 8536 §3.2 "ttinfo").
struct ZoneType {
  int32_t utoff = 0;  // seconds east of UTC
  bool isdst = false;
  std::string abbr;
};

// A day of the year in a POSIX TZ rule (POSIX.1-2017 §8.3, TZ "rule"), and the local time of day
// the change happens at, in the offset in effect before it.
struct RuleDate {
  enum class Kind { Julian1, Julian0, MonthWeekDay };
  Kind kind = Kind::MonthWeekDay;
  int n = 0;      // Jn: 1-365, never counting Feb 29; n: 0-365, counting it
  int month = 0;  // Mm.w.d
  int week = 0;   // 1-5, 5 = the last
  int wday = 0;   // 0 = Sunday
  int32_t time = 7200;  // RFC 8536 §3.3.1 allows -167 to 167 hours
};

struct PosixRule {
  ZoneType std_type;
  ZoneType dst_type;
  bool has_dst = false;
  RuleDate start;  // into DST
  RuleDate end;    // back to standard time
};

struct ZoneData {
  std::string name;
  std::vector<int64_t> times;     // transitions, strictly ascending
  std::vector<uint8_t> type_of;   // the type that starts at each transition
  std::vector<ZoneType> types;    // at least one; types[0] holds before the first transition
  std::optional<PosixRule> rule;  // the footer: holds from the last transition on
};

namespace {

// RFC 8536 §3.2: offsets SHOULD be within (-25 h, +26 h); anything else means a corrupt file.
constexpr int32_t kMinUtoff = -89999;
constexpr int32_t kMaxUtoff = 93599;
constexpr int64_t kMaxFixedOffset = 18 * 3600;
// Real TZif files are a few KiB; a cap keeps a hostile or wrong path from being read whole.
constexpr size_t kMaxZoneFileBytes = 1 << 20;

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

std::string format_offset(int32_t utoff) {
  const char sign = utoff < 0 ? '-' : '+';
  const int32_t a = utoff < 0 ? -utoff : utoff;
  if (a % 60 != 0) return fmt::format("{}{:02}:{:02}:{:02}", sign, a / 3600, a / 60 % 60, a % 60);
  return fmt::format("{}{:02}:{:02}", sign, a / 3600, a / 60 % 60);
}

// ---- POSIX TZ rules --------------------------------------------------------------------------

class PosixParser {
 public:
  explicit PosixParser(std::string_view s) : m_s(s) {}

  std::optional<PosixRule> parse() {
    PosixRule r;
    int32_t west = 0;
    if (!name(r.std_type.abbr) || !hms(west, 24, true)) return std::nullopt;
    r.std_type.utoff = -west;
    if (done()) return r;
    if (!name(r.dst_type.abbr)) return std::nullopt;
    r.has_dst = true;
    r.dst_type.isdst = true;
    r.dst_type.utoff = r.std_type.utoff + 3600;  // POSIX: one hour ahead of standard time unless given
    if (!done() && peek() != ',') {
      if (!hms(west, 24, true)) return std::nullopt;
      r.dst_type.utoff = -west;
    }
    if (done()) {
      // No dates: tzcode falls back to the US rules; so do we, rather than refusing the zone.
      r.start = {RuleDate::Kind::MonthWeekDay, 0, 3, 2, 0, 7200};
      r.end = {RuleDate::Kind::MonthWeekDay, 0, 11, 1, 0, 7200};
      return r;
    }
    if (!eat(',') || !date(r.start) || !eat(',') || !date(r.end) || !done()) return std::nullopt;
    return r;
  }

 private:
  bool done() const { return m_i >= m_s.size(); }
  char peek() const { return done() ? '\0' : m_s[m_i]; }
  bool eat(char c) {
    if (peek() != c) return false;
    ++m_i;
    return true;
  }

  // std / dst: three or more letters, or <…> holding letters, digits, '+' and '-'.
  bool name(std::string& out) {
    size_t start = m_i;
    if (eat('<')) {
      while (!done() && (is_alpha(peek()) || is_digit(peek()) || peek() == '+' || peek() == '-')) ++m_i;
      out = std::string(m_s.substr(start + 1, m_i - start - 1));
      return out.size() >= 3 && eat('>');
    }
    while (!done() && is_alpha(peek())) ++m_i;
    out = std::string(m_s.substr(start, m_i - start));
    return out.size() >= 3;
  }

  bool number(int& out, int max_digits) {
    int digits = 0;
    out = 0;
    while (!done() && is_digit(peek()) && digits < max_digits) out = out * 10 + (m_s[m_i++] - '0'), ++digits;
    return digits > 0 && !(is_digit(peek()));
  }

  // [+|-]hh[:mm[:ss]] in seconds; hours at most max_hours.
  bool hms(int32_t& out, int max_hours, bool allow_sign) {
    int sign = 1;
    if (allow_sign && (peek() == '+' || peek() == '-')) sign = m_s[m_i++] == '-' ? -1 : 1;
    int h = 0, m = 0, s = 0;
    if (!number(h, 3) || h > max_hours) return false;
    if (eat(':')) {
      if (!number(m, 2) || m > 59) return false;
      if (eat(':') && (!number(s, 2) || s > 59)) return false;
    }
    out = sign * (h * 3600 + m * 60 + s);
    return true;
  }

  bool date(RuleDate& d) {
    if (eat('J')) {
      d.kind = RuleDate::Kind::Julian1;
      if (!number(d.n, 3) || d.n < 1 || d.n > 365) return false;
    } else if (eat('M')) {
      d.kind = RuleDate::Kind::MonthWeekDay;
      if (!number(d.month, 2) || d.month < 1 || d.month > 12 || !eat('.')) return false;
      if (!number(d.week, 1) || d.week < 1 || d.week > 5 || !eat('.')) return false;
      if (!number(d.wday, 1) || d.wday > 6) return false;
    } else {
      d.kind = RuleDate::Kind::Julian0;
      if (!number(d.n, 3) || d.n > 365) return false;
    }
    d.time = 7200;
    if (eat('/')) return hms(d.time, 167, true);
    return true;
  }

  std::string_view m_s;
  size_t m_i = 0;
};

// The day (days since the epoch) a rule date falls on in year y.
int64_t rule_day(const RuleDate& r, int64_t y) {
  switch (r.kind) {
    case RuleDate::Kind::Julian1: return days_from_civil(y, 1, 1) + r.n - 1 + (is_leap_year(y) && r.n >= 60 ? 1 : 0);
    case RuleDate::Kind::Julian0: return days_from_civil(y, 1, 1) + r.n;
    case RuleDate::Kind::MonthWeekDay: {
      const int64_t first = days_from_civil(y, r.month, 1);
      int64_t d = first + (r.wday - weekday_from_days(first) + 7) % 7 + int64_t{r.week - 1} * 7;
      const int64_t last = first + days_in_month(y, r.month) - 1;
      while (d > last) d -= 7;  // week 5 means the last such weekday
      return d;
    }
  }
  return 0;
}

struct RuleChange {
  int64_t at;
  bool to_dst;
};

// The rule's changes in years y0..y1, in time order. A change back to standard time that falls at
// the same instant as the next start of DST sorts first, so all-year DST
// ("EST5EDT,0/0,J365/25") reads as DST throughout.
std::vector<RuleChange> rule_changes(const PosixRule& r, int64_t y0, int64_t y1) {
  std::vector<RuleChange> out;
  for (int64_t y = y0; y <= y1; ++y) {
    out.push_back({rule_day(r.start, y) * 86400 + r.start.time - r.std_type.utoff, true});
    out.push_back({rule_day(r.end, y) * 86400 + r.end.time - r.dst_type.utoff, false});
  }
  std::sort(out.begin(), out.end(), [](const RuleChange& a, const RuleChange& b) {
    return a.at != b.at ? a.at < b.at : (!a.to_dst && b.to_dst);
  });
  return out;
}

const ZoneType& rule_type_at(const PosixRule& r, int64_t t) {
  if (!r.has_dst) return r.std_type;
  t = std::clamp(t, kMinInstant, kMaxInstant);
  const int64_t y = civil_from_unix(t).year;
  // A year either side: rule times may be up to a week (±167 h) away from their date's year.
  const auto changes = rule_changes(r, y - 1, y + 1);
  bool dst = !changes.empty() && !changes.front().to_dst;  // the state before the first change
  for (const auto& c : changes) {
    if (c.at > t) break;
    dst = c.to_dst;
  }
  return dst ? r.dst_type : r.std_type;
}

const ZoneType& type_at(const ZoneData& z, int64_t t) {
  if (z.rule && (z.times.empty() || t >= z.times.back())) return rule_type_at(*z.rule, t);
  auto it = std::upper_bound(z.times.begin(), z.times.end(), t);
  if (it == z.times.begin()) return z.types[0];  // RFC 8536 §3.2: before the first transition, type 0
  return z.types[z.type_of[static_cast<size_t>(it - z.times.begin() - 1)]];
}

// Instants in (a, b] at which the offset may change, ascending.
std::vector<int64_t> change_points(const ZoneData& z, int64_t a, int64_t b) {
  std::vector<int64_t> out;
  for (auto it = std::upper_bound(z.times.begin(), z.times.end(), a); it != z.times.end() && *it <= b; ++it)
    out.push_back(*it);
  if (z.rule && z.rule->has_dst) {
    const int64_t from = z.times.empty() ? a : std::max(a, z.times.back());
    if (from < b) {
      const int64_t y0 = civil_from_unix(from).year - 1;
      const int64_t y1 = civil_from_unix(b).year + 1;
      for (const auto& c : rule_changes(*z.rule, y0, y1))
        if (c.at > from && c.at <= b) out.push_back(c.at);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// ---- TZif files (RFC 8536) ---------------------------------------------------------------------

class ByteReader {
 public:
  ByteReader(std::string_view b, size_t pos) : m_b(b), m_pos(pos) {}
  size_t pos() const { return m_pos; }
  uint32_t u32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<uint8_t>(m_b[m_pos++]);
    return v;
  }
  int64_t i64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<uint8_t>(m_b[m_pos++]);
    return static_cast<int64_t>(v);
  }
  uint8_t u8() { return static_cast<uint8_t>(m_b[m_pos++]); }
  void skip(uint64_t n) { m_pos += static_cast<size_t>(n); }

 private:
  std::string_view m_b;
  size_t m_pos;
};

struct TzifHeader {
  char version = 0;
  uint32_t isutcnt = 0, isstdcnt = 0, leapcnt = 0, timecnt = 0, typecnt = 0, charcnt = 0;

  // The size of the data block that follows, with time values of `tsize` bytes; 64-bit so that
  // hostile counts cannot wrap it.
  uint64_t block_size(uint64_t tsize) const {
    return uint64_t{timecnt} * tsize + timecnt + uint64_t{typecnt} * 6 + charcnt + uint64_t{leapcnt} * (tsize + 4) +
           isstdcnt + isutcnt;
  }
};

constexpr size_t kHeaderBytes = 44;

std::optional<TzifHeader> read_header(std::string_view bytes, size_t at) {
  if (at > bytes.size() || bytes.size() - at < kHeaderBytes || bytes.substr(at, 4) != "TZif") return std::nullopt;
  ByteReader r(bytes, at + 4);
  TzifHeader h;
  h.version = static_cast<char>(r.u8());
  r.skip(15);
  h.isutcnt = r.u32();
  h.isstdcnt = r.u32();
  h.leapcnt = r.u32();
  h.timecnt = r.u32();
  h.typecnt = r.u32();
  h.charcnt = r.u32();
  return h;
}

Result<ZoneData> parse_tzif(std::string name, std::string_view bytes) {
  auto bad = [&](std::string_view why) {
    return errorf(Code::DataLoss, "time zone '{}': not a TZif file that can be read ({})", name, why);
  };
  auto h = read_header(bytes, 0);
  if (!h) return bad("it does not start with a TZif header");
  size_t pos = kHeaderBytes;
  uint64_t tsize = 4;
  // Version 2 and later repeat the data with 64-bit times after the version 1 block; readers use
  // that second block and the footer (RFC 8536 §3.1, §4).
  if (h->version >= '2') {
    const uint64_t v1 = h->block_size(4);
    if (v1 > bytes.size() - pos) return bad("the version 1 data is cut short");
    auto h2 = read_header(bytes, pos + static_cast<size_t>(v1));
    if (!h2) return bad("the version 2 header is missing");
    h = h2;
    pos += static_cast<size_t>(v1) + kHeaderBytes;
    tsize = 8;
  }
  if (h->typecnt == 0 || h->typecnt > 256) return bad("it has no local time types, or more than 256");
  if ((h->isstdcnt != 0 && h->isstdcnt != h->typecnt) || (h->isutcnt != 0 && h->isutcnt != h->typecnt))
    return bad("its standard/UT indicator counts do not match its type count");
  if (h->block_size(tsize) > bytes.size() - pos) return bad("its data is cut short");
  if (h->leapcnt != 0)
    return errorf(Code::InvalidArgument,
                  "time zone '{}' counts leap seconds (a \"right/\" zone), so its instants are not Unix time; "
                  "use the zone without \"right/\"", name);

  ZoneData z;
  z.name = std::move(name);
  ByteReader r(bytes, pos);
  z.times.reserve(h->timecnt);
  for (uint32_t i = 0; i < h->timecnt; ++i) {
    const int64_t t = tsize == 8 ? r.i64() : static_cast<int64_t>(static_cast<int32_t>(r.u32()));
    if (!z.times.empty() && t <= z.times.back()) return bad("its transition times are not in ascending order");
    z.times.push_back(t);
  }
  z.type_of.reserve(h->timecnt);
  for (uint32_t i = 0; i < h->timecnt; ++i) {
    const uint8_t idx = r.u8();
    if (idx >= h->typecnt) return bad("a transition names a local time type that does not exist");
    z.type_of.push_back(idx);
  }
  std::vector<uint8_t> desig;
  for (uint32_t i = 0; i < h->typecnt; ++i) {
    ZoneType t;
    t.utoff = static_cast<int32_t>(r.u32());
    const uint8_t isdst = r.u8();
    desig.push_back(r.u8());
    if (t.utoff < kMinUtoff || t.utoff > kMaxUtoff || isdst > 1) return bad("a local time type has an impossible offset");
    t.isdst = isdst == 1;
    z.types.push_back(std::move(t));
  }
  const std::string_view chars = bytes.substr(r.pos(), h->charcnt);
  for (size_t i = 0; i < z.types.size(); ++i) {
    if (desig[i] >= chars.size()) {
      if (!chars.empty()) return bad("an abbreviation index is out of range");
      continue;
    }
    const std::string_view rest = chars.substr(desig[i]);
    z.types[i].abbr = std::string(rest.substr(0, rest.find('\0')));
  }
  r.skip(uint64_t{h->charcnt} + uint64_t{h->leapcnt} * (tsize + 4) + h->isstdcnt + h->isutcnt);

  if (tsize == 8 && r.pos() < bytes.size()) {
    // The footer: "\n" POSIX-TZ-rule "\n" (RFC 8536 §3.3). An empty rule leaves the last type in force.
    const std::string_view rest = bytes.substr(r.pos());
    if (rest[0] != '\n') return bad("the footer does not start with a newline");
    const size_t end = rest.find('\n', 1);
    if (end == std::string_view::npos) return bad("the footer is not closed by a newline");
    const std::string_view text = rest.substr(1, end - 1);
    if (!text.empty()) {
      auto rule = PosixParser(text).parse();
      if (!rule) return bad(fmt::format("its footer rule '{}' cannot be read", text.substr(0, 80)));
      z.rule = std::move(*rule);
    }
  }
  return z;
}

// ---- names, fixed offsets, files ---------------------------------------------------------------

constexpr std::string_view kNameHint = "names look like Europe/Berlin, America/New_York, UTC or +05:30";

// "+05:30", "-0800", "+2", "UTC+2", "UTC-03:30" → seconds east; nullopt when `s` is not shaped like
// an offset at all (then it may be an IANA name); an error when it is, but wrong.
Result<std::optional<int32_t>> parse_fixed_offset(std::string_view s) {
  std::string_view rest = s;
  if (rest.size() > 3 && iequals(rest.substr(0, 3), "UTC")) rest.remove_prefix(3);
  if (rest.empty() || (rest[0] != '+' && rest[0] != '-')) return std::optional<int32_t>{};
  const int sign = rest[0] == '-' ? -1 : 1;
  rest.remove_prefix(1);
  auto wrong = [&] {
    return errorf(Code::InvalidArgument, "time zone offset '{}' cannot be read; write it like +05:30, -0800, +2 or UTC+2",
                  s.substr(0, 40));
  };
  size_t digits = 0;
  while (digits < rest.size() && is_digit(rest[digits])) ++digits;
  int h = 0, m = 0;
  auto num = [](std::string_view d) {
    int v = 0;
    for (char c : d) v = v * 10 + (c - '0');
    return v;
  };
  if (digits == rest.size() && (digits == 1 || digits == 2)) {
    h = num(rest);
  } else if (digits == rest.size() && digits == 4) {
    h = num(rest.substr(0, 2));
    m = num(rest.substr(2));
  } else if ((digits == 1 || digits == 2) && rest.size() == digits + 3 && rest[digits] == ':' &&
             is_digit(rest[digits + 1]) && is_digit(rest[digits + 2])) {
    h = num(rest.substr(0, digits));
    m = num(rest.substr(digits + 1));
  } else {
    return wrong();
  }
  if (m > 59) return wrong();
  const int64_t off = int64_t{h} * 3600 + m * 60;
  if (off > kMaxFixedOffset)
    return errorf(Code::InvalidArgument, "time zone offset '{}' is out of range; offsets go from -18:00 to +18:00", s);
  return std::optional<int32_t>{static_cast<int32_t>(sign * off)};
}

Result<void> check_zone_name(std::string_view name) {
  if (name.empty()) return errorf(Code::InvalidArgument, "the time zone name is empty; {}", kNameHint);
  const std::string_view shown = name.substr(0, 60);
  if (name.size() > 200) return errorf(Code::InvalidArgument, "time zone name '{}…' is too long; {}", shown, kNameHint);
  if (name.find("..") != std::string_view::npos)
    return errorf(Code::InvalidArgument, "time zone name '{}' holds \"..\"; {}", shown, kNameHint);
  if (name.front() == '/')
    return errorf(Code::InvalidArgument, "time zone name '{}' is an absolute path; {}", shown, kNameHint);
  for (char c : name) {
    if (is_alpha(c) || is_digit(c) || c == '_' || c == '+' || c == '-' || c == '/') continue;
    const auto uc = static_cast<unsigned char>(c);
    return errorf(Code::InvalidArgument, "time zone name '{}' holds {} which cannot be in a zone name; {}", shown,
                  uc >= 0x21 && uc < 0x7f ? fmt::format("'{}'", c) : fmt::format("byte 0x{:02x}", uc), kNameHint);
  }
  if (name.back() == '/' || name.find("//") != std::string_view::npos)
    return errorf(Code::InvalidArgument, "time zone name '{}' has an empty part; {}", shown, kNameHint);
  return {};
}

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

Result<std::string> read_zone_file(const std::string& path, std::string_view name) {
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR)
      return errorf(Code::NotFound, "time zone '{}' is not known (there is no {}); {}", name, path, kNameHint);
    return errorf(Code::Unavailable, "time zone '{}': cannot open {}: {}", name, path, std::strerror(err));
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0)
    return errorf(Code::Unavailable, "time zone '{}': cannot read {}: {}", name, path, std::strerror(errno));
  if (S_ISDIR(st.st_mode))
    return errorf(Code::InvalidArgument, "time zone '{}' is a folder of zones, not a zone; {}", name, kNameHint);
  if (!S_ISREG(st.st_mode)) return errorf(Code::InvalidArgument, "time zone '{}': {} is not a regular file", name, path);
  if (st.st_size > static_cast<off_t>(kMaxZoneFileBytes))
    return errorf(Code::DataLoss, "time zone '{}': {} is {} bytes, too large for a TZif file", name, path, st.st_size);
  std::string out;
  char buf[8192];
  for (;;) {
    const ssize_t n = ::read(f.fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errorf(Code::Unavailable, "time zone '{}': cannot read {}: {}", name, path, std::strerror(errno));
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > kMaxZoneFileBytes) return errorf(Code::DataLoss, "time zone '{}': {} is too large", name, path);
  }
  return out;
}

std::shared_ptr<const ZoneData> fixed_zone(std::string name, int32_t utoff) {
  auto z = std::make_shared<ZoneData>();
  z->name = std::move(name);
  z->types.push_back({utoff, false, utoff == 0 ? "UTC" : format_offset(utoff)});
  return z;
}

const std::shared_ptr<const ZoneData>& utc_data() {
  static const std::shared_ptr<const ZoneData> utc = fixed_zone("UTC", 0);
  return utc;
}

}  // namespace

// ---- TimeZone ----------------------------------------------------------------------------------

TimeZone::TimeZone() : m_data(utc_data()) {}
TimeZone::TimeZone(std::shared_ptr<const ZoneData> data) : m_data(std::move(data)) {}

Result<TimeZone> TimeZone::load(std::string_view name, std::string_view zoneinfo_dir) {
  if (iequals(name, "UTC") || iequals(name, "Z")) return TimeZone();
  auto fixed = TRY(parse_fixed_offset(name));
  if (fixed) return TimeZone(fixed_zone(std::string(name), *fixed));
  TRY(check_zone_name(name));

  const std::string dir = zoneinfo_dir.empty() ? default_zoneinfo_dir() : std::string(zoneinfo_dir);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return errorf(Code::NotFound,
                  "time zone '{}' cannot be looked up: there is no time zone database at {} (install the tzdata package)",
                  name, dir);
  auto bytes = TRY(read_zone_file(dir + "/" + std::string(name), name));
  return from_tzif(std::string(name), bytes);
}

Result<TimeZone> TimeZone::from_tzif(std::string name, std::string_view bytes) {
  auto data = TRY(parse_tzif(std::move(name), bytes));
  return TimeZone(std::make_shared<const ZoneData>(std::move(data)));
}

Result<TimeZone> TimeZone::from_posix(std::string_view rule) {
  auto parsed = rule.size() <= 200 ? PosixParser(rule).parse() : std::nullopt;
  if (!parsed)
    return errorf(Code::InvalidArgument, "'{}' is not a POSIX TZ rule (e.g. CET-1CEST,M3.5.0,M10.5.0/3)",
                  rule.substr(0, 60));
  auto z = std::make_shared<ZoneData>();
  z->name = std::string(rule);
  z->types.push_back(parsed->std_type);
  z->rule = std::move(*parsed);
  return TimeZone(std::move(z));
}

TimeZone TimeZone::local() {
  const std::string name = local_zone_name();
  if (name != "UTC") {
    if (auto z = load(name)) return *z;
    if (auto z = from_posix(name)) return *z;
  }
  // Some systems copy the zone's file to /etc/localtime instead of linking it: then the file is
  // the only word on the zone, and it has no name of its own.
  if (auto bytes = read_zone_file("/etc/localtime", "localtime"))
    if (auto z = from_tzif("localtime", *bytes)) return *z;
  return TimeZone();
}

const std::string& TimeZone::name() const { return m_data->name; }

int TimeZone::utc_offset(int64_t t) const { return type_at(*m_data, t).utoff; }
std::string TimeZone::abbreviation(int64_t t) const { return type_at(*m_data, t).abbr; }
bool TimeZone::is_dst(int64_t t) const { return type_at(*m_data, t).isdst; }

CivilTime TimeZone::to_local(int64_t t) const {
  t = std::clamp(t, kMinInstant, kMaxInstant);
  return civil_from_unix(t + utc_offset(t));
}

LocalInstants TimeZone::resolve(const CivilTime& local) const {
  // Read the wall clock as if it were UTC (L), then look at every offset in force within two days
  // of it: offsets are under 26 hours, so the instants that show `local` lie in that window. Each
  // stretch of constant offset `off` holds a solution when L - off falls inside it.
  const int64_t L = std::clamp(unix_from_civil(local), kMinInstant, kMaxInstant);
  const int64_t a = L - 2 * 86400;
  const int64_t b = L + 2 * 86400;
  const auto points = change_points(*m_data, a, b);

  std::vector<int64_t> found;
  std::optional<LocalInstants> gap;
  int64_t seg_start = a;
  int32_t off = type_at(*m_data, a).utoff;
  for (size_t i = 0; i <= points.size(); ++i) {
    const int64_t seg_end = i < points.size() ? points[i] : b + 1;
    const int64_t t = L - off;
    if (t >= seg_start && t < seg_end) found.push_back(t);
    if (i == points.size()) break;
    const int32_t next = type_at(*m_data, points[i]).utoff;
    // Clocks jumped from points[i] + off to points[i] + next: readings in between never happen.
    if (next > off && points[i] + off <= L && L < points[i] + next)
      gap = LocalInstants{LocalInstants::Kind::Gap, points[i], L - off};
    seg_start = points[i];
    off = next;
  }
  if (found.size() == 1) return {LocalInstants::Kind::Unique, found[0], found[0]};
  if (found.size() > 1) return {LocalInstants::Kind::Overlap, found.front(), found.back()};
  if (gap) return *gap;
  const int64_t t = L - utc_offset(L);  // unreachable for consistent data; a sane answer all the same
  return {LocalInstants::Kind::Unique, t, t};
}

int64_t TimeZone::to_utc(const CivilTime& local) const {
  const LocalInstants r = resolve(local);
  return r.kind == LocalInstants::Kind::Gap ? r.latest : r.earliest;
}

// ---- the system's zone -------------------------------------------------------------------------

std::string default_zoneinfo_dir() {
  const char* dir = std::getenv("TZDIR");
  return dir && *dir ? std::string(dir) : std::string("/usr/share/zoneinfo");
}

std::string local_zone_name_from(const char* tz_env, const std::string& localtime_path, const std::string& timezone_path,
                                 const std::string& zoneinfo_dir) {
  std::string link_path = localtime_path;
  if (tz_env && *tz_env) {
    std::string_view tz = tz_env;
    if (tz.front() == ':') tz.remove_prefix(1);
    const std::string prefix = zoneinfo_dir + "/";
    if (tz.substr(0, prefix.size()) == prefix) tz.remove_prefix(prefix.size());
    // TZ=:/etc/localtime (a common container setting) names a file, not a zone: read it as the link.
    if (!tz.empty() && tz.front() == '/') link_path = std::string(tz);
    else if (!tz.empty()) return std::string(tz);
  }
  // Debian and most systems make /etc/localtime a symlink into the zoneinfo tree: its target names the zone.
  std::array<char, 4096> buf{};
  const ssize_t n = ::readlink(link_path.c_str(), buf.data(), buf.size() - 1);
  if (n > 0) {
    const std::string_view target(buf.data(), static_cast<size_t>(n));
    const size_t at = target.rfind("zoneinfo/");
    if (at != std::string_view::npos) {
      std::string_view zone = target.substr(at + 9);
      // The "posix/" and "right/" subtrees hold the same zones; name the plain one.
      if (zone.substr(0, 6) == "posix/") zone.remove_prefix(6);
      if (!zone.empty() && check_zone_name(zone)) return std::string(zone);
    }
  }
  std::ifstream in(timezone_path);
  std::string line;
  if (in && std::getline(in, line)) {
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r' || line.back() == '\t')) line.pop_back();
    if (!line.empty() && check_zone_name(line)) return line;
  }
  return "UTC";
}

std::string local_zone_name() {
  return local_zone_name_from(std::getenv("TZ"), "/etc/localtime", "/etc/timezone", default_zoneinfo_dir());
}

}  // namespace ouro::schedule
