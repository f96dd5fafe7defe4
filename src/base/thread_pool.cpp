#include "base/thread_pool.h"

#include "base/log.h"

namespace ouro {

ThreadPool::ThreadPool(size_t threads, size_t max_queue, std::function<void()> on_start) : m_max_queue(max_queue) {
  for (size_t i = 0; i < threads; ++i)
    m_threads.emplace_back([this, on_start] {
      if (on_start) on_start();
      while (true) {
        std::function<void()> fn;
        {
          std::unique_lock lock(m_mutex);
          m_cv.wait(lock, [&] { return m_stopping || !m_queue.empty(); });
          if (m_queue.empty()) return;
          fn = std::move(m_queue.front());
          m_queue.pop_front();
        }
        // The pool thread's exception boundary.
        try {
          fn();
        } catch (const std::exception& e) {
          spdlog::error("worker thread: a task failed and was dropped: {}", redact(std::string(e.what()).substr(0, 300)));
        } catch (...) {
          spdlog::error("worker thread: a task failed with a non-standard exception and was dropped");
        }
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

namespace ouro {

bool ThreadPool::try_post(std::function<void()> fn) {
  {
    std::lock_guard lock(m_mutex);
    if (m_max_queue && m_queue.size() >= m_max_queue) return false;
    m_queue.push_back(std::move(fn));
  }
  m_cv.notify_one();
  return true;
}

}  // namespace ouro
