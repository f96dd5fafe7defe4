#include "raw_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

namespace ouro::testing {

RawServer::RawServer() {
  m_listen = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(m_listen, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(m_listen, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(m_listen, 16) != 0)
    throw std::runtime_error("RawServer: cannot listen");
  socklen_t len = sizeof addr;
  getsockname(m_listen, reinterpret_cast<sockaddr*>(&addr), &len);
  m_port = ntohs(addr.sin_port);
  m_thread = std::thread([this] { serve(); });
}

RawServer::~RawServer() {
  {
    std::lock_guard lock(m_mutex);
    m_stop = true;
  }
  shutdown(m_listen, SHUT_RDWR);
  close(m_listen);
  m_thread.join();
  for (auto& t : m_connections) t.join();
}

std::string RawServer::url() const { return "http://127.0.0.1:" + std::to_string(m_port); }

void RawServer::push(std::vector<Step> steps) {
  std::lock_guard lock(m_mutex);
  m_scripts.push_back(std::move(steps));
}

std::vector<std::string> RawServer::requests() const {
  std::lock_guard lock(m_mutex);
  return m_requests;
}

std::string RawServer::sse_head() {
  return "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n";
}

std::string RawServer::error_response(int status, const std::string& body, const std::string& extra_headers) {
  return "HTTP/1.1 " + std::to_string(status) + " Status\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\nConnection: close\r\n" + extra_headers + "\r\n" + body;
}

void RawServer::serve() {
  while (true) {
    pollfd p{m_listen, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) {
      std::lock_guard lock(m_mutex);
      if (m_stop) return;
      continue;
    }
    int c = accept4(m_listen, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) {
      std::lock_guard lock(m_mutex);
      if (m_stop) return;
      continue;
    }
    // Each connection plays on its own thread, so a stalled one does not hold up the next.
    std::lock_guard lock(m_mutex);
    m_connections.emplace_back([this, c] { handle(c); });
  }
}

void RawServer::handle(int c) {
  {
    int one = 1;
    setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    // Read the request: head, then Content-Length bytes of body.
    std::string req;
    char buf[8192];
    size_t want = std::string::npos;
    while (true) {
      ssize_t n = read(c, buf, sizeof buf);
      if (n <= 0) break;
      req.append(buf, static_cast<size_t>(n));
      auto head_end = req.find("\r\n\r\n");
      if (head_end != std::string::npos && want == std::string::npos) {
        size_t len = 0;
        auto cl = req.find("ontent-Length:");
        if (cl == std::string::npos) cl = req.find("ontent-length:");
        if (cl != std::string::npos) len = std::strtoul(req.c_str() + cl + 14, nullptr, 10);
        want = head_end + 4 + len;
      }
      if (want != std::string::npos && req.size() >= want) break;
    }
    std::vector<Step> steps;
    {
      std::lock_guard lock(m_mutex);
      m_requests.push_back(req);
      if (!m_scripts.empty()) {
        steps = std::move(m_scripts.front());
        m_scripts.pop_front();
      } else {
        steps = {Step::write(error_response(500, R"({"error":{"message":"no scripted response left"}})"))};
      }
    }
    for (const auto& s : steps) {
      if (s.kind == Step::Write) {
        if (send(c, s.bytes.data(), s.bytes.size(), MSG_NOSIGNAL) < 0) break;
      } else if (s.kind == Step::Sleep) {
        std::this_thread::sleep_for(s.pause);
      } else {
        break;
      }
    }
    // Closing with unread data would reset; shut the write side and drain first.
    shutdown(c, SHUT_WR);
    close(c);
  }
}

}  // namespace ouro::testing
