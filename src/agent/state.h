// A run's state as its events give it (an event log: the log is the source of truth). The
// run folds every event it emits into a RunState; a checkpoint is that state after an iteration
// (plus the REPL's env and the browser context's cookies, kept beside it); recovery folds the
// stored events into the same state. Pure: no I/O, so a test can rebuild a run from its events
// and compare.
#pragma once

#include "agent/context.h"
#include "base/json.h"
#include "llm/provider.h"

#include <string>
#include <vector>

namespace ouro::agent {

struct RunState {
  int turn = 1;                           // the conversation's turn the run is in
  std::vector<Turn> turns;                // the earlier turns (task and answer)
  std::string task;                       // this turn's request
  int last_iteration = 0;                 // the last iteration that ended (numbers count on across turns)
  int turn_iterations = 0;                // iterations ended in this turn (the cap is per turn)
  std::vector<IterationRecord> history;   // this turn's, as the context builder reads it
  llm::Usage usage;                       // every model call of the run so far, sub-calls included
  double cost = 0;
  bool cost_known = true;
  json tabs = json::array();              // at the last checkpoint: [{id, url, title}]
  std::string active_tab;
  json provider;                          // the provider's position at the last checkpoint (scripted: responses used)
  int checkpoint_iteration = 0;           // the iteration of the last checkpoint
  bool ended = false;                     // a complete event came
  json final;                             // its final value, then
  bool partial = false;
  json goals = json::array();             // the conversation's goals (agent/goals.h), as the last goal event left them

  json to_json() const;
  static RunState from_json(const json& j);
};

// Folds one event (its type and data, as stored) into the state.
void apply_event(RunState& state, const std::string& type, const json& data);

// A turn's answer as the next turn's prompt shows it (a string as it is; JSON cut at 2,000).
std::string final_text(const json& final);

// Iterations past this many in a checkpoint keep their code and one-line result only (context
// compaction), so a long run's checkpoint stays bounded.
constexpr size_t kCheckpointFullIterations = 10;
// The state as a checkpoint keeps it: the history compacted past kCheckpointFullIterations.
json checkpoint_json(const RunState& state);

}  // namespace ouro::agent
