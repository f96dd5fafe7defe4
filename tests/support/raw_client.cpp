#include "raw_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace ouro::testing {

using Clock = std::chrono::steady_clock;

uint16_t WsFrame::close_code() const {
  if (payload.size() < 2) return 0;
  return static_cast<uint16_t>((static_cast<unsigned char>(payload[0]) << 8) | static_cast<unsigned char>(payload[1]));
}

std::string WsFrame::close_reason() const { return payload.size() > 2 ? payload.substr(2) : ""; }

RawClient::RawClient(uint16_t port) : m_port(port) {
  m_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  if (m_fd < 0 || connect(m_fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    if (m_fd >= 0) close(m_fd);
    throw std::runtime_error("RawClient: cannot connect to port " + std::to_string(port));
  }
  int one = 1;
  setsockopt(m_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

RawClient::~RawClient() {
  if (m_fd >= 0) close(m_fd);
}

bool RawClient::send(std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::send(m_fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

bool RawClient::fill(size_t want, Clock::time_point until) {
  char buf[65536];
  while (m_pending.size() < want && !m_eof) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{m_fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left)) <= 0) continue;
    ssize_t n = recv(m_fd, buf, sizeof buf, 0);
    if (n <= 0) {
      m_eof = true;
      break;
    }
    m_pending.append(buf, static_cast<size_t>(n));
  }
  return m_pending.size() >= want;
}

RawResponse RawClient::read_response(std::chrono::milliseconds deadline, bool head_request) {
  auto until = Clock::now() + deadline;
  RawResponse out;
  size_t head_end;
  while ((head_end = m_pending.find("\r\n\r\n")) == std::string::npos)
    if (!fill(m_pending.size() + 1, until)) return out;
  std::string head = m_pending.substr(0, head_end);
  m_pending.erase(0, head_end + 4);
  if (head.rfind("HTTP/1.", 0) == 0 && head.size() > 12) out.status = std::atoi(head.c_str() + 9);
  size_t pos = head.find("\r\n");
  while (pos != std::string::npos) {
    size_t next = head.find("\r\n", pos + 2);
    std::string line = head.substr(pos + 2, next == std::string::npos ? std::string::npos : next - pos - 2);
    if (auto colon = line.find(':'); colon != std::string::npos) {
      std::string name = line.substr(0, colon);
      std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      out.headers[name] = line.substr(line.find_first_not_of(' ', colon + 1));
    }
    pos = next;
  }
  size_t length = !head_request && out.headers.count("content-length") ? std::stoul(out.headers["content-length"]) : 0;
  out.complete = fill(length, until);
  out.body = m_pending.substr(0, std::min(length, m_pending.size()));
  m_pending.erase(0, out.body.size());
  return out;
}

std::string RawClient::read_to_close(std::chrono::milliseconds deadline) {
  auto until = Clock::now() + deadline;
  while (!m_eof && Clock::now() < until) fill(m_pending.size() + 1, until);
  std::string out = std::move(m_pending);
  m_pending.clear();
  return out;
}

bool RawClient::closed_within(std::chrono::milliseconds deadline) {
  auto until = Clock::now() + deadline;
  while (!m_eof) {
    m_pending.clear();
    if (Clock::now() >= until) return false;
    fill(1, until);
  }
  return true;
}

std::optional<WsFrame> RawClient::read_frame(std::chrono::milliseconds deadline) {
  auto until = Clock::now() + deadline;
  if (!fill(2, until)) return std::nullopt;
  auto byte = [&](size_t i) { return static_cast<unsigned char>(m_pending[i]); };
  WsFrame f;
  f.opcode = byte(0) & 0x0f;
  f.fin = (byte(0) & 0x80) != 0;
  size_t length = byte(1) & 0x7f, at = 2;
  if (length == 126) {
    if (!fill(4, until)) return std::nullopt;
    length = (byte(2) << 8) | byte(3);
    at = 4;
  } else if (length == 127) {
    if (!fill(10, until)) return std::nullopt;
    length = 0;
    for (size_t i = 2; i < 10; ++i) length = (length << 8) | byte(i);
    at = 10;
  }
  if (!fill(at + length, until)) return std::nullopt;
  f.payload = m_pending.substr(at, length);
  m_pending.erase(0, at + length);
  return f;
}

std::optional<WsFrame> RawClient::read_message(std::chrono::milliseconds deadline) {
  auto until = Clock::now() + deadline;
  auto left = [&] { return std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()); };
  auto first = read_frame(left());
  if (!first || first->opcode >= 8) return first;
  while (!first->fin) {
    auto next = read_frame(left());
    if (!next) return std::nullopt;
    first->payload += next->payload;
    first->fin = next->fin;
  }
  return first;
}

RawResponse RawClient::upgrade(const std::string& target, const std::string& extra_headers) {
  send("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(m_port) +
       "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
       "Sec-WebSocket-Version: 13\r\n" + extra_headers + "\r\n");
  return read_response();
}

}  // namespace ouro::testing
