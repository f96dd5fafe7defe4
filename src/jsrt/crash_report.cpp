#include "jsrt/crash_report.h"

#include <execinfo.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstring>
#include <initializer_list>

namespace ouro::jsrt {

namespace {

// Only async-signal-safe calls below (write, prctl, raise), and backtrace() once the first
// call has loaded the unwinder.
void put(const char* s) { (void)!::write(STDERR_FILENO, s, std::strlen(s)); }

void on_fatal(int sig) {
  char line[96] = "ouro repl worker: fatal signal ";
  size_t n = std::strlen(line);
  char digits[8];
  size_t d = 0;
  for (int v = sig; v > 0 && d < sizeof digits; v /= 10) digits[d++] = static_cast<char>('0' + v % 10);
  while (d > 0 && n + 2 < sizeof line) line[n++] = digits[--d];
  line[n] = 0;
  put(line);
  // The dying thread's name: the engine names its own (its collector, its helpers).
  char name[17] = {};
  if (prctl(PR_GET_NAME, name, 0, 0, 0) == 0 && name[0]) {
    put(" in thread '");
    put(name);
    put("'");
  }
  put("\n");
  void* frames[48];
  int depth = backtrace(frames, 48);
  backtrace_symbols_fd(frames, depth, STDERR_FILENO);
  put("ouro repl worker: end of stack\n");
  // SA_RESETHAND gave the signal its default action back: raised again, it ends the process as
  // it would have (blocked until this handler returns).
  raise(sig);
}

}  // namespace

void report_fatal_signals() {
  void* warm[2];
  (void)backtrace(warm, 2);
  for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE}) {
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) != 0) continue;
    bool ours = sig == SIGABRT || (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL);
    if (!ours) continue;
    struct sigaction sa {};
    sa.sa_handler = on_fatal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;  // run on the dying thread's own stack
    sigaction(sig, &sa, nullptr);
  }
}

}  // namespace ouro::jsrt
