// The egress proxy (net/socks_proxy.h) as a SOCKS5 client sees it (RFC 1928): what the rule
// allows is relayed both ways, what it refuses gets reply 0x02 and no connection is ever made,
// and what is not SOCKS5 CONNECT is answered as the RFC says and closed; a client that stops in
// the middle of its handshake is closed at the deadline, on the one clock a test moves.
#include "base/clock.h"
#include "net/io.h"
#include "net/socks_proxy.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ouro::net {
namespace {

// A TCP server on 127.0.0.1 that echoes what it reads and counts its connections.
class Echo {
 public:
  Echo() {
    m_fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(m_fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    listen(m_fd, 16);
    socklen_t len = sizeof a;
    getsockname(m_fd, reinterpret_cast<sockaddr*>(&a), &len);
    m_port = ntohs(a.sin_port);
    m_thread = std::thread([this] {
      for (;;) {
        int c = accept(m_fd, nullptr, nullptr);
        if (c < 0) return;
        ++m_accepted;
        char buf[256];
        ssize_t n;
        while ((n = read(c, buf, sizeof buf)) > 0) (void)!write(c, buf, static_cast<size_t>(n));
        close(c);
      }
    });
  }
  ~Echo() {
    shutdown(m_fd, SHUT_RDWR);
    close(m_fd);
    m_thread.join();
  }
  uint16_t port() const { return m_port; }
  int accepted() const { return m_accepted; }

 private:
  int m_fd = -1;
  uint16_t m_port = 0;
  std::atomic<int> m_accepted{0};
  std::thread m_thread;
};

int connect_to(uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) ADD_FAILURE() << "cannot connect to the proxy";
  timeval tv{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return fd;
}

std::string send_and_read(int fd, const std::vector<uint8_t>& bytes, size_t want) {
  if (!bytes.empty()) (void)!write(fd, bytes.data(), bytes.size());
  std::string out;
  char buf[64];
  while (out.size() < want) {
    ssize_t n = read(fd, buf, std::min(sizeof buf, want - out.size()));
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

bool closed_by_peer(int fd) {
  char c;
  return read(fd, &c, 1) == 0;
}

std::vector<uint8_t> connect_ipv4(uint16_t port) { return {5, 1, 0, 1, 127, 0, 0, 1, static_cast<uint8_t>(port >> 8), static_cast<uint8_t>(port & 0xff)}; }

struct Proxy {
  std::unique_ptr<IoThread> io = IoThread::start();
  std::shared_ptr<SocksProxy> proxy = *SocksProxy::start(*io);
  std::mutex mutex;
  std::vector<std::string> asked;
  void allow_port(uint16_t allowed) {
    proxy->set_rule([this, allowed](const std::string& host, uint16_t port) {
      std::lock_guard lock(mutex);
      asked.push_back(host + ":" + std::to_string(port));
      return port == allowed;
    });
  }
  ~Proxy() {
    proxy.reset();
    io.reset();
  }
};

TEST(SocksProxy, RelaysWhatTheRuleAllowsBothWays) {
  Echo echo;
  Proxy p;
  p.allow_port(echo.port());
  int fd = connect_to(p.proxy->port());
  EXPECT_EQ(send_and_read(fd, {5, 1, 0}, 2), std::string("\x05\x00", 2));
  std::string reply = send_and_read(fd, connect_ipv4(echo.port()), 10);
  ASSERT_EQ(reply.size(), 10u);
  EXPECT_EQ(reply[1], 0x00) << "succeeded";
  EXPECT_EQ(send_and_read(fd, {'p', 'i', 'n', 'g'}, 4), "ping");
  close(fd);
  EXPECT_EQ(echo.accepted(), 1);
  EXPECT_EQ(p.proxy->stats().allowed, 1u);
}

TEST(SocksProxy, RefusesWhatTheRuleRefusesWithoutConnecting) {
  Echo echo;
  Proxy p;
  p.allow_port(1);  // not the echo server's
  int fd = connect_to(p.proxy->port());
  send_and_read(fd, {5, 1, 0}, 2);
  std::string reply = send_and_read(fd, connect_ipv4(echo.port()), 10);
  ASSERT_GE(reply.size(), 2u);
  EXPECT_EQ(reply[1], 0x02) << "connection not allowed by ruleset";
  EXPECT_TRUE(closed_by_peer(fd));
  close(fd);
  EXPECT_EQ(echo.accepted(), 0) << "a refused connection is never made";
  EXPECT_EQ(p.proxy->stats().refused, 1u);
}

TEST(SocksProxy, TheRuleSeesHostNamesUnresolved) {
  Echo echo;
  Proxy p;
  p.allow_port(echo.port());
  int fd = connect_to(p.proxy->port());
  send_and_read(fd, {5, 1, 0}, 2);
  std::vector<uint8_t> req = {5, 1, 0, 3, 9};
  for (char c : std::string("LocalHost")) req.push_back(static_cast<uint8_t>(c));
  req.push_back(static_cast<uint8_t>(echo.port() >> 8));
  req.push_back(static_cast<uint8_t>(echo.port() & 0xff));
  std::string reply = send_and_read(fd, req, 10);
  ASSERT_EQ(reply.size(), 10u);
  EXPECT_EQ(reply[1], 0x00);
  close(fd);
  std::lock_guard lock(p.mutex);
  ASSERT_EQ(p.asked.size(), 1u);
  EXPECT_EQ(p.asked[0], "localhost:" + std::to_string(echo.port())) << "names are judged as sent, in lower case";
}

TEST(SocksProxy, ARuleThatTightensClosesTheConnectionsItNowRefuses) {
  // A browser keeps connections alive and sends later requests over them: one opened while the
  // rule was loose must not outlive the rule's tightening.
  Echo kept, dropped;
  Proxy p;
  std::atomic<uint16_t> only{0};
  p.proxy->set_rule([&](const std::string&, uint16_t port) { return only == 0 || port == only; });
  auto open_to = [&](uint16_t port) {
    int fd = connect_to(p.proxy->port());
    send_and_read(fd, {5, 1, 0}, 2);
    std::string reply = send_and_read(fd, connect_ipv4(port), 10);
    EXPECT_EQ(reply.size(), 10u);
    EXPECT_EQ(send_and_read(fd, {'h', 'i'}, 2), "hi");
    return fd;
  };
  int a = open_to(kept.port()), b = open_to(dropped.port());
  only = kept.port();
  p.proxy->recheck();
  EXPECT_TRUE(closed_by_peer(b)) << "the connection the rule now refuses is closed";
  EXPECT_EQ(send_and_read(a, {'o', 'k'}, 2), "ok") << "the one it still allows goes on";
  close(a);
  close(b);
}

TEST(SocksProxy, WithoutARuleNothingGoes) {
  Echo echo;
  Proxy p;
  int fd = connect_to(p.proxy->port());
  send_and_read(fd, {5, 1, 0}, 2);
  std::string reply = send_and_read(fd, connect_ipv4(echo.port()), 10);
  ASSERT_GE(reply.size(), 2u);
  EXPECT_EQ(reply[1], 0x02);
  close(fd);
  EXPECT_EQ(echo.accepted(), 0);
}

TEST(SocksProxy, WhatIsNotSocks5ConnectIsAnsweredAndClosed) {
  Echo echo;
  Proxy p;
  p.allow_port(echo.port());
  // Only username/password offered: "no acceptable methods".
  int fd = connect_to(p.proxy->port());
  EXPECT_EQ(send_and_read(fd, {5, 1, 2}, 2), std::string("\x05\xff", 2));
  EXPECT_TRUE(closed_by_peer(fd));
  close(fd);
  // SOCKS4, or an HTTP request: closed.
  fd = connect_to(p.proxy->port());
  EXPECT_EQ(send_and_read(fd, {'G', 'E', 'T', ' ', '/', ' '}, 1), "");
  close(fd);
  // BIND and UDP ASSOCIATE: "command not supported".
  fd = connect_to(p.proxy->port());
  send_and_read(fd, {5, 1, 0}, 2);
  std::string reply = send_and_read(fd, {5, 3, 0, 1, 127, 0, 0, 1, 0, 53}, 10);
  ASSERT_GE(reply.size(), 2u);
  EXPECT_EQ(reply[1], 0x07);
  close(fd);
  EXPECT_EQ(echo.accepted(), 0);
}

TEST(SocksProxy, AClientSilentInItsHandshakeIsClosedAtTheDeadlineOnTheOneClock) {
  ManualClock clock(1'700'000'000'000.0);
  Echo echo;
  Proxy p;
  p.allow_port(echo.port());
  int fd = connect_to(p.proxy->port());
  // Greeted, then silent: no CONNECT follows.
  EXPECT_EQ(send_and_read(fd, {5, 1, 0}, 2), std::string("\x05\x00", 2));
  pollfd pf{fd, POLLIN, 0};
  clock.advance(9'000);
  EXPECT_EQ(poll(&pf, 1, 300), 0) << "closed before its 10 s deadline";
  // Past the deadline on the clock, not on the wall: closed at once, without waiting 10 s.
  clock.advance(1'100);
  pf.revents = 0;
  ASSERT_EQ(poll(&pf, 1, 5000), 1) << "still open past its deadline";
  EXPECT_TRUE(closed_by_peer(fd));
  close(fd);
  EXPECT_EQ(echo.accepted(), 0);
}

}  // namespace
}  // namespace ouro::net
