// How CDP messages travel: Chromium's --remote-debugging-pipe (NUL-delimited JSON on two file
// descriptors) or a DevTools WebSocket. The Connection sees only this interface, so unit tests use
// an in-memory fake.
#pragma once

#include "base/error.h"

#include <functional>
#include <memory>
#include <string>

namespace ouro::net { class IoThread; }

namespace ouro::cdp {

class Transport {
 public:
  using OnMessage = std::function<void(std::string)>;
  using OnClose = std::function<void(Error)>;

  virtual ~Transport() = default;
  // Begins delivering messages. Callbacks run on one thread (the network thread for real
  // transports); on_close runs at most once, after which no message is delivered.
  virtual void start(OnMessage on_message, OnClose on_close) = 0;
  // Queues one message; any thread. Messages are sent in the order queued.
  virtual void send(std::string message) = 0;
  // Stops reading and writing; no callback runs after it returns.
  virtual void close() = 0;
};

// Reads replies from read_fd and writes commands to write_fd (Chromium's fds 4 and 3). Takes
// ownership of both descriptors.
std::unique_ptr<Transport> make_pipe_transport(net::IoThread& io, int read_fd, int write_fd);

// Connects to a DevTools WebSocket endpoint (ws://host:port/devtools/browser/<id>).
Result<std::unique_ptr<Transport>> make_websocket_transport(net::IoThread& io, const std::string& url);

}  // namespace ouro::cdp
