#include "store/data_dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace ouro::store {

namespace {
std::string lock_path(const std::string& data_dir) { return data_dir + "/serve.lock"; }

std::optional<long> pid_in(int fd) {
  char buf[32] = {};
  ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return std::nullopt;
  char* end = nullptr;
  long pid = std::strtol(buf, &end, 10);
  return pid > 0 ? std::optional<long>(pid) : std::nullopt;
}
}  // namespace

std::optional<long> DataDirLock::holder(const std::string& data_dir) {
  int fd = ::open(lock_path(data_dir).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::optional<long> pid;
  // Held if we cannot take a shared lock on it; a lock file nobody holds is a server that ended.
  if (::flock(fd, LOCK_SH | LOCK_NB) != 0) pid = pid_in(fd).value_or(0);
  else ::flock(fd, LOCK_UN);
  ::close(fd);
  return pid;
}

Result<std::unique_ptr<DataDirLock>> DataDirLock::acquire(const std::string& data_dir) {
  int fd = ::open(lock_path(data_dir).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0)
    return errorf(Code::Unavailable, "cannot open {}: {}; check that the data directory exists and is yours", lock_path(data_dir),
                  std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    auto pid = pid_in(fd);
    ::close(fd);
    return errorf(Code::FailedPrecondition,
                  "the data directory {} is used by another ouro serve ({}); a data directory on SQLite serves one node at a time. "
                  "Stop that server, or give this one another --data-dir or --workspace",
                  data_dir, pid ? "pid " + std::to_string(*pid) : "its process id is not recorded");
  }
  std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
    // The lock holds without the note; a second server is still refused, without the pid.
  }
  return std::unique_ptr<DataDirLock>(new DataDirLock(fd));
}

DataDirLock::~DataDirLock() {
  if (m_fd >= 0) ::close(m_fd);  // closing the descriptor releases the flock
}

}  // namespace ouro::store
