// The network thread (net/io.h): work posted from any thread runs on that one thread, in the
// order posted and never inline; a handler that throws loses only itself; and destroying the
// thread ends promptly even while work keeps arriving or an operation waits an hour.
#include "net/io.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/system/error_code.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace ouro::net {
namespace {

using namespace std::chrono_literals;

// Runs fn on the network thread and waits (bounded) for it: false if it never ran.
bool run_and_wait(IoThread& io, std::function<void()> fn) {
  auto done = std::make_shared<std::promise<void>>();
  auto f = done->get_future();
  io.post([done, fn = std::move(fn)] {
    fn();
    done->set_value();
  });
  return f.wait_for(10s) == std::future_status::ready;
}

// Destroys io on a thread of its own and waits at most `within`; on a hang the thread is left
// behind (detached) so that the test fails instead of hanging.
bool destroyed_within(std::unique_ptr<IoThread> io, std::chrono::seconds within) {
  auto done = std::make_shared<std::promise<void>>();
  auto f = done->get_future();
  std::thread([io = std::move(io), done]() mutable {
    io.reset();
    done->set_value();
  }).detach();
  return f.wait_for(within) == std::future_status::ready;
}

TEST(IoThread, PostedWorkRunsOnTheNetworkThread) {
  auto io = IoThread::start();
  EXPECT_FALSE(io->on_thread()) << "the test's thread is not the network thread";
  bool on_thread = false;
  std::thread::id ran_on;
  ASSERT_TRUE(run_and_wait(*io, [&] {
    on_thread = io->on_thread();
    ran_on = std::this_thread::get_id();
  }));
  EXPECT_TRUE(on_thread);
  EXPECT_NE(ran_on, std::this_thread::get_id());
  std::thread::id second;
  ASSERT_TRUE(run_and_wait(*io, [&] { second = std::this_thread::get_id(); }));
  EXPECT_EQ(second, ran_on) << "every job runs on the one network thread";
  bool elsewhere = true;
  std::thread([&] { elsewhere = io->on_thread(); }).join();
  EXPECT_FALSE(elsewhere) << "another thread is not the network thread";
}

// The pipe transport's "messages are sent in the order queued" (cdp/transport.h) rests on this.
TEST(IoThread, WorkPostedFromOneThreadRunsInTheOrderPosted) {
  auto io = IoThread::start();
  std::vector<int> order;  // touched on the network thread only
  for (int i = 0; i < 10000; ++i) io->post([&order, i] { order.push_back(i); });
  std::vector<int> seen;
  ASSERT_TRUE(run_and_wait(*io, [&] { seen = order; }));
  ASSERT_EQ(seen.size(), 10000u);
  for (int i = 0; i < 10000; ++i) ASSERT_EQ(seen[static_cast<size_t>(i)], i);
}

// post() from the network thread itself queues the work: it never runs inside the caller.
TEST(IoThread, WorkPostedFromTheNetworkThreadRunsAfterTheCurrentJob) {
  auto io = IoThread::start();
  std::vector<std::string> order;  // touched on the network thread only
  auto done = std::make_shared<std::promise<std::vector<std::string>>>();
  auto f = done->get_future();
  io->post([&] {
    order.push_back("outer begins");
    io->post([&, done] {
      order.push_back("inner");
      done->set_value(order);
    });
    order.push_back("outer ends");
  });
  ASSERT_EQ(f.wait_for(10s), std::future_status::ready);
  EXPECT_EQ(f.get(), (std::vector<std::string>{"outer begins", "outer ends", "inner"}));
}

TEST(IoThread, JobsPostedFromManyThreadsAtOnceEachRunOnce) {
  auto io = IoThread::start();
  std::vector<int> runs(8 * 2000, 0);  // touched on the network thread only
  std::vector<std::thread> posters;
  for (int t = 0; t < 8; ++t)
    posters.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) io->post([&runs, k = static_cast<size_t>(t * 2000 + i)] { ++runs[k]; });
    });
  for (auto& p : posters) p.join();
  std::vector<int> seen;
  ASSERT_TRUE(run_and_wait(*io, [&] { seen = runs; }));
  for (size_t k = 0; k < seen.size(); ++k) ASSERT_EQ(seen[k], 1) << "job " << k;
}

// The thread's exception boundary: a job that throws is dropped, the others still run.
TEST(IoThread, AJobThatThrowsLosesOnlyItself) {
  auto io = IoThread::start();
  std::atomic<int> ran{0};
  io->post([] { throw std::runtime_error(std::string(100000, 'x')); });
  io->post([&] { ++ran; });
  io->post([] { throw 42; });  // not a std::exception
  io->post([&] { ++ran; });
  bool on_thread = false;
  ASSERT_TRUE(run_and_wait(*io, [&] { on_thread = io->on_thread(); })) << "the network thread stopped after a job threw";
  EXPECT_EQ(ran.load(), 2);
  EXPECT_TRUE(on_thread) << "the jobs after the throw ran on another thread";
}

// Work that keeps posting more never lets the queue go empty; the destructor ends it anyway.
TEST(IoThread, DestroyingItEndsPromptlyWhileWorkKeepsArriving) {
  auto io = IoThread::start();
  IoThread* raw = io.get();
  auto spins = std::make_shared<std::atomic<int>>(0);
  auto going = std::make_shared<std::promise<void>>();
  auto spinning = going->get_future();
  auto spin = std::make_shared<std::function<void()>>();
  *spin = [raw, spins, going, weak = std::weak_ptr<std::function<void()>>(spin)] {
    if (++*spins == 1000) going->set_value();
    if (auto again = weak.lock()) raw->post(*again);
  };
  io->post(*spin);
  ASSERT_EQ(spinning.wait_for(10s), std::future_status::ready) << "the job never got going";
  EXPECT_TRUE(destroyed_within(std::move(io), 20s)) << "the destructor waited for work that never ends";
  spin.reset();
}

// An operation waiting an hour (a timer here; a socket read in ouro) does not hold the destructor.
TEST(IoThread, DestroyingItDoesNotWaitForAPendingOperation) {
  auto io = IoThread::start();
  auto fired = std::make_shared<std::atomic<bool>>(false);
  ASSERT_TRUE(run_and_wait(*io, [&] {
    auto timer = std::make_shared<boost::asio::steady_timer>(io->context(), std::chrono::hours(1));
    timer->async_wait([timer, fired](const boost::system::error_code& ec) {
      if (!ec) *fired = true;
    });
  }));
  EXPECT_TRUE(destroyed_within(std::move(io), 20s)) << "the destructor waited for the hour-long timer";
  EXPECT_FALSE(fired->load());
}

}  // namespace
}  // namespace ouro::net
