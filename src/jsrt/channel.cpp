#include "jsrt/channel.h"

#include <cerrno>
#include <cstring>
#include <sys/socket.h>
#include <unistd.h>

namespace ouro::jsrt {

namespace {

constexpr uint32_t kMaxMessage = 512u << 20;

bool write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool read_all(int fd, char* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::read(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

Result<void> Channel::write(const std::string& message) {
  if (message.size() > kMaxMessage) return errorf(Code::ResourceExhausted, "message of {} bytes is over the {} byte limit", message.size(), kMaxMessage);
  uint32_t n = static_cast<uint32_t>(message.size());
  unsigned char header[4] = {static_cast<unsigned char>(n), static_cast<unsigned char>(n >> 8),
                             static_cast<unsigned char>(n >> 16), static_cast<unsigned char>(n >> 24)};
  std::lock_guard lock(m_write_mutex);
  if (!write_all(m_fd, reinterpret_cast<char*>(header), 4) || !write_all(m_fd, message.data(), message.size()))
    return make_error(Code::Unavailable, "the other end of the REPL pipe is gone");
  return {};
}

Result<std::string> Channel::read() {
  unsigned char header[4];
  if (!read_all(m_fd, reinterpret_cast<char*>(header), 4)) return make_error(Code::Unavailable, "the REPL pipe closed");
  uint32_t n = header[0] | (header[1] << 8) | (header[2] << 16) | (uint32_t(header[3]) << 24);
  if (n > kMaxMessage) return errorf(Code::DataLoss, "REPL message of {} bytes is over the limit", n);
  std::string out(n, '\0');
  if (!read_all(m_fd, out.data(), n)) return make_error(Code::Unavailable, "the REPL pipe closed mid-message");
  return out;
}

}  // namespace ouro::jsrt
