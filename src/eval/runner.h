// Runs a suite's tasks as ordinary runs (runs/run.h) — each on a fresh instance of its site, in a
// browser context of its own with its own database and data folder (nothing one task run learns
// reaches another), its questions answered no and counted — N repeats, at most `concurrency` at
// once (one Chromium each, kept across its task runs), and checks each from the site's state and
// the final answer.
#pragma once

#include "eval/suite.h"
#include "llm/settings.h"
#include "session/session.h"

#include <filesystem>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ouro::eval {

struct RunnerOptions {
  std::vector<std::string> only;      // glob patterns on task ids (fnmatch); none: every task
  std::string variants = "all";       // all | clean | injected
  int repeats = 1;
  int concurrency = 2;
  std::string mode = "autonomous";    // autonomous | careful: the gate's mode (questions are answered no)
  // "script:@NAME" (the suite's models/NAME), "script:DIR" (DIR/ID.jsonl, BASE.jsonl, default.jsonl),
  // "script:FILE", or any provider ouro knows; empty: the configured one.
  std::string provider;
  llm::SettingsFlags model_flags;     // the face's model settings and key
  session::SessionOptions browser;    // the face's browser and limits (each task run launches its own)
  std::string record_dir;             // keeps every model exchange (eval/record.h)
  std::string replay_dir;             // replays them, with no model
  double task_timeout_s = 600;        // a task run still going after this is cancelled
  // Each task run's result as it ends (any thread, one at a time): done of total.
  std::function<void(const json& result, int done, int total)> on_result;
};

class Runner {
 public:
  Runner(const Suite& suite, RunnerOptions options);
  ~Runner();
  // The tasks the options select, in suite order. InvalidArgument when none.
  Result<std::vector<const Task*>> selected() const;
  // Runs them all; the result (eval/report.h's format). Blocks.
  Result<json> run();
  // Stops: task runs not begun are skipped, those under way cancelled (any thread).
  void cancel();

  // The scripted provider's file for a task run, or "" when the provider is not a script folder.
  Result<std::string> script_for(const Task& task, int repeat) const;

 private:
  struct Active;
  struct Worker;
  json run_one(const Task& task, int repeat, Worker& worker);
  // A worker's browser, launched once and kept for its task runs (each in a context of its own).
  Result<void> ready(Worker& worker);

  const Suite& m_suite;
  RunnerOptions m_opt;
  std::unique_ptr<net::IoThread> m_io;  // the sites'
  std::filesystem::path m_work;         // the task runs' data folders
  std::atomic<bool> m_cancelled{false};
  std::mutex m_mutex;  // m_active
  std::vector<Active*> m_active;
};

}  // namespace ouro::eval
