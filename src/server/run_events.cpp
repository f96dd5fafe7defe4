// The runs API's event log and its subscribers: each stored event goes to the WebSocket clients
// watching its run (or every run), replayed from storage first, none missed or seen twice.
#include "server/run_manager_state.h"
#include "base/clock.h"

#include "base/log.h"

namespace ouro::server {

void RunManager::publish(Active& run, const std::string& type, const json& data, double ts) { run.run->log()->append(type, data, ts); }

// The run's event log, ordered by the events mutex (subscribers replay stored events and then go
// live under it, so none is missed or seen twice; the runs' map is not held, so an API read never
// waits for an event's write): each stored event is sent to the run's subscribers; a question is
// pending from the moment anyone can see it. A store that fails stops the run (runs/event_log.h).
void RunManager::open_log(const std::shared_ptr<Active>& run) {
  // The log may outlive the slot (the run's session and model hold it until they are torn down):
  // what it calls back holds the slot weakly.
  std::weak_ptr<Active> slot = run;
  const auto& log = run->run->open_log(m_config.hooks, &m_events_mutex, [slot] {
    auto r = slot.lock();
    if (!r) return;
    {
      std::lock_guard run_lock(r->mutex);
      r->request(Active::Stop::Cancel);  // no follow-up waits either
    }
    r->changed.notify_all();
  });
  log->set_sink([this, slot, id = run->id](const runs::StoredEvent& e) {
    // A question is pending from the moment anyone can see it (GET /api/runs/:id lists it, and
    // an answer may come before the run starts to wait).
    if (e.type == "confirmation-req" || e.type == "user-question") {
      if (auto active = slot.lock()) {
        if (e.type == "confirmation-req") active->run->answers().expect_confirmation(get_str(e.data, "id"));
        if (e.type == "user-question") {
          active->run->answers().expect_question(get_str(e.data, "id"), e.data.contains("choices") ? e.data["choices"] : json::array());
          // The run waits for the person from the moment the question can be seen.
          (void)active->run->set_state(runs::State::AwaitingUser);
        }
      }
    }
    json event = e.to_json();
    for (auto it = m_subscribers.begin(); it != m_subscribers.end();) {
      Subscriber& sub = it->second;
      bool keep = true;
      if (sub.run_id.empty() || sub.run_id == id) {
        if (sub.feed == Subscriber::Feed::Replaying) sub.held.push_back(event);
        else keep = deliver(sub, event);
      }
      it = keep ? std::next(it) : m_subscribers.erase(it);
    }
  });
}

bool RunManager::deliver(Subscriber& sub, const json& event) {
  if (sub.run_id.empty()) return sub.fn(event);
  int64_t seq = event.value("seq", int64_t{0});
  if (seq <= sub.cursor) return true;  // given already (from storage, before the run came here)
  if (seq > sub.cursor + 1) {
    // The run went on elsewhere meanwhile (another node, before a takeover): the stored events
    // between come first. Should they be unreadable, the subscription ends rather than skip them
    // (the client reconnects with after=<its last seq>).
    auto missed = m_db.events(sub.run_id, sub.cursor, static_cast<int>(std::min<int64_t>(seq - sub.cursor - 1, 100000)));
    if (!missed) return false;
    for (const auto& row : *missed) {
      if (row.seq >= seq) break;
      sub.cursor = row.seq;
      if (!sub.fn(event_json(row))) return false;
    }
    if (sub.cursor + 1 != seq) return false;
  }
  sub.cursor = seq;
  return sub.fn(event);
}

Result<int> RunManager::subscribe(const std::string& run_id, int64_t after, EventSink fn) {
  // Registered first, holding what is published meanwhile; then the stored events are replayed
  // without the lock; then, under the lock, the held events the replay did not already cover
  // are delivered and the subscription goes live. Events are stored before they are published,
  // under this mutex, so every event is either in the replay or held: none is missed, and the
  // key (a run's seq, or the global id) drops the ones seen twice.
  int id;
  {
    std::lock_guard lock(m_events_mutex);
    id = m_next_subscriber++;
    m_subscribers[id] = Subscriber{run_id, fn, Subscriber::Feed::Replaying, {}};
  }
  const char* key = run_id.empty() ? "id" : "seq";
  int64_t cursor = after;
  bool wanted = true;
  constexpr int kPage = 1000;
  while (wanted) {
    auto page = m_db.events(run_id, cursor, kPage);
    if (!page) {
      unsubscribe(id);
      return make_error(page.error().code, "cannot read the stored events: " + page.error().message);
    }
    for (const auto& row : *page) {
      cursor = run_id.empty() ? row.id : row.seq;
      if (!(wanted = fn(event_json(row)))) break;
    }
    if (page->size() < static_cast<size_t>(kPage)) break;
  }
  std::lock_guard lock(m_events_mutex);
  auto it = m_subscribers.find(id);
  if (it == m_subscribers.end()) return id;  // unsubscribed during the replay
  it->second.cursor = cursor;
  for (const auto& e : it->second.held) {
    if (!wanted) break;
    if (run_id.empty() ? e[key].get<int64_t>() > cursor : true) wanted = run_id.empty() ? fn(e) : deliver(it->second, e);
  }
  if (!wanted) {
    m_subscribers.erase(it);
  } else {
    it->second.feed = Subscriber::Feed::Live;
    it->second.held.clear();
  }
  return id;
}

void RunManager::unsubscribe(int id) {
  std::lock_guard lock(m_events_mutex);
  m_subscribers.erase(id);
}

Result<json> RunManager::events(const std::string& run_id, int64_t after) {
  auto row = TRY(m_db.get_run(run_id));
  if (!row) return errorf(Code::NotFound, "no run '{}'", run_id);
  auto rows = TRY(m_db.events(run_id, after));
  json out = json::array();
  for (const auto& e : rows) out.push_back(event_json(e));
  return out;
}

}  // namespace ouro::server
