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
  explicit ThreadPool(size_t threads);
  // Finishes queued work, then joins.
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Queues fn; any thread.
  void post(std::function<void()> fn);

 private:
  std::mutex m_mutex;
  std::condition_variable m_cv;
  std::deque<std::function<void()>> m_queue;
  bool m_stopping = false;
  std::vector<std::thread> m_threads;
};

}  // namespace ouro
