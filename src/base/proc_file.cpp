#include "base/proc_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace ouro {

std::string read_proc_fd(int fd, size_t limit) {
  std::string text;
  char chunk[4096];
  while (text.size() < limit) {
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return "";  // ESRCH: the process went while we read
    if (n == 0) break;
    text.append(chunk, std::min(static_cast<size_t>(n), limit - text.size()));
  }
  return text;
}

std::string read_proc_file(const std::string& path, size_t limit) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string text = read_proc_fd(fd, limit);
  ::close(fd);
  return text;
}

}  // namespace ouro
