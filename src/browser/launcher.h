// Starts Chromium with --remote-debugging-pipe in a profile directory of its own, headless or
// headed, and owns the process: it is terminated and its temporary profile removed on destruction.
#pragma once

#include "base/error.h"

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace ouro::browser {

struct LaunchOptions {
  bool headed = false;
  std::string executable;         // empty: $OURO_CHROMIUM, then /usr/bin/chromium
  std::string user_data_dir;      // empty: a fresh temporary profile, removed at exit
  std::vector<std::string> extra_args;
  int width = 1280;
  int height = 800;
};

// Who holds a profile directory, from Chromium's lock in it (a symlink SingletonLock -> "host-pid"):
// a live process on this machine, or a process on another host sharing the directory. nullopt
// when the profile is free or the lock is stale.
struct ProfileHolder {
  int pid = 0;
  // "process 1234 (chromium), started by `ouro serve --port 7777` (process 1200)"
  std::string description;
};
std::optional<ProfileHolder> profile_holder(const std::string& profile_dir);

class ChromiumProcess {
 public:
  // Spawns the browser. On success read_fd()/write_fd() are the CDP pipe ends (ownership passes
  // to whoever takes them).
  static Result<std::unique_ptr<ChromiumProcess>> spawn(const LaunchOptions& options);
  ~ChromiumProcess();

  int read_fd() const { return m_read_fd; }
  int write_fd() const { return m_write_fd; }
  int pid() const { return m_pid; }
  const std::string& profile_dir() const { return m_profile; }

  // If the process has exited: a sentence saying how ("exited with status 1", "was killed by
  // signal 9"). Does not block; any thread.
  std::optional<std::string> exit_status();
  // Waits up to `timeout` for the process to exit by itself; true if it did.
  bool wait_exit(std::chrono::milliseconds timeout);
  // The tail of the browser's own log (stderr), for error messages.
  std::string log_tail(std::size_t max_bytes = 2000) const;

 private:
  ChromiumProcess() = default;
  int m_pid = -1;
  int m_read_fd = -1, m_write_fd = -1;
  std::string m_profile;
  bool m_temp_profile = false;
  std::optional<std::string> m_exit;
  std::mutex m_mutex;  // m_pid and m_exit: the network thread asks too, when the pipe closes
};

}  // namespace ouro::browser
