#include "runs/failover.h"

#include "base/log.h"

namespace ouro::runs {

Result<Moved> fail_over(store::Database& db, session::BrowserPool& pool, const std::string& run_id, const std::string& from, const std::string& why,
                        session::SessionOptions so, std::chrono::milliseconds wait, const std::function<bool()>& cancelled) {
  Moved moved;
  moved.point = TRY(load_resume_point(db, run_id, {State::Running, State::AwaitingUser, State::Queued}));
  so.repl.initial_env = moved.point.env;
  // An endpoint may die between being chosen and the session opening on it: a few tries, each on
  // the least-loaded healthy endpoint then.
  Error last{Code::Unavailable, "no attempt", nullptr};
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto lease = pool.acquire(wait, cancelled, from);
    if (!lease) {
      if (lease.error().code != Code::Unavailable) return tl::make_unexpected(lease.error());
      return errorf(Code::Unavailable, "browser endpoint {} died ({}) and no other endpoint is healthy: {}", from, why, lease.error().message);
    }
    auto session = session::Session::attach(lease->runtime(), so);
    if (!session) {
      last = session.error();
      spdlog::warn("run {}: cannot open a session on {} to move to: {}", run_id, lease->endpoint(), session.error().message);
      continue;
    }
    std::string reason = "The browser this run worked in (" + from + ") died; the run has moved to another browser (" + lease->endpoint() + ")";
    auto note = restore_browser(**session, moved.point, reason);
    if (!note) {
      last = note.error();
      spdlog::warn("run {}: cannot restore its tabs on {}: {}", run_id, lease->endpoint(), note.error().message);
      continue;
    }
    moved.note = *note;
    moved.to = lease->endpoint();
    moved.session = std::move(*session);
    moved.lease.emplace(std::move(*lease));
    return moved;
  }
  return errorf(Code::Unavailable, "browser endpoint {} died ({}) and the run could not be moved: {}", from, why, last.message);
}

}  // namespace ouro::runs
