// Files in and out of the pages (files.cpp): downloads and file inputs.
#pragma once

#include "browser/browser.h"

namespace ouro::browser {

class Files : public BrowserPart {
 public:
  Files(Browser& browser, std::shared_ptr<Impl> impl) : BrowserPart(browser, std::move(impl)) {}

  // Downloads of the context's tabs land in `dir` (made if missing) under their suggested names
  // (made safe and unique). An empty dir keeps the browser's own behaviour (a browser we attached
  // to: the user's downloads stay theirs) and still reports them.
  Result<void> set_download_dir(const std::string& context, const std::string& dir);
  // The context's downloads, oldest first (the last 200): finished ones renamed into place.
  std::vector<Download> downloads(const std::string& context);
  // Waits (up to `timeout`) until a download of the context that is not in `seen` has finished
  // (completed or canceled) and returns it; DeadlineExceeded when none did.
  Result<Download> wait_for_download(const std::string& context, const std::set<std::string>& seen, Millis timeout);
  // Sets the files of the <input type=file> the selector finds (the page helpers' selector
  // language) to these paths, as a person choosing them would: change and input events fire.
  Result<void> set_input_files(const std::string& tab_id, const std::string& selector, const std::vector<std::string>& paths, Millis timeout = 10s);
};

}  // namespace ouro::browser
