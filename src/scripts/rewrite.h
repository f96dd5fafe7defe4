// After a replay: a run that finished after healing a step, or with a model taking over
// from a step that could not heal, leaves a new version of its script — the old ones kept — built
// from the run's events by the extraction rule (script.h): the blocks that succeeded, in order, the
// healed selectors put into their code, the details recorded afresh, the parameters lifted back
// into `{{name}}` (their defaults those of the version replayed).
#pragma once

#include "scripts/replay.h"
#include "store/database.h"

#include <optional>

namespace ouro::scripts {

// nullopt when nothing healed and no model took over (the script stands as it is); else the new
// version as stored, its based_on and changes set.
Result<std::optional<Script>> save_replayed(store::Database& db, const std::string& run_id, const ReplayProvider& replay);

}  // namespace ouro::scripts
