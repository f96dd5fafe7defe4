// What each tab logged (page_log.h keeps it, bounded): console messages, uncaught errors and
// finished requests, and observers of requests as they finish. Implemented in browser.cpp.
#pragma once

#include "browser/browser.h"

namespace ouro::browser {

// An observer of finished requests on a tab (interceptRequests). Runs on the network thread.
using RequestObserver = std::function<void(const std::string& tab_id, const RequestRecord&)>;

class Records : public BrowserPart {
 public:
  Records(Browser& browser, std::shared_ptr<Impl> impl) : BrowserPart(browser, std::move(impl)) {}

  std::vector<ConsoleEntry> console(const std::string& tab_id) const;
  std::vector<PageError> errors(const std::string& tab_id) const;
  std::vector<RequestRecord> requests(const std::string& tab_id) const;
  // The tab that saw request_id, or NotFound.
  Result<std::string> tab_of_request(const std::string& request_id) const;
  // Registers an observer; returns its id for remove_request_observer.
  int add_request_observer(const std::string& tab_id, RequestObserver observer);
  void remove_request_observer(int id);
};

}  // namespace ouro::browser
