// A Chromium started as an operator would start one for a browser pool: headless,
// --remote-debugging-port=0, a profile of its own in `dir`; its port comes from the profile's
// DevToolsActivePort. Killed (its whole process group) with the object. Tests and benchmarks.
// With extension_dir, that folder is its only extension (--load-extension), as a person who
// loaded ouro's extension unpacked has it; without, extensions are off.
#pragma once

#include <string>
#include <sys/types.h>

namespace ouro::testing {

struct RemoteChromium {
  // Starts it and waits (up to 30 s) for its port.
  explicit RemoteChromium(std::string dir, const std::string& extension_dir = "");
  ~RemoteChromium();
  RemoteChromium(const RemoteChromium&) = delete;
  RemoteChromium& operator=(const RemoteChromium&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port); }
  // Its browser's DevTools WebSocket (DevToolsActivePort's second line is the path).
  std::string ws_url() const { return "ws://127.0.0.1:" + std::to_string(port) + browser_path; }
  void kill9();  // SIGKILL to its process group, reaped

  pid_t pid = -1;
  std::string dir;
  int port = 0;  // 0: it did not start
  std::string browser_path;  // /devtools/browser/ID
};

}  // namespace ouro::testing
