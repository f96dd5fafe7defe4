// The REPL worker's last words (jsrt/crash_report.h): a process that dies of abort() — how the
// engine's release assertions end — inside the worker's sandbox says so on stderr, with the
// stack's return addresses, and still dies of that signal; a handler the engine installed for a
// signal it uses is left in place. Each case runs in a forked child (support/child_process.h).
#include "jsrt/crash_report.h"
#include "jsrt/sandbox.h"

#include "../support/child_process.h"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace ouro::jsrt {
namespace {

using ouro::testing::in_child;

[[gnu::noinline]] void die_in_a_named_frame() { std::abort(); }

TEST(CrashReport, AnAbortInTheSandboxIsReportedWithItsStackAndStillEndsTheProcess) {
  auto out = in_child([](int report_fd) {
    ::dup2(report_fd, STDERR_FILENO);
    report_fatal_signals();
    if (!enter_sandbox()) ::_exit(3);
    die_in_a_named_frame();
  });
  ASSERT_FALSE(out.timed_out) << out.report;
  ASSERT_TRUE(WIFSIGNALED(out.status)) << "status " << out.status << ": " << out.report;
  EXPECT_EQ(WTERMSIG(out.status), SIGABRT);
  EXPECT_NE(out.report.find("ouro repl worker: fatal signal 6 in thread 'jsrt_test'\n"), std::string::npos) << out.report;
  EXPECT_NE(out.report.find("ouro repl worker: end of stack\n"), std::string::npos) << out.report;
  // One line per frame, each naming its module: at least abort's, this test's and the C library's.
  auto first = out.report.find('\n') + 1;
  auto last = out.report.find("ouro repl worker: end of stack");
  std::string frames = out.report.substr(first, last - first);
  EXPECT_GE(std::count(frames.begin(), frames.end(), '\n'), 3) << frames;
  EXPECT_NE(frames.find("libc.so"), std::string::npos) << frames;
  EXPECT_NE(frames.find("jsrt_test"), std::string::npos) << frames;
}

void engines_handler(int) { ::_exit(42); }

TEST(CrashReport, ASignalTheEngineHandlesStaysItsOwn) {
  auto out = in_child([](int report_fd) {
    ::dup2(report_fd, STDERR_FILENO);
    struct sigaction sa {};
    sa.sa_handler = engines_handler;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, nullptr);
    report_fatal_signals();
    ::raise(SIGSEGV);
  });
  ASSERT_FALSE(out.timed_out) << out.report;
  ASSERT_TRUE(WIFEXITED(out.status)) << "status " << out.status << ": " << out.report;
  EXPECT_EQ(WEXITSTATUS(out.status), 42);
  EXPECT_EQ(out.report, "");
}

}  // namespace
}  // namespace ouro::jsrt
