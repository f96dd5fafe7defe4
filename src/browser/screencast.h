// Live views of tabs (screencast.cpp): CDP Page.startScreencast.
#pragma once

#include "browser/browser.h"

namespace ouro::browser {

class Screencast : public BrowserPart {
 public:
  Screencast(Browser& browser, std::shared_ptr<Impl> impl) : BrowserPart(browser, std::move(impl)) {}

  // JPEG frames, base64, as the page repaints, to `on_frame` on the network thread, until
  // stop(id). Does not block: any thread.
  Result<int> start(const std::string& tab_id, std::function<void(const std::string& jpeg_base64)> on_frame);
  void stop(int id);
};

}  // namespace ouro::browser
