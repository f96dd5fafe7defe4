#include "base/private_file.h"
#include "base/random.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <random>

namespace ouro {

namespace {

std::string random_suffix(int length) { return random_id("", static_cast<size_t>(length)); }

}  // namespace

Result<void> write_private_file(const std::string& path, const std::string& content) {
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 8 && fd < 0; ++attempt) {
    tmp = path + ".tmp-" + random_suffix(12);
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST) return errorf(Code::Internal, "cannot create {}: {}", tmp, std::strerror(errno));
  }
  if (fd < 0) return errorf(Code::Internal, "cannot create a temporary file next to {}", path);
  auto fail = [&](const char* what) {
    int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    return errorf(Code::Internal, "cannot {} {}: {}", what, tmp, std::strerror(err));
  };
  for (size_t done = 0; done < content.size();) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail("write");
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) return fail("flush");
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return errorf(Code::Internal, "cannot write {}: {}", tmp, std::strerror(err));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return errorf(Code::Internal, "cannot replace {}: {}", path, std::strerror(err));
  }
  // The rename itself reaches the disk with the directory.
  std::string dir = path.substr(0, path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/'));
  if (int d = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); d >= 0) {
    (void)::fsync(d);
    ::close(d);
  }
  return {};
}

}  // namespace ouro
