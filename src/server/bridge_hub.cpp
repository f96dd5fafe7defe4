#include "server/bridge_hub.h"
#include "base/steady_clock.h"

#include "base/json.h"
#include "base/log.h"
#include "cdp/bridge.h"
#include "net/io.h"
#include "net/timer.h"

namespace ouro::server {

namespace {

// Close codes of the application range (RFC 6455 §7.4.2), as docs/design/extension-bridge.md
// assigns them.
constexpr auto kWrongProtocol = static_cast<net::CloseCode>(4002);
constexpr auto kReplaced = static_cast<net::CloseCode>(4003);
// The extension pings every 20 s; a socket silent this long is gone (a suspended laptop, a cut
// cable) and is closed, which fails what waits on it.
constexpr auto kSilence = std::chrono::seconds(60);

}  // namespace

struct BridgeHub::Socket {
  std::string pairing_id;
  std::weak_ptr<net::WsPeer> peer;
  std::shared_ptr<cdp::BridgeLink> link;  // set at hello
  uint64_t order = 0;                     // when it said hello
  // Network thread: when it last heard from the extension, and the timer that looks.
  SteadyClock::time_point heard = SteadyClock::now();
  std::unique_ptr<net::Timer> watch;

  static void arm(const std::shared_ptr<Socket>& s) {
    s->watch->expires_after(std::max(SteadyClock::duration::zero(), s->heard + kSilence - SteadyClock::now()));
    s->watch->async_wait([weak = std::weak_ptr<Socket>(s)](boost::system::error_code ec) {
      auto self = weak.lock();
      if (ec || !self) return;  // cancelled: the socket closed
      if (SteadyClock::now() < self->heard + kSilence) return arm(self);
      if (auto p = self->peer.lock()) p->close(net::CloseCode::GoingAway, "nothing heard from the extension for 60 s");
    });
  }
};

BridgeHub::BridgeHub(net::IoThread& io, std::string version) : m_io(io), m_version(std::move(version)) {}
BridgeHub::~BridgeHub() = default;

void BridgeHub::accept(const std::string& pairing_id, std::shared_ptr<net::WsPeer> peer, net::WsHandlers& handlers) {
  handlers.subprotocol = std::string(kSubprotocol);
  // Screenshots and response bodies: 64 MiB either way, plus the envelope.
  handlers.max_message_bytes = cdp::BridgeLink::kMaxMessageBytes + (64u << 10);
  handlers.outbox_bytes = 2 * cdp::BridgeLink::kMaxMessageBytes;
  auto socket = std::make_shared<Socket>();
  socket->pairing_id = pairing_id;
  socket->peer = peer;
  socket->watch = std::make_unique<net::Timer>(m_io.context());
  Socket::arm(socket);
  std::weak_ptr<BridgeHub> hub = weak_from_this();
  handlers.on_message = [hub, socket](std::string text) {
    auto self = hub.lock();
    if (!self) return;
    socket->heard = SteadyClock::now();
    if (socket->link) return socket->link->on_message(text);
    auto msg = parse_json(text, "the extension's hello");
    auto peer = socket->peer.lock();
    if (!peer) return;
    if (!msg || !msg->is_object() || get_str(*msg, "method") != "hello") return;  // a ping before hello, or noise
    const json& hello = get_field(*msg, "params");
    int64_t protocol = get_int(hello, "protocol", 0);
    if (protocol != cdp::BridgeLink::kProtocol) {
      peer->close(kWrongProtocol, fmt::format("ouro {} speaks bridge protocol {}; this extension speaks {}: use the extension `ouro extension` writes",
                                              self->m_version, cdp::BridgeLink::kProtocol, protocol));
      return;
    }
    std::weak_ptr<net::WsPeer> weak = peer;
    socket->link = cdp::BridgeLink::create(
        self->m_io, [weak](std::string out) {
          auto p = weak.lock();
          return p && p->send(std::move(out)) == net::WsPeer::Sent::Queued;
        },
        hello);
    (void)peer->send(dump_json(json{{"method", "welcome"}, {"params", {{"protocol", cdp::BridgeLink::kProtocol}, {"server", {{"version", self->m_version}}}}}}));
    std::shared_ptr<Socket> replaced;
    {
      std::lock_guard lock(self->m_mutex);
      socket->order = ++self->m_order;
      auto& slot = self->m_by_pairing[socket->pairing_id];
      replaced = std::move(slot);
      slot = socket;
    }
    self->m_changed.notify_all();
    spdlog::info("bridge: extension {} connected (pairing {})", get_str(get_field(hello, "extension"), "id").substr(0, 40), socket->pairing_id);
    if (replaced)
      if (auto old = replaced->peer.lock()) old->close(kReplaced, "replaced by a newer bridge socket of the same pairing");
  };
  handlers.on_close = [hub, socket] {
    socket->watch->cancel();
    auto self = hub.lock();
    if (self) {
      std::lock_guard lock(self->m_mutex);
      auto it = self->m_by_pairing.find(socket->pairing_id);
      if (it != self->m_by_pairing.end() && it->second == socket) self->m_by_pairing.erase(it);
    }
    if (socket->link) socket->link->on_closed("its socket closed (the browser or the extension stopped, or the pairing was revoked)");
    if (self) self->m_changed.notify_all();
  };
}

Result<std::shared_ptr<cdp::BridgeLink>> BridgeHub::link(std::chrono::milliseconds wait, const std::string& preferred) {
  std::unique_lock lock(m_mutex);
  std::shared_ptr<Socket> best;
  wait_for_ms(m_changed, lock, wait, [&] {
    best = nullptr;
    for (auto& [id, s] : m_by_pairing)
      if (s->link && !s->link->closed() && (!best || s->order > best->order)) best = s;
    if (auto p = m_by_pairing.find(preferred); !preferred.empty() && p != m_by_pairing.end() && p->second->link && !p->second->link->closed())
      best = p->second;
    return best != nullptr;
  });
  if (!best)
    return make_error(Code::FailedPrecondition,
                      "no ouro extension is connected. Load it: run `ouro extension`, open chrome://extensions, turn on Developer mode, "
                      "Load unpacked → the folder it printed; then open its side panel and enter the pairing code ouro serve printed "
                      "(Settings in the Command Center shows it)");
  return best->link;
}

bool BridgeHub::connected(const std::string& pairing_id) const {
  std::lock_guard lock(m_mutex);
  auto it = m_by_pairing.find(pairing_id);
  return it != m_by_pairing.end() && it->second->link && !it->second->link->closed();
}

}  // namespace ouro::server
