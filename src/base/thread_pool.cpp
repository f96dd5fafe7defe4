#include "base/thread_pool.h"

namespace ouro {

ThreadPool::ThreadPool(size_t threads) {
  for (size_t i = 0; i < threads; ++i)
    m_threads.emplace_back([this] {
      while (true) {
        std::function<void()> fn;
        {
          std::unique_lock lock(m_mutex);
          m_cv.wait(lock, [&] { return m_stopping || !m_queue.empty(); });
          if (m_queue.empty()) return;
          fn = std::move(m_queue.front());
          m_queue.pop_front();
        }
        fn();
      }
    });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(m_mutex);
    m_stopping = true;
  }
  m_cv.notify_all();
  for (auto& t : m_threads) t.join();
}

void ThreadPool::post(std::function<void()> fn) {
  {
    std::lock_guard lock(m_mutex);
    m_queue.push_back(std::move(fn));
  }
  m_cv.notify_one();
}

}  // namespace ouro
