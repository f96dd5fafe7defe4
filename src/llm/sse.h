// An incremental parser for Server-Sent Events (WHATWG HTML, "9.2 Server-sent events",
// event stream interpretation): bytes in, events out, no I/O and no clock, so tests can split the
// input at every byte. Lines end in LF, CR or CRLF; a blank line dispatches the event.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace ouro::llm {

struct SseEvent {
  std::string event;  // "" when the stream named none ("message")
  std::string data;   // data lines joined with '\n'
  std::string id;
};

class SseParser {
 public:
  using Emit = std::function<void(SseEvent&&)>;
  // Feeds the next bytes; emits every event they complete.
  void feed(std::string_view bytes, const Emit& emit);
  // End of stream: an event without its blank line is discarded, per the spec.
  void finish() { m_line.clear(); }

 private:
  void line(std::string_view l, const Emit& emit);
  std::string m_line;
  bool m_skip_lf = false;  // the previous chunk ended in CR: an LF next is part of that line end
  SseEvent m_event;
  bool m_has_data = false;
};

}  // namespace ouro::llm
