// The scripts routes of the API, over the database: save a finished run as a script,
// list, show and delete scripts, and the body of an ordinary run that replays one (RunManager
// runs it with the replay provider, options.script). Worker threads only (SQLite).
#pragma once

#include "base/json.h"

#include <optional>
#include <string>

namespace ouro::store { class Database; }

namespace ouro::server {

// POST /api/runs/{id}/script {name, params?: [{name, value}]}: the run's script saved as the
// next version of `name`; without params, the proposed ones. dry_run: true answers with the
// script it would save (its proposed parameters) and saves nothing.
Result<json> save_script_from_run(store::Database& db, const std::string& run_id, const json& body);
// GET /api/scripts: [{name, version, versions, task, params, steps, created_at, source_run}].
Result<json> list_scripts(store::Database& db);
// GET /api/scripts/{name}[?version=N]: the script, with its steps' code, and how long its
// recorded run took (source_run_ms, when that run is still stored).
// diff_text: "" or a version N, whose change from the version it was based on (else N-1) comes
// back as `diff` (scripts::diff's text; "" when the steps are the same).
Result<json> show_script(store::Database& db, const std::string& name, const std::string& version_text, const std::string& diff_text = "");
// DELETE /api/scripts/{name}: every version.
Result<json> delete_script(store::Database& db, const std::string& name);
// POST /api/scripts/{name}/run {vars?: {k: v}, urls?: [...], version?, options?}: the body of
// POST /api/runs that replays it (its task filled in, its recorded start pages unless urls).
Result<json> replay_run_body(store::Database& db, const std::string& name, const json& body);

}  // namespace ouro::server
