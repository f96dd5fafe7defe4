// Cross-origin frames (frames.cpp). The page engine cannot enter a cross-origin frame. Each one gets
// a prefix ("f2") and a helpers world of its own — in the tab's session when it shares the tab's
// process, in its own CDP session (attached on demand, flattened) when it runs out of process — and
// the refs issued there carry the prefix ("f2e12"). A selector that begins with such a ref runs in
// that frame (Browser::call's `frame`).
#pragma once

#include "browser/browser.h"

namespace ouro::browser {

class Frames : public BrowserPart {
 public:
  Frames(Browser& browser, std::shared_ptr<Impl> impl) : BrowserPart(browser, std::move(impl)) {}

  // The frame a selector addresses: "f2" for "f2e12" or "f2e12 >> text=Buy", "" for the top.
  static std::string frame_of(std::string_view selector);
  // Enters the frame whose element is `owner_ref` in the world of `parent` ("" = the top
  // document): its prefix, the same one for as long as that frame lives.
  Result<std::string> enter(const std::string& tab_id, const std::string& parent, const std::string& owner_ref, Millis timeout = 10s);
  // The frames entered in the tab, each after its parent.
  std::vector<std::string> entered(const std::string& tab_id) const;
  // Where the frame's viewport begins in the tab's viewport, through every frame above it; with
  // `scroll`, each frame element outside its viewport is scrolled into view first (for input).
  Result<std::pair<double, double>> offset(const std::string& tab_id, const std::string& frame, Millis timeout = 10s, bool scroll = true);
  // Waits until the frame and every frame above it (each its own renderer, perhaps) have drawn two
  // frames: the browser routes input to an out-of-process frame by what each last drew.
  Result<void> settle(const std::string& tab_id, const std::string& frame, Millis timeout = 10s);
  // The selector of the frame's element in its parent world, outermost first (for framePath).
  Result<std::vector<std::string>> path(const std::string& tab_id, const std::string& frame);
};

}  // namespace ouro::browser
