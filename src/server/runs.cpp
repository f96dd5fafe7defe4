// The runs API: runs started, executed through the one run lifecycle (runs/lifecycle.h) turn
// after turn, answered, cancelled, resumed and listed; a place for each under the concurrency
// limit. The event log and its subscribers, the model settings and the nodes sharing PostgreSQL
// are in run_events.cpp, run_settings.cpp and run_nodes.cpp.
#include "server/runs.h"
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
  json j = {{"id", r.id}, {"task", r.task}, {"state", r.state}, {"iterations", r.iterations}, {"partial", r.partial},
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
    m_stopping = true;
  }
  if (m_nodes.joinable()) m_nodes.join();  // it starts no run now
  {
    std::lock_guard lock(m_mutex);
    for (auto& [id, r] : m_runs) runs.push_back(r);
  }
  for (auto& r : runs) {
    {
      std::lock_guard lock(r->mutex);
      r->cancel_requested = true;
      r->stopping = true;
      if (r->run) r->run->cancel();
    }
    r->answered.notify_all();
  }
  {
    std::unique_lock lock(m_mutex);
    m_reaped.wait(lock, [&] { return m_runs.empty(); });
  }
  m_reap.notify_all();
  m_reaper.join();
}

// Finished runs live on in the database; their threads are joined and their memory let go, so
// a server used every day does not accumulate them. A run thread hands itself over only once
// its session is torn down, so a join here waits for nothing but the thread's return.
void RunManager::reaper() {
  std::unique_lock lock(m_mutex);
  while (true) {
    m_reap.wait(lock, [&] { return !m_torn_down.empty() || m_place_freed || (m_stopping && m_runs.empty()); });
    if (m_place_freed && m_torn_down.empty() && !m_stopping) {
      m_place_freed = false;
      lock.unlock();
      start_waiting();
      lock.lock();
      continue;
    }
    m_place_freed = false;
    if (m_torn_down.empty()) return;
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
    m_place_freed = true;
  }
  m_reap.notify_all();
}

void RunManager::start_waiting() {
  while (true) {
    store::Database::RunRow row;
    {
      std::lock_guard lock(m_mutex);
      if (m_stopping || m_waiting.empty() || busy_runs() >= m_config.max_active_runs) return;
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
    row.state = "failed";
    row.error = "cannot start the run: " + started.error().message;
    row.updated_at = wall_ms();
    if (auto updated = m_db.update_run(row); !updated) spdlog::warn("run {}: cannot record its failure to start: {}", row.id, redact(updated.error().message));
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
  if (!spec.commands() && !spec.script) TRY(resolve(spec.options));
  auto run = std::make_shared<Active>();
  run->id = runs::new_run_id();
  run->task = spec.task;
  run->pairing = pairing;
  run->log = make_log(*run, 0);
  run->row.id = run->id;
  run->row.task = run->task;
  run->row.state = "queued";
  // The start pages go with the options: a resumed or continued run is given the same sites.
  run->row.options = dump_json(spec.stored_options());
  run->row.created_at = run->row.updated_at = wall_ms();
  json created = row_json(run->row);
  // The row stored with what goes alongside it, in one transaction.
  auto store_row = [&](const std::function<Result<void>(store::Connection&)>& insert) -> Result<void> {
    if (!alongside) return m_db.with_sql(insert);
    return m_db.with_sql([&](store::Connection& c) -> Result<void> {
      return c.transaction([&]() -> Result<void> {
        if (!TRY(alongside(c, run->id))) return errorf(Code::AlreadyExists, "run {} was not created: what goes with it was done already", run->id);
        return insert(c);
      });
    });
  };
  // Nodes sharing PostgreSQL: the run waits in the shared queue for whichever node has a place
  // (store/nodes.h). Through the extension it is this node's: the user's Chrome is paired here.
  const bool via_extension = spec.browser.empty() ? m_config.default_browser == "extension" : spec.browser == "extension";
  if (m_shared && !via_extension) {
    {
      std::lock_guard lock(m_mutex);
      if (m_stopping) return make_error(Code::Unavailable, "ouro is shutting down");
    }
    if (int64_t waiting = TRY(store::queue_depth(m_db)); waiting >= kMaxQueued) {
      m_node_stats.refused.add();
      return errorf(Code::ResourceExhausted, "{} runs wait in the queue already, the limit: wait for some to start, or cancel some", waiting);
    }
    TRY(store_row([&](store::Connection& c) { return store::enqueue_run(c, run->row); }));
    m_look = true;
    return created;
  }
  {
    std::lock_guard lock(m_mutex);
    if (m_stopping) return make_error(Code::Unavailable, "ouro is shutting down");
    // Every place taken: the run waits, stored `queued`, and starts when one comes free.
    if (size_t busy = busy_runs(); busy >= m_config.max_active_runs) {
      if (m_waiting.size() >= kMaxWaitingHere) {
        m_node_stats.refused.add();
        return errorf(Code::ResourceExhausted, "{} runs are in progress and {} wait already, the limit: wait for some to start, or cancel some",
                      busy, m_waiting.size());
      }
      TRY(store_row([&](store::Connection& c) { return store::Database::insert_run(c, m_db.node_id(), run->row); }));
      m_waiting.push_back(run->row);
      return created;
    }
    expire_idle(m_config.max_idle_runs);
    TRY(store_row([&](store::Connection& c) { return store::Database::insert_run(c, m_db.node_id(), run->row); }));
    m_runs[run->id] = run;
    // Started under the lock: the thread cannot hand itself to the reaper before `thread` is set.
    try {
      run->thread = std::thread([this, run, request] { run_thread(run, request); });
    } catch (const std::system_error& e) {
      m_runs.erase(run->id);
      run->row.state = "failed";
      run->row.error = std::string("cannot start a thread for the run: ") + e.what();
      if (auto updated = m_db.update_run(run->row); !updated)
        spdlog::error("run {}: cannot record its failure to start: {}", run->id, redact(updated.error().message));
      return errorf(Code::ResourceExhausted, "cannot start the run: {}", e.what());
    }
  }
  return created;
}

// The run thread's one exception boundary: whatever escapes ends this run, not the process;
// the session has been torn down by the time it is caught. Then the thread hands itself to the
// reaper.
void RunManager::run_thread(std::shared_ptr<Active> run, json body) {
  try {
    execute(run, std::move(body));
  } catch (const std::exception& e) {
    std::string why = redact(std::string("internal error: ") + e.what());
    spdlog::error("run {}: {}", run->id, why);
    try {
      record_failure(*run, why, "The run failed: " + why);
    } catch (const std::exception& again) {
      spdlog::error("run {}: cannot record the failure: {}", run->id, redact(again.what()));
      std::lock_guard lock(run->mutex);
      run->finished = true;
    }
  }
  {
    std::lock_guard lock(m_mutex);
    m_torn_down.push_back(run);
  }
  m_look = true;  // a place came free: the shared queue may have a run for it
  m_reap.notify_all();
}

// The turn is over: a question it asked that is still waiting (a confirmation the gate raised
// for a page's request, an askUser whose evaluation was cut off) is withdrawn — no longer pending
// in GET /api/runs/:id, a `question-withdrawn` event for the faces, its waiter answered "no answer"
// — and none is put to the user until the next turn begins.
void RunManager::withdraw_questions(Active& run) {
  std::vector<std::string> ids;
  {
    std::lock_guard lock(run.mutex);
    run.questions_closed = true;
    for (auto it = run.confirmations.begin(); it != run.confirmations.end();) {
      if (it->second) {
        ++it;
        continue;
      }
      ids.push_back(it->first);
      run.closed_confirmations.insert(it->first);
      it = run.confirmations.erase(it);
    }
    for (auto it = run.questions.begin(); it != run.questions.end();) {
      if (it->second.answer) {
        ++it;
        continue;
      }
      ids.push_back(it->first);
      run.closed_questions.insert(it->first);
      it = run.questions.erase(it);
    }
  }
  run.answered.notify_all();
  for (const auto& id : ids) publish(run, "question-withdrawn", {{"id", id}, {"reason", "the run's turn ended before it was answered"}}, wall_ms());
}

// A run that ends without a result of the agent's: an error event, the failed row, a complete
// event with the message as its partial final.
void RunManager::record_failure(Active& run, const std::string& why, const std::string& message) {
  publish(run, "error", {{"error", why}}, wall_ms());
  run.row.state = "failed";
  run.row.error = why;
  run.row.updated_at = wall_ms();
  json final = {{"partial", true}, {"message", message}};
  run.row.final_json = dump_json(final);
  run.row.partial = true;
  if (auto updated = m_db.update_run(run.row); !updated)
    spdlog::error("run {}: cannot record its failure: {}", run.id, redact(updated.error().message));
  publish(run, "complete", {{"final", final}, {"iterations", run.row.iterations}, {"partial", true}, {"error", why}}, wall_ms());
  std::lock_guard lock(run.mutex);
  run.finished = true;
}

void RunManager::execute(std::shared_ptr<Active> run, json body) {
  auto fail = [&](const std::string& why) { record_failure(*run, why, "The run could not start: " + why); };
  auto parsed = runs::parse_request(body);
  if (!parsed) return fail(parsed.error().message);
  runs::RunSpec spec = std::move(*parsed);
  // Through the extension (docs/design/extension-bridge.md): the user's Chrome, in a tab group of
  // the run's own. The rule: such a run works in the user's profile ("mine"); what the extension
  // cannot give — a clean context with cookies of its own, a downloads folder of ouro's — is
  // not available there, and a run that asks for a clean context is refused with that reason.
  const bool via_extension = !spec.browser.empty() ? spec.browser == "extension" : m_config.default_browser == "extension";
  if (via_extension && spec.context == "clean")
    return fail("a clean context (cookies of its own) cannot exist through the extension: a run in the user's Chrome works in its "
                "profile and its tab group (context 'mine'). Drop context 'clean', or leave out browser 'extension' to use ouro's own browser");
  if (via_extension && m_config.pool) return fail("this server's runs use a browser pool; browser 'extension' is for ouro serve with a browser of its own");
  // My browser: the user's tabs, held one run at a time, left open. Through the extension the
  // run's browser is its tab group alone: every tab there is the run's (the user shared it). On a
  // pool, every run has a context of its own: a pool's browsers are no one's own.
  if (via_extension) spec.context = "";
  if (m_config.pool) spec.context = "clean";
  // The settings file, read once for the run: its safety settings and its model (the server's
  // hooks were read when it started).
  auto settings_file = read_settings_file(m_config.config_path);
  if (!settings_file) return fail(settings_file.error().message);
  auto file = safety::safety_settings_from(settings_file->data, settings_file->where());
  if (!file) return fail(file.error().message);
  runs::Setup setup;
  setup.db = &m_db;
  setup.log = run->log;
  setup.hooks = m_config.hooks;  // the deciding points ask them (the log tells the others)
  if (!m_config.ouro_binary.empty()) setup.base.repl.executable = m_config.ouro_binary;
  setup.base.limits.action_timeout = m_config.action_timeout;
  setup.file = std::move(*file);
  if (!m_config.secret_flags.empty()) {
    auto secrets = setup.file.secrets ? std::make_shared<safety::SecretStore>(*setup.file.secrets) : std::make_shared<safety::SecretStore>();
    for (const auto& flag : m_config.secret_flags)
      if (auto added = safety::add_secret_from_flag(*secrets, flag); !added) return fail(added.error().message);
    setup.file.secrets = std::move(secrets);
  }
  setup.model_flags = model_flags();
  if (!m_config.config_path.empty()) setup.model_flags.file = settings_file->data;
  setup.stored_settings = stored_llm_settings().value_or(json::object());
  setup.default_context = via_extension ? "" : m_config.mine_by_default ? "mine" : "clean";
  // On a pool, a dead endpoint stops the run at its next iteration boundary, to move it.
  setup.stop_when_browser_lost = m_config.pool != nullptr;
  // The run's browser: a place on the least-loaded healthy endpoint of a pool (queued while all
  // are full), the user's Chrome through the extension, or the server's own. Declared before the
  // lifecycle: they outlive its session.
  std::optional<session::BrowserPool::Lease> lease;
  std::shared_ptr<session::Runtime> bridged;
  auto cancelled = [run] {
    std::lock_guard lock(run->mutex);
    return run->cancel_requested;
  };
  setup.source = [&](session::SessionOptions so) -> Result<std::unique_ptr<session::Session>> {
    if (m_config.pool) {
      auto placed = TRY(m_config.pool->acquire(std::chrono::duration_cast<std::chrono::milliseconds>(m_config.pool_wait), cancelled));
      lease.emplace(std::move(placed));
      {
        std::lock_guard lock(m_mutex);
        if (m_placed.insert_or_assign(run->id, lease->endpoint()).second) m_placed_order.push_back(run->id);
        while (m_placed_order.size() > 1000) {
          m_placed.erase(m_placed_order.front());
          m_placed_order.pop_front();
        }
      }
      publish(*run, "placement", {{"endpoint", lease->endpoint()}}, wall_ms());
      return session::Session::attach(lease->runtime(), std::move(so));
    }
    if (via_extension) {
      bridged = TRY(bridge_runtime(*run));
      publish(*run, "placement", {{"endpoint", "extension"},
                                  {"note", "in your Chrome, through ouro's extension, in the tab group named after this task; it works in your "
                                           "profile (context 'mine'): a clean context cannot exist through the extension"}},
              wall_ms());
      return session::Session::attach(bridged, std::move(so));
    }
    return session::Session::attach(m_runtime, std::move(so));
  };
  const bool resumed = run->resume.has_value();
  std::string task = resumed ? run->resume->state.task : spec.task;
  runs::Origin origin;
  origin.resume = std::move(run->resume);
  run->resume.reset();
  origin.continued = run->restored;
  origin.env = run->restore_env;
  auto started = runs::Lifecycle::start(spec, std::move(setup), std::move(origin), run->id);
  if (!started) return fail(started.error().message);
  runs::Lifecycle& life = **started;

  runs::Asker asker;
  asker.confirm_timeout = m_config.confirm_timeout;
  asker.ask_timeout = m_config.ask_timeout;
  asker.confirm = [this, run, &life](const json& req) {
    std::string id = req.value("id", "");
    std::unique_lock lock(run->mutex);
    // The question went out as an event just before this: an answer may already be here.
    run->confirmations.try_emplace(id, std::nullopt);
    auto answer = [&]() -> std::optional<bool> {
      auto it = run->confirmations.find(id);
      return it == run->confirmations.end() ? std::nullopt : it->second;
    };
    bool answered = run->answered.wait_for(lock, m_config.confirm_timeout,
                                           [&] { return run->cancel_requested || run->questions_closed || answer().has_value(); });
    bool approved = answered && answer().value_or(false);
    bool always = approved && run->remember.erase(id) > 0;
    bool withdrawn = !answer().has_value() && run->questions_closed && run->confirmations.count(id);
    run->confirmations.erase(id);
    run->closed_confirmations.insert(id);
    lock.unlock();
    if (withdrawn) publish(*run, "question-withdrawn", {{"id", id}, {"reason", "the run's turn ended before it was answered"}}, wall_ms());
    // "Always": a site question (leaving the allowed sites, one of the user's tabs) is not asked again.
    if (std::string site = runs::site_question(req); always && !site.empty()) runs::remember_site(m_db, site, run->id, life.turn_number());
    return approved;  // no answer in time counts as deny
  };
  asker.ask_user = [this, run](const json& q) -> std::optional<std::string> {
    std::string id = get_str(q, "id");
    std::optional<std::string> answer;  // the state is awaiting_user since the question was published
    bool withdrawn = false;
    {
      std::unique_lock lock(run->mutex);
      run->questions.try_emplace(id);  // registered when its event was published
      auto given = [&]() -> std::optional<std::string> {
        auto it = run->questions.find(id);
        return it == run->questions.end() ? std::nullopt : it->second.answer;
      };
      run->answered.wait_for(lock, m_config.ask_timeout, [&] { return run->cancel_requested || run->questions_closed || given().has_value(); });
      answer = given();
      withdrawn = !answer && run->questions_closed && run->questions.count(id);
      run->questions.erase(id);
      run->closed_questions.insert(id);
    }
    if (withdrawn) publish(*run, "question-withdrawn", {{"id", id}, {"reason", "the run's turn ended before it was answered"}}, wall_ms());
    std::lock_guard lock(m_mutex);  // the run thread leaves its row alone while the run executes
    run->row.state = "running";
    run->row.updated_at = wall_ms();
    if (auto updated = m_db.update_run(run->row); !updated) spdlog::warn("run {}: cannot record its state: {}", run->id, redact(updated.error().message));
    return answer;
  };
  // A conversation: each message after a turn is a new turn in the same session (env, tabs,
  // store), with the earlier turns in the prompt; the session waits for one up to keep_idle.
  if (!resumed && run->restored) publish(*run, "user-message", {{"text", task}, {"turn", run->turns.size() + 1}}, wall_ms());
  session::Session::Held held;  // in the user's browser: the tabs let go between turns
  bool first_start = !resumed && run->turns.empty() && run->row.state == "queued";
  while (true) {
    life.session().take_back(held);
    if (first_start) {  // from its creation to its first turn: how long it waited for a place
      m_node_stats.queue_wait.observe(std::max(0.0, wall_ms() - run->row.created_at) / 1000.0);
      first_start = false;
    }
    run->row.state = "running";
    run->row.updated_at = wall_ms();
    if (auto updated = m_db.update_run(run->row); !updated)
      spdlog::warn("run {}: cannot record that it is running: {}", run->id, redact(updated.error().message));
    const auto turn_began = Clock::now();
    if (m_config.on_turn) {
      Config::TurnNotice notice;
      notice.run_id = run->id;
      notice.task = task;
      notice.started = true;
      m_config.on_turn(notice);
    }
    agent::RunResult r;
    for (bool moved = false;; moved = true) {
      r = life.turn(task, run->turns, run->row.iterations + 1, asker, [&](agent::Run* working) {
        // Its work is done (the Run goes next, once nothing waits on its hooks): what it still
        // asks is withdrawn now, not left to time out.
        if (!working) {
          {
            std::lock_guard lock(run->mutex);
            run->run = nullptr;
          }
          return withdraw_questions(*run);
        }
        std::lock_guard lock(run->mutex);
        run->run = working;
        run->session = &life.session();
        run->finished = false;
        run->questions_closed = false;
        if (!moved && (!resumed || run->first_begun)) ++run->begun;  // a resumed turn was begun before the restart
        run->first_begun = true;
        if (run->cancel_requested) working->cancel();
      });
      if (r.browser_lost.empty() || r.cancelled || !lease) break;
      // Its endpoint died: on to another from the last checkpoint, as a resume goes on (failover.h).
      std::string from = lease->endpoint();
      auto to = runs::fail_over(m_db, *m_config.pool, run->id, from, r.browser_lost, life.session_options(),
                          std::chrono::duration_cast<std::chrono::milliseconds>(m_config.pool_wait), cancelled);
      if (!to) {
        r.error = to.error().message;
        r.final = {{"partial", true}, {"message", "The run stopped: " + r.error}};
        publish(*run, "error", {{"error", r.error}}, wall_ms());
        publish(*run, "complete", {{"final", r.final}, {"iterations", run->row.iterations + r.iterations}, {"partial", true}, {"error", r.error}}, wall_ms());
        break;
      }
      {
        std::lock_guard lock(run->mutex);
        run->session = to->session.get();
      }
      life.move_to(std::move(to->session), to->point, to->note);  // the dead session closes here
      lease.swap(to->lease);                                      // and its place is given back when `to` goes
      {
        std::lock_guard lock(m_mutex);
        m_placed[run->id] = lease->endpoint();
      }
      const runs::ResumePoint& point = to->point;
      publish(*run, "failover", {{"from", from}, {"to", lease->endpoint()}, {"reason", r.browser_lost}, {"fromIteration", point.state.last_iteration + 1}},
              wall_ms());
      // As a resume: the whole run's usage comes back with the checkpoint's state.
      run->row.usage_json = runs::usage_for_resume(run->row.usage_json);
      run->row.cost = point.state.cost_known ? std::optional<double>(0) : std::nullopt;
      run->row.iterations = point.state.last_iteration - point.state.turn_iterations;
    }
    const std::string store_error = run->log->store_error();
    bool stopping = false, fenced = false;
    {
      std::lock_guard lock(run->mutex);
      stopping = run->stopping;
      fenced = run->fenced;
    }
    // Nodes sharing PostgreSQL: a turn cut short because this node could not reach the database
    // (fenced, or an event that could not be stored for that reason) records no end: its row stays
    // in progress, held by this node, and is taken over from its last checkpoint — by this node
    // once it reaches the database again, or by another once this one counts as dead (store/nodes.h).
    if (m_shared && (fenced || run->log->store_unreachable())) {
      spdlog::warn("run {}: stopped on this node, which cannot reach the database; it goes on from its last checkpoint once a node can", run->id);
      std::lock_guard lock(run->mutex);
      run->finished = true;
      run->leaving = true;
      break;
    }
    life.finish_turn(run->row, task, r, stopping);
    if (m_config.on_turn)
      m_config.on_turn({.run_id = run->id, .task = task, .started = false, .state = run->row.state, .iterations = run->row.iterations,
                        .cost = run->row.cost, .seconds = std::chrono::duration<double>(Clock::now() - turn_began).count(), .error = r.error});
    run->turns.push_back({task, runs::final_text(r.final)});
    held = life.session().let_go();
    std::unique_lock lock(run->mutex);
    // Messages that came too late for an iteration open the next turn.
    for (auto g = r.unread_guidance.rbegin(); g != r.unread_guidance.rend(); ++g) run->inbox.push_front(*g);
    run->finished = true;
    if (!store_error.empty() || r.cancelled || run->cancel_requested || !r.browser_lost.empty()) {
      run->leaving = true;
      break;
    }
    run->idle = true;
    run->idle_since = Clock::now();
    // Its place is free while it waits for a follow-up: a run waiting for one may start.
    lock.unlock();
    place_freed();
    lock.lock();
    // On a browser pool a place is for a run that works: between turns the session goes, and a
    // follow-up continues from storage on whichever endpoint is free then.
    run->answered.wait_for(lock, m_config.pool ? std::chrono::seconds(0) : m_config.keep_idle,
                           [&] { return !run->inbox.empty() || run->expire || run->cancel_requested; });
    run->idle = false;
    if (run->inbox.empty() || run->expire || run->cancel_requested) {
      run->leaving = true;
      break;
    }
    task = run->inbox.front();
    run->inbox.pop_front();
    lock.unlock();
    publish(*run, "user-message", {{"text", task}, {"turn", run->turns.size() + 1}}, wall_ms());
  }
  // The conversation is over: in a window of ouro's own (My browser) the tabs it opened go with
  // it, unless the person turned to them since its last turn (session.h close_what_it_opened).
  if (!held.tabs.empty())
    if (auto closed = life.session().close_what_it_opened(held); !closed.empty())
      publish(*run, "tabs-closed",
              {{"tabs", closed}, {"reason", "the conversation ended: tabs it opened in ouro's window that you did not turn to are closed"}}, wall_ms());
  {
    std::lock_guard lock(run->mutex);
    run->session = nullptr;
    run->idle = false;
  }
  // Teardown follows on this thread: the lifecycle goes before the lease and the bridged browser
  // its session uses (locals die in reverse order), and the session closes its browser context,
  // waiting for Chromium.
}

Result<json> RunManager::get(const std::string& id) {
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
    std::lock_guard lock(active->mutex);
    json pending = json::array();
    for (const auto& [cid, answer] : active->confirmations)
      if (!answer) pending.push_back(cid);
    j["pendingConfirmations"] = pending;
    json questions = json::array();
    for (const auto& [qid, q] : active->questions)
      if (!q.answer) questions.push_back(qid);
    j["pendingQuestions"] = questions;
  }
  return j;
}

Result<json> RunManager::tabs_of(const std::string& run_id) {
  std::shared_ptr<Active> run;
  {
    std::lock_guard lock(m_mutex);
    if (auto it = m_runs.find(run_id); it != m_runs.end()) run = it->second;
  }
  if (!run) return errorf(Code::NotFound, "no run '{}' in progress", run_id);
  std::lock_guard lock(run->mutex);
  if (!run->session) return errorf(Code::FailedPrecondition, "run {} has no browser now (it is {})", run_id, run->finished ? "finished" : "starting");
  json tabs = json::array();
  for (const auto& t : run->session->tabs()) tabs.push_back(t.to_json());
  json out = {{"tabs", tabs}, {"activeTab", run->session->active_tab()}};
  // A run in the user's Chrome (the extension) has tab ids of its own browser, not the server's.
  if (&run->session->browser() != m_runtime->browser.get()) out["ownBrowser"] = false;
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
Result<std::shared_ptr<session::Runtime>> RunManager::bridge_runtime(const Active& run) {
  if (!m_config.bridge) return make_error(Code::FailedPrecondition, "this server takes no extension (only ouro serve does)");
  auto link = TRY(m_config.bridge->link(std::chrono::seconds(10), run.pairing));
  cdp::BridgeTarget target;
  target.conversation = run.id;
  target.title = run.task.substr(0, 60);
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
  std::shared_ptr<Active> run;
  {
    std::lock_guard lock(m_mutex);
    if (auto it = m_runs.find(id); it != m_runs.end()) run = it->second;
  }
  bool finished = false;
  if (run) {
    std::lock_guard lock(run->mutex);
    finished = run->finished;
  }
  if (!run && m_shared) {
    // Executing on another node, or waiting in the queue.
    if (auto relayed = store::post_to_inbox(m_db, id, {{"kind", "cancel"}}); relayed) return json{{"id", id}, {"cancelling", true}, {"relayed", true}};
    else if (relayed.error().code != Code::NotFound) return tl::unexpected<Error>(relayed.error());
    if (auto dropped = m_db.with_sql([&](store::Connection& c) {
          return c.exec("UPDATE runs SET state = 'cancelled', error = 'cancelled before a node took it', updated_at = ?2 "
                        "WHERE id = ?1 AND state = 'queued' AND owner IS NULL",
                        {id, wall_ms()});
        });
        dropped && dropped->affected == 1)
      return json{{"id", id}, {"cancelling", true}};
  }
  if (!run) {
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
      waiting->state = "cancelled";
      waiting->error = "cancelled before it started";
      waiting->updated_at = wall_ms();
      TRY(m_db.update_run(*waiting));
      return json{{"id", id}, {"cancelling", true}};
    }
  }
  if (!run || finished) {
    auto row = TRY(m_db.get_run(id));
    if (!row) return errorf(Code::NotFound, "no run '{}'", id);
    return errorf(Code::FailedPrecondition, "run {} is not in progress (it is {})", id, row->state);
  }
  {
    std::lock_guard lock(run->mutex);
    run->cancel_requested = true;
    if (run->run) run->run->cancel();
  }
  run->answered.notify_all();
  return json{{"id", id}, {"cancelling", true}};
}

Result<json> RunManager::end(const std::string& id) {
  std::shared_ptr<Active> run;
  {
    std::lock_guard lock(m_mutex);
    if (auto it = m_runs.find(id); it != m_runs.end()) run = it->second;
  }
  if (!run) {
    auto row = TRY(m_db.get_run(id));
    if (!row) return errorf(Code::NotFound, "no run '{}'", id);
    return json{{"id", id}, {"ended", true}};  // no session of it is open on this node
  }
  {
    std::lock_guard lock(run->mutex);
    // A turn works from its start until its Run is gone (the row may say "done" a moment before
    // `finished` is set).
    if ((run->run || !run->first_begun) && !run->leaving)
      return errorf(Code::FailedPrecondition, "run {} is working on a turn: cancel it, or end the conversation once the turn is over", id);
    run->expire = true;
  }
  run->answered.notify_all();
  return json{{"id", id}, {"ended", true}};
}

size_t RunManager::busy_runs() {
  size_t n = 0;
  for (auto& [id, r] : m_runs) {
    std::lock_guard lock(r->mutex);
    if (!r->idle) ++n;
  }
  return n;
}

void RunManager::expire_idle(size_t keep) {
  std::vector<std::pair<Clock::time_point, std::shared_ptr<Active>>> idle;
  for (auto& [id, r] : m_runs) {
    std::lock_guard lock(r->mutex);
    if (r->idle && !r->expire) idle.emplace_back(r->idle_since, r);
  }
  if (idle.size() <= keep) return;
  std::sort(idle.begin(), idle.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 0; i + keep < idle.size(); ++i) {
    auto& r = idle[i].second;
    {
      std::lock_guard lock(r->mutex);
      r->expire = true;
    }
    r->answered.notify_all();
  }
}

Result<json> RunManager::message(const std::string& run_id, const std::string& text) {
  if (text.find_first_not_of(" \t\n") == std::string::npos) return make_error(Code::InvalidArgument, "a message needs {\"text\": \"what to do next\"}");
  if (text.size() > 20000) return errorf(Code::InvalidArgument, "a message is at most 20,000 characters, got {}", text.size());
  std::shared_ptr<Active> run;
  {
    std::lock_guard lock(m_mutex);
    if (auto it = m_runs.find(run_id); it != m_runs.end()) run = it->second;
  }
  if (run) {
    {
      std::lock_guard lock(run->mutex);
      // A turn is working: guidance for its next iteration — unless it has just finished and
      // handed back what it did not read, when the message opens the next turn below.
      if (run->run) {
        auto added = run->run->add_guidance(text);
        if (added == agent::Run::Guidance::Full)
          return errorf(Code::ResourceExhausted, "run {} has 20 messages waiting already; wait for it to read them", run_id);
        if (added == agent::Run::Guidance::Added) return json{{"id", run_id}, {"delivered", "guidance"}};
      }
      // Between turns (waiting, or just recording the last one) or still starting: the message
      // opens the next turn as soon as the session is free for it.
      if (!run->leaving && !run->expire && !run->cancel_requested) {
        if (run->inbox.size() >= 20) return errorf(Code::ResourceExhausted, "run {} has 20 messages waiting already", run_id);
        run->inbox.push_back(text);
        run->answered.notify_all();
        int turn = run->begun + (run->first_begun ? 0 : 1) + static_cast<int>(run->inbox.size());
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
  auto stored = TRY(runs::load_conversation(m_db, run_id));
  auto restored = std::make_shared<Active>();
  restored->id = run_id;
  restored->task = stored.row.task;
  restored->row = stored.row;
  restored->restored = true;
  restored->restore_env = stored.env;
  restored->turns = stored.turns;
  restored->begun = static_cast<int>(stored.turns.size());
  const auto* row = &stored.row;
  json options = parse_json(row->options).value_or(json::object());
  json body = {{"task", text}, {"options", options.is_object() ? options : json::object()}};
  if (body["options"].contains("urls")) {
    body["urls"] = body["options"]["urls"];
    body["options"].erase("urls");
  }
  size_t turn = restored->turns.size() + 1;
  restored->log = make_log(*restored, stored.last_seq);
  TRY(start_stored(restored, std::move(body), Code::Unavailable, "is being continued already"));
  return json{{"id", run_id}, {"delivered", "turn"}, {"turn", turn}, {"restored", true}};
}

Result<void> RunManager::start_stored(std::shared_ptr<Active> run, json body, Code busy_code, const char* busy_why) {
  std::lock_guard lock(m_mutex);
  if (m_stopping) return make_error(Code::Unavailable, "ouro is shutting down");
  if (m_runs.count(run->id)) return errorf(busy_code, "run {} {}", run->id, busy_why);
  if (size_t busy = busy_runs(); busy >= m_config.max_active_runs)
    return errorf(Code::ResourceExhausted, "{} runs are in progress, the limit: wait for one to finish, or cancel one", busy);
  expire_idle(m_config.max_idle_runs);
  if (run->row.state == "queued") TRY(m_db.update_run(run->row));
  m_runs[run->id] = run;
  try {
    run->thread = std::thread([this, run, body = std::move(body)] { run_thread(run, body); });
  } catch (const std::system_error& e) {
    m_runs.erase(run->id);
    return errorf(Code::ResourceExhausted, "cannot start the run's thread: {}", e.what());
  }
  return {};
}

Result<json> RunManager::resume(const std::string& run_id) { return start_resumed(run_id, {"interrupted"}); }

// A run resumed from its last checkpoint: one the user resumes (interrupted), or one a node
// takes over from a dead one (queued, running, awaiting the user; claimed already).
Result<json> RunManager::start_resumed(const std::string& run_id, const std::vector<std::string>& states) {
  // Nodes sharing PostgreSQL: this node takes the run first, so that no other resumes it too.
  if (m_shared && states == std::vector<std::string>{"interrupted"} && !TRY(store::claim_run(m_db, run_id, states))) {
    auto row = TRY(m_db.get_run(run_id));
    if (!row) return errorf(Code::NotFound, "no run '{}'", run_id);
    if (row->state == "interrupted") return errorf(Code::FailedPrecondition, "run {} is being resumed by another node already", run_id);
    return errorf(Code::FailedPrecondition, "run {} is {}, not interrupted: only an interrupted run is resumed", run_id, row->state);
  }
  auto point = TRY(runs::load_resume_point(m_db, run_id, states));
  auto resumed = std::make_shared<Active>();
  resumed->id = run_id;
  resumed->task = point.row.task;
  resumed->row = point.row;
  // The resumed turn's run reports the whole run's usage (the checkpoint's and what follows).
  resumed->row.usage_json = runs::usage_for_resume(resumed->row.usage_json);
  resumed->row.cost = point.state.cost_known ? std::optional<double>(0) : std::nullopt;
  resumed->row.iterations = point.state.last_iteration - point.state.turn_iterations;
  resumed->restored = true;
  resumed->restore_env = point.env;
  resumed->turns = point.state.turns;
  resumed->begun = static_cast<int>(point.state.turns.size()) + 1;  // the turn being resumed
  json options = parse_json(point.row.options).value_or(json::object());
  json body = {{"task", point.state.task}, {"options", options.is_object() ? options : json::object()}, {"urls", json::array()}};
  // The gate allows what the run was given and the sites its tabs were on.
  if (body["options"].contains("urls") && body["options"]["urls"].is_array()) body["urls"] = body["options"]["urls"];
  body["options"].erase("urls");
  for (const auto& t : point.state.tabs)
    if (!get_str(t, "url").empty() && body["urls"].size() < 40) body["urls"].push_back(get_str(t, "url"));
  int from = point.state.last_iteration + 1;
  resumed->log = make_log(*resumed, point.last_seq);
  resumed->resume = std::move(point);
  // Queued from now on: a client that asks at once sees it is no longer interrupted.
  resumed->row.state = "queued";
  resumed->row.error.clear();
  resumed->row.updated_at = wall_ms();
  TRY(start_stored(resumed, std::move(body), Code::FailedPrecondition, "is in progress already"));
  return json{{"id", run_id}, {"resumed", true}, {"fromIteration", from}};
}

Result<json> RunManager::answer(const std::string& run_id, const std::string& question_id, const std::string& text) {
  std::shared_ptr<Active> run;
  {
    std::lock_guard lock(m_mutex);
    if (auto it = m_runs.find(run_id); it != m_runs.end()) run = it->second;
  }
  if (text.size() > 10000) return errorf(Code::InvalidArgument, "an answer is at most 10,000 characters, got {}", text.size());
  if (!run && m_shared) {
    // Another node executes it: the answer goes to that node through the database.
    TRY(store::post_to_inbox(m_db, run_id, {{"kind", "answer"}, {"id", question_id}, {"text", text}}));
    return json{{"id", question_id}, {"answered", true}, {"relayed", true}};
  }
  if (!run) return errorf(Code::NotFound, "no run '{}' in progress", run_id);
  {
    std::lock_guard lock(run->mutex);
    auto q = run->questions.find(question_id);
    if (run->finished || q == run->questions.end() || q->second.answer)
      return errorf(Code::NotFound, "run {} is not waiting for an answer to '{}' (answered already, timed out, or never asked)", run_id,
                    short_name(question_id));
    const json& choices = q->second.choices;
    if (!choices.empty() && std::find(choices.begin(), choices.end(), json(text)) == choices.end())
      return errorf(Code::InvalidArgument, "the answer must be one of {}", dump_json(choices));
    q->second.answer = text;
  }
  run->answered.notify_all();
  return json{{"id", question_id}, {"answered", true}};
}

Result<json> RunManager::confirm(const std::string& run_id, const std::string& confirmation_id, bool approved, bool remember) {
  std::shared_ptr<Active> run;
  {
    std::lock_guard lock(m_mutex);
    if (auto it = m_runs.find(run_id); it != m_runs.end()) run = it->second;
  }
  if (!run && m_shared) {
    TRY(store::post_to_inbox(m_db, run_id, {{"kind", "confirm"}, {"id", confirmation_id}, {"approved", approved}, {"remember", remember}}));
    return json{{"id", confirmation_id}, {"approved", approved}, {"relayed", true}};
  }
  if (!run) return errorf(Code::NotFound, "no run '{}' in progress", run_id);
  {
    std::lock_guard lock(run->mutex);
    if (run->finished || run->closed_confirmations.count(confirmation_id) ||
        (run->confirmations.count(confirmation_id) && run->confirmations[confirmation_id].has_value()))
      return errorf(Code::NotFound, "run {} is not waiting for confirmation '{}' (answered already, or timed out)", run_id, confirmation_id);
    // An answer can arrive between the confirmation-req event and the run starting to wait.
    run->confirmations[confirmation_id] = approved;
    if (approved && remember) run->remember.insert(confirmation_id);
  }
  run->answered.notify_all();
  return json{{"id", confirmation_id}, {"approved", approved}};
}

}  // namespace ouro::server
