#include "base/log.h"
#include "base/log_scrubber.h"

#include <spdlog/sinks/base_sink.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

namespace ouro {

namespace {

std::mutex g_scrubbers_mutex;
std::vector<std::weak_ptr<const LogScrubber>> g_scrubbers;  // owned by this file; expired ones pruned as they are met

std::string scrub_registered(std::string text) {
  std::vector<std::shared_ptr<const LogScrubber>> live;
  {
    std::lock_guard lock(g_scrubbers_mutex);
    std::erase_if(g_scrubbers, [&live](const std::weak_ptr<const LogScrubber>& w) {
      auto s = w.lock();
      if (s) live.push_back(std::move(s));
      return !s;
    });
  }
  // Scrubbed outside the registry's lock: a scrubber takes its own.
  for (const auto& s : live) text = s->scrub_text(std::move(text));
  return text;
}

// Writes formatted lines to stderr after the registered scrubbers have seen them, so a secret that
// reaches a log call unredacted (a page's text in an error) still stays out of the log.
class ScrubbingStderrSink final : public spdlog::sinks::base_sink<std::mutex> {
 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t formatted;
    formatter_->format(msg, formatted);
    std::string line = scrub_registered(std::string(formatted.data(), formatted.size()));
    std::fwrite(line.data(), 1, line.size(), stderr);
  }
  void flush_() override { std::fflush(stderr); }
};

}  // namespace

void register_log_scrubber(std::weak_ptr<const LogScrubber> scrubber) {
  std::lock_guard lock(g_scrubbers_mutex);
  g_scrubbers.push_back(std::move(scrubber));
}

void init_logging() {
  static bool done = false;
  if (done) return;
  done = true;
  auto logger = std::make_shared<spdlog::logger>("ouro", std::make_shared<ScrubbingStderrSink>());
  spdlog::register_logger(logger);
  logger->set_pattern("[%H:%M:%S.%e] [%l] %v");
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
        // "[SECRET:name]" is the scrubbers' own marker for a value already taken out: kept as it is.
        if (name == "secret" && i > 0 && text[i - 1] == '[') continue;
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
  return scrub_registered(std::move(out));
}

}  // namespace ouro
