// A SOCKS5 proxy (RFC 1928, CONNECT only, no authentication) on 127.0.0.1 for one browser
// context. Chromium sends every TCP connection of a context created with it as proxy through
// here — HTTP, WebSockets, WebRTC over TCP, the connections <link rel=preconnect> opens ahead of
// any request — with the host name unresolved (the proxy resolves it), so the egress gate's rule
// holds below HTTP too: a connection goes on only if `allow(host, port)` says so. Refusals answer
// "connection not allowed by ruleset" (RFC 1928 §6, reply 0x02).
//
// Bounded: at most 512 connections at once, a handshake must finish within 10 s, relays use two
// 16 KiB buffers. Everything runs on the network thread; nothing waits there (names are resolved
// with Asio's asynchronous resolver).
#pragma once

#include "base/error.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace ouro::net {

class IoThread;

class SocksProxy {
 public:
  // Decides about one connection; called on the network thread, must not block. The host is as
  // the client sent it: a name, an IPv4 address, or an IPv6 address without brackets.
  using Allow = std::function<bool(const std::string& host, uint16_t port)>;

  // Listens on 127.0.0.1 (an ephemeral port). Until set_rule() it refuses every connection.
  // The IoThread must outlive the proxy.
  [[nodiscard]] static Result<std::shared_ptr<SocksProxy>> start(IoThread& io);
  ~SocksProxy();  // closes the listener and every connection
  SocksProxy(const SocksProxy&) = delete;
  SocksProxy& operator=(const SocksProxy&) = delete;

  // Any thread.
  void set_rule(Allow allow);
  // Asks the rule again about every connection already open (or being opened) and closes those it
  // now refuses. A rule that tightens must call it: the browser keeps connections alive and sends
  // later requests over them (HTTP keep-alive, HTTP/2), so one opened under the looser rule would
  // otherwise carry what the tighter rule refuses — an unload beacon, say, that no request
  // interception sees. Returns at once; the check runs on the network thread.
  void recheck();
  uint16_t port() const;
  std::string url() const;  // "socks5://127.0.0.1:PORT"

  struct Stats {
    size_t allowed = 0, refused = 0;
  };
  Stats stats() const;

  struct Impl;

 private:
  explicit SocksProxy(std::shared_ptr<Impl> impl) : m_impl(std::move(impl)) {}
  std::shared_ptr<Impl> m_impl;
};

}  // namespace ouro::net
