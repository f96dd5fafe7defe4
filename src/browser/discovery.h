// Finding the browser the user already runs: Chromium and Chrome started with remote debugging
// (--remote-debugging-port) write a DevToolsActivePort file into their user-data-dir — the port on
// the first line, the browser target's path on the second. `--browser auto` reads it.
#pragma once

#include "base/error.h"

#include <string>
#include <vector>

namespace ouro::browser {

// The usual user-data-dirs on Linux: Chrome (stable, beta, dev, canary), Chromium (Debian's and
// upstream), Brave, Edge — under $XDG_CONFIG_HOME or ~/.config.
std::vector<std::string> usual_browser_dirs();

// ws://127.0.0.1:PORT/devtools/browser/ID from the first of these directories that has a valid
// DevToolsActivePort. NotFound says where it looked and how to start a browser that can be
// attached to.
Result<std::string> find_devtools_url(const std::vector<std::string>& dirs);

}  // namespace ouro::browser
