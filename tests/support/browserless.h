// The real browserless platform (npm's @browserless.io/browserless, pinned in
// tests/session/browserless/package.json and installed by scripts/setup.sh), started without
// Docker on the system Chromium (tests/session/browserless/start.sh) on a free loopback port with
// a random token, in a process group of its own; killed with the object, and with it the
// Chromium browserless launched. Used by the pool tests and the red-team suite's pool mode.
#pragma once

#include <sys/types.h>

#include <string>

namespace ouro::testing {

struct Browserless {
  // concurrent: its CONCURRENT (sessions at once; QUEUED is 2); timeout_ms: its TIMEOUT, the
  // session limit. Waits (up to 90 s) for its management route to answer: `ready`.
  explicit Browserless(int concurrent, int timeout_ms = 5000);
  ~Browserless();
  Browserless(const Browserless&) = delete;
  Browserless& operator=(const Browserless&) = delete;

  // Whether tests/session/browserless has it installed (the tests skip without it).
  static bool installed();

  std::string base() const { return "http://127.0.0.1:" + std::to_string(port); }
  std::string host() const { return "127.0.0.1:" + std::to_string(port); }
  std::string log() const;

  pid_t pid = -1;
  int port = 0;
  std::string token, dir, log_file;
  bool ready = false;
};

}  // namespace ouro::testing
