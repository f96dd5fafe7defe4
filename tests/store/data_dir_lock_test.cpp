// One `ouro serve` per data directory and per SQLite file (store/data_dir_lock.h): a second holder
// is refused at once naming the process that holds the lock, the lock goes with its holder however
// that holder ends (a child killed with SIGKILL, a child that outlives it through exec), a lock
// file a dead server left behind is taken over, two spellings of one database share one lock, and
// a directory that cannot hold the lock file is Unavailable saying what to check.
#include "store/data_dir_lock.h"

#include "basics.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace ouro::store {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A child process that takes `dir`'s lock, says so on a pipe and then waits until it is killed.
// Returns its pid, or -1 when it could not take the lock.
pid_t child_holding(const std::string& dir) {
  int ready[2];
  if (::pipe(ready) != 0) return -1;
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(ready[0]);
    auto lock = DataDirLock::acquire(dir);
    char ok = lock ? '1' : '0';
    (void)!::write(ready[1], &ok, 1);
    if (!lock) ::_exit(1);
    for (;;) ::pause();  // holds the lock until it is killed
  }
  ::close(ready[1]);
  char got = 0;
  ssize_t n = ::read(ready[0], &got, 1);
  ::close(ready[0]);
  if (pid > 0 && (n != 1 || got != '1')) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    return -1;
  }
  return pid;
}

void kill_and_reap(pid_t pid) {
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
}

// --- The data directory ---------------------------------------------------------------------------

TEST(DataDirLock, ASecondServerOnTheSameDirectoryIsRefusedNamingTheHolder) {
  const std::string dir = testing::temp_dir();
  auto first = DataDirLock::acquire(dir);
  ASSERT_TRUE(first) << first.error().message;
  // flock locks belong to an open file description: a second open() in this process conflicts
  // with the first as another process's would.
  auto second = DataDirLock::acquire(dir);
  ASSERT_FALSE(second) << "two servers on one data directory";
  EXPECT_EQ(second.error().code, Code::FailedPrecondition);
  const std::string& why = second.error().message;
  EXPECT_TRUE(contains(why, "pid " + std::to_string(::getpid()))) << why;
  EXPECT_TRUE(contains(why, dir)) << why;
  EXPECT_TRUE(contains(why, "--data-dir")) << "it says what to do instead: " << why;
  EXPECT_EQ(DataDirLock::holder(dir), std::optional<long>(::getpid()));
  EXPECT_TRUE(DataDirLock::acquire(testing::temp_dir())) << "another data directory is free";
}

TEST(DataDirLock, TheLockGoesWhenItsHolderIsDestroyed) {
  const std::string dir = testing::temp_dir();
  {
    auto first = DataDirLock::acquire(dir);
    ASSERT_TRUE(first) << first.error().message;
    ASSERT_TRUE(DataDirLock::holder(dir));
  }
  EXPECT_EQ(DataDirLock::holder(dir), std::nullopt) << "a lock file nobody holds names no holder";
  auto again = DataDirLock::acquire(dir);
  EXPECT_TRUE(again) << again.error().message;
}

TEST(DataDirLock, AskingForTheHolderNeitherTakesTheLockNorMakesTheFile) {
  const std::string dir = testing::temp_dir();
  EXPECT_EQ(DataDirLock::holder(dir), std::nullopt);
  EXPECT_FALSE(std::filesystem::exists(dir + "/serve.lock")) << "holder() only looks";
  auto lock = DataDirLock::acquire(dir);
  ASSERT_TRUE(lock) << lock.error().message;
  for (int i = 0; i < 3; ++i) EXPECT_EQ(DataDirLock::holder(dir), std::optional<long>(::getpid()));
  EXPECT_FALSE(DataDirLock::acquire(dir)) << "the holder still holds after being asked about";
}

TEST(DataDirLock, AnotherProcessIsRefusedAndTheLockGoesWhenThatProcessIsKilled) {
  const std::string dir = testing::temp_dir();
  const pid_t child = child_holding(dir);
  ASSERT_GT(child, 0) << "the child could not take the lock";
  auto refused = DataDirLock::acquire(dir);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, Code::FailedPrecondition);
  EXPECT_TRUE(contains(refused.error().message, "pid " + std::to_string(child))) << refused.error().message;
  EXPECT_EQ(DataDirLock::holder(dir), std::optional<long>(child));

  kill_and_reap(child);  // SIGKILL: no destructor runs, the kernel drops the lock
  EXPECT_EQ(DataDirLock::holder(dir), std::nullopt);
  auto taken = DataDirLock::acquire(dir);
  ASSERT_TRUE(taken) << taken.error().message;
  EXPECT_EQ(DataDirLock::holder(dir), std::optional<long>(::getpid()));
}

TEST(DataDirLock, ALockFileLeftByADeadServerIsTakenOverWithThisProcessId) {
  const std::string dir = testing::temp_dir();
  // A process id that is surely no server's: a child that has ended and been reaped.
  pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ASSERT_GT(dead, 0);
  ::waitpid(dead, nullptr, 0);
  {
    std::ofstream stale(dir + "/serve.lock", std::ios::binary);
    stale << dead << "\nand a longer tail of what the old server wrote\n";
  }
  EXPECT_EQ(DataDirLock::holder(dir), std::nullopt) << "a pid in a file nobody locks is no holder";
  auto lock = DataDirLock::acquire(dir);
  ASSERT_TRUE(lock) << lock.error().message;
  EXPECT_EQ(read_file(dir + "/serve.lock"), std::to_string(::getpid()) + "\n") << "the old note is replaced whole";
}

TEST(DataDirLock, AHolderThatWroteNoProcessIdIsStillAHolder) {
  const std::string dir = testing::temp_dir();
  // Someone holds the lock on an empty file (a server between taking the lock and writing its pid).
  int fd = ::open((dir + "/serve.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
  auto refused = DataDirLock::acquire(dir);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, Code::FailedPrecondition);
  EXPECT_TRUE(contains(refused.error().message, "not recorded")) << refused.error().message;
  EXPECT_TRUE(DataDirLock::holder(dir).has_value()) << "held, whoever it is";
  ::close(fd);
  auto taken = DataDirLock::acquire(dir);
  EXPECT_TRUE(taken) << taken.error().message;
}

TEST(DataDirLock, AChildThatExecsDoesNotKeepTheLockAfterTheServerLetsGo) {
  const std::string dir = testing::temp_dir();
  ASSERT_EQ(::access("/bin/cat", X_OK), 0) << "no /bin/cat to run";
  auto lock = DataDirLock::acquire(dir);
  ASSERT_TRUE(lock) << lock.error().message;
  // The child execs `cat` on a pipe we hold (so it lives until we close it). A second pipe with
  // O_CLOEXEC reads end-of-file once the exec has happened.
  int stdin_pipe[2], exec_done[2];
  ASSERT_EQ(::pipe(stdin_pipe), 0);
  ASSERT_EQ(::pipe2(exec_done, O_CLOEXEC), 0);
  pid_t child = ::fork();
  if (child == 0) {
    ::close(stdin_pipe[1]);
    ::close(exec_done[0]);
    ::dup2(stdin_pipe[0], STDIN_FILENO);
    ::execl("/bin/cat", "cat", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ASSERT_GT(child, 0);
  ::close(stdin_pipe[0]);
  ::close(exec_done[1]);
  char c;
  while (::read(exec_done[0], &c, 1) > 0) {
  }
  ::close(exec_done[0]);

  lock->reset();  // the server ends; its child (a browser, a worker) lives on
  auto taken = DataDirLock::acquire(dir);
  EXPECT_TRUE(taken) << "the exec'd child kept the lock: " << (taken ? "" : taken.error().message);
  ::close(stdin_pipe[1]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "cat did not run: the exec failed";
}

TEST(DataDirLock, ADirectoryThatCannotHoldTheLockFileIsUnavailableSayingWhatToCheck) {
  const std::string missing = testing::temp_dir() + "/not-made-yet";
  auto a = DataDirLock::acquire(missing);
  ASSERT_FALSE(a);
  EXPECT_EQ(a.error().code, Code::Unavailable);
  EXPECT_TRUE(contains(a.error().message, missing + "/serve.lock")) << a.error().message;
  EXPECT_TRUE(contains(a.error().message, "check that its directory exists")) << a.error().message;
  EXPECT_FALSE(std::filesystem::exists(missing)) << "acquire() does not make the data directory";

  // A file where the directory should be, and /proc (where not even root makes files).
  const std::string file = testing::temp_dir() + "/a-file";
  std::ofstream(file) << "x";
  auto b = DataDirLock::acquire(file);
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().code, Code::Unavailable);
  auto c = DataDirLock::acquire("/proc");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code, Code::Unavailable);
  EXPECT_EQ(DataDirLock::holder(missing), std::nullopt);
}

// --- The SQLite file ------------------------------------------------------------------------------

TEST(DatabaseLock, ASecondServerOnTheSameFileIsRefusedNamingTheFileAndTheHolder) {
  const std::string dir = testing::temp_dir();
  const std::string file = dir + "/shared.db";
  auto first = DataDirLock::acquire_database(file);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_TRUE(std::filesystem::exists(file + ".lock")) << "the lock file is beside the database";
  EXPECT_FALSE(std::filesystem::exists(file)) << "the database itself is not opened or made";
  auto second = DataDirLock::acquire_database(file);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code, Code::FailedPrecondition);
  EXPECT_TRUE(contains(second.error().message, file)) << second.error().message;
  EXPECT_TRUE(contains(second.error().message, "pid " + std::to_string(::getpid()))) << second.error().message;
  EXPECT_TRUE(contains(second.error().message, "--database")) << second.error().message;
  EXPECT_EQ(DataDirLock::database_holder(file), std::optional<long>(::getpid()));
  first->reset();
  EXPECT_EQ(DataDirLock::database_holder(file), std::nullopt);
}

TEST(DatabaseLock, TwoSpellingsOfOneFileShareOneLock) {
  const std::string dir = testing::temp_dir();
  std::filesystem::create_directories(dir + "/data");
  const std::string file = dir + "/data/ouro.db";
  std::ofstream(file) << "";
  std::filesystem::create_directory_symlink(dir + "/data", dir + "/link-to-dir");
  std::filesystem::create_symlink(file, dir + "/link-to-file.db");
  auto lock = DataDirLock::acquire_database(file);
  ASSERT_TRUE(lock) << lock.error().message;
  for (const std::string& spelling : {dir + "/data/../data/ouro.db", dir + "/data/./ouro.db", dir + "/link-to-dir/ouro.db", dir + "/link-to-file.db"}) {
    auto other = DataDirLock::acquire_database(spelling);
    EXPECT_FALSE(other) << spelling << " took a lock of its own";
    if (!other) {
      EXPECT_EQ(other.error().code, Code::FailedPrecondition) << spelling;
    }
    EXPECT_EQ(DataDirLock::database_holder(spelling), std::optional<long>(::getpid())) << spelling;
  }
}

TEST(DatabaseLock, ItsDirectoryIsMadeAsOpeningTheDatabaseWould) {
  const std::string file = testing::temp_dir() + "/new/nested/ouro.db";
  auto lock = DataDirLock::acquire_database(file);
  ASSERT_TRUE(lock) << lock.error().message;
  EXPECT_TRUE(std::filesystem::is_directory(std::filesystem::path(file).parent_path()));
  EXPECT_EQ(read_file(file + ".lock"), std::to_string(::getpid()) + "\n");
}

TEST(DatabaseLock, OneServerHoldsItsDataDirectoryAndItsDatabaseTogether) {
  const std::string dir = testing::temp_dir();
  auto dir_lock = DataDirLock::acquire(dir);
  ASSERT_TRUE(dir_lock) << dir_lock.error().message;
  auto db_lock = DataDirLock::acquire_database(dir + "/ouro.db");
  ASSERT_TRUE(db_lock) << "the data directory's lock is not the database's: " << db_lock.error().message;
  // A second server given another data directory but the same file is refused by the file's lock.
  const std::string other_dir = testing::temp_dir();
  ASSERT_TRUE(DataDirLock::acquire(other_dir));
  auto same_file = DataDirLock::acquire_database(dir + "/ouro.db");
  ASSERT_FALSE(same_file);
  EXPECT_EQ(same_file.error().code, Code::FailedPrecondition);
}

// A symbolic link to a database file that does not exist yet: the server that makes the file
// through the link holds the file's own lock, so a second one naming the file itself is refused.
TEST(DatabaseLock, ALinkToAFileNotMadeYetSharesTheFilesLock) {
  const std::string dir = testing::temp_dir();
  std::filesystem::create_directories(dir + "/data");
  const std::string file = dir + "/data/ouro.db";
  std::filesystem::create_symlink(file, dir + "/alias.db");
  auto first = DataDirLock::acquire_database(dir + "/alias.db");
  ASSERT_TRUE(first) << first.error().message;
  std::ofstream(file) << "";  // the first server's Database::open makes the file through the link
  auto second = DataDirLock::acquire_database(file);
  EXPECT_FALSE(second) << "two servers on one SQLite file";
}

TEST(DatabaseLock, AnotherProcessHoldingTheFileIsNamed) {
  const std::string dir = testing::temp_dir();
  const std::string file = dir + "/ouro.db";
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  pid_t child = ::fork();
  if (child == 0) {
    ::close(ready[0]);
    auto lock = DataDirLock::acquire_database(file);
    char ok = lock ? '1' : '0';
    (void)!::write(ready[1], &ok, 1);
    for (;;) ::pause();
  }
  ASSERT_GT(child, 0);
  ::close(ready[1]);
  char got = 0;
  ASSERT_EQ(::read(ready[0], &got, 1), 1);
  ::close(ready[0]);
  if (got != '1') kill_and_reap(child);
  ASSERT_EQ(got, '1') << "the child could not take the file's lock";
  EXPECT_EQ(DataDirLock::database_holder(file), std::optional<long>(child));
  auto refused = DataDirLock::acquire_database(file);
  ASSERT_FALSE(refused);
  EXPECT_TRUE(contains(refused.error().message, "pid " + std::to_string(child))) << refused.error().message;
  kill_and_reap(child);
  EXPECT_TRUE(DataDirLock::acquire_database(file)) << "the lock went with the killed process";
}

}  // namespace
}  // namespace ouro::store
