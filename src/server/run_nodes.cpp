// Nodes sharing PostgreSQL (store/nodes.h): the queue this node takes runs from, the inbox of
// messages for runs it holds, the stored events of runs its subscribers watch, the heartbeat and
// the fence when the database cannot be reached.
#include "server/run_manager_state.h"

#include "base/clock.h"
#include "base/log.h"
#include "store/nodes.h"

namespace ouro::server {

Result<int64_t> RunManager::queue_depth() {
  if (m_shared) return store::queue_depth(m_db);
  std::lock_guard lock(m_mutex);
  int64_t n = 0;
  for (auto& [id, r] : m_runs)
    if (r->run->state() == runs::State::Queued) ++n;
  return n + static_cast<int64_t>(m_waiting.size());
}

std::map<std::string, int64_t> RunManager::local_states() {
  std::map<std::string, int64_t> out;
  for (runs::State s : runs::kAllStates)
    if (runs::in_progress(s)) out[runs::name_of(s)] = 0;
  std::lock_guard lock(m_mutex);
  for (auto& [id, r] : m_runs)
    if (auto it = out.find(runs::name_of(r->run->state())); it != out.end()) ++it->second;
  out[runs::name_of(runs::State::Queued)] += static_cast<int64_t>(m_waiting.size());
  return out;
}

Result<std::map<std::string, int64_t>> RunManager::stored_states() { return m_db.count_runs_by_state(); }

size_t RunManager::free_places() {
  std::lock_guard lock(m_mutex);
  if (m_serving == Serving::Stopping) return 0;
  size_t busy = busy_runs();
  return busy >= m_config.max_active_runs ? 0 : m_config.max_active_runs - busy;
}

// A queued run this node took: started as create() starts a run, its request rebuilt from the
// stored task and options (the start pages are kept with the options).
Result<void> RunManager::start_queued(const store::Database::RunRow& row) {
  auto active = std::make_shared<Active>();
  active->run = runs::Run::from_row(m_db, row);
  active->id = row.id;
  active->task = row.task;
  open_log(active);
  return start_stored(active, Code::FailedPrecondition, "is in progress already");
}

void RunManager::take_work() {
  // The runs of dead nodes first (they waited longest), then the queue, each up to the places free.
  std::set<std::string> local;
  {
    std::lock_guard lock(m_mutex);
    for (auto& [id, r] : m_runs) local.insert(id);
  }
  if (size_t free = free_places(); free > 0) {
    auto taken = store::take_over(m_db, static_cast<int>(free), local);
    if (!taken) spdlog::warn("cannot look for runs of dead nodes: {}", redact(taken.error().message));
    for (const auto& t : taken ? *taken : std::vector<store::TakenRun>{}) {
      m_node_stats.taken_over.add();
      spdlog::info("run {}: taken over from a node that stopped answering ({} it was {})", t.row.id, t.begun ? "resumed:" : "started:", runs::name(t.row.state));
      auto started = t.begun ? start_resumed(t.row.id, {runs::State::Queued, runs::State::Running, runs::State::AwaitingUser}).map([](json) {}) : start_queued(t.row);
      if (!started && started.error().code != Code::FailedPrecondition)
        spdlog::warn("run {}: cannot go on with it here: {}", t.row.id, redact(started.error().message));
    }
  }
  m_look.store(Look::Looked);
  if (size_t free = free_places(); free > 0) {
    auto claimed = store::claim_queued(m_db, static_cast<int>(free));
    if (!claimed) spdlog::warn("cannot take runs from the queue: {}", redact(claimed.error().message));
    for (const auto& row : claimed ? *claimed : std::vector<store::Database::RunRow>{}) {
      if (auto started = start_queued(row); !started) {
        // Back to the queue for another node (or this one, later).
        spdlog::warn("run {}: cannot start it here: {}", row.id, redact(started.error().message));
        (void)m_db.with_sql([&](store::Connection& c) {
          return c.exec("UPDATE runs SET owner = NULL WHERE id = ?1 AND owner = ?2 AND state = ?3", {row.id, m_db.node_id(), runs::name_of(runs::State::Queued)});
        });
      }
    }
    // All places taken and perhaps more waiting: look again when one comes free.
  }
}

void RunManager::apply_inbox() {
  auto got = store::take_inbox(m_db);
  if (!got) {
    spdlog::warn("cannot read the messages for this node's runs: {}", redact(got.error().message));
    return;
  }
  for (const auto& m : *got) {
    std::string kind = get_str(m.message, "kind");
    Result<json> done = make_error(Code::InvalidArgument, "unknown message kind '" + short_name(kind) + "'");
    if (kind == "answer") done = answer(m.run_id, get_str(m.message, "id"), get_str(m.message, "text"));
    else if (kind == "confirm")
      done = confirm(m.run_id, get_str(m.message, "id"), m.message.value("approved", false), m.message.value("remember", false));
    else if (kind == "cancel") done = cancel(m.run_id);
    else if (kind == "message") done = message(m.run_id, get_str(m.message, "text"));
    // The node that relayed it answered already: what fails here is logged (answered twice, timed out).
    if (!done) spdlog::info("run {}: a {} from another node was not applied: {}", m.run_id, short_name(kind), redact(done.error().message));
  }
}

// Stored events of a run this node's subscribers watch: given to them in order from their cursor
// (deliver() reads what lies between).
void RunManager::deliver_stored(const std::string& run_id) {
  std::lock_guard lock(m_events_mutex);
  std::optional<int64_t> from;
  for (auto& [id, sub] : m_subscribers)
    if (sub.feed == Subscriber::Feed::Live && sub.run_id == run_id) from = std::min(from.value_or(sub.cursor), sub.cursor);
  if (!from) return;
  auto rows = m_db.events(run_id, *from, 1000);
  if (!rows) {
    spdlog::warn("run {}: cannot read its events for this node's subscribers: {}", run_id, redact(rows.error().message));
    return;
  }
  for (const auto& row : *rows) {
    json event = event_json(row);
    for (auto it = m_subscribers.begin(); it != m_subscribers.end();) {
      bool keep = !(it->second.feed == Subscriber::Feed::Live && it->second.run_id == run_id) || deliver(it->second, event);
      it = keep ? std::next(it) : m_subscribers.erase(it);
    }
  }
}

// This node could not reach the database for kNodeFence: another node takes its runs over after
// kNodeDead, so they stop here now (what they write is refused once another holds them).
void RunManager::fence_local_runs() {
  std::vector<std::shared_ptr<Active>> runs;
  {
    std::lock_guard lock(m_mutex);
    for (auto& [id, r] : m_runs) runs.push_back(r);
  }
  for (auto& r : runs) {
    {
      std::lock_guard lock(r->mutex);
      if (r->finished()) continue;
      spdlog::warn("run {}: stopped here: this node has not reached the database for {} ms and another node may take the run over", r->id,
                   store::kNodeFence.count());
      r->request(Active::Stop::Fenced);
    }
    r->run->cancel();
    r->changed.notify_all();
  }
}

void RunManager::nodes_loop() {
  std::string url = m_config.database_url;
  if (url.empty()) url = store::configured_database("").value_or("");
  std::unique_ptr<store::Listener> listener;
  auto last_beat = Clock::now();
  auto next_beat = Clock::now();
  auto next_poll = Clock::now();
  bool inbox_due = true;
  using Fence = NodeStats::Fence;  // m_node_stats.fence: this thread alone changes it
  auto next_listen = Clock::now();
  std::chrono::milliseconds listen_backoff{0};
  std::set<std::string> watched;  // runs whose stored events came
  constexpr auto kTick = std::chrono::milliseconds(250);  // how soon a stop is noticed
  while (true) {
    {
      std::lock_guard lock(m_mutex);
      if (m_serving == Serving::Stopping) return;
    }
    // The listening connection, opened again after a loss with a backoff (100 ms doubling to
    // store::kPostgresReconnectMax); the loss and the return are logged once each, not every try.
    if (!listener && store::is_postgres_url(url) && Clock::now() >= next_listen) {
      auto opened = store::Listener::open(url, {"ouro_queue", "ouro_events", "ouro_inbox"});
      if (opened) {
        listener = std::move(*opened);
        if (listen_backoff.count() > 0) spdlog::info("listening for other nodes again");
        listen_backoff = std::chrono::milliseconds(0);
        m_look.store(Look::Due);  // what was announced meanwhile is looked for at once
        inbox_due = true;
      } else {
        if (listen_backoff.count() == 0)
          spdlog::warn("{} (polling every {} ms instead, and trying again)", redact(opened.error().message), store::kNodePoll.count());
        listen_backoff = std::min(std::max(listen_backoff * 2, std::chrono::milliseconds(100)), store::kPostgresReconnectMax);
        next_listen = Clock::now() + listen_backoff;
      }
    }
    if (listener) {
      auto got = listener->wait(kTick);
      if (!got) {
        spdlog::warn("{}", redact(got.error().message));
        listener.reset();
        listen_backoff = std::chrono::milliseconds(100);
        next_listen = Clock::now() + listen_backoff;
      }
      for (const auto& n : got ? *got : std::vector<store::Listener::Notification>{}) {
        if (n.channel == "ouro_queue") m_look.store(Look::Due);
        else if (n.channel == "ouro_inbox") inbox_due = true;
        else if (n.channel == "ouro_events") watched.insert(n.payload.substr(0, n.payload.find(' ')));
      }
    } else {
      std::this_thread::sleep_for(kTick);
    }
    auto now = Clock::now();
    if (now >= next_beat) {
      next_beat = now + store::kNodeHeartbeat;
      if (auto beat = m_db.heartbeat(); beat) {
        last_beat = now;
        m_node_stats.last_heartbeat_ms = static_cast<int64_t>(steady_ms());
        if (m_node_stats.fence.exchange(Fence::Clear) == Fence::Fenced) spdlog::info("this node reaches the database again: it takes runs again");
      } else if (m_node_stats.fence.load() == Fence::Clear && now - last_beat > store::kNodeFence) {
        spdlog::error("this node cannot reach the database ({}): it stops its runs and takes none until it can", redact(beat.error().message));
        m_node_stats.fence.store(Fence::Fenced);
        fence_local_runs();
      }
    }
    if (m_node_stats.fence.load() == Fence::Fenced) continue;
    if (now >= next_poll) {
      next_poll = now + store::kNodePoll;
      m_look.store(Look::Due);
      inbox_due = true;
    }
    if (m_look.load() == Look::Due) take_work();
    if (inbox_due) {
      inbox_due = false;
      apply_inbox();
    }
    for (const auto& id : watched) deliver_stored(id);
    watched.clear();
  }
}

}  // namespace ouro::server
