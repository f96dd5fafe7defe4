#include "llm/sse.h"

namespace ouro::llm {

void SseParser::feed(std::string_view bytes, const Emit& emit) {
  for (char c : bytes) {
    if (m_skip_lf) {
      m_skip_lf = false;
      if (c == '\n') continue;
    }
    if (c == '\r' || c == '\n') {
      m_skip_lf = c == '\r';
      line(m_line, emit);
      m_line.clear();
    } else {
      m_line.push_back(c);
    }
  }
}

void SseParser::line(std::string_view l, const Emit& emit) {
  if (l.empty()) {
    if (m_has_data) {
      if (!m_event.data.empty() && m_event.data.back() == '\n') m_event.data.pop_back();
      emit(std::move(m_event));
    }
    m_event = SseEvent{};
    m_has_data = false;
    return;
  }
  if (l[0] == ':') return;  // comment (keep-alive)
  auto colon = l.find(':');
  std::string_view field = l.substr(0, colon), value;
  if (colon != std::string_view::npos) {
    value = l.substr(colon + 1);
    if (!value.empty() && value[0] == ' ') value.remove_prefix(1);
  }
  if (field == "data") {
    m_event.data.append(value);
    m_event.data.push_back('\n');
    m_has_data = true;
  } else if (field == "event") {
    m_event.event = std::string(value);
  } else if (field == "id") {
    m_event.id = std::string(value);
  }
}

}  // namespace ouro::llm
