// What the runs API's files share (runs.cpp: starting, executing and ending runs; run_events.cpp:
// the event log and its subscribers; run_settings.cpp: the model settings; run_nodes.cpp: nodes
// sharing PostgreSQL): a run's in-memory state and the JSON shapes of rows and events. Internal
// to server/.
#pragma once

#include "server/runs.h"
#include "base/steady_clock.h"

#include "agent/run.h"
#include "runs/event_log.h"
#include "runs/resume.h"
#include "runs/run.h"
#include "runs/spec.h"
#include "session/session.h"
#include "store/database.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace ouro::server {

using runs::describe;
using runs::kMaxIterations;
using runs::kModelOptions;
using runs::short_name;
using runs::whole_in;
using runs::kStringOptions;
using runs::is_string_option;
using runs::is_model_option;

using Clock = ouro::SteadyClock;

// Runs waiting in the shared queue (PostgreSQL) at most; more are refused (ResourceExhausted).
constexpr int64_t kMaxQueued = 10000;
// Runs waiting on one node (SQLite) at most, held in memory until a place comes free.
constexpr size_t kMaxWaitingHere = 1000;

// A run's row and a stored event as the API shows them.
json row_json(const store::Database::RunRow& r);
json event_json(const store::Database::EventRow& e);

// A run this node holds: its slot (the thread, where the conversation is, what was asked of
// it) around the run itself (runs/run.h: its row, events, answers and lifecycle).
struct RunManager::Active {
  // Where the conversation is. Starting: its thread has not begun a turn yet; Working: a turn
  // works (from the agent's start until its result is recorded); Recorded: a turn's result is
  // kept (a follow-up may open the next); Idle: it waits for a follow-up, its place free;
  // Leaving: it takes no more turns, its session is closing.
  enum class Phase { Starting, Working, Recorded, Idle, Leaving };
  // What was asked of it, escalating (a later request never weakens an earlier one). End: let
  // the session go once the turn is over; Cancel: the person cancelled, or its events could not
  // be stored; Shutdown: ouro stops (its turn is interrupted, resumable); Fenced: this node lost
  // the database (its row is left as it is, for a takeover).
  enum class Stop { None, End, Cancel, Shutdown, Fenced };

  std::string id, task;
  std::string pairing;  // the extension pairing whose side panel started it, else ""
  std::thread thread;   // assigned under the manager's mutex; joined by the reaper
  std::shared_ptr<runs::Run> run;

  std::mutex mutex;  // what follows
  std::condition_variable changed;
  Phase phase = Phase::Starting;
  Stop stop = Stop::None;
  Clock::time_point idle_since{};
  std::deque<std::string> inbox;  // messages for the next turn
  agent::Run* working = nullptr;  // the agent while a turn works (guidance goes to it)
  int begun = 0;                  // turns begun, earlier stored ones included

  // mutex held
  void request(Stop s) {
    if (s > stop) stop = s;
  }
  bool finished() const { return phase == Phase::Recorded || phase == Phase::Idle || phase == Phase::Leaving; }
};

}  // namespace ouro::server
