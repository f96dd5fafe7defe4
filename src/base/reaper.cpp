#include "base/reaper.h"

#include <condition_variable>
#include <deque>
#include <mutex>

namespace ouro {

namespace {

class Reaper {
 public:
  Reaper() : m_thread([this] { run(); }) {}

  void take(std::thread t) {
    {
      std::lock_guard lock(m_mutex);
      m_threads.push_back(std::move(t));
    }
    m_cv.notify_one();
  }

  size_t waiting() {
    std::lock_guard lock(m_mutex);
    return m_threads.size() + m_joining;
  }

 private:
  void run() {
    std::unique_lock lock(m_mutex);
    while (true) {
      m_cv.wait(lock, [&] { return !m_threads.empty(); });
      std::thread t = std::move(m_threads.front());
      m_threads.pop_front();
      m_joining = 1;
      lock.unlock();
      t.join();
      lock.lock();
      m_joining = 0;
    }
  }

  std::mutex m_mutex;
  std::condition_variable m_cv;
  std::deque<std::thread> m_threads;
  size_t m_joining = 0;
  std::thread m_thread;  // last: started once the members it uses exist
};

Reaper& reaper() {
  // Never destroyed: its thread serves until the process exits (a static one would be destroyed
  // at exit while its thread still runs).
  static Reaper* const r = new Reaper();
  return *r;
}

}  // namespace

void join_when_done(std::thread thread) {
  if (thread.joinable()) reaper().take(std::move(thread));
}

size_t threads_awaiting_join() { return reaper().waiting(); }

}  // namespace ouro
