#include "child_process.h"

#include <gtest/gtest.h>

#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

namespace ouro::testing {

using namespace std::chrono_literals;

ChildOutcome in_child(const std::function<void(int report_fd)>& body, std::chrono::seconds within) {
  ChildOutcome out;
  int fds[2] = {-1, -1};
  if (::pipe(fds) != 0) {
    ADD_FAILURE() << "pipe: " << ::strerror(errno);
    return out;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    ADD_FAILURE() << "fork: " << ::strerror(errno);
    ::close(fds[0]);
    ::close(fds[1]);
    return out;
  }
  if (pid == 0) {
    ::close(fds[0]);
    body(fds[1]);
    ::_exit(0);
  }
  ::close(fds[1]);
  const auto deadline = std::chrono::steady_clock::now() + within;
  auto left_ms = [&] {
    return static_cast<int>(std::max<long long>(
        0, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count()));
  };
  char buf[4096];
  for (;;) {
    const int left = left_ms();
    if (left == 0) {
      out.timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, left);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;  // the deadline is checked above
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // every copy of the write end is closed
    out.report.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  // The child may have closed its pipe and still be running: bounded too.
  for (;;) {
    const pid_t done = ::waitpid(pid, &out.status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) break;
    if (out.timed_out || left_ms() == 0) {
      out.timed_out = true;
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &out.status, 0);
      break;
    }
    std::this_thread::sleep_for(10ms);  // polling for the child's exit, bounded by the deadline
  }
  return out;
}

}  // namespace ouro::testing
