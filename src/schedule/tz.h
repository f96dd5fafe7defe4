// Time zones for the scheduler: the IANA database as the system ships it (TZif files, RFC 8536,
// under /usr/share/zoneinfo), "UTC", and fixed offsets. GCC 12 has no std::chrono::tzdb, so this
// reads the files itself. Past the last transition a file lists, local time follows the POSIX TZ
// rule in the file's footer (RFC 8536 §3.3); Debian may ship "slim" files that list few
// transitions and leave the rest to that rule.
//
// A TimeZone is an immutable value: cheap to copy (its data is shared) and safe to use from any
// thread. Only load() and the local-zone helpers do I/O, and only to read files.
#pragma once

#include "base/error.h"
#include "schedule/civil.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace ouro::schedule {

struct ZoneData;  // tz.cpp

// How a wall-clock reading maps to instants in a zone.
struct LocalInstants {
  enum class Kind {
    Unique,   // the reading happens once
    Overlap,  // twice (clocks were set back): `earliest` and `latest` are the two occurrences
    Gap,      // never (clocks were set forward past it): `earliest` is the instant the gap ends (the
              // transition), `latest` the reading taken with the offset before the gap (02:30 → 03:30)
  };
  Kind kind = Kind::Unique;
  int64_t earliest = 0;
  int64_t latest = 0;
};

class TimeZone {
 public:
  // UTC.
  TimeZone();

  // name is one of:
  //   "UTC" (or "Z"), any case;
  //   a fixed offset, east of Greenwich positive: "+05:30", "-0800", "+02", "UTC+2", "UTC-03:30"
  //     (ISO 8601 signs: "UTC+2" is two hours ahead of UTC, the opposite of POSIX TZ and of the
  //     file Etc/GMT+2), at most 18 hours;
  //   an IANA name, read from zoneinfo_dir/name: "Europe/Berlin", "America/New_York".
  // IANA names may hold only A-Z a-z 0-9 _ + - / and may not be absolute or hold "..": a name never
  // reaches outside zoneinfo_dir. An empty zoneinfo_dir is default_zoneinfo_dir().
  // Errors: InvalidArgument (a malformed name), NotFound (no such zone, or no zoneinfo directory:
  // install tzdata), DataLoss (the file is not a TZif file we can read).
  static Result<TimeZone> load(std::string_view name, std::string_view zoneinfo_dir = {});

  // A zone from the bytes of a TZif file (v1, v2, v3 or v4; the 64-bit data is used when present).
  // Files with leap-second records ("right/…") are refused: their instants are not Unix time.
  static Result<TimeZone> from_tzif(std::string name, std::string_view bytes);

  // A zone from a POSIX TZ rule, e.g. "CET-1CEST,M3.5.0,M10.5.0/3" (POSIX offsets count west:
  // "EST5" is UTC-5). A rule with a DST name and no dates takes the US dates (M3.2.0,M11.1.0), as tzcode does.
  static Result<TimeZone> from_posix(std::string_view rule);

  // The system's zone (local_zone_name()), or the TZif file /etc/localtime itself (named
  // "localtime") when no name can be found; UTC when neither can be read.
  static TimeZone local();

  // The name it was loaded by ("Europe/Berlin", "+05:30", "UTC").
  const std::string& name() const;

  // Seconds to add to UTC to get local time at instant t (Unix seconds): 3600 for CET.
  int utc_offset(int64_t unix_seconds) const;
  // The abbreviation in use at t ("CEST", "EST", "+0530"); may be empty.
  std::string abbreviation(int64_t unix_seconds) const;
  bool is_dst(int64_t unix_seconds) const;

  // The wall-clock reading at t.
  CivilTime to_local(int64_t unix_seconds) const;
  // All the ways `local` maps to instants (see LocalInstants). Fields out of range are carried
  // (minute 60 is the next hour), as timegm does.
  LocalInstants resolve(const CivilTime& local) const;
  // One instant for `local`: the first occurrence in an overlap; in a gap the reading moves
  // forward by the gap's length (02:30 on a spring-forward day is 03:30), as RFC 5545, java.time
  // and Temporal's "compatible" do.
  int64_t to_utc(const CivilTime& local) const;

 private:
  explicit TimeZone(std::shared_ptr<const ZoneData> data);
  std::shared_ptr<const ZoneData> m_data;
};

// $TZDIR when set, else /usr/share/zoneinfo.
std::string default_zoneinfo_dir();

// The system's zone name: $TZ (without a leading ':'; a path under the zoneinfo directory is
// made relative; another absolute path is read like /etc/localtime), else the target of the
// /etc/localtime symlink below a "zoneinfo/" folder, else
// the first line of /etc/timezone, else "UTC". $TZ may also be a POSIX rule ("EST5EDT,M3.2.0,M11.1.0"),
// which TimeZone::local() understands and load() does not.
std::string local_zone_name();
// The same from given sources, for tests: tz_env null when $TZ is unset.
std::string local_zone_name_from(const char* tz_env, const std::string& localtime_path, const std::string& timezone_path,
                                 const std::string& zoneinfo_dir);

}  // namespace ouro::schedule
