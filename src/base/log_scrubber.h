// Text that must not reach a log, known only at run time to whoever holds it (a session's named
// secrets): redact() (base/log.h) and every line the default logger writes pass through each
// registered scrubber while it lives.
#pragma once

#include <memory>
#include <string>

namespace ouro {

class LogScrubber {
 public:
  virtual ~LogScrubber() = default;
  // Must be safe to call from any thread.
  virtual std::string scrub_text(std::string text) const = 0;
};

// Held weakly: an ended session's secrets drop out by themselves. Any thread.
void register_log_scrubber(std::weak_ptr<const LogScrubber> scrubber);

}  // namespace ouro
