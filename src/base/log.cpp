#include "base/log.h"

#include <spdlog/sinks/stdout_color_sinks.h>

#include <cstdlib>
#include <cctype>
#include <cstring>

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

namespace {

// spdlog's registry (which holds the default logger) is a function-local static made at the first
// log call. Made here, before main, it outlives every object with static storage that is made
// later (statics die in reverse order), such as a test's shared session whose network thread logs
// while the session shuts down; made by that thread's first message, it would die before it.
[[maybe_unused]] const bool g_registry_first = (spdlog::default_logger_raw(), true);

bool token_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("._~+/=-", c); }

bool starts_with_ci(std::string_view s, size_t at, std::string_view word) {
  if (at + word.size() > s.size()) return false;
  for (size_t i = 0; i < word.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[at + i])) != word[i]) return false;
  return true;
}

}  // namespace

// A hand-written scanner rather than std::regex, which recurses per character and overflows the
// stack on long inputs (a base64 screenshot in a trace line).
std::string redact(std::string_view text) {
  static const std::string_view secret_names[] = {"password", "passwd", "secret", "api_key", "api-key", "apikey", "x-api-key",
                                                  "authorization", "set-cookie", "cookie", "token"};
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    // "Bearer <token>"
    if (starts_with_ci(text, i, "bearer ")) {
      size_t j = i + 7;
      while (j < text.size() && text[j] == ' ') ++j;
      size_t k = j;
      while (k < text.size() && token_char(text[k])) ++k;
      if (k - j >= 8) {
        out.append(text.substr(i, j - i)).append("[REDACTED]");
        i = k;
        continue;
      }
    }
    // sk-…, pk-…, rk-… keys: keep the first four characters after the dash.
    if ((i == 0 || !token_char(text[i - 1])) && i + 3 < text.size() && (text[i] == 's' || text[i] == 'p' || text[i] == 'r') && text[i + 1] == 'k' &&
        text[i + 2] == '-') {
      size_t k = i + 3;
      while (k < text.size() && (std::isalnum(static_cast<unsigned char>(text[k])) || text[k] == '_' || text[k] == '-')) ++k;
      if (k - (i + 3) >= 12) {
        out.append(text.substr(i, 7)).append("[REDACTED]");
        i = k;
        continue;
      }
    }
    // name: value / name=value / "name": "value" for secret-looking names.
    bool matched = false;
    if (i == 0 || !std::isalnum(static_cast<unsigned char>(text[i - 1]))) {
      for (auto name : secret_names) {
        if (!starts_with_ci(text, i, name)) continue;
        size_t j = i + name.size();
        if (j < text.size() && text[j] == '"') ++j;
        while (j < text.size() && text[j] == ' ') ++j;
        if (j >= text.size() || (text[j] != ':' && text[j] != '=')) continue;
        ++j;
        while (j < text.size() && (text[j] == ' ' || text[j] == '"')) ++j;
        // "Authorization: Bearer <token>": the scheme goes too.
        for (std::string_view scheme : {"bearer ", "basic "})
          if (starts_with_ci(text, j, scheme)) j += scheme.size();
        size_t k = j;
        while (k < text.size() && !std::strchr("\",;}\r\n ", text[k])) ++k;
        if (k == j) continue;
        out.append(text.substr(i, j - i)).append("[REDACTED]");
        i = k;
        matched = true;
        break;
      }
    }
    if (matched) continue;
    out.push_back(text[i++]);
  }
  return out;
}

}  // namespace ouro
