// A fixed set of worker threads for blocking work (host calls that wait on the browser).
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ouro {

class ThreadPool {
 public:
  // max_queue bounds the work waiting for a thread (0 = unbounded); see try_post.
  // on_start: run first on each of its threads (its priority, say).
  explicit ThreadPool(size_t threads, size_t max_queue = 0, std::function<void()> on_start = {});
  // Finishes queued work, then joins.
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Queues fn; any thread. An exception escaping fn is logged and dropped (the thread lives on).
  void post(std::function<void()> fn);
  // Queues fn unless max_queue items already wait; false then (the caller answers "busy").
  [[nodiscard]] bool try_post(std::function<void()> fn);

 private:
  std::mutex m_mutex;
  std::condition_variable m_cv;
  std::deque<std::function<void()>> m_queue;
  bool m_stopping = false;
  size_t m_max_queue = 0;
  std::vector<std::thread> m_threads;
};

}  // namespace ouro
