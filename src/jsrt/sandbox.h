// Confinement of the REPL worker process: after JavaScriptCore has started, the worker keeps only
// its pipe to the parent; rlimits cap files and cores, and a seccomp filter (libseccomp) allows
// the system calls a JS engine needs (memory, threads, futexes, clocks, reads and writes on open
// descriptors) and answers everything else — open, socket, connect, execve, fork — with EPERM.
#pragma once

#include "base/error.h"

#include <string>

namespace ouro::jsrt {

// Closes every descriptor but 0-2 and `keep_fd`, and points 0 and 1 at /dev/null.
void close_other_fds(int keep_fd, int keep_fd2 = -1);

// Applies rlimits, no-new-privs and the seccomp filter to the calling process (all threads).
Result<void> enter_sandbox();

// Tries what the sandbox must forbid and reports each outcome, e.g. "open /etc/hostname: EPERM".
// Used by the sandbox tests through `ouro __jsrt-worker --probe`.
std::string probe_forbidden_syscalls();

}  // namespace ouro::jsrt
