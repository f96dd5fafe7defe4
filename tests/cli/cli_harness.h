// What the `ouro` command tests share: `ouro ARGS` run as a user runs it (one data directory for
// the suite), its exit code, stdout and stderr; the sites, servers and browser they need.
#pragma once

#include "browser_env.h"
#include "serve_process.h"

#include "injection_sites.h"
#include "raw_server.h"
#include "scoped_temp_dir.h"

#include "runs/spec.h"
#include "store/data_dir_lock.h"
#include "store/database.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace ouro::testing {

using Outcome = Exited;

// `ouro ARGS` on the suite's data directory, `stdin_text` on its stdin, `env` before it.
inline Outcome ouro(const std::string& args, const std::string& stdin_text = "", const std::string& env = "") {
  static const std::string data = temp_dir();
  return ouro_shell(data, args, stdin_text, env);
}

// `ouro ARGS…` in data_dir with each argument passed exactly as given, no shell between (names
// and tasks with quotes, newlines or any other bytes), and no model anywhere as for ouro_shell.
inline Outcome ouro_args(const std::string& data_dir, const std::vector<std::string>& args) {
  const std::string out = temp_dir() + "/out";
  return wait_ouro(spawn_ouro(data_dir, args, out, {{"OURO_PROVIDER", ""}}), out);
}

// `r` exited with `code` and said `words` on stderr; a failure shows what it said instead.
inline ::testing::AssertionResult exits_saying(const Outcome& r, int code, const std::string& words) {
  if (r.code == code && r.err.find(words) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected exit " << code << " saying \"" << words << "\"; it exited " << r.code
                                       << " saying: " << r.err.substr(0, 2000);
}

// The entry of a JSON list whose string member `key` is `value` (null when none is).
inline json entry_with(const json& list, const std::string& key, const std::string& value) {
  for (const auto& e : list)
    if (e.is_object() && e.value(key, "") == value) return e;
  return json();
}

}  // namespace ouro::testing
