// The reaper joins the threads it is handed, including one that hands itself over.
#include "base/reaper.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>

namespace ouro {
namespace {

bool all_joined_within(std::chrono::milliseconds limit) {
  auto until = std::chrono::steady_clock::now() + limit;
  while (threads_awaiting_join() > 0 && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return threads_awaiting_join() == 0;
}

TEST(Reaper, JoinsAThreadOnceItFinishes) {
  std::promise<void> go;
  std::atomic<bool> ran{false};
  join_when_done(std::thread([&ran, f = go.get_future()]() mutable {
    f.wait();
    ran = true;
  }));
  EXPECT_EQ(threads_awaiting_join(), 1u) << "held while it runs";
  go.set_value();
  EXPECT_TRUE(all_joined_within(std::chrono::seconds(5)));
  EXPECT_TRUE(ran);
}

TEST(Reaper, TakesAThreadThatLetsItselfGo) {
  std::promise<std::thread> handle;
  std::promise<void> handed;
  std::thread t([&] {
    std::thread self = handle.get_future().get();
    join_when_done(std::move(self));  // a thread cannot join itself
    handed.set_value();
  });
  handle.set_value(std::move(t));
  handed.get_future().wait();
  EXPECT_TRUE(all_joined_within(std::chrono::seconds(5)));
}

TEST(Reaper, IgnoresAThreadThatIsNotJoinable) {
  join_when_done(std::thread());
  EXPECT_TRUE(all_joined_within(std::chrono::seconds(5)));
}

}  // namespace
}  // namespace ouro
