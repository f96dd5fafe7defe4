#include "schedule/jobs.h"
#include "base/random.h"

#include "base/text.h"
#include "store/database.h"
#include "store/sql.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <random>

namespace ouro::schedule {

namespace {

// The shape of what callers store: JSON texts for the lists and the timing, instants as
// integers (NULL: none), flags as 0/1.
constexpr store::Migration kMigrations[] = {
    {1,
     "CREATE TABLE IF NOT EXISTS schedules (id TEXT PRIMARY KEY, name TEXT NOT NULL, task TEXT NOT NULL, urls TEXT NOT NULL, "
     "options TEXT NOT NULL, timing TEXT NOT NULL, missed TEXT NOT NULL, enabled INTEGER NOT NULL DEFAULT 1, "
     "created_at INTEGER NOT NULL, last_fire INTEGER, next_fire INTEGER, last_run_id TEXT, runs INTEGER NOT NULL DEFAULT 0, "
     "last_skip TEXT, last_skip_at INTEGER, run_requested INTEGER NOT NULL DEFAULT 0)",
     "CREATE TABLE IF NOT EXISTS schedules (id TEXT PRIMARY KEY, name TEXT NOT NULL, task TEXT NOT NULL, urls TEXT NOT NULL, "
     "options TEXT NOT NULL, timing TEXT NOT NULL, missed TEXT NOT NULL, enabled BIGINT NOT NULL DEFAULT 1, "
     "created_at BIGINT NOT NULL, last_fire BIGINT, next_fire BIGINT, last_run_id TEXT, runs BIGINT NOT NULL DEFAULT 0, "
     "last_skip TEXT, last_skip_at BIGINT, run_requested BIGINT NOT NULL DEFAULT 0);"
     // A run's options as jsonb, NULL when they are not JSON (json_valid's part in SQLite):
     // https://www.postgresql.org/docs/15/plpgsql-control-structures.html#PLPGSQL-ERROR-TRAPPING
     "CREATE OR REPLACE FUNCTION ouro_try_jsonb(t TEXT) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$ "
     "BEGIN RETURN t::jsonb; EXCEPTION WHEN others THEN RETURN NULL; END $$;"},
};

constexpr const char* kColumns =
    "id, name, task, urls, options, timing, missed, enabled, created_at, last_fire, next_fire, last_run_id, runs, last_skip, "
    "last_skip_at, run_requested";

Result<void> ensure_schema(store::Connection& c) { return store::migrate(c, "schedule", kMigrations); }

std::string shown(std::string_view s) { return clip_text(s, 80); }

std::string new_job_id() { return random_id("s", 10); }

std::optional<int64_t> instant(const store::Row& s, size_t i) {
  if (s.is_null(i)) return std::nullopt;
  return s.int64(i);
}

// Control characters other than tab and newline have no place in a task, a name or a URL.
bool has_control(std::string_view s, bool newlines) {
  for (unsigned char c : s)
    if ((c < 0x20 && !(newlines && (c == '\n' || c == '\t' || c == '\r'))) || c == 0x7f) return true;
  return false;
}

// A row as the table keeps it; `why` says what is wrong with it, if anything.
Result<Job> read_row(const store::Row& s) {
  Job j;
  j.id = s.text(0);
  j.name = s.text(1);
  j.task = s.text(2);
  auto urls = parse_json(s.text(3), "urls");
  if (!urls || !urls->is_array()) return make_error(Code::DataLoss, "its urls are not a JSON list");
  for (const auto& u : *urls) {
    if (!u.is_string()) return make_error(Code::DataLoss, "its urls are not all strings");
    j.urls.push_back(u.get<std::string>());
  }
  auto options = parse_json(s.text(4), "options");
  if (!options || !options->is_object()) return make_error(Code::DataLoss, "its options are not a JSON object");
  j.options = std::move(*options);
  auto timing = parse_json(s.text(5), "timing");
  if (!timing || !timing->is_object()) return make_error(Code::DataLoss, "its timing is not a JSON object");
  auto t = timing_from_json(*timing);
  if (!t) return make_error(Code::DataLoss, "its timing cannot be read: " + t.error().message);
  j.timing = std::move(*t);
  j.when = get_str(*timing, "text");
  auto missed = parse_missed(s.text(6));
  if (!missed) return make_error(Code::DataLoss, missed.error().message);
  j.missed = *missed;
  j.enabled = s.int64(7) != 0;
  j.created_at = s.int64(8);
  j.last_fire = instant(s, 9);
  j.next_fire = instant(s, 10);
  j.last_run_id = s.text(11);
  j.runs = s.int64(12);
  j.last_skip = s.text(13);
  j.last_skip_at = instant(s, 14);
  j.run_requested = s.int64(15) != 0;
  if (j.id.empty() || j.task.empty()) return make_error(Code::DataLoss, "it has no id or no task");
  return j;
}

// One UPDATE of a job's row; NotFound when no row has this id.
// `params` are ?2…; the id is ?1.
Result<void> update(store::Connection& c, std::string_view id, const char* sql, std::initializer_list<store::Param> params) {
  std::vector<store::Param> all{store::Param(id)};
  all.insert(all.end(), params.begin(), params.end());
  TRY(ensure_schema(c));
  auto r = c.exec(sql, all);
  if (!r) return make_error(r.error().code, fmt::format("cannot update the schedule {}: {}", shown(id), r.error().message));
  if (r->affected == 0) return errorf(Code::NotFound, "no schedule '{}' (ouro schedule list shows them)", shown(id));
  return {};
}

Result<void> update(store::Database& db, std::string_view id, const char* sql, std::initializer_list<store::Param> params) {
  return db.with_sql([&](store::Connection& c) { return update(c, id, sql, params); });
}

constexpr const char* kRecordFire =
    "UPDATE schedules SET last_fire = ?2, last_run_id = ?3, runs = runs + 1, next_fire = ?4, run_requested = 0, "
    "last_skip = NULL, last_skip_at = NULL WHERE id = ?1";
constexpr const char* kRecordSkip =
    "UPDATE schedules SET last_fire = ?2, last_skip = ?3, last_skip_at = ?2, next_fire = ?4, run_requested = 0 WHERE id = ?1";

}  // namespace

int64_t min_interval() {
  if (const char* v = std::getenv("OURO_SCHEDULE_MIN_INTERVAL_S"); v && *v) {
    char* end = nullptr;
    long long n = std::strtoll(v, &end, 10);
    if (end && *end == '\0' && n >= 1 && n <= kMinInterval) return n;
  }
  return kMinInterval;
}

Result<TimeZone> zone_named(std::string_view name) {
  if (name.empty()) return TimeZone::local();
  auto z = TimeZone::load(name);
  if (z) return z;
  // The system's own zone may have a name load() does not take (a POSIX rule in $TZ, "localtime").
  if (TimeZone local = TimeZone::local(); local.name() == name) return local;
  // A zone that does not exist is the person's mistake, whatever the reason load() gives.
  return make_error(z.error().code == Code::DataLoss ? Code::DataLoss : Code::InvalidArgument, z.error().message);
}

Result<Timing> make_timing(TimingKind kind, std::string_view text, std::string_view zone_name, int64_t now) {
  TimeZone zone = TRY(zone_named(zone_name));
  if (kind == TimingKind::Every && min_interval() < kMinInterval) {
    // Tests shorten the floor; the core's parser keeps a minute, so read the duration alone.
    int64_t seconds = TRY(parse_duration(text));
    if (seconds < min_interval())
      return errorf(Code::InvalidArgument, "every: '{}' is shorter than the shortest interval, {} s", shown(text), min_interval());
    Timing t;
    t.kind = kind;
    t.interval = seconds;
    t.zone = zone;
    t.since = now;
    return t;
  }
  return parse_timing(kind, text, zone, now);
}

std::string_view missed_name(Missed policy) { return policy == Missed::Skip ? "skip" : "run-once"; }

Result<Missed> parse_missed(std::string_view text) {
  if (text == "run-once" || text == "run_once" || text == "once") return Missed::RunOnce;
  if (text == "skip") return Missed::Skip;
  return errorf(Code::InvalidArgument, "missed must be 'run-once' (a run missed while ouro was down runs once at start) or 'skip', got '{}'",
                shown(text));
}

std::string_view kind_name(TimingKind kind) {
  switch (kind) {
    case TimingKind::Once: return "once";
    case TimingKind::Every: return "every";
    case TimingKind::Cron: return "cron";
  }
  return "once";
}

json timing_json(const Timing& t, std::string_view text) {
  json j = {{"kind", kind_name(t.kind)}, {"text", std::string(text)}, {"zone", t.zone.name()}, {"since", t.since}};
  if (t.kind == TimingKind::Once) j["at"] = t.at;
  if (t.kind == TimingKind::Every) j["interval"] = t.interval;
  return j;
}

Result<Timing> timing_from_json(const json& stored) {
  Timing t;
  std::string kind = get_str(stored, "kind");
  if (kind == "once") t.kind = TimingKind::Once;
  else if (kind == "every") t.kind = TimingKind::Every;
  else if (kind == "cron") t.kind = TimingKind::Cron;
  else return errorf(Code::InvalidArgument, "unknown timing kind '{}'", shown(kind));
  t.zone = TRY(zone_named(get_str(stored, "zone", "UTC")));
  t.since = std::clamp<int64_t>(get_int(stored, "since"), kMinInstant, kMaxInstant);
  switch (t.kind) {
    case TimingKind::Once:
      t.at = get_int(stored, "at");
      if (t.at < kMinInstant || t.at > kMaxInstant) return make_error(Code::InvalidArgument, "the time of a once-job is out of range");
      break;
    case TimingKind::Every:
      t.interval = get_int(stored, "interval");
      if (t.interval < 1 || t.interval > kMaxDuration) return make_error(Code::InvalidArgument, "the interval is out of range");
      break;
    case TimingKind::Cron: t.cron = TRY(parse_cron(get_str(stored, "text"))); break;
  }
  return t;
}

namespace {

// A job from what a person asked for, every field checked (add_job's rules), not yet stored.
Result<Job> checked_job(const JobSpec& spec, int64_t now, const OptionsCheck& check) {
  if (spec.task.find_first_not_of(" \t\r\n") == std::string::npos)
    return make_error(Code::InvalidArgument, "task: a schedule needs a task, in plain words");
  if (spec.task.size() > kMaxTaskChars)
    return errorf(Code::InvalidArgument, "task: at most {} characters, got {}", kMaxTaskChars, spec.task.size());
  if (spec.task.find('\0') != std::string::npos) return make_error(Code::InvalidArgument, "task: holds a NUL character");
  if (spec.name.size() > kMaxNameChars) return errorf(Code::InvalidArgument, "name: at most {} characters, got {}", kMaxNameChars, spec.name.size());
  if (has_control(spec.name, false)) return make_error(Code::InvalidArgument, "name: holds control characters");
  if (spec.urls.size() > kMaxJobUrls) return errorf(Code::InvalidArgument, "urls: at most {} start pages, got {}", kMaxJobUrls, spec.urls.size());
  for (size_t i = 0; i < spec.urls.size(); ++i) {
    const std::string& u = spec.urls[i];
    if (u.empty() || u.size() > kMaxUrlChars || has_control(u, false))
      return errorf(Code::InvalidArgument, "urls[{}]: a URL of 1 to {} characters without control characters, got '{}'", i, kMaxUrlChars, shown(u));
  }
  if (!spec.options.is_object()) return errorf(Code::InvalidArgument, "options must be an object, got {}", spec.options.type_name());
  if (spec.options.contains("schedule")) return make_error(Code::InvalidArgument, "options.schedule is set by the scheduler, not by a job");
  if (check) TRY(check(spec.options));
  if (auto zone = zone_named(spec.zone); !zone) return errorf(zone.error().code, "tz: {}", zone.error().message);
  auto timing = make_timing(spec.kind, spec.when, spec.zone, now);
  // The field the person wrote, named before what is wrong with it (a cron expression's own
  // messages name it already: "cron: minute field …").
  if (!timing && spec.kind == TimingKind::Cron) return tl::make_unexpected(timing.error());
  if (!timing) return errorf(timing.error().code, "{}: {}", spec.kind == TimingKind::Once ? "at" : kind_name(spec.kind), timing.error().message);
  std::optional<int64_t> first = next_fire(*timing, now - 1);
  if (!first) return errorf(Code::InvalidArgument, "{}: '{}' never falls due", kind_name(spec.kind), shown(spec.when));

  Job job;
  job.id = new_job_id();
  job.task = spec.task;
  job.name = spec.name;
  if (job.name.empty()) {
    // The task's first line, shortened at a word.
    std::string line = spec.task.substr(spec.task.find_first_not_of(" \t\r\n"));
    line = line.substr(0, line.find_first_of("\r\n"));
    if (line.size() > 60) {
      size_t cut = line.rfind(' ', 57);
      line = clip_head(line, cut == std::string::npos || cut < 20 ? 57 : cut);
    }
    job.name = clip_text(line, 80);
  }
  job.urls = spec.urls;
  job.options = spec.options;
  job.timing = *timing;
  job.when = spec.when;
  job.missed = spec.missed;
  job.created_at = now;
  job.next_fire = first;
  return job;
}

json urls_json(const std::vector<std::string>& urls) {
  json out = json::array();
  for (const auto& u : urls) out.push_back(u);
  return out;
}

}  // namespace

Result<Job> add_job(store::Database& db, const JobSpec& spec, int64_t now, const OptionsCheck& check) {
  Job job = TRY(checked_job(spec, now, check));
  json urls = urls_json(job.urls);
  TRY(db.with_sql([&](store::Connection& c) -> Result<void> {
    TRY(ensure_schema(c));
    store::Rows count = TRY(c.exec("SELECT count(*) FROM schedules"));
    if (!count.empty() && static_cast<size_t>(count[0].int64(0)) >= kMaxJobs)
      return errorf(Code::ResourceExhausted, "there are {} schedules already, the limit: remove some first", kMaxJobs);
    auto r = c.exec(std::string("INSERT INTO schedules (") + kColumns + ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 1, ?8, NULL, ?9, NULL, 0, NULL, NULL, 0)",
                    {job.id, job.name, job.task, dump_json(urls), dump_json(job.options), dump_json(timing_json(job.timing, job.when)),
                     std::string(missed_name(job.missed)), job.created_at, job.next_fire});
    if (!r) return make_error(r.error().code, "cannot store the schedule: " + r.error().message);
    return {};
  }));
  return job;
}

Result<JobList> list_jobs(store::Database& db) {
  return db.with_read_sql("schedule", &ensure_schema, [&](store::Connection& c) -> Result<JobList> {
    auto r = c.exec(std::string("SELECT ") + kColumns + " FROM schedules ORDER BY created_at, id");
    if (!r) return make_error(r.error().code, "cannot read the schedules: " + r.error().message);
    JobList out;
    for (const store::Row& row : *r) {
      auto job = read_row(row);
      if (job) out.jobs.push_back(std::move(*job));
      else out.unreadable.emplace_back(row.text(0), job.error().message);
    }
    return out;
  });
}

Result<std::optional<Job>> get_job(store::Database& db, std::string_view id) {
  return db.with_read_sql("schedule", &ensure_schema, [&](store::Connection& c) -> Result<std::optional<Job>> {
    auto r = c.exec(std::string("SELECT ") + kColumns + " FROM schedules WHERE id = ?1", {id});
    if (!r) return make_error(r.error().code, "cannot read a schedule: " + r.error().message);
    if (r->empty()) return std::optional<Job>();
    auto job = read_row((*r)[0]);
    if (!job) return errorf(Code::DataLoss, "the schedule {} cannot be read: {}", shown(id), job.error().message);
    return std::optional<Job>(std::move(*job));
  });
}

Result<Job> change_job(store::Database& db, std::string_view id, const JobSpec& spec, int64_t now, const OptionsCheck& check) {
  Job changed = TRY(checked_job(spec, now, check));
  return db.with_sql([&](store::Connection& c) -> Result<Job> {
    TRY(update(c, id, "UPDATE schedules SET name = ?2, task = ?3, urls = ?4, options = ?5, timing = ?6, missed = ?7, next_fire = ?8 WHERE id = ?1",
               {changed.name, changed.task, dump_json(urls_json(changed.urls)), dump_json(changed.options),
                dump_json(timing_json(changed.timing, changed.when)), std::string(missed_name(changed.missed)), changed.next_fire}));
    auto r = TRY(c.exec(std::string("SELECT ") + kColumns + " FROM schedules WHERE id = ?1", {id}));
    if (r.empty()) return errorf(Code::NotFound, "no schedule '{}' (ouro schedule list shows them)", shown(id));
    return read_row(r[0]);
  });
}

Result<std::optional<json>> job_row(store::Database& db, std::string_view id) {
  return db.with_sql([&](store::Connection& c) -> Result<std::optional<json>> {
    TRY(ensure_schema(c));
    auto r = TRY(c.exec(std::string("SELECT ") + kColumns + " FROM schedules WHERE id = ?1", {id}));
    if (r.empty()) return std::optional<json>();
    json row = json::array();
    for (size_t i = 0; i < r[0].size(); ++i) row.push_back(r[0].is_null(i) ? json(nullptr) : json(r[0].text(i)));
    return std::optional<json>(std::move(row));
  });
}

Result<void> put_job_definition(store::Database& db, std::string_view id, const std::optional<json>& row, int64_t now) {
  if (row && (!row->is_array() || row->size() != 16 || !(*row)[0].is_string() || (*row)[0] != std::string(id) ||
              !std::all_of(row->begin(), row->begin() + 7, [](const json& v) { return v.is_string(); })))
    return errorf(Code::InvalidArgument, "the schedule {} cannot be put back: its saved row is not one of this table", shown(id));
  std::optional<int64_t> next;
  if (row) {
    auto timing_text = parse_json((*row)[5].get<std::string>(), "timing");
    auto timing = timing_text ? timing_from_json(*timing_text) : Result<Timing>(tl::make_unexpected(timing_text.error()));
    if (!timing) return errorf(Code::DataLoss, "the schedule {} cannot be put back: its timing cannot be read: {}", shown(id), timing.error().message);
    next = next_fire(*timing, now - 1);  // from now: a job put back does not fire for the time it was away
  }
  return db.with_sql([&](store::Connection& c) -> Result<void> {
    TRY(ensure_schema(c));
    return c.transaction([&]() -> Result<void> {
      if (!row) {
        TRY(c.exec("DELETE FROM schedules WHERE id = ?1", {id}));
        return {};
      }
      const json& r = *row;
      auto s = [&](size_t i) { return store::Param(r[i].get<std::string>()); };
      auto updated = TRY(c.exec("UPDATE schedules SET name = ?2, task = ?3, urls = ?4, options = ?5, timing = ?6, missed = ?7, next_fire = ?8 WHERE id = ?1",
                                {id, s(1), s(2), s(3), s(4), s(5), s(6), next}));
      if (updated.affected > 0) return {};
      // Gone: back as it was defined, with its history, falling due from now.
      auto n = [&](size_t i) { return r[i].is_string() ? store::Param(static_cast<int64_t>(std::strtoll(r[i].get<std::string>().c_str(), nullptr, 10))) : store::Param(nullptr); };
      auto t = [&](size_t i) { return r[i].is_string() ? store::Param(r[i].get<std::string>()) : store::Param(nullptr); };
      TRY(c.exec(std::string("INSERT INTO schedules (") + kColumns + ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, 0)",
                 {id, s(1), s(2), s(3), s(4), s(5), s(6), n(7), n(8), n(9), next, t(11), n(12), t(13), n(14)}));
      return {};
    });
  });
}

Result<bool> remove_job(store::Database& db, std::string_view id) {
  return db.with_sql([&](store::Connection& c) -> Result<bool> {
    TRY(ensure_schema(c));
    auto r = c.exec("DELETE FROM schedules WHERE id = ?1", {id});
    if (!r) return make_error(r.error().code, fmt::format("cannot remove the schedule {}: {}", shown(id), r.error().message));
    return r->affected > 0;
  });
}

Result<void> request_run(store::Database& db, std::string_view id, int64_t now) {
  return update(db, id, "UPDATE schedules SET next_fire = ?2, run_requested = 1 WHERE id = ?1",
                {now});
}

Result<void> set_next_fire(store::Database& db, std::string_view id, std::optional<int64_t> next) {
  return update(db, id, "UPDATE schedules SET next_fire = ?2 WHERE id = ?1", {next});
}

Result<void> record_fire(store::Database& db, std::string_view id, int64_t at, std::string_view run_id, std::optional<int64_t> next) {
  return update(db, id, kRecordFire, {at, run_id, next});
}

Result<void> record_skip(store::Database& db, std::string_view id, int64_t at, std::string_view why, std::optional<int64_t> next) {
  return update(db, id, kRecordSkip, {at, clip_text(why, kMaxErrorChars), next});
}

Result<void> record_fire(store::Connection& c, std::string_view id, int64_t at, std::string_view run_id, std::optional<int64_t> next) {
  return update(c, id, kRecordFire, {at, run_id, next});
}

Result<void> record_skip(store::Connection& c, std::string_view id, int64_t at, std::string_view why, std::optional<int64_t> next) {
  return update(c, id, kRecordSkip, {at, clip_text(why, kMaxErrorChars), next});
}

Result<void> settle_fired(store::Database& db, std::string_view id, int64_t due, std::optional<int64_t> next) {
  auto r = update(db, id, "UPDATE schedules SET next_fire = ?3, run_requested = 0 WHERE id = ?1 AND next_fire = ?2", {due, next});
  if (!r && r.error().code == Code::NotFound) return {};  // moved on, or removed: nothing to settle
  return r;
}

Result<json> previous_final(store::Database& db, std::string_view schedule_id, std::string_view run_id) {
  return db.with_sql([&](store::Connection& c) -> Result<json> {
    TRY(ensure_schema(c));
    // Options that are not JSON must not fail the query: SQLite's CASE keeps json_extract away
    // from them, PostgreSQL's ouro_try_jsonb reads them as NULL.
    const std::string finished = runs::sql_list({runs::State::Done, runs::State::Partial});
    auto r = c.exec(c.engine() == store::Engine::Postgres
                        ? "SELECT final FROM runs WHERE id != ?2 AND state IN " + finished + " AND final IS NOT NULL AND "
                          "(ouro_try_jsonb(options) ->> 'schedule') = ?1 AND "
                          "created_at <= COALESCE((SELECT created_at FROM runs WHERE id = ?2), 1e300) ORDER BY created_at DESC LIMIT 1"
                        : "SELECT final FROM runs WHERE id != ?2 AND state IN " + finished + " AND final IS NOT NULL AND "
                          "(CASE WHEN json_valid(options) THEN json_extract(options, '$.schedule') END) = ?1 AND "
                          "created_at <= COALESCE((SELECT created_at FROM runs WHERE id = ?2), 1e300) ORDER BY created_at DESC LIMIT 1",
                    {schedule_id, run_id});
    if (!r) return make_error(r.error().code, "cannot read the schedule's previous run: " + r.error().message);
    if (r->empty()) return json(nullptr);
    std::string text = (*r)[0].text(0);
    auto value = parse_json(text, "a run's final");
    return value ? *value : json(text);
  });
}

std::vector<int64_t> upcoming(const Job& job, int64_t after, size_t n) {
  std::vector<int64_t> out;
  std::optional<int64_t> t = job.next_fire && *job.next_fire > after ? job.next_fire : next_fire(job.timing, after);
  while (t && out.size() < n) {
    out.push_back(*t);
    t = next_fire(job.timing, *t);
  }
  return out;
}

json job_json(const Job& j) {
  auto instant_or_null = [](std::optional<int64_t> t) { return t ? json(*t) : json(nullptr); };
  json urls = json::array();
  for (const auto& u : j.urls) urls.push_back(u);
  return json{{"id", j.id},
              {"name", j.name},
              {"task", j.task},
              {"urls", urls},
              {"options", j.options},
              {"timing",
               {{"kind", kind_name(j.timing.kind)}, {"text", j.when}, {"zone", j.timing.zone.name()}, {"description", describe(j.timing)}}},
              {"missed", missed_name(j.missed)},
              {"enabled", j.enabled},
              {"created_at", j.created_at},
              {"last_fire", instant_or_null(j.last_fire)},
              {"next_fire", instant_or_null(j.next_fire)},
              {"last_run_id", j.last_run_id.empty() ? json(nullptr) : json(j.last_run_id)},
              {"runs", j.runs},
              {"last_skip", j.last_skip.empty() ? json(nullptr) : json(j.last_skip)},
              {"last_skip_at", instant_or_null(j.last_skip_at)},
              {"run_requested", j.run_requested}};
}

}  // namespace ouro::schedule
