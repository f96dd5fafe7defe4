// Entry point of the REPL worker process (`ouro __jsrt-worker`), reached through the same binary.
#pragma once

namespace ouro::jsrt {

// Serves evaluations on `fd` (a socket to the parent) until the parent goes away. With `probe`,
// enters the sandbox and reports on stderr which forbidden system calls were refused (tests).
int worker_main(int fd, bool probe);

}  // namespace ouro::jsrt
