// `ouro schedule add|list|remove|run-now`: saved tasks that `ouro serve` runs at set times
// (server/scheduler.h). The commands work on the data directory's database directly, so they
// work whether or not a server is running; a running server sees changes within two seconds.
#pragma once

#include <string>
#include <vector>

namespace CLI { class App; }

namespace ouro::cli {

struct ScheduleFlags {
  std::string task;
  std::vector<std::string> urls;
  std::string at, every, cron;  // exactly one, for add
  std::string tz;               // "" = the system's zone
  std::string missed = "run-once";
  std::string name;
  std::vector<std::string> options;  // k=v: v as JSON when it reads as JSON, else as a string
  std::string script;                // --script NAME: fires replay the saved script first
  std::string id;                    // remove, run-now
  bool as_json = false;
  std::string data_dir;  // "" = $OURO_DATA_DIR or the default
};

// Adds `schedule` and its subcommands to app; their values land in flags.
CLI::App* add_schedule_command(CLI::App& app, ScheduleFlags& flags);

// Runs the subcommand that was parsed. The exit code: 0 done, 1 a failure (said on stderr),
// 2 a wrong argument (said on stderr).
int cmd_schedule(CLI::App& schedule, const ScheduleFlags& flags);

}  // namespace ouro::cli
