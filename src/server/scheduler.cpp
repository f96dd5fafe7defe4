#include "server/scheduler.h"
#include "base/wait.h"
#include "base/clock.h"

#include "base/log.h"
#include "base/text.h"
#include "scripts/store.h"
#include "server/runs.h"
#include "runs/spec.h"
#include "store/database.h"
#include "store/nodes.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ouro::server {

namespace {

// "2026-12-01 08:00 (Europe/Berlin)": an instant as the job's zone shows it, for log lines and skips.
std::string when(const schedule::Job& job, int64_t t) {
  return fmt::format("{} ({})", schedule::to_string(job.timing.zone.to_local(t)), job.timing.zone.name());
}

std::string describe_json(const json& v) {
  std::string text = dump_json(v);
  text = clip_head(text, 40, ClipMark::None) + (text.size() > 40 ? "..." : "");
  return std::string(v.type_name()) + " " + text;
}

Result<std::string> string_field(const json& body, const char* key) {
  const json& v = body[key];
  if (!v.is_string()) return errorf(Code::InvalidArgument, "{} must be a string, got {}", key, describe_json(v));
  return v.get<std::string>();
}

}  // namespace

Result<schedule::JobSpec> job_spec_from_json(const json& body) {
  if (!body.is_object())
    return make_error(Code::InvalidArgument,
                      "a schedule is {\"task\": \"…\", \"every\": \"1h\" | \"cron\": \"0 8 * * 1-5\" | \"at\": \"2026-12-01 08:00\", "
                      "\"urls\"?: […], \"options\"?: {…}, \"tz\"?: \"Europe/Berlin\", \"missed\"?: \"run-once\"|\"skip\", \"name\"?: \"…\"}");
  static const std::set<std::string> kKnown = {"task", "urls", "options", "at", "every", "cron", "tz", "missed", "name", "script"};
  for (const auto& [k, v] : body.items())
    if (!kKnown.count(k))
      return errorf(Code::InvalidArgument, "unknown field '{}'; a schedule has task, urls, options, at|every|cron, tz, missed, name, script",
                    clip_text(k, 60));
  schedule::JobSpec spec;
  if (!body.contains("task")) return make_error(Code::InvalidArgument, "task is missing: what the scheduled runs do, in plain words");
  spec.task = TRY(string_field(body, "task"));
  if (body.contains("name")) spec.name = TRY(string_field(body, "name"));
  if (body.contains("urls")) {
    const json& urls = body["urls"];
    if (!urls.is_array()) return errorf(Code::InvalidArgument, "urls must be a list of strings, got {}", describe_json(urls));
    for (size_t i = 0; i < urls.size(); ++i) {
      if (!urls[i].is_string()) return errorf(Code::InvalidArgument, "urls[{}] must be a string, got {}", i, describe_json(urls[i]));
      spec.urls.push_back(urls[i].get<std::string>());
    }
  }
  if (body.contains("options")) {
    if (!body["options"].is_object()) return errorf(Code::InvalidArgument, "options must be an object, got {}", describe_json(body["options"]));
    spec.options = body["options"];
  }
  // script: a saved script each fire replays first, the agent taking over only where a step cannot heal.
  if (body.contains("script")) {
    std::string name = TRY(string_field(body, "script"));
    TRY(scripts::check_name(name));
    spec.options["script"] = {{"name", name}, {"fallback", true}};
  }
  int kinds = 0;
  for (auto [key, kind] : {std::pair{"at", schedule::TimingKind::Once}, std::pair{"every", schedule::TimingKind::Every},
                           std::pair{"cron", schedule::TimingKind::Cron}}) {
    if (!body.contains(key)) continue;
    ++kinds;
    spec.kind = kind;
    spec.when = TRY(string_field(body, key));
  }
  if (kinds != 1)
    return errorf(Code::InvalidArgument, "give exactly one of at, every and cron (got {}): e.g. \"every\": \"1h\", \"cron\": \"0 8 * * 1-5\", \"at\": \"2026-12-01 08:00\"",
                  kinds);
  if (body.contains("tz")) spec.zone = TRY(string_field(body, "tz"));
  if (body.contains("missed")) {
    std::string missed = TRY(string_field(body, "missed"));
    spec.missed = TRY(schedule::parse_missed(missed));
  }
  return spec;
}

Scheduler::Scheduler(store::Database& db, RunManager& runs, Config config)
    : m_db(db), m_runs(runs), m_config(config), m_shared(db.engine() == store::Engine::Postgres) {}
Scheduler::Scheduler(store::Database& db, RunManager& runs) : Scheduler(db, runs, Config{}) {}

Scheduler::~Scheduler() { stop(); }

bool Scheduler::start() {
  {
    std::lock_guard lock(m_mutex);
    if (m_started) return m_thread.joinable();
    m_started = true;
  }
  if (m_shared) {  // the nodes elect a leader: its thread catches up when it begins to lead
    m_thread = std::thread([this] { loop(); });
    return true;
  }
  if (!m_config.lock_path.empty()) {
    m_lock_fd = ::open(m_config.lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (m_lock_fd < 0 || ::flock(m_lock_fd, LOCK_EX | LOCK_NB) != 0) {
      spdlog::warn("scheduler: another ouro serve runs the schedules of this data directory ({}); this one starts none",
                   m_lock_fd < 0 ? std::strerror(errno) : "its lock is held");
      if (m_lock_fd >= 0) ::close(m_lock_fd);
      m_lock_fd = -1;
      return false;
    }
  }
  try {
    catch_up(wall_ms_whole() / 1000, "ouro was not running");
  } catch (const std::exception& e) {
    spdlog::error("scheduler: applying the missed-run policies failed: {}", redact(e.what()));
  }
  m_leads = true;  // the data directory's lock is this node's
  m_thread = std::thread([this] { loop(); });
  return true;
}

Scheduler::Stats Scheduler::stats() const { return Stats{m_leads.load(), m_fired.load(), m_skipped.load()}; }

void Scheduler::stop() {
  {
    std::lock_guard lock(m_mutex);
    m_stop = true;
  }
  m_cv.notify_all();
  if (m_thread.joinable()) m_thread.join();
  m_leads = false;
  if (m_leading) {
    m_leading = false;
    m_lead_until.reset();
    if (auto released = store::release_lease(m_db, store::kSchedulerLease); !released)
      spdlog::warn("scheduler: cannot give up the lead (another node takes it when it expires): {}", redact(released.error().message));
  }
  if (m_lock_fd >= 0) ::close(m_lock_fd);  // the lock goes with it
  m_lock_fd = -1;
}

void Scheduler::wake() {
  {
    std::lock_guard lock(m_mutex);
    m_woken = true;
  }
  m_cv.notify_all();
}

void Scheduler::loop() {
  std::unique_lock lock(m_mutex);
  while (!m_stop) {
    lock.unlock();
    std::chrono::milliseconds sleep = m_config.poll;
    // The thread's exception boundary: a pass that throws is logged, and the next one comes.
    try {
      sleep = pass();
    } catch (const std::exception& e) {
      spdlog::error("scheduler: {}", redact(e.what()));
    }
    lock.lock();
    wait_for_ms(m_cv, lock, sleep, [&] { return m_stop || m_woken; });
    m_woken = false;
  }
}

bool Scheduler::leading() const { return m_lead_until && steady_ms() < *m_lead_until; }

bool Scheduler::lead() {
  const double asked = steady_ms();
  auto held = store::hold_lease(m_db, store::kSchedulerLease);
  if (!held) {
    // Still the leader until m_lead_until, which the lease's term outlasts.
    if (m_leading) spdlog::warn("scheduler: cannot renew the lead: {}", redact(held.error().message));
  } else if (*held) {
    m_lead_until = asked + static_cast<double>(std::chrono::duration_cast<std::chrono::milliseconds>(store::kLeaseHold).count());
  } else {
    m_lead_until.reset();  // another node leads
  }
  const bool now_leading = leading();
  if (now_leading && !m_leading) {
    spdlog::info("scheduler: this node ({}) leads the scheduler now", m_db.node_id());
    catch_up(wall_ms_whole() / 1000, "no node led the scheduler");
  } else if (!now_leading && m_leading) {
    spdlog::warn("scheduler: this node ({}) no longer leads the scheduler; it fires nothing", m_db.node_id());
  }
  m_leading = now_leading;
  m_leads = now_leading;
  return now_leading;
}

Result<void> Scheduler::save_skip(const schedule::Job& job, int64_t at, const std::string& why, std::optional<int64_t> next) {
  if (!m_shared) return schedule::record_skip(m_db, job.id, at, why, next);
  return m_db.with_sql([&](store::Connection& c) -> Result<void> {
    return c.transaction([&]() -> Result<void> {
      if (!TRY(store::lease_held(c, m_db.node_id(), store::kSchedulerLease)))
        return make_error(Code::FailedPrecondition, "this node no longer leads the scheduler");
      return schedule::record_skip(c, job.id, at, why, next);
    });
  });
}

void Scheduler::catch_up(int64_t now, const char* absent) {
  auto listed = schedule::list_jobs(m_db);
  if (!listed) {
    spdlog::error("scheduler: cannot read the schedules: {}", redact(listed.error().message));
    return;
  }
  for (const auto& job : listed->jobs) {
    if (!job.enabled || job.run_requested) continue;  // a requested run fires at the first pass
    schedule::StartDecision d = schedule::decide_start(job.timing, job.last_fire, now, job.missed);
    Result<void> saved;
    if (d.run_now) {
      spdlog::info("scheduler: {} ({}) fell due at {} while {}; it runs once now (missed: run-once)", job.id, job.name,
                   when(job, *d.first_missed), absent);
      saved = schedule::set_next_fire(m_db, job.id, now);
    } else if (d.first_missed) {
      std::string why = fmt::format("missed the run due at {} while {} (missed: skip)", when(job, *d.first_missed), absent);
      spdlog::info("scheduler: {} ({}) {}", job.id, job.name, why);
      saved = save_skip(job, now, why, d.next);
    } else if (d.next != job.next_fire) {
      saved = schedule::set_next_fire(m_db, job.id, d.next);
    }
    if (!saved) spdlog::warn("scheduler: {}: {}", job.id, redact(saved.error().message));
  }
}

std::chrono::milliseconds Scheduler::pass() {
  if (m_shared && !lead()) return store::kLeaseRenew;
  auto listed = schedule::list_jobs(m_db);
  if (!listed) {
    spdlog::error("scheduler: cannot read the schedules: {}", redact(listed.error().message));
    return m_config.poll;
  }
  for (const auto& [id, why] : listed->unreadable)
    if (m_reported.insert(id).second) spdlog::warn("scheduler: the schedule {} is skipped: {}", clip_text(id, 60), why);
  std::optional<int64_t> earliest;
  bool fired = false;
  for (schedule::Job job : listed->jobs) {
    // A fire the row does not show yet: the run it started and its next time stand in, and
    // storing them is tried again.
    if (auto u = m_unrecorded.find(job.id); u != m_unrecorded.end()) {
      if (schedule::record_fire(m_db, job.id, wall_ms_whole() / 1000, u->second.run_id, u->second.next)) {
        m_unrecorded.erase(u);
        continue;  // read again at the next pass
      }
      job.last_run_id = u->second.run_id;
      job.next_fire = u->second.next;
      job.run_requested = false;
    }
    if (!job.enabled || !job.next_fire) continue;
    const int64_t ms = wall_ms_whole();
    if (job.run_requested || *job.next_fire * 1000 <= ms) {
      if (m_shared && !leading()) break;  // its lead ran out during this pass
      fire(job, ms / 1000);
      fired = true;
      continue;
    }
    earliest = earliest ? std::min(*earliest, *job.next_fire) : *job.next_fire;
  }
  std::chrono::milliseconds sleep = m_config.poll;
  if (earliest) sleep = std::min(sleep, std::chrono::milliseconds(std::max<int64_t>(*earliest * 1000 - wall_ms_whole(), 0)));
  // What fired has its next time stored now: the next pass reads it soon, without spinning.
  if (fired) sleep = std::min(sleep, std::chrono::milliseconds(50));
  // The leader renews its lease in time.
  if (m_shared) sleep = std::min<std::chrono::milliseconds>(sleep, store::kLeaseRenew);
  return sleep;
}

void Scheduler::fire(const schedule::Job& job, int64_t now) {
  const int64_t due = job.next_fire.value_or(now);
  const std::optional<int64_t> next = schedule::next_fire(job.timing, now);
  auto skip = [&](const std::string& why, std::optional<int64_t> then) {
    spdlog::warn("scheduler: {} ({}): not started: {}", job.id, job.name, redact(why));
    ++m_skipped;
    if (auto saved = save_skip(job, now, why, then); !saved)
      spdlog::warn("scheduler: {}: {}", job.id, redact(saved.error().message));
  };
  // Found late while running (the machine slept): the missed policy decides, as at start.
  if (!job.run_requested && job.missed == schedule::Missed::Skip && now - due > m_config.late.count())
    return skip(fmt::format("missed the run due at {} (ouro was not running it then; missed: skip)", when(job, due)), next);
  // Runs of one job never overlap.
  if (!job.last_run_id.empty()) {
    auto last = m_db.get_run(job.last_run_id);
    if (!last) {
      spdlog::warn("scheduler: {}: cannot read its last run {}: {}", job.id, job.last_run_id, redact(last.error().message));
    } else if (*last && runs::in_progress((*last)->state)) {
      return skip(fmt::format("its previous run {} is still {} (runs of one schedule never overlap)", job.last_run_id, runs::name((*last)->state)), next);
    }
  }
  json options = job.options;
  options["schedule"] = job.id;
  std::string task = job.task;
  std::vector<std::string> urls_from_script;
  // A job that names a script replays it (its path "replay"); a script that is gone leaves the
  // agent to do the task (path "agent"), said in the log.
  if (options.contains("script") && options["script"].is_object()) {
    auto script = scripts::get(m_db, get_str(options["script"], "name"));
    if (!script) {
      spdlog::warn("scheduler: {}: its script is not there ({}); the agent does the task", job.id, redact(script.error().message));
      options.erase("script");
    } else if (job.urls.empty()) {
      for (const auto& u : script->urls) urls_from_script.push_back(u);
    }
  }
  // A recurring job's every answer would crowd memory with near-copies: remembered only when the
  // job asks for it.
  if (!options.contains("remember")) options["remember"] = false;
  json urls = json::array();
  for (const auto& u : job.urls) urls.push_back(u);
  for (const auto& u : urls_from_script) urls.push_back(u);
  // Nodes on PostgreSQL: the fire is recorded, the job moved on and its run queued in one
  // transaction, and only while this node holds the lease; a (job, due) fired already is not
  // fired again.
  bool lost_lead = false, fired_already = false;
  RunManager::Alongside alongside;
  if (m_shared)
    alongside = [&](store::Connection& c, const std::string& run_id) -> Result<bool> {
      if (!TRY(store::lease_held(c, m_db.node_id(), store::kSchedulerLease))) {
        lost_lead = true;
        return make_error(Code::FailedPrecondition, "this node no longer leads the scheduler");
      }
      if (!TRY(store::record_fire_once(c, m_db.node_id(), job.id, due))) {
        fired_already = true;
        return false;
      }
      TRY(schedule::record_fire(c, job.id, now, run_id, next));
      return true;
    };
  auto created = m_runs.create(json{{"task", task}, {"urls", urls}, {"options", options}}, alongside);
  if (!created && lost_lead) {
    spdlog::warn("scheduler: {} ({}): not started: this node no longer leads the scheduler", job.id, job.name);
    m_lead_until.reset();
    return;
  }
  if (!created && fired_already) {
    spdlog::info("scheduler: {} ({}): its run due at {} was started already", job.id, job.name, when(job, due));
    if (auto settled = schedule::settle_fired(m_db, job.id, due, next); !settled)
      spdlog::warn("scheduler: {}: {}", job.id, redact(settled.error().message));
    return;
  }
  if (!created) {
    const Error& e = created.error();
    // Busy (too many runs, shutting down): try again in half a minute, unless its next time comes first.
    if (e.code == Code::ResourceExhausted || e.code == Code::Unavailable) {
      std::optional<int64_t> retry = now + 30;
      if (next && *next < *retry) retry = next;
      return skip("could not start now, trying again: " + e.message, retry);
    }
    return skip("could not start: " + e.message, next);
  }
  std::string run_id = get_str(*created, "id");
  ++m_fired;
  spdlog::info("scheduler: {} ({}) started run {}{}", job.id, job.name, run_id, job.run_requested ? " (run now)" : "");
  if (m_shared) return;  // recorded with the run
  if (auto saved = schedule::record_fire(m_db, job.id, now, run_id, next); !saved) {
    spdlog::error("scheduler: {}: started run {} but cannot record it (tried again at each pass): {}", job.id, run_id,
                  redact(saved.error().message));
    m_unrecorded[job.id] = Unrecorded{run_id, next};
  }
}

Result<json> Scheduler::list() {
  auto listed = TRY(schedule::list_jobs(m_db));
  json out = json::array();
  for (const auto& job : listed.jobs) out.push_back(schedule::job_json(job));
  for (const auto& [id, why] : listed.unreadable) out.push_back(json{{"id", id}, {"error", why}});
  return out;
}

Result<json> Scheduler::create(const json& body) {
  schedule::JobSpec spec = TRY(job_spec_from_json(body));
  const int64_t now = wall_ms_whole() / 1000;
  schedule::Job job = TRY(schedule::add_job(m_db, spec, now, runs::check_options));
  wake();
  json out = schedule::job_json(job);
  out["upcoming"] = schedule::upcoming(job, now - 1, 3);
  return out;
}

Result<json> Scheduler::remove(const std::string& id) {
  if (!TRY(schedule::remove_job(m_db, id))) return errorf(Code::NotFound, "no schedule '{}'", clip_text(id, 60));
  wake();
  return json{{"removed", id}};
}

Result<json> Scheduler::run_now(const std::string& id) {
  TRY(schedule::request_run(m_db, id, wall_ms_whole() / 1000));
  wake();
  auto job = TRY(schedule::get_job(m_db, id));
  return job ? schedule::job_json(*job) : json{{"id", id}};
}

}  // namespace ouro::server
