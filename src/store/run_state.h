// A run's latest checkpoint: the state its events give after an iteration, the REPL's
// env (typed JSON) and, for a run in a browser context of its own, that context's cookies and its
// pages' localStorage — what
// resuming it after a crash needs. One row per run, replaced after every iteration, written in
// one transaction so a crash leaves the previous checkpoint or the new one, never half of each.
// Cookies and storage are secrets: they live here (the data directory is the user's alone) and never in an
// event. The env also goes to `checkpoints` (Database::set_checkpoint), which follow-up turns read.
#pragma once

#include "base/json.h"
#include "store/database.h"

#include <optional>
#include <string>

namespace ouro::store {

struct RunCheckpoint {
  int iteration = 0;
  std::string state = "{}";    // JSON object (agent::RunState as a checkpoint keeps it)
  std::string env = "{}";      // JSON (the REPL's typed env)
  std::string cookies = "[]";  // JSON array (CDP cookies), empty for the user's own context
  std::string storage = "{}";  // JSON object: origin -> [[key, value], …] (localStorage), likewise
  double saved_at = 0;         // ms since the epoch
  std::string provenance = "{}";  // JSON object: where the run's values came from (safety::Provenance::to_json)
};

Result<void> save_run_checkpoint(Database& db, const std::string& run_id, const RunCheckpoint& checkpoint);
Result<std::optional<RunCheckpoint>> load_run_checkpoint(Database& db, const std::string& run_id);
// The conversation's goals as its checkpoint's state keeps them (the next turn starts from them),
// and setting them (a checkpoint is made when there is none). Not atomic with the run's own
// checkpoints: called between turns (the turn's end, undo).
Result<json> checkpoint_goals(Database& db, const std::string& run_id);
Result<void> set_checkpoint_goals(Database& db, const std::string& run_id, const json& goals);

}  // namespace ouro::store
