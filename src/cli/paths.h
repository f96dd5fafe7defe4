// `ouro paths`: where ouro keeps what it keeps — the settings file, the data directory and what is
// in it, the database, the logs — so a person can find, back up or remove them.
#pragma once

#include <string>

namespace ouro::cli {

// data_dir: the data directory in use ("" = the default, a workspace already applied);
// config_path: the settings file ("" = $OURO_CONFIG or the default).
int cmd_paths(const std::string& data_dir, const std::string& config_path, bool as_json);

}  // namespace ouro::cli
