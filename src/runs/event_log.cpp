#include "runs/event_log.h"
#include "base/clock.h"

#include "base/log.h"
#include "hooks/hooks.h"
#include "store/database.h"

#include <spdlog/spdlog.h>

#include <chrono>

namespace ouro::runs {

json StoredEvent::to_json() const { return json{{"id", id}, {"run", run}, {"seq", seq}, {"type", type}, {"ts", ts}, {"data", data}}; }

EventLog::EventLog(store::Database& db, std::string run_id, int64_t last_seq, std::shared_ptr<hooks::Pipeline> hooks, std::mutex* order)
    : m_db(db), m_run(std::move(run_id)), m_hooks(std::move(hooks)), m_order(order ? order : &m_own), m_seq(last_seq) {}

void EventLog::set_sink(Sink sink) {
  std::lock_guard lock(*m_order);
  m_sink = std::move(sink);
}

void EventLog::on_store_failure(std::function<void(const std::string&)> fn) {
  std::lock_guard lock(*m_order);
  m_on_failure = std::move(fn);
}

bool EventLog::append(const std::string& type, const json& data, double ts) {
  return append(type, data, ts, Store{});
}

bool EventLog::append(const std::string& type, const json& data, double ts, const Store& store) {
  std::lock_guard lock(*m_order);
  if (!m_store_error.empty()) return false;  // the run is failing already: nothing more is stored or sent
  int64_t seq = m_seq + 1;
  const std::string text = dump_json(data);
  auto gid = store ? store(seq, text) : m_db.append_event(m_run, seq, type, text, ts);  // written before it is sent
  if (!gid) {
    spdlog::error("run {}: event {} ({}) could not be stored: {}", m_run, seq, type, redact(gid.error().message));
    m_store_error = gid.error().message;
    m_store_unreachable = gid.error().code == Code::Unavailable;
    if (m_on_failure) m_on_failure(m_store_error);
    return false;
  }
  m_seq = seq;
  // Hooks hear stored events only; they queue and never wait (observe-only).
  if (m_hooks) m_hooks->on_event(m_run, type, data, ts);
  if (m_sink) m_sink(StoredEvent{*gid, m_run, seq, type, ts, data});
  return true;
}

std::string EventLog::store_error() const {
  std::lock_guard lock(*m_order);
  return m_store_error;
}

bool EventLog::store_unreachable() const {
  std::lock_guard lock(*m_order);
  return m_store_unreachable;
}

int64_t EventLog::last_seq() const {
  std::lock_guard lock(*m_order);
  return m_seq;
}

}  // namespace ouro::runs
