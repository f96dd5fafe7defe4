#include "schedule/cron.h"

#include "base/text.h"

#include <array>
#include <cctype>
#include <vector>

namespace ouro::schedule {
namespace {

constexpr std::array<std::string_view, 12> kMonthAbbr = {"jan", "feb", "mar", "apr", "may", "jun",
                                                         "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr std::array<std::string_view, 7> kDayAbbr = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};
constexpr std::array<std::string_view, 12> kMonthName = {"January", "February", "March",     "April",   "May",      "June",
                                                         "July",    "August",   "September", "October", "November", "December"};
constexpr std::array<std::string_view, 7> kDayName = {"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"};

struct Field {
  std::string_view name;
  int min;
  int max;
  std::string_view allowed;  // for "not a number" errors
};

constexpr std::array<Field, 5> kFields = {{
    {"minute", 0, 59, "minutes go 0-59"},
    {"hour", 0, 23, "hours go 0-23"},
    {"day-of-month", 1, 31, "days of the month go 1-31"},
    {"month", 1, 12, "months go 1-12 or JAN-DEC"},
    {"day-of-week", 0, 7, "days of the week go 0-7 (0 and 7 are Sunday) or SUN-SAT"},
}};
enum FieldIndex { kMinute, kHour, kDom, kMonth, kDow };

// Vixie cron's macros (crontab(5)); @reboot is not a time, so it is not here.
struct Macro {
  std::string_view name;
  std::string_view expansion;
};
constexpr std::array<Macro, 7> kMacros = {{
    {"@hourly", "0 * * * *"},
    {"@daily", "0 0 * * *"},
    {"@midnight", "0 0 * * *"},
    {"@weekly", "0 0 * * 0"},
    {"@monthly", "0 0 1 * *"},
    {"@yearly", "0 0 1 1 *"},
    {"@annually", "0 0 1 1 *"},
}};

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// What an error message quotes of the input: hostile texts are long.
std::string shown(std::string_view s) { return clip_text(s, 40); }

using Bits = std::bitset<64>;

class FieldParser {
 public:
  FieldParser(const Field& f, int index, std::string_view text) : m_f(f), m_index(index), m_text(text) {}

  Result<Bits> parse() {
    Bits bits;
    size_t start = 0;
    // Every character is looked at a bounded number of times, and each list item sets at most 60
    // bits, so time is linear in the text whatever it holds.
    for (;;) {
      const size_t comma = m_text.find(',', start);
      const std::string_view item = m_text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
      if (item.empty())
        return errorf(Code::InvalidArgument, "cron: {} field '{}' has an empty list item", m_f.name, shown(m_text));
      TRY(parse_item(item, bits));
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    return bits;
  }

 private:
  Result<void> parse_item(std::string_view item, Bits& bits) {
    const size_t slash = item.find('/');
    const std::string_view base = item.substr(0, slash);
    int lo = 0, hi = 0, step = 1;
    if (base == "*") {
      lo = m_f.min;
      hi = m_f.max;
    } else {
      const size_t dash = base.find('-', 1);  // from 1: a leading '-' is a negative number, refused below
      if (dash == std::string_view::npos) {
        lo = TRY(value(base));
        // "5/15" means from 5 to the end in steps of 15 (cronie and most crons read it so).
        hi = slash == std::string_view::npos ? lo : m_f.max;
      } else {
        lo = TRY(value(base.substr(0, dash)));
        hi = TRY(value(base.substr(dash + 1)));
        // SAT-SUN, 5-0: a range ending on Sunday means the Sunday at its end (7), not the one before.
        if (m_index == kDow && hi == 0 && lo > 0) hi = 7;
        if (lo > hi)
          return errorf(Code::InvalidArgument, "cron: {} field range '{}' runs backwards; write it as two ranges, e.g. '{}-{},{}-{}'",
                        m_f.name, shown(base), lo, m_f.max, m_f.min, hi);
      }
    }
    if (slash != std::string_view::npos) {
      const std::string_view step_text = item.substr(slash + 1);
      const int max_step = m_f.max - m_f.min;
      auto s = number(step_text);
      if (!s)
        return errorf(Code::InvalidArgument, "cron: {} field step '{}' in '{}' is not a number", m_f.name, shown(step_text),
                      shown(item));
      if (*s < 1 || *s > max_step)
        return errorf(Code::InvalidArgument, "cron: {} field step '{}' is out of range 1-{}", m_f.name, shown(step_text),
                      max_step);
      step = *s;
    }
    for (int v = lo; v <= hi; v += step) bits.set(m_index == kDow && v == 7 ? 0 : static_cast<size_t>(v));
    return {};
  }

  // Digits only, at most 9 of them (more is out of range anyway, and cannot overflow an int).
  static std::optional<int> number(std::string_view s) {
    if (s.empty() || s.size() > 9) return std::nullopt;
    int v = 0;
    for (char c : s) {
      if (c < '0' || c > '9') return std::nullopt;
      v = v * 10 + (c - '0');
    }
    return v;
  }

  Result<int> value(std::string_view s) {
    if (s.empty())
      return errorf(Code::InvalidArgument, "cron: {} field '{}' has a range with a missing end", m_f.name, shown(m_text));
    const bool all_digits = s.find_first_not_of("0123456789") == std::string_view::npos;
    if (all_digits) {
      auto v = number(s);
      if (!v || *v < m_f.min || *v > m_f.max)
        return errorf(Code::InvalidArgument, "cron: {} field '{}' is out of range {}-{}", m_f.name, shown(s), m_f.min, m_f.max);
      return *v;
    }
    if (s.size() == 3 && (m_index == kMonth || m_index == kDow)) {
      const std::string l = lower(s);
      if (m_index == kMonth)
        for (size_t i = 0; i < kMonthAbbr.size(); ++i)
          if (l == kMonthAbbr[i]) return static_cast<int>(i) + 1;
      if (m_index == kDow)
        for (size_t i = 0; i < kDayAbbr.size(); ++i)
          if (l == kDayAbbr[i]) return static_cast<int>(i);
    }
    if (s.front() == '-')
      return errorf(Code::InvalidArgument, "cron: {} field '{}' is negative; {}", m_f.name, shown(s), m_f.allowed);
    // Quartz-style L (last), W (weekday), # (nth weekday) and ? get a message of their own.
    const bool digits_then_letter = s.size() > 1 && (s.back() == 'L' || s.back() == 'W') &&
                                    s.substr(0, s.size() - 1).find_first_not_of("0123456789") == std::string_view::npos;
    if (s == "L" || s == "LW" || s == "?" || s.find('#') != std::string_view::npos || digits_then_letter)
      return errorf(Code::InvalidArgument, "cron: {} field '{}' uses an extension (L, W, # or ?) this cron does not support; {}",
                    m_f.name, shown(m_text), m_f.allowed);
    return errorf(Code::InvalidArgument,
                  "cron: {} field '{}' is not a number, range (1-5), list (1,3) or step (*/15); {}", m_f.name, shown(s),
                  m_f.allowed);
  }

  const Field& m_f;
  int m_index;
  std::string_view m_text;
};

template <size_t N>
std::bitset<N> narrow(const Bits& b) {
  std::bitset<N> out;
  for (size_t i = 0; i < N; ++i) out[i] = b[i];
  return out;
}

// ---- describe ----------------------------------------------------------------------------------

// "A", "A and B", "A, B and C".
std::string join_english(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 == items.size() ? " and " : ", ";
    out += items[i];
  }
  return out;
}

// The set bits of `bits` in [lo, hi] as English: runs of three or more become "A through B".
template <size_t N, typename Name>
std::string english_set(const std::bitset<N>& bits, int lo, int hi, Name name) {
  std::vector<std::string> items;
  for (int v = lo; v <= hi; ++v) {
    if (!bits[static_cast<size_t>(v)]) continue;
    int end = v;
    while (end + 1 <= hi && bits[static_cast<size_t>(end + 1)]) ++end;
    if (end - v >= 2) {
      items.push_back(name(v) + " through " + name(end));
    } else {
      for (int w = v; w <= end; ++w) items.push_back(name(w));
    }
    v = end;
  }
  return join_english(items);
}

template <size_t N>
std::vector<int> set_values(const std::bitset<N>& bits) {
  std::vector<int> out;
  for (size_t i = 0; i < N; ++i)
    if (bits[i]) out.push_back(static_cast<int>(i));
  return out;
}

// The step n when `bits` is exactly {0, n, 2n, …} over the whole field and n divides `count`
// (so the runs are evenly spaced across the hour too); 0 otherwise.
template <size_t N>
int step_from_zero(const std::bitset<N>& bits, int count) {
  const auto v = set_values(bits);
  if (v.size() < 2 || v[0] != 0) return 0;
  const int step = v[1];
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] != static_cast<int>(i) * step) return 0;
  return count % step == 0 && static_cast<int>(v.size()) == count / step ? step : 0;
}

std::string number_name(int v) { return std::to_string(v); }

std::string describe_times(const CronSpec& s) {
  const auto minutes = set_values(s.minutes);
  const auto hours = set_values(s.hours);
  const bool all_minutes = s.minutes.all();
  const bool all_hours = s.hours.all();
  if (all_minutes && all_hours) return "every minute";
  if (all_hours) {
    if (const int step = step_from_zero(s.minutes, 60)) return fmt::format("every {} minutes", step);
    if (minutes.size() == 1) return fmt::format("at minute {} of every hour", minutes[0]);
    return fmt::format("at minutes {} of every hour", english_set(s.minutes, 0, 59, number_name));
  }
  if (minutes.size() * hours.size() <= 4) {
    std::vector<std::string> times;
    for (int h : hours)
      for (int m : minutes) times.push_back(fmt::format("{:02}:{:02}", h, m));
    return "at " + join_english(times);
  }
  const std::string hour_text =
      fmt::format("during hour{} {}", hours.size() == 1 ? "" : "s", english_set(s.hours, 0, 23, number_name));
  if (all_minutes) return "every minute " + hour_text;
  if (const int step = step_from_zero(s.minutes, 60)) return fmt::format("every {} minutes {}", step, hour_text);
  return fmt::format("at minute{} {} {}", minutes.size() == 1 ? "" : "s", english_set(s.minutes, 0, 59, number_name),
                     hour_text);
}

std::string describe_days(const CronSpec& s) {
  std::string dom_text, dow_text;
  bool dom_all = true;
  for (int d = 1; d <= 31; ++d) dom_all = dom_all && s.days_of_month[static_cast<size_t>(d)];
  if (!dom_all) {
    const auto n = set_values(s.days_of_month).size();
    dom_text = fmt::format("on day{} {} of the month", n == 1 ? "" : "s", english_set(s.days_of_month, 1, 31, number_name));
  }
  if (!s.days_of_week.all())
    dow_text = "on " + english_set(s.days_of_week, 0, 6, [](int d) { return std::string(kDayName[static_cast<size_t>(d)]); });
  std::string out;
  if (!dom_text.empty() && !dow_text.empty()) {
    // The Vixie rule: both restricted means either; a '*'-led field (*/2) makes it both.
    out = dom_text + (!s.dom_unrestricted && !s.dow_unrestricted ? " or " : " if it is ") +
          (!s.dom_unrestricted && !s.dow_unrestricted ? dow_text : dow_text.substr(3));
  } else {
    out = dom_text.empty() ? dow_text : dom_text;
  }
  bool months_all = true;
  for (int m = 1; m <= 12; ++m) months_all = months_all && s.months[static_cast<size_t>(m)];
  if (!months_all) {
    if (!out.empty()) out += ' ';
    out += "in " + english_set(s.months, 1, 12, [](int m) { return std::string(kMonthName[static_cast<size_t>(m - 1)]); });
  }
  return out;
}

}  // namespace

bool CronSpec::matches_day(int64_t year, int month, int day) const {
  if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, month) || !months[static_cast<size_t>(month)])
    return false;
  const bool dom = days_of_month[static_cast<size_t>(day)];
  const bool dow = days_of_week[static_cast<size_t>(weekday_from_days(days_from_civil(year, month, day)))];
  if (dom_unrestricted || dow_unrestricted) return dom && dow;
  return dom || dow;
}

bool CronSpec::matches(const CivilTime& t) const {
  return t.minute >= 0 && t.minute < 60 && t.hour >= 0 && t.hour < 24 && minutes[static_cast<size_t>(t.minute)] &&
         hours[static_cast<size_t>(t.hour)] && matches_day(t.year, t.month, t.day);
}

Result<CronSpec> parse_cron(std::string_view text) {
  if (text.size() > kMaxCronChars)
    return errorf(Code::InvalidArgument, "cron: the expression is {} characters long; at most {} are read", text.size(),
                  kMaxCronChars);
  auto is_space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  if (text.empty())
    return make_error(Code::InvalidArgument,
                      "cron: the expression is empty; write five fields (minute hour day-of-month month day-of-week), "
                      "e.g. '*/5 * * * *', or a macro such as @daily");

  std::string_view fields_text = text;
  if (text.front() == '@') {
    const std::string name = lower(text);
    const Macro* found = nullptr;
    for (const auto& m : kMacros)
      if (name == m.name) found = &m;
    if (!found)
      return errorf(Code::InvalidArgument,
                    "cron: '{}' is not a macro this cron knows; use @hourly, @daily, @midnight, @weekly, @monthly, "
                    "@yearly or @annually", shown(text));
    fields_text = found->expansion;
  }

  std::vector<std::string_view> fields;
  for (size_t i = 0; i < fields_text.size();) {
    while (i < fields_text.size() && is_space(fields_text[i])) ++i;
    const size_t start = i;
    while (i < fields_text.size() && !is_space(fields_text[i])) ++i;
    if (i > start) fields.push_back(fields_text.substr(start, i - start));
  }
  if (fields.size() != 5)
    return errorf(Code::InvalidArgument,
                  "cron: expected 5 fields (minute hour day-of-month month day-of-week), got {} in '{}'{}", fields.size(),
                  shown(text), fields.size() == 6 ? " (a seconds or year field is not supported)" : "");

  std::array<Bits, 5> bits;
  for (size_t i = 0; i < fields.size(); ++i) bits[i] = TRY(FieldParser(kFields[i], static_cast<int>(i), fields[i]).parse());

  CronSpec spec;
  spec.minutes = narrow<60>(bits[kMinute]);
  spec.hours = narrow<24>(bits[kHour]);
  spec.days_of_month = narrow<32>(bits[kDom]);
  spec.months = narrow<13>(bits[kMonth]);
  spec.days_of_week = narrow<7>(bits[kDow]);
  spec.dom_unrestricted = fields[kDom].front() == '*';
  spec.dow_unrestricted = fields[kDow].front() == '*';
  spec.text = std::string(text);
  return spec;
}

std::string describe(const CronSpec& spec) {
  const std::string days = describe_days(spec);
  return days.empty() ? describe_times(spec) : describe_times(spec) + " " + days;
}

std::optional<int64_t> next_match(const CronSpec& spec, const TimeZone& zone, int64_t after) {
  if (after >= kMaxInstant || spec.minutes.none() || spec.hours.none()) return std::nullopt;
  after = std::max(after, kMinInstant);
  int last_minute = 59;
  while (!spec.minutes[static_cast<size_t>(last_minute)]) --last_minute;

  const CivilTime start = zone.to_local(after);
  // From the day before `after`'s local date: a zone that set its clocks back across midnight
  // shows yesterday's date again, and those readings are still ahead.
  const int64_t first_day = days_from_civil(start.year, start.month, start.day) - 1;
  const int64_t last_day = first_day + 8 * 366 + 2;
  const bool every_hour = spec.hours.all();

  for (int64_t d = first_day; d <= last_day;) {
    const CivilDate date = civil_from_days(d);
    if (date.year > 9999) break;
    if (!spec.months[static_cast<size_t>(date.month)]) {
      d = days_from_civil(date.year, date.month, 1) + days_in_month(date.year, date.month);  // the next month's 1st
      continue;
    }
    if (!spec.matches_day(date.year, date.month, date.day)) {
      ++d;
      continue;
    }
    // Only the first few days can hold readings at or before `after`; later days fire at their
    // first matching minute.
    const bool near_after = d <= first_day + 2;
    std::optional<int64_t> best;
    auto consider = [&](int64_t t) {
      if (t > after && (!best || t < *best)) best = t;
    };
    bool settled = false;
    for (int h = 0; h < 24 && !settled; ++h) {
      if (!spec.hours[static_cast<size_t>(h)]) continue;
      auto at = [&](int minute) {
        return zone.resolve({static_cast<int>(date.year), date.month, date.day, h, minute, 0});
      };
      // Skip an hour whose last matching minute is already past: one conversion instead of sixty.
      if (near_after && at(last_minute).latest <= after) continue;
      for (int m = 0; m < 60; ++m) {
        if (!spec.minutes[static_cast<size_t>(m)]) continue;
        const LocalInstants r = at(m);
        consider(r.earliest);  // a gap's end, an overlap's first occurrence, or the one instant
        if (r.kind == LocalInstants::Kind::Overlap && every_hour) consider(r.latest);
        // Readings map to instants in order outside overlaps, so the first hit there is the answer;
        // inside an overlap a later reading's second occurrence may still come first.
        if (best && r.kind != LocalInstants::Kind::Overlap) {
          settled = true;
          break;
        }
      }
    }
    if (best) return best;
    ++d;
  }
  return std::nullopt;
}

}  // namespace ouro::schedule
