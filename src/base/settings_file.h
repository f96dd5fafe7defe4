// The settings file (~/.config/ouroboros/config.json, OURO_CONFIG or --config): read once where a
// run starts, and handed to the parts that take their sections from it — the model (llm),
// safety and hooks — so they agree on one version of it.
#pragma once

#include "base/error.h"
#include "base/json.h"

#include <string>

namespace ouro {

struct SettingsFile {
  std::string path;
  json data = json::object();  // an object; empty when there is no file
  // How errors about its contents name it.
  std::string where() const { return "the settings file " + path; }
};

// A missing file is an empty one; a file that is not a JSON object is InvalidArgument, saying so.
Result<SettingsFile> read_settings_file(const std::string& path);

}  // namespace ouro
