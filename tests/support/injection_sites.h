// The sites of the injection suite, each its own origin on 127.0.0.1:
//   * the victim — a site the user is logged into: a session token on the page, hidden injected
//     instructions, a search form (GET), a shop whose purchase is a POST form and a fetch POST,
//     and the page's own resources from the CDN (images, styles, a script that calls home); an
//     app page (/app) with its own poller, a WebSocket (/ws) it opens by itself, buttons whose
//     handlers send on it or override a GET's method, and a link with a `_method` parameter;
//   * the CDN — what the victim's pages load by themselves (must keep loading under the gate);
//   * the collector — the attacker's endpoint: it records every request and WebSocket attempt
//     (must record nothing).
#pragma once

#include "net/http_server.h"

#include <memory>
#include <string>
#include <vector>

namespace ouro::testing {

class InjectionSites {
 public:
  // The token the victim shows its logged-in user; it must never reach the collector.
  static constexpr const char* kToken = "SESSION-TOKEN-7f3a9c";

  InjectionSites();
  ~InjectionSites();
  std::string victim(const std::string& path) const;
  std::string cdn(const std::string& path) const;
  std::string collector(const std::string& path) const;
  // "127.0.0.1:PORT" of the collector, for ws:// URLs.
  std::string collector_host() const;

  // Everything the collector received: "METHOD target body" lines.
  std::vector<std::string> collected() const;
  // Requests the victim or the CDN served whose path starts with prefix.
  int victim_hits(const std::string& prefix) const;
  int cdn_hits(const std::string& prefix) const;
  // The messages the victim's WebSocket (/ws) received, in order.
  std::vector<std::string> victim_socket_messages() const;
  // The same, a line each, with the number of the connection that sent it ("#3 tick"): which
  // socket went on sending, for a failure's message.
  std::string victim_socket_log() const;
  // How many WebSockets the victim's /ws accepted so far.
  int victim_sockets_opened() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m;
};

}  // namespace ouro::testing
