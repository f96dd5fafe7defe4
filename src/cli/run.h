// `ouro run` (and `ouro replay`): the flags become a run's spec, runs/lifecycle.h carries the run,
// and the terminal shows its events and asks its questions.
#pragma once

#include "cli/flags.h"
#include "llm/settings.h"
#include "scripts/store.h"

#include <memory>
#include <string>

namespace ouro::scripts { class ReplayProvider; }

namespace ouro::cli {

struct RunFlags {
  std::string task;
  int confirm_timeout_s = 60;
  llm::SettingsFlags settings;
  int max_iterations = 25;
  bool as_json = false;
  std::string trace;
  std::string context;  // mine | clean | "" (mine with a kept profile or an attached browser)
  int ask_timeout_s = 300;
  std::string continue_id;  // --continue: a run to carry on as its next turn
  std::string resume_id;    // --resume: an interrupted run to go on with from its checkpoint
  std::string agent = "rlm";  // rlm | tools
  bool no_remember = false;   // --no-remember: this run's task and answer are not remembered
  std::string save_script;    // --save-script NAME: a run that finishes is kept as script NAME
  bool max_iterations_given = false;  // --max-iterations was given (else a resumed run keeps its own)
  // `ouro replay`: the script's steps answer the loop instead of a model.
  std::shared_ptr<scripts::ReplayProvider> replay;
  double recorded_ms = 0;     // how long the replayed script's recorded run took (0: unknown)
};

Result<int> cmd_run(const CommonFlags& flags, RunFlags rf);

}  // namespace ouro::cli
