// Failover: a run whose browser pool endpoint died goes on elsewhere, from its last
// checkpoint, the way a resume after a crash does (runs/resume.h) — a new session on another
// healthy endpoint with the checkpoint's env, its cookies, tabs (reopened at the checkpoint's URLs)
// and their localStorage put back — so the iteration the loss cut short runs again there.
#pragma once

#include "session/pool.h"
#include "runs/resume.h"
#include "session/session.h"

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace ouro::runs {

struct Moved {
  std::optional<session::BrowserPool::Lease> lease;       // declared first: given back after the session closes
  std::unique_ptr<session::Session> session;
  ResumePoint point;
  std::string note;  // what the model is told: the endpoint died, the iteration run again, the tabs
  std::string to;    // the endpoint it moved to (redacted)
};

// `from`: the dead endpoint (redacted); `why`: how it died. `so`: the run's session options (its
// initial env is replaced by the checkpoint's). Waits for a place up to `wait` while every
// healthy endpoint is full. Unavailable "browser endpoint FROM died and no other endpoint is
// healthy (…)" when there is none to go to; the resume point's errors as they are. Blocks; not
// for the network thread.
Result<Moved> fail_over(store::Database& db, session::BrowserPool& pool, const std::string& run_id, const std::string& from, const std::string& why,
                        session::SessionOptions so, std::chrono::milliseconds wait, const std::function<bool()>& cancelled);

}  // namespace ouro::runs
