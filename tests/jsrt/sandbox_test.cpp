// The REPL worker's confinement (jsrt/sandbox.h), each case in a forked child so that the test
// process itself is never confined: close_other_fds keeps the descriptors it is told to (the
// worker's pipe, fd 1 in the probe's `--fd 1`) and no other, with 0 and 1 on /dev/null; after
// enter_sandbox, files, directories, sockets, processes, signals to others and exec are answered
// with EPERM, while the pipe, threads, clocks and the limits the worker reads keep working; and
// calls that name another process (a signal, its limits, its priority) are refused too.
// (The worker's own probe through the ouro binary is tested in worker_test.cpp.)
#include "jsrt/sandbox.h"

#include "../support/child_process.h"
#include "../support/scoped_temp_dir.h"

#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <thread>

namespace ouro::jsrt {
namespace {

using ouro::testing::ChildOutcome;
using ouro::testing::in_child;

using namespace std::chrono_literals;

void put(int fd, const std::string& text) {
  for (size_t off = 0; off < text.size();) {
    const ssize_t n = ::write(fd, text.data() + off, text.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    off += static_cast<size_t>(n);
  }
}

// "what EPERM" (the error's name) when the call failed, "what ALLOWED" when it did not.
std::string outcome(const std::string& what, bool failed, int err) {
  const char* name = failed ? ::strerrorname_np(err) : nullptr;
  return what + " " + (failed ? (name ? name : "errno " + std::to_string(err)) : std::string("ALLOWED")) + "\n";
}

// Makes the call, then reads errno: read beside the call in one argument list, errno may be read
// first (the order in which arguments are evaluated is unspecified).
template <class Call>
std::string attempt(const std::string& what, Call call) {
  errno = 0;
  const bool failed = call();
  const int err = errno;
  return outcome(what, failed, err);
}

bool is_dev_null(int fd) {
  struct stat null_st {}, st {};
  return ::stat("/dev/null", &null_st) == 0 && ::fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == null_st.st_rdev;
}

bool is_open(int fd) { return ::fcntl(fd, F_GETFD) != -1; }

// The descriptors the process has open (reading /proc/self/fd, whose own descriptor is left out).
std::set<int> open_fds() {
  std::set<int> fds;
  if (DIR* d = ::opendir("/proc/self/fd")) {
    while (dirent* e = ::readdir(d)) {
      if (e->d_name[0] == '.') continue;
      const int fd = std::atoi(e->d_name);
      if (fd != ::dirfd(d)) fds.insert(fd);
    }
    ::closedir(d);
  }
  return fds;
}

bool has_line(const std::string& report, const std::string& line) { return ("\n" + report).find("\n" + line + "\n") != std::string::npos; }

std::string ended(const ChildOutcome& c) {
  if (c.timed_out) return "timed out";
  if (WIFEXITED(c.status)) return "exit " + std::to_string(WEXITSTATUS(c.status));
  if (WIFSIGNALED(c.status)) return "signal " + std::to_string(WTERMSIG(c.status));
  return "status " + std::to_string(c.status);
}

// --- close_other_fds --------------------------------------------------------------------------------

TEST(Sandbox, CloseOtherFdsKeepsOnlyTheNamedDescriptorsAndTheStandardOnes) {
  const ChildOutcome c = in_child([](int report) {
    struct stat err_before {};
    ::fstat(2, &err_before);
    const int extra = ::open("/dev/zero", O_RDONLY);   // inherited by an exec: no O_CLOEXEC
    const int copy = ::dup(extra);
    const int kept = ::open("/dev/zero", O_RDONLY);
    close_other_fds(report, kept);
    std::string r;
    r += std::string("extra ") + (is_open(extra) ? "open" : "closed") + "\n";
    r += std::string("copy ") + (is_open(copy) ? "open" : "closed") + "\n";
    r += std::string("kept ") + (is_open(kept) ? "open" : "closed") + "\n";
    r += std::string("0 ") + (is_dev_null(0) ? "null" : "other") + "\n";
    r += std::string("1 ") + (is_dev_null(1) ? "null" : "other") + "\n";
    struct stat err_after {};
    const bool same = ::fstat(2, &err_after) == 0 && err_after.st_dev == err_before.st_dev && err_after.st_ino == err_before.st_ino;
    r += std::string("2 ") + (same ? "same" : "changed") + "\n";
    std::string others;
    for (int fd : open_fds())
      if (fd > 2 && fd != report && fd != kept) others += " " + std::to_string(fd);
    r += "others" + others + "\n";
    put(report, r);
  });
  ASSERT_FALSE(c.timed_out);
  EXPECT_EQ(ended(c), "exit 0") << c.report;
  for (const char* line : {"extra closed", "copy closed", "kept open", "0 null", "1 null", "2 same", "others"})
    EXPECT_TRUE(has_line(c.report, line)) << "no line '" << line << "' in:\n" << c.report;
}

// The probe runs as `ouro __jsrt-worker --fd 1 --probe` (tests/jsrt/worker_test.cpp): fd 1 is then
// the pipe the report goes out on and must not be pointed at /dev/null.
TEST(Sandbox, CloseOtherFdsLeavesAKeptStandardDescriptorAlone) {
  const ChildOutcome c = in_child([](int report) {
    if (::dup2(report, 1) != 1) return;
    close_other_fds(1);
    std::string r = "through fd 1\n";
    r += std::string("0 ") + (is_dev_null(0) ? "null" : "other") + "\n";
    r += std::string("report ") + (is_open(report) ? "open" : "closed") + "\n";
    put(1, r);
  });
  ASSERT_FALSE(c.timed_out);
  EXPECT_EQ(ended(c), "exit 0") << c.report;
  EXPECT_TRUE(has_line(c.report, "through fd 1")) << "fd 1 was replaced: the report never arrived\n" << c.report;
  EXPECT_TRUE(has_line(c.report, "0 null")) << c.report;
  EXPECT_TRUE(has_line(c.report, "report closed")) << "the pipe's other descriptor was kept\n" << c.report;
}

// --- enter_sandbox --------------------------------------------------------------------------------

TEST(Sandbox, FilesSocketsProcessesSignalsAndExecAreAnsweredWithEperm) {
  testing::ScopedTempDir dir;
  ASSERT_FALSE(dir.path.empty());
  const std::string made_file = dir.path + "/made-file", made_dir = dir.path + "/made-dir";
  const ChildOutcome c = in_child([&](int report) {
    auto entered = enter_sandbox();
    if (!entered) return put(report, "enter_sandbox failed: " + entered.error().message + "\n");
    std::string r = "entered\n";
    errno = 0;
    int fd = ::open("/dev/null", O_RDONLY);
    r += outcome("open", fd < 0, errno);
    errno = 0;
    fd = ::open(made_file.c_str(), O_WRONLY | O_CREAT, 0600);
    r += outcome("create", fd < 0, errno);
    errno = 0;
    r += attempt("mkdir", [&] { return ::mkdir(made_dir.c_str(), 0700) != 0; });
    errno = 0;
    int s = ::socket(AF_INET, SOCK_STREAM, 0);
    r += outcome("socket", s < 0, errno);
    int pair[2];
    errno = 0;
    r += attempt("socketpair", [&] { return ::socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0; });
    errno = 0;
    const pid_t pid = ::fork();
    if (pid == 0) ::_exit(0);
    r += outcome("fork", pid < 0, errno);
    if (pid > 0) ::waitpid(pid, nullptr, 0);
    errno = 0;
    r += attempt("kill", [&] { return ::kill(::getppid(), 0) != 0; });
    put(report, r);
    r.clear();
    char* argv[] = {const_cast<char*>("/bin/true"), nullptr};
    errno = 0;
    const int rc = ::execve("/bin/true", argv, nullptr);  // were it allowed, the last line would never come
    put(report, outcome("execve", rc < 0, errno));
  });
  ASSERT_FALSE(c.timed_out);
  EXPECT_EQ(ended(c), "exit 0") << c.report;
  ASSERT_TRUE(has_line(c.report, "entered")) << c.report;
  for (const char* line : {"open EPERM", "create EPERM", "mkdir EPERM", "socket EPERM", "socketpair EPERM", "fork EPERM", "kill EPERM",
                           "execve EPERM"})
    EXPECT_TRUE(has_line(c.report, line)) << "no line '" << line << "' in:\n" << c.report;
  EXPECT_FALSE(std::filesystem::exists(made_file)) << "the sandboxed child created a file";
  EXPECT_FALSE(std::filesystem::exists(made_dir)) << "the sandboxed child made a directory";
}

// What a JS engine needs keeps working: its pipe to the parent (read and write), a socket it had
// before, threads (clone with CLONE_THREAD; clone3, which cannot be filtered by its flags, says
// ENOSYS so that glibc falls back to clone), clocks and memory.
TEST(Sandbox, ThePipeThreadsClocksAndMemoryStillWork) {
  const ChildOutcome c = in_child([](int report) {
    int pair[2] = {-1, -1};
    const bool have_pair = ::socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0;  // before: as the worker's channel
    auto entered = enter_sandbox();
    if (!entered) return put(report, "enter_sandbox failed: " + entered.error().message + "\n");
    std::string r = "entered\n";
    if (have_pair) {
      char got[4] = {0, 0, 0, 0};
      const bool sent = ::write(pair[0], "ping", 4) == 4;
      const bool echoed = ::read(pair[1], got, 4) == 4 && std::string(got, 4) == "ping";
      r += std::string("socketpair ") + (sent && echoed ? "carries" : "broken") + "\n";
    }
    std::atomic<int> ran{0};
    try {
      std::thread worker([&ran] { ran = 1; });
      worker.join();
    } catch (const std::exception& e) {
      r += std::string("thread threw: ") + e.what() + "\n";
    }
    r += std::string("thread ") + (ran == 1 ? "ran" : "never ran") + "\n";
    errno = 0;
    const long clone3 = ::syscall(SYS_clone3, nullptr, 0);
    r += outcome("clone3", clone3 < 0, errno);
    timespec now{};
    r += std::string("clock ") + (::clock_gettime(CLOCK_MONOTONIC, &now) == 0 ? "ok" : "failed") + "\n";
    std::string big(64u << 20, 'm');  // mmap
    r += std::string("memory ") + (big[big.size() - 1] == 'm' ? "ok" : "failed") + "\n";
    put(report, r);
  });
  ASSERT_FALSE(c.timed_out);
  EXPECT_EQ(ended(c), "exit 0") << c.report;
  for (const char* line : {"entered", "socketpair carries", "thread ran", "clone3 ENOSYS", "clock ok", "memory ok"})
    EXPECT_TRUE(has_line(c.report, line)) << "no line '" << line << "' in:\n" << c.report;
}

// No core files (they would hold the page data the worker saw), few descriptors, and no way to
// gain privileges through an exec (PR_SET_NO_NEW_PRIVS, which seccomp needs unprivileged).
TEST(Sandbox, CoresAndDescriptorsAreCappedAndNoPrivilegeCanBeGained) {
  const ChildOutcome c = in_child([](int report) {
    auto entered = enter_sandbox();
    if (!entered) return put(report, "enter_sandbox failed: " + entered.error().message + "\n");
    std::string r = "entered\n";
    rlimit core{}, files{};
    if (::getrlimit(RLIMIT_CORE, &core) == 0)
      r += "core " + std::to_string(core.rlim_cur) + "/" + std::to_string(core.rlim_max) + "\n";
    if (::getrlimit(RLIMIT_NOFILE, &files) == 0)
      r += "nofile " + std::to_string(files.rlim_cur) + "/" + std::to_string(files.rlim_max) + "\n";
    r += "no_new_privs " + std::to_string(::prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)) + "\n";
    put(report, r);
  });
  ASSERT_FALSE(c.timed_out);
  EXPECT_EQ(ended(c), "exit 0") << c.report;
  for (const char* line : {"entered", "core 0/0", "nofile 64/64", "no_new_privs 1"})
    EXPECT_TRUE(has_line(c.report, line)) << "no line '" << line << "' in:\n" << c.report;
}

// Calls that name a process act on the worker only, as kill() does: tgkill, tkill, prlimit64 and
// setpriority naming another (ouro serve that owns it, the user's browser; as root, any process)
// are refused. glibc needs them for its own process only (raise and pthread_kill send
// tgkill(getpid(), tid, sig)). Tried here on the test process harmlessly: signal 0 sends nothing,
// and its own limit and priority are set to what they already are.
TEST(Sandbox, CallsNamingAnotherProcessAreDenied) {
  const ChildOutcome c = in_child([](int report) {
    const pid_t other = ::getppid();  // the test process
    rlimit other_core{};
    const bool have_core = ::prlimit(other, RLIMIT_CORE, nullptr, &other_core) == 0;
    errno = 0;
    const int other_nice = ::getpriority(PRIO_PROCESS, static_cast<id_t>(other));
    const bool have_nice = errno == 0;
    auto entered = enter_sandbox();
    if (!entered) return put(report, "enter_sandbox failed: " + entered.error().message + "\n");
    std::string r = "entered\n";
    errno = 0;
    r += attempt("kill other", [&] { return ::kill(other, 0) != 0; });
    errno = 0;
    r += attempt("tgkill other", [&] { return ::syscall(SYS_tgkill, other, other, 0) != 0; });
    errno = 0;
    r += attempt("tkill other", [&] { return ::syscall(SYS_tkill, other, 0) != 0; });
    if (have_core) {
      errno = 0;
      r += attempt("prlimit other", [&] { return ::prlimit(other, RLIMIT_CORE, &other_core, nullptr) != 0; });
    }
    if (have_nice) {
      errno = 0;
      r += attempt("setpriority other", [&] { return ::setpriority(PRIO_PROCESS, static_cast<id_t>(other), other_nice) != 0; });
    }
    // Its own: a signal to one of its threads (raise, pthread_kill), its own limits.
    errno = 0;
    r += attempt("tgkill self", [&] { return ::syscall(SYS_tgkill, ::getpid(), ::gettid(), 0) != 0; });
    rlimit own{};
    errno = 0;
    r += attempt("prlimit self", [&] { return ::prlimit(0, RLIMIT_NOFILE, nullptr, &own) != 0; });
    put(report, r);
  });
  ASSERT_FALSE(c.timed_out);
  EXPECT_EQ(ended(c), "exit 0") << c.report;
  ASSERT_TRUE(has_line(c.report, "entered")) << c.report;
  EXPECT_TRUE(has_line(c.report, "kill other EPERM")) << c.report;
  EXPECT_TRUE(has_line(c.report, "tgkill self ALLOWED")) << c.report;
  EXPECT_TRUE(has_line(c.report, "prlimit self ALLOWED")) << c.report;
  for (const std::string call : {"tgkill other", "tkill other", "prlimit other", "setpriority other"}) {
    EXPECT_NE(c.report.find(call + " "), std::string::npos) << call << " was not tried:\n" << c.report;
    EXPECT_FALSE(has_line(c.report, call + " ALLOWED")) << call << " reached another process from inside the sandbox";
  }
}

}  // namespace
}  // namespace ouro::jsrt
