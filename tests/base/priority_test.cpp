// Priorities by kind of work: a background thread is lowered by what it asks and no further, and
// asking for latency never lowers a thread (granted or not, depending on the system).
#include "base/priority.h"

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

namespace ouro {
namespace {

int own_nice() {
  errno = 0;
  return getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()));
}

TEST(Priority, BackgroundWorkIsLoweredOnItsOwnThreadOnly) {
  const int before = own_nice();
  int in_thread = 0;
  std::thread t([&] {
    run_in_background(kBrowserNice);
    in_thread = own_nice();
  });
  t.join();
  // The nice value asked, unless the process runs lower already (unprivileged, it cannot rise).
  EXPECT_TRUE(in_thread == kBrowserNice || (before > kBrowserNice && in_thread == before)) << in_thread;
  EXPECT_EQ(own_nice(), before) << "the calling thread is left as it was";
}

TEST(Priority, AskingForLatencyNeverLowersAThread) {
  int before = 0, after = 0;
  std::thread t([&] {
    before = own_nice();
    prefer_latency();
    after = own_nice();
  });
  t.join();
  EXPECT_LE(after, before);
  EXPECT_TRUE(after == before || after == kLatencyNice) << after;
}

}  // namespace
}  // namespace ouro
