// Logging goes through spdlog to stderr. Everything logged passes redact() first, so API keys,
// cookies and passwords never reach a log, a trace or an event.
#pragma once

#include <spdlog/spdlog.h>

#include <string>
#include <string_view>

namespace ouro {

// Level from OURO_LOG (trace|debug|info|warn|error|off); default warn so the CLI stays quiet.
void init_logging();

// Masks secrets in free text: bearer tokens, sk-… keys, "password"/"cookie"/"api_key" values.
std::string redact(std::string_view text);

}  // namespace ouro
