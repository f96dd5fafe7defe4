// A Chrome DevTools Protocol connection (https://chromedevtools.github.io/devtools-protocol/):
// commands carry an id and are answered by a message with the same id; everything else is an
// event, routed by its sessionId (flat sessions, Target.attachToTarget with flatten: true).
#pragma once

#include "base/json.h"
#include "cdp/transport.h"

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace ouro::cdp {

using namespace std::chrono_literals;

struct Event {
  std::string method;
  json params;
  std::string session_id;  // empty for browser-level events
};

class Connection {
 public:
  using Callback = std::function<void(Result<json>)>;

  static std::unique_ptr<Connection> create(std::unique_ptr<Transport> transport);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Handlers run on the transport's thread; set them before the first command. The close
  // handler runs first when the connection is lost and returns the error every pending and
  // later command fails with (so it can say why: "Chromium was killed by signal 9").
  // Nothing a browser sends can end the process: an exception from parsing a message, from the
  // event handler or from a command's callback is logged (briefly, redacted) and the message is
  // dropped.
  void set_event_handler(std::function<void(const Event&)> handler);
  void set_close_handler(std::function<Error(const Error&)> handler);

  // Sends a command; any thread. `done` runs exactly once: with the result object, with the
  // protocol's error, with DeadlineExceeded after `timeout`, or with Unavailable when the
  // connection is lost. It runs on the transport thread or the deadline thread, never inline.
  void send(std::string_view method, json params, std::string_view session_id,
            std::chrono::milliseconds timeout, Callback done);

  // Sends and waits. Must not be called from a callback thread of this connection.
  Result<json> call(std::string_view method, json params = json::object(), std::string_view session_id = {},
                    std::chrono::milliseconds timeout = 30s);

  // Fails every command pending on session_id with `error` (the tab closed or crashed), and the
  // commands sent on it later, at once: a caller may have taken the session id just before.
  void fail_session(const std::string& session_id, const Error& error);

  // Stops the connection: once it returns, no handler or callback runs on the transport's thread
  // any more (one running there is waited for, unless close is called from inside it), commands
  // still pending have failed with Cancelled and later ones fail with Unavailable at once.
  // Idempotent; the destructor calls it. Do not call it holding a lock that handlers take.
  void close();

  // Why the connection closed, once it has.
  std::optional<Error> close_reason() const;

  // Number of commands awaiting a reply (for tests and diagnostics).
  std::size_t pending_count() const;

 private:
  Connection() = default;
  struct Impl;
  std::shared_ptr<Impl> m_impl;
};

}  // namespace ouro::cdp
