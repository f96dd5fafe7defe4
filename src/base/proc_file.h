// Reading a process's files under /proc (proc(5)). The process may exit between the open and the
// read, and the read then fails with ESRCH — which a C++ stream read through istreambuf_iterator
// turns into an exception. These read with read(2) and say "" instead: a process that has gone
// has nothing to tell.
#pragma once

#include <string>

namespace ouro {

// The whole text of `path` ("" when it cannot be opened or read), at most `limit` bytes.
std::string read_proc_file(const std::string& path, size_t limit = 1u << 20);
// The same from a descriptor already open (it stays open).
std::string read_proc_fd(int fd, size_t limit = 1u << 20);

}  // namespace ouro
