// A test's record of the browser's notices (browser/notices.h): every notice from its making to
// its end, and a wait for one of a kind.
#pragma once

#include "browser/browser.h"
#include "browser/notices.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace ouro::testing {

// Collects the browser's notices until destroyed.
class NoticeLog {
 public:
  explicit NoticeLog(browser::Browser& b) : m_browser(b) {
    m_id = b.notices().add_listener([this](const browser::PageNotice& n) {
      std::lock_guard lock(m_mutex);
      m_notices.push_back(n);
      m_cv.notify_all();
    });
  }
  ~NoticeLog() { m_browser.notices().remove_listener(m_id); }
  // Waits (up to timeout) for a notice of that kind; returns it.
  std::optional<browser::PageNotice> wait(const std::string& kind, std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    std::unique_lock lock(m_mutex);
    std::optional<browser::PageNotice> found;
    m_cv.wait_for(lock, timeout, [&] {
      for (const auto& n : m_notices)
        if (n.kind == kind) found = n;
      return found.has_value();
    });
    return found;
  }
  size_t count(const std::string& kind) {
    std::lock_guard lock(m_mutex);
    return std::count_if(m_notices.begin(), m_notices.end(), [&](const auto& n) { return n.kind == kind; });
  }

 private:
  browser::Browser& m_browser;
  int m_id = 0;
  std::mutex m_mutex;
  std::condition_variable m_cv;
  std::vector<browser::PageNotice> m_notices;
};

}  // namespace ouro::testing
