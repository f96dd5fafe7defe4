// An owner for threads that cannot be joined where they are let go: a thread whose owner is
// destroyed on that very thread (a callback held the last reference), or a short task started
// where the caller may hold locks. Only threads that are about to finish belong here: the reaper
// joins them one after another on a thread of its own, so no caller waits for them.
#pragma once

#include <cstddef>
#include <thread>

namespace ouro {

// Takes the thread (any thread may call) and joins it on the reaper's thread. The reaper lives
// as long as the process: a thread still running at exit ends with the process, as every thread does.
void join_when_done(std::thread thread);

// How many threads the reaper holds that have not been joined yet (for tests).
size_t threads_awaiting_join();

}  // namespace ouro
