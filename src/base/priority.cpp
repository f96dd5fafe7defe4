#include "base/priority.h"

#include <sys/resource.h>
#include <unistd.h>

namespace ouro {

namespace {
void set_own(int nice) { (void)setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), nice); }
}  // namespace

void prefer_latency() {
  // Unprivileged this fails (EACCES) and the thread keeps its priority: nothing to do.
  set_own(kLatencyNice);
}

void run_in_background(int nice) { set_own(nice); }

}  // namespace ouro
