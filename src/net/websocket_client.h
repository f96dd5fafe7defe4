// A WebSocket client (RFC 6455, via Boost.Beast) for ws:// endpoints: connects with a deadline,
// then delivers each text message to a callback on the network thread. One write in flight; the
// rest wait in an outbound queue.
#pragma once

#include "base/error.h"
#include "net/io.h"

#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace ouro::net {

class WebSocketClient {
 public:
  using OnMessage = std::function<void(std::string)>;
  using OnClose = std::function<void(Error)>;

  // Connects to url (ws://host:port/path) within timeout. Blocks the calling thread, which must
  // not be the network thread.
  static Result<std::unique_ptr<WebSocketClient>> connect(IoThread& io, const std::string& url,
                                                          std::chrono::milliseconds timeout);
  ~WebSocketClient();

  // Starts reading. Callbacks run on the network thread; on_close runs once, with the reason.
  void start(OnMessage on_message, OnClose on_close);
  // Queues a text message; any thread.
  void send(std::string message);
  // Closes the connection; on_close is not called for a close we asked for.
  void close();

 private:
  WebSocketClient() = default;
  struct Session;
  std::shared_ptr<Session> m_session;
};

}  // namespace ouro::net
