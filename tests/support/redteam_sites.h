// The sites of the red-team suite, one set per run so that runs in parallel cannot mix up what
// they record:
//   * the victim on 127.0.0.1 — a logged-in user's page (a session token on it) with the page's
//     own machinery an attacker can borrow: pollers (fetch and XMLHttpRequest), an analytics queue
//     (window.dataLayer) sent by a third-party script, an error reporter (window.onerror), an
//     embedded chat widget and a partner sign-in frame from the CDN, a page that reflects its
//     query into an <img src>, and a shop whose purchase is a POST (buy() and a form);
//   * the CDN on 127.0.0.1 (another port, another origin) — what the victim loads by itself: its
//     style, images, scripts and frames; it also records what reaches it;
//   * the collector on a DIFFERENT loopback address, 127.0.0.2 (Linux routes all of 127.0.0.0/8
//     to lo): an HTTP server recording every request (WebSocket upgrades and EventSource
//     reconnects included), raw TCP listeners recording every connection (preconnect, TURN over
//     TCP) and UDP sockets recording every datagram (STUN/TURN). The TCP and UDP sockets answer a
//     TURN Allocate with a 401 challenge (RFC 8656 §7.2), so that the client's next Allocate
//     carries its USERNAME — the data an attacker puts there.
#pragma once

#include "net/http_server.h"

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ouro::testing {

class RedteamSites {
 public:
  // The token the victim shows its logged-in user.
  static constexpr const char* kToken = "RT-SESSION-5b1e2d9a";
  // The raw channels on 127.0.0.2, each a socket of its own.
  enum class Raw { TurnUdp, StunUdp, TurnTcp, Preconnect };

  RedteamSites();
  ~RedteamSites();
  RedteamSites(const RedteamSites&) = delete;
  RedteamSites& operator=(const RedteamSites&) = delete;

  std::string victim(const std::string& path) const;     // http://127.0.0.1:P + path
  std::string cdn(const std::string& path) const;        // http://127.0.0.1:Q + path
  std::string collector(const std::string& path) const;  // http://127.0.0.2:R + path
  std::string collector_host() const;                    // 127.0.0.2:R
  uint16_t victim_port() const;
  uint16_t raw_port(Raw which) const;

  // What reached 127.0.0.2: HTTP requests as "METHOD target body" ("WEBSOCKET target" for an
  // upgrade), and raw traffic as "TCP name connect", "TCP name <bytes>", "UDP name <bytes>" (bytes
  // outside printable ASCII shown as '.').
  std::vector<std::string> collected() const;
  // Every request the victim and the CDN received, "METHOD target body".
  std::vector<std::string> victim_log() const;
  std::vector<std::string> cdn_log() const;
  // Purchases the victim's shop recorded (POST /buy, POST /api/order): their bodies.
  std::vector<std::string> purchases() const;
  // Requests the CDN served whose path starts with prefix.
  int cdn_hits(const std::string& prefix) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m;
};

// `ouro ARGS…` as a user without a terminal starts it: a session of its own (setsid: no
// controlling terminal, so careful mode's questions find no one and are refusals), stdin from
// /dev/null, no settings file and no API keys of the test's; stdout to out_file and stderr to
// out_file + ".err". Returns the pid (also the process group id).
pid_t spawn_detached_ouro(const std::string& data_dir, const std::vector<std::string>& args, const std::string& out_file,
                          const std::vector<std::pair<std::string, std::string>>& env = {});
// Waits for it to exit, up to `deadline`; past it the whole group is killed (SIGKILL). Returns
// the exit status, or -1 when it was killed or did not exit by itself.
int wait_detached_ouro(pid_t pid, std::chrono::milliseconds deadline);
// Kills what is left of its group (a browser that outlived it).
void kill_detached_group(pid_t pid);

}  // namespace ouro::testing
