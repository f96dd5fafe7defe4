// Browser contexts: isolated sets of tabs, each with its own cookies and storage (an incognito-like
// profile), for runs that must not see each other. "" names the default context (the profile).
// Implemented in browser.cpp.
#pragma once

#include "browser/browser.h"

namespace ouro::browser {

class Contexts : public BrowserPart {
 public:
  Contexts(Browser& browser, std::shared_ptr<Impl> impl) : BrowserPart(browser, std::move(impl)) {}

  // A new context. `proxy` ("socks5://127.0.0.1:P"): every connection of the context goes through
  // it, loopback included (net/socks_proxy.h).
  Result<std::string> create(const std::string& proxy = {});
  // Closes the context's tabs and drops its data.
  void dispose(const std::string& context);
  // The context a tab lives in ("" for the default one), or NotFound.
  Result<std::string> of_tab(const std::string& tab_id) const;
  // A context's cookies as CDP's Cookie objects (Storage.getCookies); any thread but the network one.
  Result<json> cookies(const std::string& context, Millis timeout);
  // Puts cookies into a context (Storage.setCookies), each cut to the fields of CDP's CookieParam
  // (those without a name and a value are skipped; session cookies, expires ≤ 0, stay session
  // cookies). Returns how many were set; 0 sends nothing.
  Result<size_t> set_cookies(const std::string& context, const json& cookies, Millis timeout);
};

}  // namespace ouro::browser
