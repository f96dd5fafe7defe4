// `ouro extension`: the Chrome extension's folder (docs/design/extension-bridge.md, "Files and
// how they are shipped") — extension/ as built into the binary, plus command-center/ with the
// Command Center's own index.html, app.js and app.css — written where Chrome can load it unpacked.
#pragma once

#include "base/error.h"

#include <string>
#include <vector>

namespace ouro::cli {

// Writes the folder (made if missing; our files replaced, nothing else touched) and returns its
// absolute path. Fails with Internal naming the file that cannot be written.
Result<std::string> write_extension(const std::string& dir);

// Chromium flags that load that folder and no other extension (plain `ouro`'s browser).
std::vector<std::string> load_extension_args(const std::string& dir);

// What `ouro extension` prints: the folder and the three steps.
std::string extension_instructions(const std::string& dir);

}  // namespace ouro::cli
