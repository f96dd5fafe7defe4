// addSchedule, changeSchedule, removeSchedule, listSchedules: a run keeps a task for later, as a
// person does with `ouro schedule` (docs/guides/scheduling.md). A schedule is a write to ouro's own
// state: asked about in careful mode, heard by the run (scheduler_added, scheduler_changed,
// scheduler_removed events) and undone with the turn (docs/guides/undo.md). The job it leaves
// gets no wider sites or mode than the run that made it.
#include "actions/impl.h"
#include "base/clock.h"
#include "base/log.h"
#include "base/text.h"
#include "egress/gate.h"
#include "egress/writes.h"
#include "safety/gate.h"
#include "safety/redact.h"
#include "safety/secrets.h"
#include "safety/sites.h"
#include "schedule/jobs.h"
#include "store/database.h"

#include <chrono>

namespace ouro::actions::impl {

namespace {

Result<store::Database*> database(Context& ctx, const char* fn) {
  if (!ctx.db()) return errorf(Code::FailedPrecondition, "{}: no database is open, so there are no schedules here", fn);
  return ctx.db();
}

// The job a run may leave: its timing from `timing`, its start pages only where this run may go,
// and the run's own sites and mode as its options.
Result<schedule::JobSpec> job_spec(Context& ctx, const char* fn, const std::string& task, const json& timing) {
  schedule::JobSpec spec;
  spec.task = task;
  // A field of the wrong type is said, not dropped (a job silently without its start pages).
  for (const char* field : {"at", "every", "cron", "zone", "name", "missed"})
    if (const json& v = get_field(timing, field); !v.is_null() && !v.is_string()) return errorf(Code::InvalidArgument, "{}: {} is a string", fn, field);
  if (const json& v = get_field(timing, "urls"); !v.is_null() && !v.is_array()) return errorf(Code::InvalidArgument, "{}: urls is a list of URLs", fn);
  int kinds = 0;
  for (const auto& [field, kind] : {std::pair{"at", schedule::TimingKind::Once}, std::pair{"every", schedule::TimingKind::Every},
                                    std::pair{"cron", schedule::TimingKind::Cron}})
    if (const json& v = get_field(timing, field); v.is_string()) {
      spec.kind = kind;
      spec.when = v.get<std::string>();
      ++kinds;
    }
  if (kinds != 1) return errorf(Code::InvalidArgument, "{}: give exactly one of at ('2026-12-01 08:00'), every ('1h') or cron ('0 8 * * 1-5')", fn);
  spec.zone = get_str(timing, "zone");
  spec.name = get_str(timing, "name");
  if (const json& m = get_field(timing, "missed"); m.is_string()) spec.missed = TRY(schedule::parse_missed(m.get<std::string>()));
  // A scheduled run reaches its start pages' sites and those its task's links name: each must be
  // one the user named for this run (a site allowed once during it is not kept for later).
  auto policy = egress::gate_policy(ctx);
  safety::SiteList named;
  if (policy)
    for (const auto& p : policy->named_patterns()) (void)named.add(p);
  auto reachable = [&](const std::string& u) -> Result<void> {
    auto parsed = safety::parse_url(u);
    if (!parsed) return errorf(Code::InvalidArgument, "{}: '{}' is not a URL: {}", fn, clip_line(u, 80), parsed.error().message);
    if (policy && !named.matches(*parsed))
      return errorf(Code::PermissionDenied, "{}: {} is not a site this run may reach, so a job it leaves may not either", fn,
                    safety::redact_url_params(u));
    return {};
  };
  if (const json& urls = get_field(timing, "urls"); urls.is_array())
    for (const auto& u : urls) {
      if (!u.is_string()) return errorf(Code::InvalidArgument, "{}: urls are strings", fn);
      TRY(reachable(u.get<std::string>()));
      spec.urls.push_back(u.get<std::string>());
    }
  for (const auto& u : safety::urls_in_text(task)) TRY(reachable(u));
  if (policy) {
    spec.options["mode"] = std::string(safety::gate_mode_name(policy->mode()));
    spec.options["allowed_domains"] = policy->named_patterns();
    // The run's permission levels go with it (a capability it may not use, the job may not either).
    static constexpr const char* kLevels[] = {"auto", "ask", "deny"};
    json permissions = json::object();
    for (const auto& [cap, level] : ctx.permission_overrides())
      if (level >= 0 && level < 3) permissions[cap] = kLevels[level];
    if (!permissions.empty()) spec.options["permissions"] = permissions;
  }
  return spec;
}

// Careful mode asks before the run leaves or changes a job; a denial is the call's error. A task
// whose words came from a page (docs/design/provenance.md) would make a page's words an order
// that runs by itself: asked about in careful mode, refused in autonomous mode.
Result<void> ask_first(Context& ctx, const char* fn, const std::string& what, const std::string& task) {
  std::string from;
  if (auto policy = egress::gate_policy(ctx))
    for (const auto& site : egress::trace_value(policy->provenance(), task).all()) from += (from.empty() ? "" : ", ") + site;
  const bool careful = egress::gate_mode(ctx) == safety::GateMode::Careful;
  if (!from.empty() && !careful)
    return errorf(Code::PermissionDenied,
                  "{}: the task holds words read on {}: a page's words do not become a task that runs by itself. Say what you found in setFinal() "
                  "and leave scheduling to the user",
                  fn, from);
  if (!careful) return {};
  auto hooks = ctx.hooks();
  if (!hooks || !hooks->confirm) return {};
  std::string reason = "the run would " + what + " (a task that runs later by itself)";
  if (!from.empty()) reason += "; its words came from " + from;
  json q = {{"action", fn}, {"reason", reason}, {"arguments", redact(clip_text(what, 400))}};
  if (ctx.secrets()) ctx.secrets()->scrub(q);
  if (!hooks->confirm(q))
    return errorf(Code::PermissionDenied, "{} was denied by the user; do not retry it — report back with setFinal()", fn);
  return {};
}

void tell(Context& ctx, const std::string& type, const json& data, const std::string& id, const std::optional<json>& before,
          const std::optional<json>& after) {
  auto hooks = ctx.hooks();
  if (!hooks) return;
  json shown = data;
  if (ctx.secrets()) ctx.secrets()->scrub(shown);
  if (hooks->on_record) hooks->on_record(type, shown);
  if (hooks->on_change) hooks->on_change({{"kind", "schedule"}, {"key", id}, {"before", before ? *before : json(nullptr)}, {"after", after ? *after : json(nullptr)}});
}

// A job added or changed: the run hears it (an event, and the change for undo) and gets it back.
Result<json> written(Context& ctx, const char* fn, const char* event, const Result<schedule::Job>& job, const std::optional<json>& before) {
  if (!job) return errorf(job.error().code, "{}: {}", fn, job.error().message);
  auto after = schedule::job_row(*ctx.db(), job->id);
  tell(ctx, event, schedule::job_json(*job), job->id, before, after ? *after : std::nullopt);
  return schedule::job_json(*job);
}

std::string described(const schedule::JobSpec& spec) {
  return fmt::format("schedule '{}' ({} {})", clip_line(spec.task, 120), schedule::kind_name(spec.kind), clip_line(spec.when, 40));
}

}  // namespace

Result<json> add_schedule(Context& ctx, const json& args) {
  auto* db = TRY(database(ctx, "addSchedule"));
  const json timing = args.size() > 1 ? args[1] : json::object();
  auto spec = TRY(job_spec(ctx, "addSchedule", arg_string(args, 0), timing));
  TRY(ask_first(ctx, "addSchedule", described(spec), spec.task));
  return written(ctx, "addSchedule", "scheduler_added", schedule::add_job(*db, spec, wall_seconds_whole(), {}), std::nullopt);
}

Result<json> change_schedule(Context& ctx, const json& args) {
  auto* db = TRY(database(ctx, "changeSchedule"));
  const std::string id = arg_string(args, 0);
  auto old = TRY(schedule::get_job(*db, id));
  if (!old) return errorf(Code::NotFound, "changeSchedule: there is no schedule '{}' (listSchedules() shows them)", clip_line(id, 40));
  const json changes = args.size() > 1 && args[1].is_object() ? args[1] : json::object();
  json timing = changes;
  if (!changes.contains("at") && !changes.contains("every") && !changes.contains("cron"))
    timing[std::string(schedule::kind_name(old->timing.kind) == "once" ? "at" : schedule::kind_name(old->timing.kind))] = old->when;
  if (!changes.contains("urls")) timing["urls"] = old->urls;
  if (!changes.contains("name")) timing["name"] = old->name;
  if (!changes.contains("missed")) timing["missed"] = std::string(schedule::missed_name(old->missed));
  const json& new_task = get_field(changes, "task");
  if (!new_task.is_null() && !new_task.is_string()) return errorf(Code::InvalidArgument, "changeSchedule: task is a string");
  const std::string task = new_task.is_string() ? new_task.get<std::string>() : old->task;
  auto spec = TRY(job_spec(ctx, "changeSchedule", task, timing));
  // The job keeps its own options (its sites, permissions, script, memory); a run only ever makes
  // it stricter: careful when the run is.
  const json narrowed = spec.options;
  spec.options = old->options;
  if (get_str(narrowed, "mode") == "careful") spec.options["mode"] = "careful";
  TRY(ask_first(ctx, "changeSchedule", "change " + described(spec), spec.task));
  auto before = TRY(schedule::job_row(*db, id));
  return written(ctx, "changeSchedule", "scheduler_changed", schedule::change_job(*db, id, spec, wall_seconds_whole(), {}), before);
}

Result<json> remove_schedule(Context& ctx, const json& args) {
  auto* db = TRY(database(ctx, "removeSchedule"));
  const std::string id = arg_string(args, 0);
  auto before = TRY(schedule::job_row(*db, id));
  if (!before) return errorf(Code::NotFound, "removeSchedule: there is no schedule '{}' (listSchedules() shows them)", clip_line(id, 40));
  TRY(ask_first(ctx, "removeSchedule", "remove the schedule " + clip_line(id, 40), ""));
  TRY(schedule::remove_job(*db, id));
  tell(ctx, "scheduler_removed", {{"id", id}}, id, before, std::nullopt);
  return json(true);
}

Result<json> list_schedules(Context& ctx, const json&) {
  auto* db = TRY(database(ctx, "listSchedules"));
  auto list = TRY(schedule::list_jobs(*db));
  json out = json::array();
  for (const auto& j : list.jobs) out.push_back(schedule::job_json(j));
  if (ctx.secrets() && !ctx.secrets()->empty()) ctx.secrets()->scrub(out);
  return out;
}

}  // namespace ouro::actions::impl
