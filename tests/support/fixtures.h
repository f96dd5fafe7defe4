// The fixture web site the integration tests and benchmarks browse, served on 127.0.0.1 by our
// own HTTP server: forms with framework-controlled inputs, iframes, popups, big pages, console
// noise, XHR/fetch traffic, cookies and storage, pages that navigate or cover their buttons, and
// hostile pages: dialogs, popup floods, console floods, pages that reload or navigate forever.
#pragma once

#include "net/http_server.h"

#include <atomic>
#include <memory>
#include <string>

namespace ouro::testing {

class FixtureSite {
 public:
  FixtureSite();
  ~FixtureSite();
  // http://127.0.0.1:<port><path>
  std::string url(const std::string& path) const;
  // Requests served so far whose path starts with prefix.
  int hits(const std::string& prefix) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m;
};

}  // namespace ouro::testing
