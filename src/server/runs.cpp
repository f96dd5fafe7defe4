// The runs API: runs started, executed through the one run lifecycle (runs/lifecycle.h) turn
// after turn, answered, cancelled, resumed and listed; a place for each under the concurrency
// limit. The event log and its subscribers, the model settings and the nodes sharing PostgreSQL
// are in run_events.cpp, run_settings.cpp and run_nodes.cpp.
#include "server/runs.h"
#include "base/wait.h"
#include "base/clock.h"
#include "server/run_manager_state.h"

#include "base/settings_file.h"

#include "runs/event_log.h"
#include "runs/lifecycle.h"
#include "runs/remember.h"
#include "llm/setup.h"

#include "server/bridge_hub.h"
#include "runs/conversation.h"
#include "runs/failover.h"
#include "session/pool.h"
#include "server/memories.h"
#include "runs/resume.h"
#include "schedule/jobs.h"
#include "scripts/replay.h"
#include "scripts/rewrite.h"
#include "scripts/store.h"
#include "runs/sites.h"

#include "actions/registry.h"
#include "agent/run.h"
#include "base/log.h"
#include "browser/browser.h"
#include "cdp/bridge.h"
#include "hooks/hooks.h"
#include "safety/settings.h"
#include "safety/sites.h"
#include "session/session.h"
#include "store/database.h"
#include "store/nodes.h"

#include <algorithm>
#include <deque>
#include <set>

namespace ouro::server {

json row_json(const store::Database::RunRow& r) {
  json j = {{"id", r.id}, {"task", r.task}, {"state", runs::name(r.state)}, {"iterations", r.iterations}, {"partial", r.partial},
            {"created_at", r.created_at}, {"updated_at", r.updated_at}, {"options", parse_json(r.options).value_or(json::object())}};
  j["final"] = r.final_json.empty() ? json(nullptr) : parse_json(r.final_json).value_or(json(r.final_json));
  j["usage"] = r.usage_json.empty() ? json(nullptr) : parse_json(r.usage_json).value_or(json(nullptr));
  // Each finished turn's state, times, iterations and cost (runs/lifecycle.h), apart from the usage.
  j["turns"] = json::array();
  if (j["usage"].is_object() && j["usage"].contains("turns")) {
    if (j["usage"]["turns"].is_array()) j["turns"] = j["usage"]["turns"];
    j["usage"].erase("turns");
  }
  j["cost"] = r.cost ? json(*r.cost) : json(nullptr);
  if (!r.error.empty()) j["error"] = r.error;
  // The node that holds the run (or held it last): OURO_NODE_ID, else host:pid (store/database.h).
  j["node"] = r.owner.empty() ? json(nullptr) : json(r.owner);
  return j;
}

json event_json(const store::Database::EventRow& e) {
  return json{{"id", e.id}, {"run", e.run_id}, {"seq", e.seq}, {"type", e.type}, {"ts", e.ts}, {"data", parse_json(e.data).value_or(json())}};
}

RunManager::RunManager(std::shared_ptr<session::Runtime> runtime, Config config)
    : m_runtime(std::move(runtime)), m_db(*m_runtime->db), m_config(std::move(config)) {
  // Runs that were in progress when ouro last stopped are shown as interrupted, not lost. Nodes
  // sharing PostgreSQL take such runs over instead and go on with them (store/nodes.h).
  m_shared = m_db.engine() == store::Engine::Postgres;
  if (!m_shared)
    if (auto marked = m_db.mark_interrupted(); !marked)
      spdlog::warn("cannot mark the runs of the last session interrupted: {}", redact(marked.error().message));
  m_reaper = std::thread([this] { reaper(); });
  if (m_shared) m_nodes = std::thread([this] { nodes_loop(); });
}

RunManager::~RunManager() {
  std::vector<std::shared_ptr<Active>> runs;
  {
    std::lock_guard lock(m_mutex);
    m_serving = Serving::Stopping;
  }
  if (m_nodes.joinable()) m_nodes.join();  // it starts no run now
  {
    std::lock_guard lock(m_mutex);
    for (auto& [id, r] : m_runs) runs.push_back(r);
  }
  for (auto& r : runs) {
    {
      std::lock_guard lock(r->mutex);
      r->request(Active::Stop::Shutdown);
    }
    r->run->cancel();
    r->changed.notify_all();
  }
  {
    std::unique_lock lock(m_mutex);
    m_reaped.wait(lock, [&] { return m_runs.empty() && m_storing == 0; });
  }
  m_reap.notify_all();
  m_reaper.join();
}

// Finished runs live on in the database; their threads are joined and their memory let go, so
// a server used every day does not accumulate them. A run thread hands itself over only once
// its session is torn down, so a join here waits for nothing but the thread's return.
void RunManager::reaper() {
  std::unique_lock lock(m_mutex);
  uint64_t seen = m_places_freed;  // the places freed the reaper has acted on
  while (true) {
    m_reap.wait(lock, [&] { return !m_torn_down.empty() || m_places_freed != seen || (m_serving == Serving::Stopping && m_runs.empty()); });
    const bool freed = m_places_freed != seen;  // a place came free since the reaper last looked
    seen = m_places_freed;
    if (freed && m_torn_down.empty() && m_serving == Serving::Open) {
      lock.unlock();
      start_waiting();
      lock.lock();
      continue;
    }
    if (m_torn_down.empty()) {
      // Done once the manager stops and every run is gone (a place freed while it stops is not).
      if (m_serving == Serving::Stopping && m_runs.empty()) return;
      continue;
    }
    auto done = std::move(m_torn_down);
    m_torn_down.clear();
    lock.unlock();
    for (auto& r : done)
      if (r->thread.joinable()) r->thread.join();
    lock.lock();
    for (auto& r : done) m_runs.erase(r->id);
    m_reaped.notify_all();
    if (!m_waiting.empty()) {
      lock.unlock();
      start_waiting();
      lock.lock();
    }
  }
}

void RunManager::place_freed() {
  {
    std::lock_guard lock(m_mutex);
    if (m_waiting.empty()) return;
    ++m_places_freed;
  }
  m_reap.notify_all();
}

void RunManager::start_waiting() {
  while (true) {
    store::Database::RunRow row;
    {
      std::lock_guard lock(m_mutex);
      if (m_serving == Serving::Stopping || m_waiting.empty() || busy_runs() >= m_config.max_active_runs) return;
      row = std::move(m_waiting.front());
      m_waiting.pop_front();
    }
    auto started = start_queued(row);
    if (started) continue;
    if (started.error().code == Code::ResourceExhausted) {  // another run took the place first: it waits on
      std::lock_guard lock(m_mutex);
      m_waiting.push_front(std::move(row));
      return;
    }
    spdlog::warn("run {}: cannot start it: {}", row.id, redact(started.error().message));
    runs::Run::from_row(m_db, std::move(row))->fail("cannot start the run: " + started.error().message, "The run could not start: " + started.error().message);
  }
}

Result<json> RunManager::create(const json& body) { return create(body, nullptr); }

Result<json> RunManager::create(const json& body, const Alongside& alongside, const std::string& pairing) {
  // A task typed in the extension's side panel runs in that panel's Chrome, in a tab group of its
  // own (docs/guides/side-panel.md), unless the request names another browser or runs here go
  // to a pool.
  json request = body;
  if (!pairing.empty() && m_config.bridge && !m_config.pool && request.is_object()) {
    json& options = request["options"];
    if (options.is_null()) options = json::object();
    if (options.is_object() && !options.contains("browser")) options["browser"] = "extension";
  }
  const runs::RunSpec spec = TRY(runs::parse_request(request));
  // Settings problems (no key) are reported now, not as a failed run later.
  if (!spec.commands() && !spec.script) TRY(resolve(spec));
  auto active = std::make_shared<Active>();
  active->run = TRY(runs::Run::create(m_db, request, runs::State::Queued));
  active->id = active->run->id();
  active->task = spec.task;
  active->pairing = pairing;
  open_log(active);
  // Nodes sharing PostgreSQL: the run waits in the shared queue for whichever node has a place
  // (store/nodes.h). Through the extension it is this node's: the user's Chrome is paired here.
  const bool via_extension = spec.browser.empty() ? m_config.default_browser == "extension" : spec.browser == "extension";
  if (m_shared && !via_extension) return enqueue_shared(active->run->row(), alongside);
  return place_here(active, alongside);
}

Result<void> RunManager::store_new_row(const std::string& run_id, const Alongside& alongside,
                                       const std::function<Result<void>(store::Connection&)>& insert) {
  if (!alongside) return m_db.with_sql(insert);
  return m_db.with_sql([&](store::Connection& c) -> Result<void> {
    return c.transaction([&]() -> Result<void> {
      if (!TRY(alongside(c, run_id))) return errorf(Code::AlreadyExists, "run {} was not created: what goes with it was done already", run_id);
      return insert(c);
    });
  });
}

Result<json> RunManager::enqueue_shared(const store::Database::RunRow& row, const Alongside& alongside) {
  json created = row_json(row);
  {
    std::lock_guard lock(m_mutex);
    if (m_serving == Serving::Stopping) return make_error(Code::Unavailable, "ouro is shutting down");
  }
  if (int64_t waiting = TRY(store::queue_depth(m_db)); waiting >= kMaxQueued) {
    m_node_stats.refused.add();
    return errorf(Code::ResourceExhausted, "{} runs wait in the queue already, the limit: wait for some to start, or cancel some", waiting);
  }
  TRY(store_new_row(row.id, alongside, [&](store::Connection& c) { return store::enqueue_run(c, row); }));
  m_look.store(Look::Due);
  return created;
}

// The place is taken under the manager's mutex, the row stored without it (an API read never
// waits for a write): a run that cannot be stored gives its place back.
Result<json> RunManager::place_here(const std::shared_ptr<Active>& active, const Alongside& alongside) {
  const store::Database::RunRow row = active->run->row();
  json created = row_json(row);  // built before the manager's lock is taken
  enum class Place { Now, Waits } place;
  {
    std::lock_guard lock(m_mutex);
    if (m_serving == Serving::Stopping) return make_error(Code::Unavailable, "ouro is shutting down");
    // Every place taken: the run waits, stored `queued`, and starts when one comes free.
    if (size_t busy = busy_runs(); busy >= m_config.max_active_runs) {
      if (m_waiting.size() + m_storing >= kMaxWaitingHere) {
        m_node_stats.refused.add();
        return errorf(Code::ResourceExhausted, "{} runs are in progress and {} wait already, the limit: wait for some to start, or cancel some",
                      busy, m_waiting.size());
      }
      place = Place::Waits;
    } else {
      expire_idle(m_config.max_idle_runs);
      m_runs[active->id] = active;  // its place, held while its row is stored
      place = Place::Now;
    }
    ++m_storing;
  }
  auto stored = store_new_row(row.id, alongside, [&](store::Connection& c) { return store::Database::insert_run(c, m_db.node_id(), row); });
  std::string failed;  // why a stored run does not start (recorded without the lock)
  {
    std::lock_guard lock(m_mutex);
    --m_storing;
    m_reaped.notify_all();  // the destructor waits for rows being stored
    if (!stored) {
      if (place == Place::Now) m_runs.erase(active->id);
      return tl::make_unexpected(stored.error());
    }
    if (m_serving == Serving::Stopping) {
      if (place == Place::Now) m_runs.erase(active->id);
      failed = "ouro stopped before the run started";
    } else if (place == Place::Waits) {
      m_waiting.push_back(row);
      // A place may have come free while the row was stored: the reaper looks again.
      if (busy_runs() < m_config.max_active_runs) {
        ++m_places_freed;
        m_reap.notify_all();
      }
      return created;
    } else {
      // Started under the lock: the thread cannot hand itself to the reaper before `thread` is set.
      try {
        active->thread = std::thread([this, active] { run_thread(active); });
        return created;
      } catch (const std::system_error& e) {
        m_runs.erase(active->id);
        failed = std::string("cannot start a thread for the run: ") + e.what();
      }
    }
  }
  active->run->fail(failed, "The run could not start: " + failed);
  return errorf(Code::Unavailable, "the run cannot start: {}", failed);
}

// The run thread's one exception boundary: whatever escapes ends this run, not the process;
// the session has been torn down by the time it is caught. Then the thread hands itself to the
// reaper.
void RunManager::run_thread(std::shared_ptr<Active> active) {
  // The run's thread keeps the process's priority (base/priority.h: it holds locks the API's
  // readers take); its pages and its model's code are the background work.
  try {
    execute(active);
  } catch (const std::exception& e) {
    std::string why = redact(std::string("internal error: ") + e.what());
    spdlog::error("run {}: {}", active->id, why);
    try {
      active->run->close();
      active->run->fail(why, "The run failed: " + why);
    } catch (const std::exception& again) {
      spdlog::error("run {}: cannot record the failure: {}", active->id, redact(again.what()));
    }
  }
  {
    std::lock_guard lock(active->mutex);
    active->phase = Active::Phase::Leaving;
    active->working = nullptr;
  }
  {
    std::lock_guard lock(m_mutex);
    m_torn_down.push_back(active);
  }
  m_look.store(Look::Due);  // a place came free: the shared queue may have a run for it
  m_reap.notify_all();
}

namespace {

// A place on a browser pool's least-loaded healthy endpoint (queued while all are full), moved
// to another endpoint when its browser dies (runs/failover.h). The lease is declared with the
// source, which the run lets go after its session: the place is given back after the session
// that used it has closed.
class PoolSource final : public runs::BrowserSource {
 public:
  PoolSource(store::Database& db, session::BrowserPool& pool, std::chrono::milliseconds wait, std::function<bool()> cancelled,
             std::function<void(const std::string& endpoint, bool moved)> placed)
      : m_db(db), m_pool(pool), m_wait(wait), m_cancelled(std::move(cancelled)), m_placed(std::move(placed)) {}

  Result<std::unique_ptr<session::Session>> open(session::SessionOptions so) override {
    m_lease.emplace(TRY(m_pool.acquire(m_wait, m_cancelled)));
    m_placed(m_lease->endpoint(), false);
    return session::Session::attach(m_lease->runtime(), std::move(so));
  }
  Result<Move> fail_over(const std::string& run_id, const std::string& why, const session::SessionOptions& so) override {
    if (!m_lease) return BrowserSource::fail_over(run_id, why, so);
    const std::string from = m_lease->endpoint();
    auto to = TRY(runs::fail_over(m_db, m_pool, run_id, from, why, so, m_wait, m_cancelled));
    m_next = std::move(to.lease);
    return Move{std::move(to.session), std::move(to.point), std::move(to.note), from, to.to};
  }
  void settled() override {
    if (!m_next) return;
    m_lease.swap(m_next);
    m_next.reset();  // the dead endpoint's place
    m_placed(m_lease->endpoint(), true);
  }

 private:
  store::Database& m_db;
  session::BrowserPool& m_pool;
  std::chrono::milliseconds m_wait;
  std::function<bool()> m_cancelled;
  std::function<void(const std::string&, bool)> m_placed;
  std::optional<session::BrowserPool::Lease> m_lease, m_next;
};

// The user's Chrome through the extension: a browser of the run's own on the bridge, kept until
// the run lets its source go (after its session).
class ExtensionSource final : public runs::BrowserSource {
 public:
  using Bridge = std::function<Result<std::shared_ptr<session::Runtime>>()>;
  ExtensionSource(Bridge bridge, std::function<void()> placed) : m_bridge(std::move(bridge)), m_placed(std::move(placed)) {}
  Result<std::unique_ptr<session::Session>> open(session::SessionOptions so) override {
    m_runtime = TRY(m_bridge());
    m_placed();
    return session::Session::attach(m_runtime, std::move(so));
  }

 private:
  Bridge m_bridge;
  std::function<void()> m_placed;
  std::shared_ptr<session::Runtime> m_runtime;
};

}  // namespace

// What the server's runs must be, and where they can run: a run through the extension works in
// the user's profile (docs/design/extension-bridge.md) — a clean context cannot exist there —, a
// pool's runs each have a context of their own.
Result<void> RunManager::placement_rules(runs::RunSpec& spec, bool via_extension) const {
  // Through the extension: the user's Chrome, in a tab group of the run's own. What the
  // extension cannot give — a clean context with cookies of its own, a downloads folder of
  // ouro's — is not available there, and a run that asks for a clean context is refused with
  // that reason.
  if (via_extension && spec.context == "clean")
    return make_error(Code::FailedPrecondition,
                      "a clean context (cookies of its own) cannot exist through the extension: a run in the user's Chrome works in its "
                      "profile and its tab group (context 'mine'). Drop context 'clean', or leave out browser 'extension' to use ouro's own browser");
  if (via_extension && m_config.pool)
    return make_error(Code::FailedPrecondition, "this server's runs use a browser pool; browser 'extension' is for ouro serve with a browser of its own");
  // My browser: the user's tabs, held one run at a time, left open. Through the extension the
  // run's browser is its tab group alone: every tab there is the run's (the user shared it). On a
  // pool, every run has a context of its own: a pool's browsers are no one's own.
  if (via_extension) spec.context = "";
  if (m_config.pool) spec.context = "clean";
  return {};
}

// The run's setup from the server's configuration and the settings file, read once for the run:
// its safety settings and its model (the server's hooks were read when it started).
Result<runs::Setup> RunManager::run_setup(bool via_extension) {
  auto settings_file = TRY(read_settings_file(m_config.config_path));
  runs::Setup setup;
  setup.hooks = m_config.hooks;  // the deciding points ask them (the log tells the others)
  if (!m_config.ouro_binary.empty()) setup.base.repl.executable = m_config.ouro_binary;
  setup.base.limits.action_timeout = m_config.action_timeout;
  setup.file = TRY(safety::safety_settings_from(settings_file.data, settings_file.where()));
  if (!m_config.secret_flags.empty()) {
    auto secrets = setup.file.secrets ? std::make_shared<safety::SecretStore>(*setup.file.secrets) : std::make_shared<safety::SecretStore>();
    for (const auto& flag : m_config.secret_flags) TRY(safety::add_secret_from_flag(*secrets, flag));
    setup.file.secrets = std::move(secrets);
  }
  setup.model_flags = model_flags();
  if (!m_config.config_path.empty()) setup.model_flags.file = settings_file.data;
  setup.stored_settings = stored_llm_settings().value_or(json::object());
  setup.default_context = via_extension ? "" : m_config.mine_by_default ? "mine" : "clean";
  // On a pool, a dead endpoint stops the run at its next iteration boundary, to move it.
  setup.stop_when_browser_lost = m_config.pool != nullptr;
  return setup;
}

// The run's browser: a place on a pool, the user's Chrome through the extension, or the server's
// own. The source is the run's (its slot holds it): what it calls back reaches the slot weakly.
std::shared_ptr<runs::BrowserSource> RunManager::browser_source(const std::shared_ptr<Active>& active, bool via_extension) {
  std::weak_ptr<Active> slot = active;
  if (m_config.pool) {
    auto cancelled = [slot] {
      auto a = slot.lock();
      if (!a) return true;
      std::lock_guard lock(a->mutex);
      return a->stop >= Active::Stop::Cancel;
    };
    auto placed = [this, slot, id = active->id](const std::string& endpoint, bool moved) {
      {
        std::lock_guard lock(m_mutex);
        if (m_placed.insert_or_assign(id, endpoint).second) m_placed_order.push_back(id);
        while (m_placed_order.size() > 1000) {
          m_placed.erase(m_placed_order.front());
          m_placed_order.pop_front();
        }
      }
      if (auto a = slot.lock(); a && !moved) publish(*a, "placement", {{"endpoint", endpoint}}, wall_ms());
    };
    return std::make_shared<PoolSource>(m_db, *m_config.pool, std::chrono::duration_cast<std::chrono::milliseconds>(m_config.pool_wait), cancelled, placed);
  }
  if (via_extension) {
    auto bridge = [this, pairing = active->pairing, id = active->id, task = active->task] { return bridge_runtime(id, task, pairing); };
    auto placed = [this, slot] {
      if (auto a = slot.lock())
        publish(*a, "placement",
                {{"endpoint", "extension"},
                 {"note", "in your Chrome, through ouro's extension, in the tab group named after this task; it works in your profile "
                          "(context 'mine'): a clean context cannot exist through the extension"}},
                wall_ms());
    };
    return std::make_shared<ExtensionSource>(bridge, placed);
  }
  return std::make_shared<runs::SessionSource>([runtime = m_runtime](session::SessionOptions so) { return session::Session::attach(runtime, std::move(so)); });
}

// Between the turns of the API's conversations: the run's slot follows its phase, its place is
// free while it waits for a follow-up (up to keep_idle), and the node's figures and turn notices
// are kept. `run` and `active` outlive the conversation (execute's).
runs::Conversation RunManager::conversation(const std::shared_ptr<Active>& active, bool first_start) {
  runs::Run& run = *active->run;
  struct Timing {
    // How long the run waited for a place, from its creation to its first turn (the queue_wait
    // histogram). Unmeasured: a first start whose first turn has not begun yet; Measured: taken
    // at that turn's start, or nothing to take (a run continued or resumed from storage).
    enum class QueueWait { Unmeasured, Measured };
    QueueWait queue_wait = QueueWait::Measured;
    Clock::time_point turn_began{};
  };
  auto timing = std::make_shared<Timing>();
  if (first_start) timing->queue_wait = Timing::QueueWait::Unmeasured;
  const bool resumed = run.resuming();
  runs::Conversation c;
  c.turn_begins = [this, &run, active, timing](const std::string& task) {
    if (timing->queue_wait == Timing::QueueWait::Unmeasured) {
      m_node_stats.queue_wait.observe(std::max(0.0, wall_ms() - run.row().created_at) / 1000.0);
      timing->queue_wait = Timing::QueueWait::Measured;
    }
    timing->turn_began = Clock::now();
    if (m_config.on_turn) {
      Config::TurnNotice notice;
      notice.run_id = active->id;
      notice.task = task;
      notice.started = true;
      m_config.on_turn(notice);
    }
  };
  c.running = [active, resumed](agent::Run* working, bool moved) {
    std::lock_guard lock(active->mutex);
    active->working = working;
    if (!working) return;
    // A resumed turn was begun before the restart; a moved one goes on.
    if (!moved && (!resumed || active->phase != Active::Phase::Starting)) ++active->begun;
    active->phase = Active::Phase::Working;
  };
  // Nodes sharing PostgreSQL: a turn cut short because this node could not reach the database
  // (fenced, or an event that could not be stored for that reason) records no end: its row stays
  // in progress, held by this node, and is taken over from its last checkpoint — by this node
  // once it reaches the database again, or by another once this one counts as dead (store/nodes.h).
  c.abandon = [this, &run, active](const agent::RunResult&) {
    const bool unreachable = run.log()->store_unreachable();  // before the slot's lock: the log's own lock comes first
    std::lock_guard lock(active->mutex);
    if (!m_shared || (active->stop != Active::Stop::Fenced && !unreachable)) return false;
    spdlog::warn("run {}: stopped on this node, which cannot reach the database; it goes on from its last checkpoint once a node can", active->id);
    active->phase = Active::Phase::Leaving;
    return true;
  };
  c.stopping = [active] {
    std::lock_guard lock(active->mutex);
    return active->stop == Active::Stop::Shutdown;
  };
  c.turn_ended = [this, &run, active, timing](const std::string& task, const agent::RunResult& r, runs::State state) {
    if (!m_config.on_turn) return;
    const auto row = run.row();
    m_config.on_turn({.run_id = active->id, .task = task, .started = false, .state = std::string(runs::name(state)), .iterations = row.iterations,
                      .cost = row.cost, .seconds = std::chrono::duration<double>(Clock::now() - timing->turn_began).count(), .error = r.error});
  };
  c.next = [this, active](const agent::RunResult& r) -> std::optional<std::string> {
    std::unique_lock lock(active->mutex);
    // Messages that came too late for an iteration open the next turn.
    for (auto g = r.unread_guidance.rbegin(); g != r.unread_guidance.rend(); ++g) active->inbox.push_front(*g);
    active->phase = Active::Phase::Recorded;
    if (active->stop >= Active::Stop::Cancel) {
      active->phase = Active::Phase::Leaving;
      return std::nullopt;
    }
    active->phase = Active::Phase::Idle;
    active->idle_since = Clock::now();
    // Its place is free while it waits for a follow-up: a run waiting for one may start.
    lock.unlock();
    place_freed();
    lock.lock();
    // On a browser pool a place is for a run that works: between turns the session goes, and a
    // follow-up continues from storage on whichever endpoint is free then.
    wait_for_ms(active->changed, lock, m_config.pool ? std::chrono::seconds(0) : m_config.keep_idle,
                [&] { return !active->inbox.empty() || active->stop >= Active::Stop::End; });
    if (active->inbox.empty() || active->stop >= Active::Stop::End) {
      active->phase = Active::Phase::Leaving;
      return std::nullopt;
    }
    active->phase = Active::Phase::Recorded;
    std::string task = active->inbox.front();
    active->inbox.pop_front();
    return task;
  };
  c.leaving = [active] {
    std::lock_guard lock(active->mutex);
    active->phase = Active::Phase::Leaving;
  };
  return c;
}

// The run's thread: the run, started over its browser, converses until it ends; its session is
// torn down here.
void RunManager::execute(std::shared_ptr<Active> active) {
  runs::Run& run = *active->run;
  auto fail = [&](const std::string& why) { run.fail(why, "The run could not start: " + why); };
  auto spec = runs::parse_request(run.request());
  if (!spec) return fail(spec.error().message);
  const bool via_extension = !spec->browser.empty() ? spec->browser == "extension" : m_config.default_browser == "extension";
  if (auto placed = placement_rules(*spec, via_extension); !placed) return fail(placed.error().message);
  auto setup = run_setup(via_extension);
  if (!setup) return fail(setup.error().message);
  const bool first_start = !run.resuming() && run.turns().empty() && run.state() == runs::State::Queued;
  if (!run.start(*spec, std::move(*setup), browser_source(active, via_extension))) return;  // kept as failed, saying why
  // "Always": a site question (leaving the allowed sites, one of the user's tabs) is not asked again.
  runs::Asker asker = run.waiting_asker(m_config.confirm_timeout, m_config.ask_timeout, [this, &run](const json& req) {
    if (std::string site = runs::site_question(req); !site.empty()) runs::remember_site(m_db, site, run.id(), run.life().turn_number());
  });
  (void)run.converse(asker, conversation(active, first_start));
  {
    std::lock_guard lock(active->mutex);
    active->phase = Active::Phase::Leaving;
  }
  // Teardown on this thread: the session closes, waiting for its browser, before the place or the
  // bridged browser it used is let go.
  run.close();
}

Result<json> RunManager::get(const std::string& id) {
  // Read on the store's read connection, which never waits for a run's writes.
  auto row = TRY(m_db.get_run(id));
  if (!row) return errorf(Code::NotFound, "no run '{}'", id);
  json j = row_json(*row);
  std::shared_ptr<Active> active;
  {
    std::lock_guard lock(m_mutex);
    if (auto it = m_runs.find(id); it != m_runs.end()) active = it->second;
    if (auto p = m_placed.find(id); p != m_placed.end()) j["endpoint"] = p->second;
  }
  if (active) {
    auto pending = active->run->answers().pending();
    j["pendingConfirmations"] = pending.confirmations;
    j["pendingQuestions"] = pending.questions;
  }
  return j;
}

Result<json> RunManager::tabs_of(const std::string& run_id) {
  std::shared_ptr<Active> active;
  {
    std::lock_guard lock(m_mutex);
    if (auto it = m_runs.find(run_id); it != m_runs.end()) active = it->second;
  }
  if (!active) return errorf(Code::NotFound, "no run '{}' in progress", run_id);
  auto out = active->run->tabs();
  if (!out) {
    std::lock_guard lock(active->mutex);
    return errorf(Code::FailedPrecondition, "run {} has no browser now (it is {})", run_id, active->finished() ? "finished" : "starting");
  }
  // A run in the user's Chrome (the extension) has tab ids of its own browser, not the server's.
  if (!active->run->uses_browser(m_runtime->browser.get())) (*out)["ownBrowser"] = false;
  return out;
}
Result<json> RunManager::list() {
  auto rows = TRY(m_db.list_runs(200));
  json out = json::array();
  std::lock_guard lock(m_mutex);
  for (const auto& r : rows) {
    out.push_back(row_json(r));
    if (auto p = m_placed.find(r.id); p != m_placed.end()) out.back()["endpoint"] = p->second;
  }
  return out;
}

// A browser of the run's own on the extension's bridge: a Browser over a bridge transport for
// the run's conversation, on the server's network thread and database.
Result<std::shared_ptr<session::Runtime>> RunManager::bridge_runtime(const std::string& run_id, const std::string& task, const std::string& pairing) {
  if (!m_config.bridge) return make_error(Code::FailedPrecondition, "this server takes no extension (only ouro serve does)");
  auto link = TRY(m_config.bridge->link(std::chrono::seconds(10), pairing));
  cdp::BridgeTarget target;
  target.conversation = run_id;
  target.title = task.substr(0, 60);
  browser::BrowserOptions bo;
  bo.connect_url = cdp::offer_transport(cdp::make_bridge_transport(*m_runtime->io, std::move(link), target));
  auto started = browser::Browser::start(*m_runtime->io, bo);
  if (!started) {
    (void)cdp::take_transport(bo.connect_url);  // not left behind when start failed before taking it
    return make_error(started.error().code, "cannot use the browser through the extension: " + started.error().message);
  }
  return session::make_runtime(m_runtime->io, m_runtime->db, std::move(*started), m_runtime->data_dir);
}

Result<json> RunManager::pool_state() {
  if (!m_config.pool) return make_error(Code::NotFound, "this server has no browser pool (ouro serve --browser-pool FILE, or --browser twice or more)");
  return m_config.pool->to_json();
}

Result<json> RunManager::cancel(const std::string& id) {
  std::shared_ptr<Active> active;
  {
    std::lock_guard lock(m_mutex);
    if (auto it = m_runs.find(id); it != m_runs.end()) active = it->second;
  }
  bool finished = false;
  if (active) {
    std::lock_guard lock(active->mutex);
    finished = active->finished();
  }
  if (!active && m_shared) {
    // Executing on another node, or waiting in the queue.
    if (auto relayed = store::post_to_inbox(m_db, id, {{"kind", "cancel"}}); relayed) return json{{"id", id}, {"cancelling", true}, {"relayed", true}};
    else if (relayed.error().code != Code::NotFound) return tl::unexpected<Error>(relayed.error());
    if (auto dropped = m_db.with_sql([&](store::Connection& c) {
          return c.exec("UPDATE runs SET state = ?3, error = 'cancelled before a node took it', updated_at = ?2 "
                        "WHERE id = ?1 AND state = ?4 AND owner IS NULL",
                        {id, wall_ms(), runs::name_of(runs::State::Cancelled), runs::name_of(runs::State::Queued)});
        });
        dropped && dropped->affected == 1)
      return json{{"id", id}, {"cancelling", true}};
  }
  if (!active) {
    // Waiting on this node for a place: it never starts.
    std::optional<store::Database::RunRow> waiting;
    {
      std::lock_guard lock(m_mutex);
      auto it = std::find_if(m_waiting.begin(), m_waiting.end(), [&](const store::Database::RunRow& r) { return r.id == id; });
      if (it != m_waiting.end()) {
        waiting = std::move(*it);
        m_waiting.erase(it);
      }
    }
    if (waiting) {
      waiting->error = "cancelled before it started";
      TRY(runs::Run::from_row(m_db, std::move(*waiting))->set_state(runs::State::Cancelled));
      return json{{"id", id}, {"cancelling", true}};
    }
  }
  if (!active || finished) {
    auto row = TRY(m_db.get_run(id));
    if (!row) return errorf(Code::NotFound, "no run '{}'", id);
    return errorf(Code::FailedPrecondition, "run {} is not in progress (it is {})", id, runs::name(row->state));
  }
  {
    std::lock_guard lock(active->mutex);
    active->request(Active::Stop::Cancel);
  }
  active->run->cancel();
  active->changed.notify_all();
  return json{{"id", id}, {"cancelling", true}};
}

Result<json> RunManager::end(const std::string& id) {
  std::shared_ptr<Active> active;
  {
    std::lock_guard lock(m_mutex);
    if (auto it = m_runs.find(id); it != m_runs.end()) active = it->second;
  }
  if (!active) {
    auto row = TRY(m_db.get_run(id));
    if (!row) return errorf(Code::NotFound, "no run '{}'", id);
    return json{{"id", id}, {"ended", true}};  // no session of it is open on this node
  }
  {
    std::lock_guard lock(active->mutex);
    // A turn works from its start until its agent is gone (the row may say "done" a moment
    // before the phase says so).
    if ((active->working || active->phase == Active::Phase::Starting) && active->phase != Active::Phase::Leaving)
      return errorf(Code::FailedPrecondition, "run {} is working on a turn: cancel it, or end the conversation once the turn is over", id);
    active->request(Active::Stop::End);
  }
  active->changed.notify_all();
  return json{{"id", id}, {"ended", true}};
}

size_t RunManager::busy_runs() {
  size_t n = 0;
  for (auto& [id, r] : m_runs) {
    std::lock_guard lock(r->mutex);
    if (r->phase != Active::Phase::Idle) ++n;
  }
  return n;
}

void RunManager::expire_idle(size_t keep) {
  std::vector<std::pair<Clock::time_point, std::shared_ptr<Active>>> idle;
  for (auto& [id, r] : m_runs) {
    std::lock_guard lock(r->mutex);
    if (r->phase == Active::Phase::Idle && r->stop < Active::Stop::End) idle.emplace_back(r->idle_since, r);
  }
  if (idle.size() <= keep) return;
  std::sort(idle.begin(), idle.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 0; i + keep < idle.size(); ++i) {
    auto& r = idle[i].second;
    {
      std::lock_guard lock(r->mutex);
      r->request(Active::Stop::End);
    }
    r->changed.notify_all();
  }
}

Result<json> RunManager::message(const std::string& run_id, const std::string& text) {
  if (text.find_first_not_of(" \t\n") == std::string::npos) return make_error(Code::InvalidArgument, "a message needs {\"text\": \"what to do next\"}");
  if (text.size() > 20000) return errorf(Code::InvalidArgument, "a message is at most 20,000 characters, got {}", text.size());
  std::shared_ptr<Active> active;
  {
    std::lock_guard lock(m_mutex);
    if (auto it = m_runs.find(run_id); it != m_runs.end()) active = it->second;
  }
  if (active) {
    {
      std::lock_guard lock(active->mutex);
      // A turn is working: guidance for its next iteration — unless it has just finished and
      // handed back what it did not read, when the message opens the next turn below.
      if (active->working) {
        auto added = active->working->add_guidance(text);
        if (added == agent::Run::Guidance::Full)
          return errorf(Code::ResourceExhausted, "run {} has 20 messages waiting already; wait for it to read them", run_id);
        if (added == agent::Run::Guidance::Added) return json{{"id", run_id}, {"delivered", "guidance"}};
      }
      // Between turns (waiting, or just recording the last one) or still starting: the message
      // opens the next turn as soon as the session is free for it.
      if (active->phase != Active::Phase::Leaving && active->stop == Active::Stop::None) {
        if (active->inbox.size() >= 20) return errorf(Code::ResourceExhausted, "run {} has 20 messages waiting already", run_id);
        active->inbox.push_back(text);
        active->changed.notify_all();
        int turn = active->begun + (active->phase == Active::Phase::Starting ? 1 : 0) + static_cast<int>(active->inbox.size());
        return json{{"id", run_id}, {"delivered", "turn"}, {"turn", turn}};
      }
    }
    return errorf(Code::Unavailable, "run {} is closing its session; send the message again in a moment", run_id);
  }
  // Nodes sharing PostgreSQL: a conversation another live node holds (open between turns, or
  // its last turn's) goes on there, as its answers and cancels do; else it is this node's.
  if (m_shared && TRY(store::relay_to_holder(m_db, run_id, {{"kind", "message"}, {"text", text}})))
    return json{{"id", run_id}, {"delivered", "turn"}, {"relayed", true}};
  // Its session has gone (kept too long idle, or ouro restarted): continue from storage.
  auto restored = std::make_shared<Active>();
  restored->run = TRY(runs::Run::continued(m_db, run_id, text));
  restored->id = run_id;
  restored->task = restored->run->row().task;
  restored->begun = static_cast<int>(restored->run->turns().size());
  size_t turn = restored->run->turns().size() + 1;
  open_log(restored);
  TRY(start_stored(restored, Code::Unavailable, "is being continued already"));
  return json{{"id", run_id}, {"delivered", "turn"}, {"turn", turn}, {"restored", true}};
}

Result<void> RunManager::start_stored(std::shared_ptr<Active> active, Code busy_code, const char* busy_why) {
  std::lock_guard lock(m_mutex);
  if (m_serving == Serving::Stopping) return make_error(Code::Unavailable, "ouro is shutting down");
  if (m_runs.count(active->id)) return errorf(busy_code, "run {} {}", active->id, busy_why);
  if (size_t busy = busy_runs(); busy >= m_config.max_active_runs)
    return errorf(Code::ResourceExhausted, "{} runs are in progress, the limit: wait for one to finish, or cancel one", busy);
  expire_idle(m_config.max_idle_runs);
  if (active->run->state() == runs::State::Queued) TRY(active->run->store_row());
  m_runs[active->id] = active;
  try {
    active->thread = std::thread([this, active] { run_thread(active); });
  } catch (const std::system_error& e) {
    m_runs.erase(active->id);
    return errorf(Code::ResourceExhausted, "cannot start the run's thread: {}", e.what());
  }
  return {};
}

Result<json> RunManager::resume(const std::string& run_id) { return start_resumed(run_id, {runs::State::Interrupted}); }

// A run resumed from its last checkpoint: one the user resumes (interrupted), or one a node
// takes over from a dead one (queued, running, awaiting the user; claimed already).
Result<json> RunManager::start_resumed(const std::string& run_id, const std::vector<runs::State>& states) {
  // Nodes sharing PostgreSQL: this node takes the run first, so that no other resumes it too.
  if (m_shared && states == std::vector<runs::State>{runs::State::Interrupted} && !TRY(store::claim_run(m_db, run_id, states))) {
    auto row = TRY(m_db.get_run(run_id));
    if (!row) return errorf(Code::NotFound, "no run '{}'", run_id);
    if (row->state == runs::State::Interrupted) return errorf(Code::FailedPrecondition, "run {} is being resumed by another node already", run_id);
    return errorf(Code::FailedPrecondition, "run {} is {}, not interrupted: only an interrupted run is resumed", run_id, runs::name(row->state));
  }
  auto resumed = std::make_shared<Active>();
  resumed->run = TRY(runs::Run::resumed(m_db, run_id, states));
  resumed->id = run_id;
  resumed->task = resumed->run->row().task;
  resumed->begun = static_cast<int>(resumed->run->turns().size()) + 1;  // the turn being resumed
  open_log(resumed);
  const int from = resumed->run->resume_from();
  TRY(start_stored(resumed, Code::FailedPrecondition, "is in progress already"));
  return json{{"id", run_id}, {"resumed", true}, {"fromIteration", from}};
}

Result<json> RunManager::answer(const std::string& run_id, const std::string& question_id, const std::string& text) {
  std::shared_ptr<Active> active;
  {
    std::lock_guard lock(m_mutex);
    if (auto it = m_runs.find(run_id); it != m_runs.end()) active = it->second;
  }
  if (text.size() > 10000) return errorf(Code::InvalidArgument, "an answer is at most 10,000 characters, got {}", text.size());
  if (!active && m_shared) {
    // Another node executes it: the answer goes to that node through the database.
    TRY(store::post_to_inbox(m_db, run_id, {{"kind", "answer"}, {"id", question_id}, {"text", text}}));
    return json{{"id", question_id}, {"answered", true}, {"relayed", true}};
  }
  if (!active) return errorf(Code::NotFound, "no run '{}' in progress", run_id);
  if (auto given = active->run->answers().answer(question_id, text); !given) {
    if (given.error().code != Code::NotFound) return tl::make_unexpected(given.error());
    return errorf(Code::NotFound, "run {} is not waiting for an answer to '{}' (answered already, timed out, or never asked)", run_id,
                  short_name(question_id));
  }
  return json{{"id", question_id}, {"answered", true}};
}

Result<json> RunManager::confirm(const std::string& run_id, const std::string& confirmation_id, bool approved, bool remember) {
  std::shared_ptr<Active> active;
  {
    std::lock_guard lock(m_mutex);
    if (auto it = m_runs.find(run_id); it != m_runs.end()) active = it->second;
  }
  if (!active && m_shared) {
    TRY(store::post_to_inbox(m_db, run_id, {{"kind", "confirm"}, {"id", confirmation_id}, {"approved", approved}, {"remember", remember}}));
    return json{{"id", confirmation_id}, {"approved", approved}, {"relayed", true}};
  }
  if (!active) return errorf(Code::NotFound, "no run '{}' in progress", run_id);
  if (auto given = active->run->answers().confirm(confirmation_id, approved, remember); !given) {
    if (given.error().code != Code::NotFound) return tl::make_unexpected(given.error());
    return errorf(Code::NotFound, "run {} is not waiting for confirmation '{}' (answered already, or timed out)", run_id, short_name(confirmation_id));
  }
  return json{{"id", confirmation_id}, {"approved", approved}};
}

}  // namespace ouro::server
