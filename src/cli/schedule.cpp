#include "cli/schedule.h"
#include "scripts/script.h"
#include "base/clock.h"

#include "base/text.h"
#include "schedule/jobs.h"
#include "runs/lifecycle.h"
#include "runs/spec.h"
#include "llm/settings.h"
#include "store/database.h"

#include <CLI/CLI.hpp>

#include <chrono>
#include <iostream>

namespace ouro::cli {

namespace {

// An instant as the job's zone shows it: "2026-12-01 08:00 CET".
std::string shown_at(const schedule::Job& job, int64_t t) {
  std::string abbr = job.timing.zone.abbreviation(t);
  std::string local = schedule::to_string(job.timing.zone.to_local(t));
  return abbr.empty() ? local + " " + job.timing.zone.name() : local + " " + abbr;
}

int fail(const std::string& what, const Error& e) {
  std::cerr << "ouro schedule " << what << ": " << e.message << "\n";
  return e.code == Code::InvalidArgument || e.code == Code::NotFound || e.code == Code::OutOfRange ? 2 : 1;
}

Result<std::unique_ptr<store::Database>> open_db(const ScheduleFlags& f) {
  std::string dir = f.data_dir.empty() ? store::default_data_dir() : f.data_dir;
  return store::Database::open(dir + "/ouro.db");
}

// --option k=v: v is JSON when it reads as JSON (5, true, ["a.com"]), else a string.
Result<json> options_from(const std::vector<std::string>& pairs) {
  json out = json::object();
  for (const auto& p : pairs) {
    size_t eq = p.find('=');
    if (eq == std::string::npos || eq == 0)
      return errorf(Code::InvalidArgument, "--option takes name=value (e.g. --option provider=anthropic --option max_iterations=10), got '{}'",
                    clip_text(p, 60));
    std::string value = p.substr(eq + 1);
    auto parsed = parse_json(value);
    out[p.substr(0, eq)] = parsed && !parsed->is_discarded() ? *parsed : json(value);
  }
  return out;
}

void print_job(const schedule::Job& job, store::Database& db, int64_t now) {
  std::cout << job.id << "  " << job.name << "\n";
  std::cout << "    " << schedule::describe(job.timing) << " · missed runs: "
            << (job.missed == schedule::Missed::Skip ? "skipped" : "run once at start") << "\n";
  if (!job.urls.empty()) {
    std::cout << "    urls:";
    for (const auto& u : job.urls) std::cout << " " << u;
    std::cout << "\n";
  }
  auto next = schedule::upcoming(job, now - 1, 1);
  if (job.run_requested) std::cout << "    next: now (requested; `ouro serve` starts it)\n";
  else if (!next.empty()) std::cout << "    next: " << shown_at(job, next.front()) << "\n";
  else std::cout << "    next: none (it will not run again)\n";
  if (!job.last_run_id.empty()) {
    std::string state;
    if (auto row = db.get_run(job.last_run_id); row && *row) state = " (" + runs::name_of((*row)->state) + ")";
    std::cout << "    runs: " << job.runs << ", the last " << job.last_run_id << state << "\n";
  }
  if (!job.last_skip.empty())
    std::cout << "    last skipped" << (job.last_skip_at ? " at " + shown_at(job, *job.last_skip_at) : "") << ": " << job.last_skip << "\n";
}

// A job whose runs need a model (not `$ …` commands, not a script replayed on its own) and for
// which none resolves here would fail at every fire: say so when it is saved.
void warn_without_model(const ScheduleFlags& f, store::Database& db, const schedule::JobSpec& spec) {
  size_t first = spec.task.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && spec.task[first] == '$') return;
  json stored = json::object();
  if (auto kept = db.get_setting("llm"); kept && *kept)
    if (auto parsed = parse_json(**kept); parsed && parsed->is_object()) stored = *parsed;
  llm::SettingsFlags flags;
  flags.secrets_path = (f.data_dir.empty() ? store::default_data_dir() : f.data_dir) + "/secrets.json";
  // The job's options typed as its runs' will be (add_job checked them with runs::check_options).
  auto typed = runs::parse_options(spec.options);
  if (!typed) return;
  auto model = runs::resolve_model(*typed, flags, stored);
  if (model || model.error().code != Code::FailedPrecondition) return;
  std::cerr << "warning: no model is configured for this job, so its runs will fail"
            << (typed->script ? " wherever the script cannot heal a step" : "")
            << ": " << model.error().message << ". Give one with --option provider=… (and its key with ouro auth set PROVIDER), "
            << "or choose one in the Command Center's Settings\n";
}

// A schedule as the person names it: its id, else the name `ouro schedule list` shows (the
// name only when one schedule has it). NotFound or InvalidArgument saying what to give instead.
Result<std::string> schedule_id(store::Database& db, const std::string& given, bool removing) {
  auto job = schedule::get_job(db, given);
  // A row that cannot be read can still be removed by its id (`ouro schedule list` says to).
  if (!job && job.error().code == Code::DataLoss && removing) return given;
  if (TRY(std::move(job))) return given;
  auto listed = TRY(schedule::list_jobs(db));
  std::vector<std::string> named;
  for (const auto& job : listed.jobs)
    if (job.name == given) named.push_back(job.id);
  if (named.size() == 1) return named.front();
  if (named.empty()) return errorf(Code::NotFound, "no schedule has the id or name '{}' (ouro schedule list shows them)", clip_text(given, 60));
  std::string ids;
  for (const auto& id : named) ids += (ids.empty() ? "" : ", ") + id;
  return errorf(Code::InvalidArgument, "{} schedules are named '{}': give the id of the one you mean ({})", named.size(), clip_text(given, 60), ids);
}

int add(const ScheduleFlags& f) {
  schedule::JobSpec spec;
  spec.task = f.task;
  spec.urls = f.urls;
  spec.name = f.name;
  spec.zone = f.tz;
  int kinds = !f.at.empty() + !f.every.empty() + !f.cron.empty();
  if (kinds != 1) {
    std::cerr << "ouro schedule add: give exactly one of --at TIME, --every DURATION and --cron \"EXPR\", e.g.\n"
                 "  ouro schedule add \"Check the status page\" --url https://status.example.com --every 1h\n"
                 "  ouro schedule add \"Morning digest\" --cron \"0 8 * * 1-5\" --tz Europe/Berlin\n";
    return 2;
  }
  spec.kind = !f.at.empty() ? schedule::TimingKind::Once : !f.every.empty() ? schedule::TimingKind::Every : schedule::TimingKind::Cron;
  spec.when = !f.at.empty() ? f.at : !f.every.empty() ? f.every : f.cron;
  auto missed = schedule::parse_missed(f.missed);
  if (!missed) return fail("add", missed.error());
  spec.missed = *missed;
  auto options = options_from(f.options);
  if (!options) return fail("add", options.error());
  spec.options = *options;
  // A job that replays a script first; the agent (the job's model) takes over only where a step
  // cannot heal.
  if (!f.script.empty()) {
    // The name as the API checks it, before anything is saved.
    if (auto named = scripts::check_name(f.script); !named) return fail("add", named.error());
    spec.options["script"] = {{"name", f.script}, {"fallback", true}};
  }
  auto db = open_db(f);
  if (!db) return fail("add", db.error());
  const int64_t now = wall_seconds_whole();
  auto job = schedule::add_job(**db, spec, now, runs::check_options);
  if (!job) return fail("add", job.error());
  if (f.as_json) {
    json out = schedule::job_json(*job);
    out["upcoming"] = schedule::upcoming(*job, now - 1, 3);
    std::cout << dump_json(out, 2) << "\n";
    return 0;
  }
  std::cout << "scheduled " << job->id << "  " << job->name << "\n";
  std::cout << "    " << schedule::describe(job->timing) << " · missed runs: "
            << (job->missed == schedule::Missed::Skip ? "skipped" : "run once at start") << "\n";
  auto next = schedule::upcoming(*job, now - 1, 3);
  std::cout << "    next:";
  for (size_t i = 0; i < next.size(); ++i) std::cout << (i ? ", " : " ") << shown_at(*job, next[i]);
  std::cout << (next.empty() ? " none" : "") << "\n";
  std::cerr << "Scheduled tasks run while `ouro serve` runs (docs/guides/scheduling.md). Remove with: ouro schedule remove " << job->id << "\n";
  warn_without_model(f, **db, spec);
  return 0;
}

int list(const ScheduleFlags& f) {
  auto db = open_db(f);
  if (!db) return fail("list", db.error());
  auto listed = schedule::list_jobs(**db);
  if (!listed) return fail("list", listed.error());
  const int64_t now = wall_seconds_whole();
  if (f.as_json) {
    json out = json::array();
    for (const auto& job : listed->jobs) {
      json j = schedule::job_json(job);
      j["upcoming"] = schedule::upcoming(job, now - 1, 3);
      out.push_back(j);
    }
    for (const auto& [id, why] : listed->unreadable) out.push_back(json{{"id", id}, {"error", why}});
    std::cout << dump_json(out, 2) << "\n";
    return 0;
  }
  if (listed->jobs.empty() && listed->unreadable.empty()) {
    std::cout << "no schedules; add one with: ouro schedule add \"TASK\" --url URL --every 1h\n";
    return 0;
  }
  for (const auto& job : listed->jobs) print_job(job, **db, now);
  for (const auto& [id, why] : listed->unreadable) std::cout << id << "  (cannot be read: " << why << "; ouro schedule remove " << id << ")\n";
  return 0;
}

}  // namespace

CLI::App* add_schedule_command(CLI::App& app, ScheduleFlags& f) {
  auto* cmd = app.add_subcommand("schedule", "Saved tasks that `ouro serve` runs once, every interval, or by a cron expression");
  auto* add = cmd->add_subcommand("add", "Save a task to run at set times: --at TIME, --every DURATION or --cron \"EXPR\"");
  add->add_option("task", f.task, "What to do, in plain words")->required();
  add->add_option("--url", f.urls, "Open URL in a tab first (repeat for more; at most 20)")->allow_extra_args(false);
  add->add_option("--at", f.at, "Once: 2026-12-01T08:00, 2026-12-01 08:00, 08:00 (the next one), +10m, in 2h, or with an offset (…Z, …+01:00)");
  add->add_option("--every", f.every, "Every interval: 15m, 1h, 2h30m, 1d (at least a minute), counted from now");
  add->add_option("--cron", f.cron, "A five-field cron expression, \"minute hour day-of-month month day-of-week\": \"0 8 * * 1-5\", or @daily, @hourly, …");
  add->add_option("--tz", f.tz, "The time zone --at and --cron are read in: Europe/Berlin, America/New_York, UTC, +05:30 (default: the system's)");
  add->add_option("--missed", f.missed, "Runs that fell due while ouro was not running: run-once (run once at start; the default) or skip")
      ->check(CLI::IsMember({"run-once", "skip"}));
  add->add_option("--name", f.name, "A name for the list (default: the task's first words)");
  add->add_option("--script", f.script, "Replay this saved script at each fire (ouro script list), the agent taking over only where "
                                        "a step cannot heal; the run's usage says which path ran (replay, replay+agent, agent)");
  add->add_option("--option", f.options, "A run option as the runs API takes it, name=value: provider=anthropic, model=…, max_iterations=10, "
                                         "context=clean, mode=autonomous, allowed_domains='[\"example.com\"]' (repeatable)")
      ->allow_extra_args(false);
  add->add_flag("--json", f.as_json, "Print the job as JSON");
  add->footer("Example: ouro schedule add \"Note the price of the laptop\" --url https://shop.example.com/laptop --cron \"0 8 * * 1-5\" --tz Europe/Berlin\n"
              "In each run, `await previousFinal()` is the last run's final answer, to compare with.");
  auto* ls = cmd->add_subcommand("list", "The saved tasks: timing, next run, last run, why one was skipped");
  ls->add_flag("--json", f.as_json, "Print them as JSON");
  auto* rm = cmd->add_subcommand("remove", "Delete a saved task (its past runs stay in the history)");
  rm->add_option("id", f.id, "The schedule's id or name (ouro schedule list)")->required();
  auto* now = cmd->add_subcommand("run-now", "Run a saved task now (needs `ouro serve` running; it starts within 2 s)");
  now->add_option("id", f.id, "The schedule's id or name (ouro schedule list)")->required();
  for (auto* sub : {add, ls, rm, now})
    sub->add_option("--data-dir", f.data_dir, "Where ouro keeps its database (default: $OURO_DATA_DIR or ~/.local/share/ouroboros)");
  cmd->require_subcommand(1);
  return cmd;
}

int cmd_schedule(CLI::App& cmd, const ScheduleFlags& f) {
  if (*cmd.get_subcommand("add")) return add(f);
  if (*cmd.get_subcommand("list")) return list(f);
  auto db = open_db(f);
  if (!db) return fail("", db.error());
  const bool removing = cmd.get_subcommand("remove")->parsed();
  auto id = schedule_id(**db, f.id, removing);
  if (!id) return fail(removing ? "remove" : "run-now", id.error());
  if (removing) {
    auto removed = schedule::remove_job(**db, *id);
    if (!removed) return fail("remove", removed.error());
    if (!*removed) {
      std::cerr << "ouro schedule remove: no schedule '" << clip_text(f.id, 60) << "' (ouro schedule list shows them)\n";
      return 2;
    }
    std::cout << "removed " << *id << "\n";
    return 0;
  }
  auto requested = schedule::request_run(**db, *id, wall_seconds_whole());
  if (!requested) return fail("run-now", requested.error());
  std::cout << *id << " runs now if `ouro serve` is running (it looks within 2 s; ouro schedule list shows the run); "
            << "otherwise when `ouro serve` starts\n";
  return 0;
}

}  // namespace ouro::cli
