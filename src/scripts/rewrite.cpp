#include "scripts/rewrite.h"

#include "scripts/store.h"

namespace ouro::scripts {

Result<std::optional<Script>> save_replayed(store::Database& db, const std::string& run_id, const ReplayProvider& replay) {
  const bool agent = replay.handed_over();
  if (replay.heals() == 0 && !agent) return std::optional<Script>();
  const Script& old = replay.script();
  // Lifted with the values this run used; stored with the version's own defaults.
  std::vector<Param> used = old.params;
  for (auto& p : used)
    if (auto v = replay.vars().find(p.name); v != replay.vars().end() && !v->second.empty()) p.value = v->second;
  Script next = TRY(from_run(db, run_id, old.name, used));
  next.params = old.params;
  next.task = old.task;
  next.urls = old.urls;
  next.based_on = old.version;
  if (agent)
    next.changes.push_back({{"kind", "agent"}, {"from_step", get_int(replay.position(), "main")},
                            {"note", "a model took over from this step; the steps after it are the ones it took"}});
  Script saved = TRY(save(db, std::move(next)));
  return std::optional<Script>(std::move(saved));
}

}  // namespace ouro::scripts
