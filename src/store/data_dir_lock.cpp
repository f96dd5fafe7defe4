#include "store/data_dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include <fmt/format.h>

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

std::optional<long> holder_of(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::optional<long> pid;
  // Held if we cannot take a shared lock on it; a lock file nobody holds is a server that ended.
  if (::flock(fd, LOCK_SH | LOCK_NB) != 0) pid = pid_in(fd).value_or(0);
  else ::flock(fd, LOCK_UN);
  ::close(fd);
  return pid;
}

// The lock at `path`, or FailedPrecondition with `held(pid text)` as its message.
template <class Held>
Result<int> take(const std::string& path, Held held) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return errorf(Code::Unavailable, "cannot open {}: {}; check that its directory exists and is yours", path, std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    auto pid = pid_in(fd);
    ::close(fd);
    return make_error(Code::FailedPrecondition, held(pid ? "pid " + std::to_string(*pid) : "its process id is not recorded"));
  }
  std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
    // The lock holds without the note; a second server is still refused, without the pid.
  }
  return fd;
}

}  // namespace

std::optional<long> DataDirLock::holder(const std::string& data_dir) { return holder_of(lock_path(data_dir)); }

Result<std::unique_ptr<DataDirLock>> DataDirLock::acquire(const std::string& data_dir) {
  int fd = TRY(take(lock_path(data_dir), [&](const std::string& who) {
    return fmt::format("the data directory {} is used by another ouro serve ({}); a data directory on SQLite serves one node at a time. "
                       "Stop that server, or give this one another --data-dir or --workspace",
                       data_dir, who);
  }));
  return std::unique_ptr<DataDirLock>(new DataDirLock(fd));
}

// The file's lock beside it, named by its real path: two spellings of one file (relative,
// through a symbolic link) share one lock. Its directory is made if need be (as Database::open would).
std::string database_lock_path(const std::string& sqlite_file) {
  std::error_code ec;
  std::filesystem::path named = std::filesystem::absolute(sqlite_file, ec);
  if (ec) named = sqlite_file;
  // A link to a file not made yet is followed too (weakly_canonical keeps the name of a link whose
  // target does not exist): the server that makes the file through it holds the file's own lock.
  for (int hop = 0; hop < 40 && std::filesystem::is_symlink(named, ec); ++hop) {
    auto target = std::filesystem::read_symlink(named, ec);
    if (ec) break;
    named = target.is_absolute() ? target : named.parent_path() / target;
  }
  auto file = std::filesystem::weakly_canonical(named, ec);
  if (ec) file = named;
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), ec);
  return file.string() + ".lock";
}

std::optional<long> DataDirLock::database_holder(const std::string& sqlite_file) { return holder_of(database_lock_path(sqlite_file)); }

Result<std::unique_ptr<DataDirLock>> DataDirLock::acquire_database(const std::string& sqlite_file) {
  int fd = TRY(take(database_lock_path(sqlite_file), [&](const std::string& who) {
    return fmt::format("the database {} is used by another ouro serve ({}); an SQLite database serves one node at a time. "
                       "Stop that server, or give this one another --database (several nodes share a postgresql:// database)",
                       sqlite_file, who);
  }));
  return std::unique_ptr<DataDirLock>(new DataDirLock(fd));
}

DataDirLock::~DataDirLock() {
  if (m_fd >= 0) ::close(m_fd);  // closing the descriptor releases the flock
}

}  // namespace ouro::store
