// `ouro doctor`: checks what ouro needs — Chromium (it launches and answers), the display (for
// --headed), the data directory (exists, private, writable, its database opens), the kept
// profile (not locked by a live process), and the model (settings resolve, a one-token request
// answers) — and prints, for each failure, what to do. Exit code 0 when everything passed.
#pragma once

#include "llm/settings.h"

#include <string>

namespace ouro::cli {

int cmd_doctor(const std::string& data_dir, const llm::SettingsFlags& settings);

}  // namespace ouro::cli
