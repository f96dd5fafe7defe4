// A Chromium started as an operator would start one for a browser pool: headless,
// --remote-debugging-port=0, a profile of its own in `dir`; its port comes from the profile's
// DevToolsActivePort. Killed (its whole process group) with the object. Tests and benchmarks.
#pragma once

#include <string>
#include <sys/types.h>

namespace ouro::testing {

struct RemoteChromium {
  explicit RemoteChromium(std::string dir);  // starts it and waits (up to 30 s) for its port
  ~RemoteChromium();
  RemoteChromium(const RemoteChromium&) = delete;
  RemoteChromium& operator=(const RemoteChromium&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port); }
  void kill9();  // SIGKILL to its process group, reaped

  pid_t pid = -1;
  std::string dir;
  int port = 0;  // 0: it did not start
};

}  // namespace ouro::testing
