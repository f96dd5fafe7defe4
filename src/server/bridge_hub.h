// The extensions connected to `ouro serve` over /api/bridge (docs/design/extension-bridge.md,
// "The bridge socket"): one socket per pairing (a second replaces the first, close 4003), the
// hello/welcome exchange (another protocol version closes with 4002), and the link each one
// gives runs that use the extension as their browser (cdp/bridge.h).
//
// Threads: accept() and what it installs run on the network thread; link() and connected() may
// be called from any thread (link() blocks up to its wait, so not from the network thread).
#pragma once

#include "base/error.h"
#include "net/http_server.h"

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace ouro::cdp { class BridgeLink; }
namespace ouro::net { class IoThread; }

namespace ouro::server {

class BridgeHub : public std::enable_shared_from_this<BridgeHub> {
 public:
  static constexpr std::string_view kSubprotocol = "ouro-bridge.1";

  // Held by a shared_ptr (its sockets' handlers keep a weak reference). `io` must outlive it.
  BridgeHub(net::IoThread& io, std::string version);
  ~BridgeHub();

  // Takes an upgrade of /api/bridge whose credential (pairing `pairing_id`) and Origin passed:
  // sets the subprotocol and the 64 MiB message limit, and the handlers. Network thread.
  void accept(const std::string& pairing_id, std::shared_ptr<net::WsPeer> peer, net::WsHandlers& handlers);

  // The link of pairing `preferred` when it is connected, else of the extension that said hello
  // most recently, waiting up to `wait` for one (a service worker Chrome stopped reconnects
  // within 30 s). FailedPrecondition, saying how to load and pair the extension, when none is.
  Result<std::shared_ptr<cdp::BridgeLink>> link(std::chrono::milliseconds wait, const std::string& preferred = {});
  bool connected(const std::string& pairing_id) const;

 private:
  struct Socket;
  net::IoThread& m_io;
  std::string m_version;
  mutable std::mutex m_mutex;
  std::condition_variable m_changed;
  std::map<std::string, std::shared_ptr<Socket>> m_by_pairing;  // welcomed sockets
  uint64_t m_order = 0;
};

}  // namespace ouro::server
