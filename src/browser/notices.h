// What a page tried that ouro answered for it: JavaScript dialogs are answered at once (dismissed
// unless the tab's dialog policy says otherwise), popups beyond 20 per browser context are closed as
// they open, a log flood is cut. Each leaves a PageNotice. Implemented in browser.cpp and events.cpp.
#pragma once

#include "browser/browser.h"

namespace ouro::browser {

class Notices : public BrowserPart {
 public:
  Notices(Browser& browser, std::shared_ptr<Impl> impl) : BrowserPart(browser, std::move(impl)) {}

  // How the tab answers its next dialog (or every dialog, with once = false); nullopt restores
  // the default (dismiss; beforeunload: accept). NotFound if the tab is gone.
  Result<void> set_dialog_policy(const std::string& tab_id, std::optional<DialogPolicy> policy);
  // Hears every notice, of every context: the listener filters by PageNotice::context. It runs on
  // the network thread, outside the browser's lock, and must not block. Returns an id for
  // remove_listener.
  int add_listener(std::function<void(const PageNotice&)> listener);
  // Once it returns, the listener is not running and will not run again (unless called from the
  // listener itself, which may finish).
  void remove_listener(int id);
  // The latest notices of a context (at most max, oldest first); each context keeps the last 200.
  std::vector<PageNotice> latest(const std::string& context, size_t max = 50) const;
};

}  // namespace ouro::browser
