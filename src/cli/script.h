// `ouro script save RUN_ID NAME [--param name=value]…`, `ouro script list`, `ouro script show NAME
// [--version N]`, `ouro script rm NAME`: scripts (runs kept to be replayed without a model) in the
// data directory's database. `ouro replay` itself runs in cli.cpp, as `ouro run` does, with the
// provider load_replay gives.
#pragma once

#include "base/error.h"
#include "scripts/replay.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace CLI { class App; }

namespace ouro::cli {

struct ScriptFlags {
  std::string action;   // save | list | show | rm
  std::string run_id;   // save
  std::string name;     // save, show, rm
  std::vector<std::string> params;  // save: name=value, the parameters to lift (none: the proposed ones)
  int version = 0;      // show: 0 = the latest
  bool diff = false;    // show --diff: the version's change from the one it was based on
  bool as_json = false;
  std::string data_dir;  // "" = $OURO_DATA_DIR or the default
};

// Adds `ouro script …` to the app; the flags are filled when it is parsed.
CLI::App* add_script_command(CLI::App& app, ScriptFlags& flags);

// The exit code: 0 done, 1 a failure (said on stderr), 2 a wrong argument (said on stderr).
int cmd_script(const CLI::App& command, ScriptFlags& flags);

// The replay provider of script NAME (version 0: the latest) with the vars (name=value each),
// read from the data directory's database; and how long the recorded run took (ms, 0 unknown).
struct LoadedReplay {
  std::shared_ptr<scripts::ReplayProvider> provider;
  double recorded_ms = 0;
};
Result<LoadedReplay> load_replay(const std::string& data_dir, const std::string& name, int version, const std::vector<std::string>& vars);

}  // namespace ouro::cli
