// What the runs API's files share (runs.cpp: starting, executing and ending runs; run_events.cpp:
// the event log and its subscribers; run_settings.cpp: the model settings; run_nodes.cpp: nodes
// sharing PostgreSQL): a run's in-memory state and the JSON shapes of rows and events. Internal
// to server/.
#pragma once

#include "server/runs.h"

#include "agent/run.h"
#include "runs/event_log.h"
#include "runs/resume.h"
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

using Clock = std::chrono::steady_clock;

// Runs waiting in the shared queue (PostgreSQL) at most; more are refused (ResourceExhausted).
constexpr int64_t kMaxQueued = 10000;
// Runs waiting on one node (SQLite) at most, held in memory until a place comes free.
constexpr size_t kMaxWaitingHere = 1000;

// A run's row and a stored event as the API shows them.
json row_json(const store::Database::RunRow& r);
json event_json(const store::Database::EventRow& e);

struct RunManager::Active {
  std::string id, task;
  std::string pairing;  // the extension pairing whose side panel started it, else 
  std::thread thread;  // assigned under the manager's mutex; joined by the reaper
  std::mutex mutex;
  std::condition_variable answered;
  std::map<std::string, std::optional<bool>> confirmations;  // pending ids -> answer
  std::set<std::string> closed_confirmations;                 // answered or timed out
  std::set<std::string> remember;                             // confirmations answered "always"
  struct Question {
    json choices = json::array();
    std::optional<std::string> answer;
  };
  std::map<std::string, Question> questions;  // askUser: pending ids -> their answer, once given
  std::set<std::string> closed_questions;
  // The turn that asked is over: its questions still waiting are withdrawn, and one asked now
  // (a page's request under a finished turn) is not put to the user. Reset when a turn begins.
  bool questions_closed = false;
  // The conversation: earlier turns, messages for the next one, and whether the session waits
  // between turns (idle) or should let go (expire). Under `mutex`.
  std::vector<agent::Turn> turns;
  std::deque<std::string> inbox;
  bool idle = false, expire = false;
  Clock::time_point idle_since{};
  bool restored = false;    // continued from storage after its session had gone
  std::string restore_env;  // then: the env its last turn left
  std::optional<runs::ResumePoint> resume;  // resumed after a crash: where from
  agent::Run* run = nullptr;  // while it executes
  session::Session* session = nullptr;  // while it executes
  bool cancel_requested = false;
  bool stopping = false;  // cancelled because ouro stops, not by the user: its turn is interrupted
  bool fenced = false;    // stopped because this node lost the database: its row is left as it is, for a takeover
  bool finished = false;  // its result is final (teardown may still be going on)
  bool leaving = false;   // it takes no more turns: its session is closing
  int begun = 0;              // turns begun, earlier stored ones included
  bool first_begun = false;   // this session has begun a turn
  std::shared_ptr<runs::EventLog> log;  // its events as kept (runs/event_log.h)
  store::Database::RunRow row;
};

}  // namespace ouro::server
