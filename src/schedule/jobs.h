// Saved tasks that run at set times: the `schedules` table of ouro's database,
// kept through Database::with_sql (SQLite or PostgreSQL). A job is a task with its start URLs and run options
// (as POST /api/runs takes them), its timing (once, every, cron — stored as the person wrote it,
// with its kind and zone, so it is read again the same way), what to do about runs missed while
// ouro was not running, and what happened when it last fell due.
//
// Two processes use the table at once: `ouro serve` (its Scheduler fires the jobs) and `ouro
// schedule …` (adds, removes, asks for a run now). Every write here is one UPDATE of the columns
// it means to change, so the two never overwrite each other's fields.
//
// Instants are Unix seconds. Every function may be called from any thread; each takes the
// database's lock for the length of its statements.
#pragma once

#include "base/json.h"
#include "schedule/timing.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ouro::store { class Database; class Connection; }

namespace ouro::schedule {

inline constexpr size_t kMaxTaskChars = 20000;
inline constexpr size_t kMaxJobUrls = 20;
inline constexpr size_t kMaxUrlChars = 8192;
inline constexpr size_t kMaxNameChars = 200;
inline constexpr size_t kMaxJobs = 1000;

// What a person asks for (ouro schedule add's flags, POST /api/schedules' body), unchecked.
struct JobSpec {
  std::string name;  // "" = the task's first words
  std::string task;
  std::vector<std::string> urls;
  json options = json::object();  // run options, as POST /api/runs takes them
  TimingKind kind = TimingKind::Once;
  std::string when;  // the --at time, --every duration or --cron expression
  std::string zone;  // "" = the system's zone
  Missed missed = Missed::RunOnce;
};

struct Job {
  std::string id;  // "s" + 10 random characters
  std::string name, task;
  std::vector<std::string> urls;
  json options = json::object();
  Timing timing;
  std::string when;  // as the person wrote it
  Missed missed = Missed::RunOnce;
  bool enabled = true;
  int64_t created_at = 0;
  std::optional<int64_t> last_fire;  // when it last fell due and was dealt with (run or skipped)
  std::optional<int64_t> next_fire;  // when it falls due next; none: it never will (a once-job that ran)
  std::string last_run_id;           // the run its last fire started
  int64_t runs = 0;                  // how many runs it started
  std::string last_skip;             // why it last did not start a run ("" when it did)
  std::optional<int64_t> last_skip_at;
  bool run_requested = false;  // `run-now`: the next pass fires it whatever its timing says
};

// Checks a job's run options; the server passes the function the runs API checks them with.
using OptionsCheck = std::function<Result<void>(const json& options)>;

// The shortest --every interval: kMinInterval (a minute), or $OURO_SCHEDULE_MIN_INTERVAL_S when
// it is set to a whole number of seconds from 1 up — for tests, which cannot wait minutes.
int64_t min_interval();

// The zone a job's times are read in: "" is the system's (TimeZone::local()), else an IANA name,
// "UTC" or an offset. Errors name the zone and say how to list the known ones.
Result<TimeZone> zone_named(std::string_view name);

// A timing from what a person wrote, made at `now`, with the job module's interval floor.
Result<Timing> make_timing(TimingKind kind, std::string_view text, std::string_view zone, int64_t now);

// Checks every field (InvalidArgument naming it: the task non-empty and at most 20,000
// characters, at most 20 URLs, the options by `check`, the timing readable and with a run still
// to come), then stores the job with its first fire time. ResourceExhausted past 1,000 jobs.
Result<Job> add_job(store::Database& db, const JobSpec& spec, int64_t now, const OptionsCheck& check);

// Every job, oldest first. A row that cannot be read (a damaged or hand-edited database, a zone
// that is no longer installed) is listed in `unreadable` with the reason instead.
struct JobList {
  std::vector<Job> jobs;
  std::vector<std::pair<std::string, std::string>> unreadable;  // id, why
};
Result<JobList> list_jobs(store::Database& db);
// One job; nullopt when there is none with this id; DataLoss when its row cannot be read.
Result<std::optional<Job>> get_job(store::Database& db, std::string_view id);
// False when there was no such job.
Result<bool> remove_job(store::Database& db, std::string_view id);
// Changes a job's name, task, start URLs, options, timing and missed-run policy to spec's, checked
// as add_job checks them; its id, creation time and history stay. NotFound when there is none.
Result<Job> change_job(store::Database& db, std::string_view id, const JobSpec& spec, int64_t now, const OptionsCheck& check);
// A job's row exactly as stored (its columns as texts, in order), for undo; nullopt when none.
Result<std::optional<json>> job_row(store::Database& db, std::string_view id);
// Puts back the definition of a row job_row returned — name, task, start pages, options, timing,
// missed-run policy — falling due next from `now` (none: the job is removed); a job that is gone
// comes back with its history. InvalidArgument for a row of another shape.
Result<void> put_job_definition(store::Database& db, std::string_view id, const std::optional<json>& row, int64_t now);

// `run-now`: the job falls due at `now`, and fires at the scheduler's next pass whatever its
// timing says (also after a restart). NotFound when there is no such job.
Result<void> request_run(store::Database& db, std::string_view id, int64_t now);
// The scheduler's: when the job falls due next (none: never again).
Result<void> set_next_fire(store::Database& db, std::string_view id, std::optional<int64_t> next);
// The scheduler's: the job fell due at `at` and started run `run_id`; it falls due next at `next`.
Result<void> record_fire(store::Database& db, std::string_view id, int64_t at, std::string_view run_id, std::optional<int64_t> next);
// The scheduler's: the job fell due at `at` and no run started, for the reason `why`.
Result<void> record_skip(store::Database& db, std::string_view id, int64_t at, std::string_view why, std::optional<int64_t> next);
// The same two on a connection the caller holds through Database::with_sql (inside the
// transaction that checks the scheduler's lease, on nodes sharing PostgreSQL).
Result<void> record_fire(store::Connection& c, std::string_view id, int64_t at, std::string_view run_id, std::optional<int64_t> next);
Result<void> record_skip(store::Connection& c, std::string_view id, int64_t at, std::string_view why, std::optional<int64_t> next);
// The scheduler's, for a fire of the job's due time `due` found done already (by another node, or a
// run-now asked in the second it fell due): when its row still shows that due time, it falls due
// next at `next` and no run is asked for. A row another fire moved on already is left alone.
Result<void> settle_fired(store::Database& db, std::string_view id, int64_t due, std::optional<int64_t> next);

// The final of the newest run before `run_id` that the schedule `schedule_id` started and that
// finished with one (done or partial); null when there is none.
Result<json> previous_final(store::Database& db, std::string_view schedule_id, std::string_view run_id);

// The next `n` times the job falls due after `after` (fewer when it runs out).
std::vector<int64_t> upcoming(const Job& job, int64_t after, size_t n);

// A job as the API and `ouro schedule list --json` show it: its fields, its timing's kind, text,
// zone and description, the times as Unix seconds.
json job_json(const Job& job);

std::string_view missed_name(Missed policy);  // "run-once" | "skip"
Result<Missed> parse_missed(std::string_view text);
std::string_view kind_name(TimingKind kind);  // "once" | "every" | "cron"

// A timing as stored: {kind, text, zone, at, interval, since}; read back by timing_from_json
// (cron expressions are parsed again, zones loaded again).
json timing_json(const Timing& timing, std::string_view text);
Result<Timing> timing_from_json(const json& stored);

}  // namespace ouro::schedule
