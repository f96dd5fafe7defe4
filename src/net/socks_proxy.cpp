#include "net/socks_proxy.h"

#include "base/log.h"
#include "net/io.h"
#include "net/timer.h"

#include <boost/asio.hpp>

#include <array>
#include <list>
#include <mutex>
#include <vector>

namespace ouro::net {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {
constexpr size_t kMaxConnections = 512;
constexpr auto kHandshakeDeadline = std::chrono::seconds(10);
constexpr size_t kRelayBuffer = 16 * 1024;

// RFC 1928 §6 replies.
constexpr uint8_t kSucceeded = 0x00, kGeneralFailure = 0x01, kNotAllowed = 0x02, kHostUnreachable = 0x04, kRefused = 0x05,
                  kCommandNotSupported = 0x07, kAddressNotSupported = 0x08;
}  // namespace

struct SocksProxy::Impl : std::enable_shared_from_this<SocksProxy::Impl> {
  explicit Impl(IoThread& thread) : io(thread), acceptor(thread.context()) {}

  struct Conn;
  IoThread& io;
  tcp::acceptor acceptor;
  mutable std::mutex mutex;
  Allow allow;  // guarded by mutex
  std::list<std::weak_ptr<Conn>> conns;  // network thread only
  size_t open = 0;                       // network thread only
  std::atomic<size_t> allowed{0}, refused{0};
  bool closed = false;  // network thread only
  uint16_t port = 0;

  bool judge(const std::string& host, uint16_t p) {
    Allow rule;
    {
      std::lock_guard lock(mutex);
      rule = allow;
    }
    bool ok = false;
    try {
      ok = rule && rule(host, p);
    } catch (const std::exception& e) {
      spdlog::warn("proxy: the rule failed on {}:{} ({}); refused", host.substr(0, 100), p, e.what());
    }
    ++(ok ? allowed : refused);
    return ok;
  }

  void accept();
  void close_all();
  void recheck();
};

struct SocksProxy::Impl::Conn : std::enable_shared_from_this<Conn> {
  Conn(std::shared_ptr<Impl> owner, tcp::socket s)
      : proxy(std::move(owner)), client(std::move(s)), upstream(proxy->io.context()), resolver(proxy->io.context()), timer(proxy->io.context()) {}
  ~Conn() { --proxy->open; }

  std::shared_ptr<Impl> proxy;
  tcp::socket client, upstream;
  tcp::resolver resolver;
  Timer timer;
  std::vector<uint8_t> in;  // handshake bytes
  std::string host;
  uint16_t port = 0;
  std::array<uint8_t, kRelayBuffer> up{}, down{};
  bool decided = false;  // the rule let it through (it connects, or relays)
  bool done = false;

  void stop() {
    if (done) return;
    done = true;
    boost::system::error_code ec;
    timer.cancel();
    resolver.cancel();
    client.close(ec);
    upstream.close(ec);
  }

  // Reads exactly n more bytes into `in`, then calls next.
  template <typename Next>
  void need(size_t n, Next next) {
    size_t at = in.size();
    in.resize(at + n);
    asio::async_read(client, asio::buffer(in.data() + at, n), [self = shared_from_this(), next](boost::system::error_code ec, size_t) {
      if (ec || self->done) return self->stop();
      next();
    });
  }

  void reply(uint8_t code, bool then_relay) {
    // VER REP RSV ATYP BND.ADDR BND.PORT: the bound address is not one a client needs here.
    auto msg = std::make_shared<std::array<uint8_t, 10>>(std::array<uint8_t, 10>{5, code, 0, 1, 0, 0, 0, 0, 0, 0});
    asio::async_write(client, asio::buffer(*msg), [self = shared_from_this(), msg, then_relay](boost::system::error_code ec, size_t) {
      if (ec || !then_relay) return self->stop();
      self->timer.cancel();
      self->relay(self->client, self->upstream, self->up);
      self->relay(self->upstream, self->client, self->down);
    });
  }

  void start() {
    timer.expires_after(kHandshakeDeadline);
    timer.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
      if (auto self = weak.lock(); self && !ec) self->stop();
    });
    // Greeting: VER NMETHODS METHODS…
    need(2, [self = shared_from_this()] {
      if (self->in[0] != 5) return self->stop();
      size_t methods = self->in[1];
      if (methods == 0) return self->stop();
      self->need(methods, [self, methods] {
        bool no_auth = false;
        for (size_t i = 0; i < methods; ++i) no_auth |= self->in[2 + i] == 0;
        auto answer = std::make_shared<std::array<uint8_t, 2>>(std::array<uint8_t, 2>{5, static_cast<uint8_t>(no_auth ? 0x00 : 0xFF)});
        asio::async_write(self->client, asio::buffer(*answer), [self, answer, no_auth](boost::system::error_code ec, size_t) {
          if (ec || !no_auth) return self->stop();
          self->in.clear();
          self->request();
        });
      });
    });
  }

  // Request: VER CMD RSV ATYP DST.ADDR DST.PORT.
  void request() {
    need(4, [self = shared_from_this()] {
      if (self->in[0] != 5) return self->stop();
      if (self->in[1] != 1) return self->reply(kCommandNotSupported, false);  // CONNECT only
      uint8_t type = self->in[3];
      auto with_port = [self, type] {
        size_t at = self->in.size() - 2;
        self->port = static_cast<uint16_t>(self->in[at] << 8 | self->in[at + 1]);
        boost::system::error_code ec;
        if (type == 1) {
          asio::ip::address_v4::bytes_type b;
          std::copy_n(self->in.begin() + 4, 4, b.begin());
          self->host = asio::ip::address_v4(b).to_string();
        } else if (type == 4) {
          asio::ip::address_v6::bytes_type b;
          std::copy_n(self->in.begin() + 4, 16, b.begin());
          self->host = asio::ip::address_v6(b).to_string();
        } else {
          self->host.assign(self->in.begin() + 5, self->in.end() - 2);
          for (char& c : self->host) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
        self->decide();
      };
      if (type == 1) return self->need(4 + 2, with_port);
      if (type == 4) return self->need(16 + 2, with_port);
      if (type != 3) return self->reply(kAddressNotSupported, false);
      self->need(1, [self, with_port] {
        size_t len = self->in[4];
        if (len == 0) return self->reply(kGeneralFailure, false);
        self->need(len + 2, with_port);
      });
    });
  }

  void decide() {
    if (!proxy->judge(host, port)) {
      spdlog::debug("proxy: refused a connection to {}:{}", host.substr(0, 100), port);
      return reply(kNotAllowed, false);
    }
    decided = true;
    resolver.async_resolve(host, std::to_string(port), [self = shared_from_this()](boost::system::error_code ec, tcp::resolver::results_type found) {
      if (self->done) return;
      if (ec) return self->reply(kHostUnreachable, false);
      asio::async_connect(self->upstream, found, [self](boost::system::error_code ec, const tcp::endpoint&) {
        if (self->done) return;
        if (ec) return self->reply(ec == asio::error::connection_refused ? kRefused : kHostUnreachable, false);
        self->reply(kSucceeded, true);
      });
    });
  }

  void relay(tcp::socket& from, tcp::socket& to, std::array<uint8_t, kRelayBuffer>& buffer) {
    from.async_read_some(asio::buffer(buffer), [self = shared_from_this(), &from, &to, &buffer](boost::system::error_code ec, size_t n) {
      if (ec || self->done) return self->stop();
      asio::async_write(to, asio::buffer(buffer.data(), n), [self, &from, &to, &buffer](boost::system::error_code ec, size_t) {
        if (ec || self->done) return self->stop();
        self->relay(from, to, buffer);
      });
    });
  }
};

void SocksProxy::Impl::accept() {
  acceptor.async_accept([self = shared_from_this()](boost::system::error_code ec, tcp::socket socket) {
    if (self->closed || ec == asio::error::operation_aborted) return;
    if (!ec) {
      if (self->open >= kMaxConnections) {
        boost::system::error_code ignored;
        socket.close(ignored);
      } else {
        ++self->open;
        auto conn = std::make_shared<Conn>(self, std::move(socket));
        self->conns.remove_if([](const std::weak_ptr<Conn>& c) { return c.expired(); });
        self->conns.push_back(conn);
        conn->start();
      }
    }
    self->accept();
  });
}

void SocksProxy::Impl::close_all() {
  closed = true;
  boost::system::error_code ec;
  acceptor.close(ec);
  for (auto& weak : conns)
    if (auto c = weak.lock()) c->stop();
  conns.clear();
}

void SocksProxy::Impl::recheck() {
  if (closed) return;
  size_t dropped = 0;
  for (auto& weak : conns)
    if (auto c = weak.lock(); c && c->decided && !c->done && !judge(c->host, c->port)) {
      c->stop();
      ++dropped;
    }
  if (dropped) spdlog::debug("proxy: closed {} open connection(s) the rule now refuses", dropped);
}

Result<std::shared_ptr<SocksProxy>> SocksProxy::start(IoThread& io) {
  auto impl = std::make_shared<Impl>(io);
  boost::system::error_code ec;
  tcp::endpoint ep(asio::ip::make_address("127.0.0.1"), 0);
  impl->acceptor.open(ep.protocol(), ec);
  if (!ec) impl->acceptor.bind(ep, ec);
  if (!ec) impl->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return errorf(Code::Unavailable, "cannot start the egress proxy on 127.0.0.1: {}", ec.message());
  impl->port = impl->acceptor.local_endpoint().port();
  io.post([impl] { impl->accept(); });
  return std::shared_ptr<SocksProxy>(new SocksProxy(impl));
}

SocksProxy::~SocksProxy() {
  auto impl = m_impl;
  {
    std::lock_guard lock(impl->mutex);
    impl->allow = nullptr;  // refuses from now on, whatever is still in flight
  }
  impl->io.post([impl] { impl->close_all(); });
}

void SocksProxy::set_rule(Allow allow) {
  std::lock_guard lock(m_impl->mutex);
  m_impl->allow = std::move(allow);
}

void SocksProxy::recheck() {
  std::weak_ptr<Impl> weak = m_impl;
  m_impl->io.post([weak] {
    if (auto impl = weak.lock()) impl->recheck();
  });
}

uint16_t SocksProxy::port() const { return m_impl->port; }
std::string SocksProxy::url() const { return "socks5://127.0.0.1:" + std::to_string(m_impl->port); }

SocksProxy::Stats SocksProxy::stats() const { return {m_impl->allowed.load(), m_impl->refused.load()}; }

}  // namespace ouro::net
