// Runs that survive a crash: where an interrupted run resumes from — its last
// checkpoint (state, env, cookies), or, when it had none yet, its events folded from the start —
// and how a fresh session gets its browser back (cookies of its own context, its tabs reopened,
// the active one first). Used by the runs API (POST /api/runs/{id}/resume) and `ouro run --resume`.
#pragma once

#include "agent/state.h"
#include "base/json.h"
#include "store/database.h"

#include <string>

namespace ouro::session { class Session; }

namespace ouro::runs {

struct ResumePoint {
  store::Database::RunRow row;
  agent::RunState state;
  std::string env = "{}";          // the REPL's typed env
  json cookies = json::array();    // the run's own browser context's, at the checkpoint
  json storage = json::object();   // and its pages' localStorage: origin -> [[key, value], …]
  json provenance = json::object();  // where its values came from (safety::Provenance::to_json)
  int64_t last_seq = 0;            // the run's last stored event: the resumed run goes on from the next
  bool from_checkpoint = false;    // false: the run had no checkpoint; its turn starts over
};

// The run's state from its stored events alone (the log is the source of truth).
// initial_task: the run's first request (the row's task). until_checkpoint ≥ 0: up to and with
// the checkpoint event of that iteration (to compare with what that checkpoint stored).
Result<agent::RunState> rebuild_state(store::Database& db, const std::string& run_id, const std::string& initial_task,
                                      int until_checkpoint = -1);

// NotFound for no such run; FailedPrecondition when the run is not one to resume (finished runs
// take a follow-up message instead). `states`: the run states that may be resumed.
Result<ResumePoint> load_resume_point(store::Database& db, const std::string& run_id, const std::vector<State>& states);

// The browser part of a resume, in a fresh session: the cookies (for a context of its own), then
// the tabs at their checkpoint URLs, the active one first, and their localStorage put back (each
// page with saved storage is loaded again once it is there). Returns what the model is told: the
// restart, the iteration run again, the tabs and their new ids where they changed. `reason`, when
// given, says why in place of "ouro stopped…" (a browser pool's failover: the endpoint died).
Result<std::string> restore_browser(session::Session& session, const ResumePoint& point, const std::string& reason = {});

// The checkpoint after an iteration: the state and env as given, and the cookies and the open
// pages' localStorage of the session's context when it has one of its own (at most 1 MB an
// origin, 4 MB in all: past that an origin's storage is not kept).
Result<void> store_checkpoint(store::Database& db, session::Session& session, const std::string& run_id, int iteration,
                              const std::string& state, const std::string& env);

}  // namespace ouro::runs
