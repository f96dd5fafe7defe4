// A run's events as they are kept: each appended to the database with the run's next sequence
// number before anyone hears of it, then handed to the run's hooks (observe-only) and to the face
// (the terminal view, the API's subscribers, an MCP client's progress) — one rule on every face.
//
// The rule when the store fails: an event that could not be stored is not sent either (subscribers
// and a resume rebuild the run from stored events, so a gap would lie), the run is stopped through
// `on_store_failure` and fails with "the run's events could not be stored: …", and nothing more is
// appended. Any thread; appends are ordered by a mutex — the face's own when it passes one (the
// API orders its subscribers' replay against live events with it), else the log's.
#pragma once

#include "base/error.h"
#include "base/json.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

namespace ouro::store { class Database; }
namespace ouro::hooks { class Pipeline; }

namespace ouro::runs {

struct StoredEvent {
  int64_t id = 0;   // global order across runs
  std::string run;  // the run's id
  int64_t seq = 0;  // order within the run, from 1, gap-free
  std::string type;
  double ts = 0;    // milliseconds since the epoch
  json data;
  json to_json() const;  // {id, run, seq, type, ts, data}: the API's and the trace's shape
};

class EventLog {
 public:
  // Called under the ordering mutex with each stored event; must not block for long.
  using Sink = std::function<void(const StoredEvent&)>;

  // `last_seq`: the run's last stored event (0 for a new run; a resumed or continued one goes on).
  EventLog(store::Database& db, std::string run_id, int64_t last_seq, std::shared_ptr<hooks::Pipeline> hooks = nullptr,
           std::mutex* order = nullptr);

  void set_sink(Sink sink);
  // Called once, on the first failure to store (from the appending thread, under the mutex).
  void on_store_failure(std::function<void(const std::string& why)> fn);

  // Stores then hands on; false when the event was not kept (the store failed now or before).
  bool append(const std::string& type, const json& data, double ts);
  // The same, the event stored by `store(seq, data_json)` when given (called under the ordering
  // mutex; else the log stores it alone), which
  // writes it together with what must be seen with it in one transaction and returns its global
  // id: the turn's `complete` with the run's row (store::Database::append_event_with_run).
  using Store = std::function<Result<int64_t>(int64_t seq, const std::string& data_json)>;
  bool append(const std::string& type, const json& data, double ts, const Store& store);

  // "" while every event was stored; else why storing failed.
  std::string store_error() const;
  // Storing failed because the database could not be reached (Code::Unavailable): on nodes
  // sharing PostgreSQL the run is then left for a takeover rather than recorded failed.
  bool store_unreachable() const;
  int64_t last_seq() const;
  const std::string& run_id() const { return m_run; }

 private:
  store::Database& m_db;
  std::string m_run;
  std::shared_ptr<hooks::Pipeline> m_hooks;
  std::mutex m_own;
  std::mutex* m_order;
  int64_t m_seq;
  std::string m_store_error;
  bool m_store_unreachable = false;
  Sink m_sink;
  std::function<void(const std::string&)> m_on_failure;
};

}  // namespace ouro::runs
