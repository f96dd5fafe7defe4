#include "schedule/timing.h"

#include "base/text.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace ouro::schedule {
namespace {

constexpr std::string_view kDurationHint = "write e.g. 30m, 1h, 2h30m or 1d (units s, m, h, d, w)";
constexpr std::string_view kAtHint =
    "write e.g. 2026-12-01T08:00, 2026-12-01 08:00, 2026-12-01T08:00Z, 2026-12-01T08:00+01:00, 08:00, +10m or in 2h";

std::string shown(std::string_view s) { return clip_text(s, 60); }

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

struct Unit {
  int64_t seconds;
  std::array<std::string_view, 5> names;
};
// Largest first: a duration lists its units in this order.
constexpr std::array<Unit, 5> kUnits = {{
    {604800, {"w", "week", "weeks", "wk", "wks"}},
    {86400, {"d", "day", "days", "", ""}},
    {3600, {"h", "hour", "hours", "hr", "hrs"}},
    {60, {"m", "minute", "minutes", "min", "mins"}},
    {1, {"s", "second", "seconds", "sec", "secs"}},
}};

// Reads exactly `n` digits at s[i…]; advances i.
std::optional<int> digits(std::string_view s, size_t& i, size_t n) {
  if (i + n > s.size()) return std::nullopt;
  int v = 0;
  for (size_t k = 0; k < n; ++k) {
    if (!is_digit(s[i + k])) return std::nullopt;
    v = v * 10 + (s[i + k] - '0');
  }
  i += n;
  return v;
}

// "Z", "+01:00", "+0100", "+01", "-05:30" → seconds east of UTC; nullopt when `s` is none of them.
std::optional<int64_t> parse_offset_suffix(std::string_view s) {
  if (s == "z" || s == "Z") return 0;
  if (s.empty() || (s[0] != '+' && s[0] != '-')) return std::nullopt;
  const int sign = s[0] == '-' ? -1 : 1;
  size_t i = 1;
  auto h = digits(s, i, 2);
  if (!h) return std::nullopt;
  int m = 0;
  if (i < s.size()) {
    if (s[i] == ':') ++i;
    auto mm = digits(s, i, 2);
    if (!mm) return std::nullopt;
    m = *mm;
  }
  if (i != s.size() || *h > 18 || m > 59) return std::nullopt;
  return sign * (int64_t{*h} * 3600 + m * 60);
}

// "HH:MM" or "HH:MM:SS" at s[i…]; advances i.
bool read_clock(std::string_view s, size_t& i, CivilTime& c) {
  auto h = digits(s, i, 2);
  if (!h || i >= s.size() || s[i] != ':') return false;
  ++i;
  auto m = digits(s, i, 2);
  if (!m) return false;
  c.hour = *h;
  c.minute = *m;
  c.second = 0;
  if (i < s.size() && s[i] == ':') {
    ++i;
    auto sec = digits(s, i, 2);
    if (!sec) return false;
    c.second = *sec;
  }
  return true;
}

Result<int64_t> check_future(int64_t t, std::string_view text, const TimeZone& zone, int64_t now) {
  if (t <= now)
    return errorf(Code::InvalidArgument, "the time '{}' is in the past (it is {} {} now)", shown(text),
                  to_string(zone.to_local(now)), zone.name());
  if (t > kMaxInstant) return errorf(Code::InvalidArgument, "the time '{}' is after the year 9999", shown(text));
  return t;
}

std::optional<int64_t> next_every(const Timing& t, int64_t after) {
  // Timing is a plain struct: clamp what it holds so no sum below can overflow.
  if (t.interval <= 0 || t.interval > kMaxDuration) return std::nullopt;
  after = std::clamp(after, kMinInstant, kMaxInstant);
  const int64_t since = std::clamp(t.since, kMinInstant, kMaxInstant);
  if (after < since) return since + t.interval <= kMaxInstant ? std::optional<int64_t>(since + t.interval) : std::nullopt;
  // Runs fall at since + k·interval, k ≥ 1: counting from the timing's start keeps them on the
  // same grid however late the caller asks.
  const int64_t k = (after - since) / t.interval + 1;
  if (k > (kMaxInstant - since) / t.interval) return std::nullopt;
  return since + k * t.interval;
}

}  // namespace

Result<int64_t> parse_duration(std::string_view text) {
  const std::string s = lower(trim(text));
  auto wrong = [&](std::string_view why) {
    return errorf(Code::InvalidArgument, "the duration '{}' {}; {}", shown(trim(text)), why, kDurationHint);
  };
  if (s.empty()) return wrong("is empty");
  if (s.size() > 100) return wrong("is too long");
  int64_t total = 0;
  size_t next_unit = 0;  // index into kUnits of the largest unit still allowed
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_space(s[i])) ++i;
    if (i == s.size()) break;
    const size_t num_start = i;
    while (i < s.size() && is_digit(s[i])) ++i;
    if (i == num_start) return wrong("is not a number followed by a unit");
    if (i - num_start > 9) return wrong("has a number too large");
    int64_t n = 0;
    for (size_t k = num_start; k < i; ++k) n = n * 10 + (s[k] - '0');
    while (i < s.size() && is_space(s[i])) ++i;
    const size_t unit_start = i;
    while (i < s.size() && std::isalpha(static_cast<unsigned char>(s[i]))) ++i;
    const std::string_view unit = std::string_view(s).substr(unit_start, i - unit_start);
    if (unit.empty()) return wrong(fmt::format("has a number without a unit ({})", n));
    size_t found = kUnits.size();
    for (size_t u = 0; u < kUnits.size() && found == kUnits.size(); ++u)
      for (auto name : kUnits[u].names)
        if (!name.empty() && unit == name) found = u;
    if (found == kUnits.size()) return wrong(fmt::format("has an unknown unit '{}'", shown(unit)));
    if (found < next_unit) return wrong("repeats a unit or lists a smaller unit before a larger one (write 2h30m, not 30m2h)");
    next_unit = found + 1;
    total += n * kUnits[found].seconds;  // at most 1e9 · 604800 per part, five parts: no overflow
  }
  if (total <= 0) return wrong("is zero");
  if (total > kMaxDuration) return wrong("is longer than ten years");
  return total;
}

Result<int64_t> parse_interval(std::string_view text) {
  const int64_t seconds = TRY(parse_duration(text));
  if (seconds < kMinInterval)
    return errorf(Code::InvalidArgument, "the interval '{}' is {} seconds; the shortest interval is 1 minute (60s)",
                  shown(trim(text)), seconds);
  return seconds;
}

std::string format_duration(int64_t seconds) {
  if (seconds <= 0) return "0s";
  std::string out;
  for (const auto& u : kUnits) {
    if (u.seconds == 604800 && seconds % 604800 != 0) continue;  // "10d" reads better than "1w3d"
    if (seconds >= u.seconds) {
      out += fmt::format("{}{}", seconds / u.seconds, u.names[0]);
      seconds %= u.seconds;
    }
  }
  return out;
}

Result<int64_t> parse_at(std::string_view text, const TimeZone& zone, int64_t now) {
  const std::string_view s = trim(text);
  if (s.empty()) return errorf(Code::InvalidArgument, "the time is empty; {}", kAtHint);
  if (s.size() > 100) return errorf(Code::InvalidArgument, "the time '{}' is too long; {}", shown(s), kAtHint);
  const std::string l = lower(s);

  // Relative: "+10m", "in 2h".
  std::optional<std::string_view> relative;
  if (l.front() == '+') relative = std::string_view(l).substr(1);
  if (l.size() > 3 && l.substr(0, 3) == "in ") relative = std::string_view(l).substr(3);
  if (relative) {
    const int64_t d = TRY(parse_duration(*relative));
    if (now > kMaxInstant - d) return errorf(Code::InvalidArgument, "the time '{}' is after the year 9999", shown(s));
    return check_future(now + d, s, zone, now);
  }

  CivilTime c;
  size_t i = 0;
  auto unreadable = [&] { return errorf(Code::InvalidArgument, "cannot read '{}' as a time; {}", shown(s), kAtHint); };
  auto impossible = [&] {
    return errorf(Code::InvalidArgument, "the time '{}' does not exist (month 1-12, day within the month, hour 0-23, "
                  "minute and second 0-59)", shown(s));
  };

  // A clock time alone: the next time the zone's clock shows it.
  if (s.size() >= 5 && s[2] == ':') {
    if (!read_clock(s, i, c) || i != s.size()) return unreadable();
    const CivilTime today = zone.to_local(now);
    c.year = today.year;
    c.month = today.month;
    c.day = today.day;
    if (!is_valid_civil(c)) return impossible();
    int64_t t = zone.to_utc(c);
    if (t <= now) {
      const CivilDate next = civil_from_days(days_from_civil(c.year, c.month, c.day) + 1);
      c.year = static_cast<int>(next.year);
      c.month = next.month;
      c.day = next.day;
      t = zone.to_utc(c);
    }
    return check_future(t, s, zone, now);
  }

  // ISO 8601: date, then optionally 'T' or spaces and a clock time, then optionally Z or an offset.
  auto y = digits(s, i, 4);
  if (!y || i >= s.size() || s[i] != '-') return unreadable();
  ++i;
  auto mo = digits(s, i, 2);
  if (!mo || i >= s.size() || s[i] != '-') return unreadable();
  ++i;
  auto d = digits(s, i, 2);
  if (!d) return unreadable();
  c.year = *y;
  c.month = *mo;
  c.day = *d;
  if (i < s.size()) {
    if (s[i] == 'T' || s[i] == 't') {
      ++i;
    } else if (is_space(s[i])) {
      while (i < s.size() && is_space(s[i])) ++i;
    } else {
      return unreadable();
    }
    if (!read_clock(s, i, c)) return unreadable();
  }
  std::optional<int64_t> offset;
  if (i < s.size()) {
    offset = parse_offset_suffix(trim(s.substr(i)));
    if (!offset) return unreadable();
  }
  if (!is_valid_civil(c)) return impossible();
  const int64_t t = offset ? unix_from_civil(c) - *offset : zone.to_utc(c);
  return check_future(t, s, zone, now);
}

Result<Timing> parse_timing(TimingKind kind, std::string_view text, const TimeZone& zone, int64_t now) {
  Timing t;
  t.kind = kind;
  t.zone = zone;
  t.since = now;
  switch (kind) {
    case TimingKind::Once: t.at = TRY(parse_at(text, zone, now)); break;
    case TimingKind::Every: t.interval = TRY(parse_interval(text)); break;
    case TimingKind::Cron: t.cron = TRY(parse_cron(text)); break;
  }
  return t;
}

Result<Timing> parse_timing(std::string_view text, const TimeZone& zone, int64_t now) {
  const std::string_view s = trim(text);
  const std::string l = lower(s.substr(0, 6));
  if (l.substr(0, 6) == "every ") return parse_timing(TimingKind::Every, s.substr(6), zone, now);
  if (l.substr(0, 5) == "cron ") return parse_timing(TimingKind::Cron, s.substr(5), zone, now);
  if (l.substr(0, 3) == "at ") return parse_timing(TimingKind::Once, s.substr(3), zone, now);
  if (!s.empty() && s.front() == '@') return parse_timing(TimingKind::Cron, s, zone, now);
  // Five words are a cron expression; an --at time has at most two ("2026-12-01 08:00", "in 2h").
  size_t words = 0;
  for (size_t i = 0; i < s.size() && words <= 5;) {
    while (i < s.size() && is_space(s[i])) ++i;
    if (i < s.size()) ++words;
    while (i < s.size() && !is_space(s[i])) ++i;
  }
  if (words == 5) return parse_timing(TimingKind::Cron, s, zone, now);
  return parse_timing(TimingKind::Once, s, zone, now);
}

std::optional<int64_t> next_fire(const Timing& timing, int64_t after) {
  switch (timing.kind) {
    case TimingKind::Once: return timing.at > after ? std::optional<int64_t>(timing.at) : std::nullopt;
    case TimingKind::Every: return next_every(timing, after);
    case TimingKind::Cron: return next_match(timing.cron, timing.zone, after);
  }
  return std::nullopt;
}

StartDecision decide_start(const Timing& timing, std::optional<int64_t> last_fire, int64_t now, Missed policy) {
  StartDecision out;
  now = std::clamp(now, kMinInstant, kMaxInstant);
  const int64_t since = last_fire.value_or(timing.since);
  const auto due = next_fire(timing, since);
  if (due && *due < now) {
    out.first_missed = due;
    out.run_now = policy == Missed::RunOnce;
    // After a catch-up run nothing else may run at this same instant; without one, a run due
    // exactly now is not missed but due.
    out.next = next_fire(timing, out.run_now ? now : now - 1);
    return out;
  }
  out.next = due;
  return out;
}

std::string describe(const Timing& timing) {
  const std::string zone = timing.zone.name();
  switch (timing.kind) {
    case TimingKind::Once: {
      const std::string abbr = timing.zone.abbreviation(timing.at);
      const std::string when = to_string(timing.zone.to_local(timing.at));
      if (abbr.empty() || abbr == zone) return fmt::format("once at {} ({})", when, zone);
      return fmt::format("once at {} {} ({})", when, abbr, zone);
    }
    case TimingKind::Every: return "every " + format_duration(timing.interval);
    case TimingKind::Cron: return fmt::format("{} ({})", describe(timing.cron), zone);
  }
  return {};
}

}  // namespace ouro::schedule
