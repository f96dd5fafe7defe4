// Internal to the cdp module: where a transport's callbacks go (transports.cpp, bridge.cpp).
#pragma once

#include "cdp/transport.h"

#include <mutex>

namespace ouro::cdp {

// Where a transport's callbacks go, until it is closed. A delivery holds the gate, so close()
// waits for one in progress on another thread, and nothing is delivered after close() returns.
// A callback may close its own transport: the gate's mutex is recursive, and the delivery in
// progress simply finishes.
class Gate {
 public:
  void open(Transport::OnMessage on_message, Transport::OnClose on_close) {
    std::lock_guard lock(m_mutex);
    m_on_message = std::move(on_message);
    m_on_close = std::move(on_close);
  }
  // False once closed: the reader stops.
  bool message(std::string text) {
    std::lock_guard lock(m_mutex);
    if (m_closed) return false;
    if (m_on_message) m_on_message(std::move(text));
    return !m_closed;
  }
  // The connection was lost: on_close runs once, and nothing after it.
  void fail(Error error) {
    std::lock_guard lock(m_mutex);
    if (m_closed) return;
    m_closed = true;
    if (m_on_close) m_on_close(std::move(error));
  }
  void close() {
    std::lock_guard lock(m_mutex);
    m_closed = true;
  }
  bool closed() {
    std::lock_guard lock(m_mutex);
    return m_closed;
  }

 private:
  std::recursive_mutex m_mutex;
  bool m_closed = false;
  Transport::OnMessage m_on_message;
  Transport::OnClose m_on_close;
};

}  // namespace ouro::cdp
