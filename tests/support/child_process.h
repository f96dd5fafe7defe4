// A forked child for tests of what a process does to itself (a sandbox it enters, a signal it
// dies of), so that the test process is never changed: the child's report pipe, and how it ended.
#pragma once

#include <chrono>
#include <functional>
#include <string>

namespace ouro::testing {

// What a forked child wrote on its report pipe, and how it ended.
struct ChildOutcome {
  std::string report;
  int status = -1;
  bool timed_out = false;
};

// Runs body(report_fd) in a forked child that then exits with status 0; waits at most `within`
// for it (then kills it: it is this test's own child).
ChildOutcome in_child(const std::function<void(int report_fd)>& body, std::chrono::seconds within = std::chrono::seconds(30));

}  // namespace ouro::testing
