// One `ouro serve` per data directory and per SQLite database file: the server holds an exclusive
// lock on `<data dir>/serve.lock` and on `<database file>.lock` beside the SQLite file it uses
// (flock(2), released by the kernel when the process ends, however it ends) with its process id
// written inside, so a second server — from another data directory given the same file by
// --database, OURO_DATABASE or the settings file — or a resume of a run the first is doing is
// refused at once, naming the holder, instead of marking that server's live runs interrupted.
// The lock is a file of its own: a second descriptor on the database itself, once closed, would
// drop the locks SQLite keeps on it (https://www.sqlite.org/howtocorrupt.html, section 2.2).
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

  // The same for an SQLite database file, wherever it is (`<file>.lock` beside it).
  [[nodiscard]] static Result<std::unique_ptr<DataDirLock>> acquire_database(const std::string& sqlite_file);
  static std::optional<long> database_holder(const std::string& sqlite_file);

 private:
  explicit DataDirLock(int fd) : m_fd(fd) {}
  int m_fd = -1;
};

}  // namespace ouro::store
