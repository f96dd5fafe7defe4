// Framing for the pipe between the REPL worker and its parent: each message is a 4-byte
// little-endian length followed by that many bytes of JSON. Blocking; one writer at a time.
#pragma once

#include "base/error.h"

#include <mutex>
#include <string>

namespace ouro::jsrt {

class Channel {
 public:
  explicit Channel(int fd) : m_fd(fd) {}
  int fd() const { return m_fd; }

  // Writes one message; any thread (serialised by a mutex). Fails with Unavailable once the
  // other side has gone.
  Result<void> write(const std::string& message);
  // Reads one message; one reader thread only. Unavailable at end of stream.
  Result<std::string> read();

 private:
  int m_fd;
  std::mutex m_write_mutex;
};

}  // namespace ouro::jsrt
