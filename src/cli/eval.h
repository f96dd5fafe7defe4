// `ouro eval`: runs an evaluation suite (the one that ships with ouro, or a folder of the same
// shape) against a model, shows its progress and table, and writes its result and report
// (eval/); also compares two results and writes a result's report again.
#pragma once

#include "cli/flags.h"
#include "llm/settings.h"

#include <string>
#include <vector>

namespace ouro::cli {

struct EvalFlags {
  std::string suite;                // a suite folder; empty: the shipped one
  std::vector<std::string> only;    // task id globs
  std::string variants = "all";
  int repeats = 1;
  int concurrency = 2;
  llm::SettingsFlags settings;      // --provider, --model, --base-url, --api-key, --config
  std::string out;                  // the result's folder; empty: <data dir>/eval/<when>-<what>
  std::string record, replay;
  double task_timeout_s = 600;
  bool list = false;
  std::string export_suite;
  std::vector<std::string> compare;  // two results
  std::string report;                // a result whose report to write again
  bool as_json = false;
};

Result<int> cmd_eval(const CommonFlags& flags, EvalFlags ef);

// Where `ouro eval` keeps its results under a data directory.
std::string eval_results_dir(const std::string& data_dir);

}  // namespace ouro::cli
