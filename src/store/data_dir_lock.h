// One `ouro serve` per data directory on SQLite: the server holds an exclusive lock on
// `<data dir>/serve.lock` (flock(2), released by the kernel when the process ends, however it ends)
// with its process id written inside, so a second server — or a resume of a run the first is
// doing — is refused at once, naming the holder, instead of marking that server's live runs
// interrupted.
#pragma once

#include "base/error.h"

#include <memory>
#include <optional>
#include <string>

namespace ouro::store {

class DataDirLock {
 public:
  // FailedPrecondition naming the process that holds it ("… is used by ouro serve (pid 4242) …");
  // Unavailable when the lock file cannot be opened.
  [[nodiscard]] static Result<std::unique_ptr<DataDirLock>> acquire(const std::string& data_dir);
  ~DataDirLock();
  DataDirLock(const DataDirLock&) = delete;
  DataDirLock& operator=(const DataDirLock&) = delete;

  // The process id of a live server holding the data directory, if one does. Never blocks.
  static std::optional<long> holder(const std::string& data_dir);

 private:
  explicit DataDirLock(int fd) : m_fd(fd) {}
  int m_fd = -1;
};

}  // namespace ouro::store
