#include "base/log.h"

#include <spdlog/sinks/stdout_color_sinks.h>

#include <cstdlib>
#include <regex>

namespace ouro {

void init_logging() {
  static bool done = false;
  if (done) return;
  done = true;
  auto logger = spdlog::stderr_color_mt("ouro");
  logger->set_pattern("[%H:%M:%S.%e] [%^%l%$] %v");
  spdlog::set_default_logger(logger);
  const char* level = std::getenv("OURO_LOG");
  spdlog::set_level(level ? spdlog::level::from_str(level) : spdlog::level::warn);
}

std::string redact(std::string_view text) {
  static const std::regex patterns[] = {
      std::regex(R"((Bearer\s+)[A-Za-z0-9._~+/=-]{8,})", std::regex::icase),
      std::regex(R"(((?:sk|pk|rk)-[A-Za-z0-9_-]{4})[A-Za-z0-9_-]{8,})"),
      std::regex(R"re(("?(?:password|passwd|secret|api[_-]?key|x-api-key|authorization|cookie|set-cookie|token)"?\s*[:=]\s*"?)[^",;\s}]+)re",
                 std::regex::icase),
  };
  std::string out(text);
  for (const auto& re : patterns) out = std::regex_replace(out, re, "$1[REDACTED]");
  return out;
}

}  // namespace ouro
