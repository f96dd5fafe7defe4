// `ouro serve` as a process of its own, as a user starts it — for tests that stop it, kill it
// (with SIGKILL, as a crash or a power cut would) and start it again on the same data directory.
// It runs in a process group of its own, so its Chromium and REPL workers go with it.
#pragma once

#include "api_env.h"

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ouro::testing {

struct ServeProcess {
  pid_t pid = -1;
  std::string dir, base, token;  // base: http://127.0.0.1:PORT; empty when it did not start

  // OURO_DATA_DIR=data_dir, no settings file, no API keys from the test's environment; `env`
  // adds variables (name, value).
  // `args`: more arguments after `serve --port 0` (e.g. --browser-pool FILE).
  explicit ServeProcess(std::string data_dir, const std::vector<std::pair<std::string, std::string>>& env = {},
                        const std::vector<std::string>& args = {});
  ~ServeProcess();
  // Ctrl-C, as a person stops it; SIGKILL to the group if it has not gone in 15 s.
  void stop();
  // SIGKILL to the whole group at once.
  void kill9();
  Http get(const std::string& path);
  Http post(const std::string& path, const json& body);
  Http del(const std::string& path);
  // What it wrote on stderr (the log).
  std::string log() const;
  // What it wrote on stdout (its addresses, one line per turn started and ended).
  std::string out() const;
  // A run's stored events; polling until pred holds for them (false at the deadline).
  std::vector<json> events(const std::string& run_id);
  bool wait_events(const std::string& run_id, const std::function<bool(const std::vector<json>&)>& pred,
                   std::chrono::seconds timeout = std::chrono::seconds(60));
  // Polls the run until its state is one of `states`; the run as it is then (or at the deadline).
  json wait_state(const std::string& run_id, const std::set<std::string>& states, std::chrono::seconds timeout = std::chrono::seconds(90));
};

// `ouro ARGS…` in the same environment (and a process group of its own), its stdout to
// out_file and its stderr to out_file + ".err"; wait_ouro waits for it and reads them. Its stdin
// is /dev/null, or stdin_fd (the read end of a pipe the test writes to) when given.
pid_t spawn_ouro(const std::string& data_dir, const std::vector<std::string>& args, const std::string& out_file,
                 const std::vector<std::pair<std::string, std::string>>& env = {}, int stdin_fd = -1);
struct Exited {
  int code = -1;  // the exit status; -1 when killed
  std::string out, err;
};
Exited wait_ouro(pid_t pid, const std::string& out_file);

// `ouro ARGS` through the shell (ARGS is shell text), with no model anywhere (keys and provider
// unset, no settings file), in data_dir; stdin_text on its standard input; env: more shell
// assignments ("A=1 B=2").
Exited ouro_shell(const std::string& data_dir, const std::string& args, const std::string& stdin_text = "", const std::string& env = "");

}  // namespace ouro::testing
