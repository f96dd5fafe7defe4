// The person's Chrome with ouro's extension (docs/design/extension-bridge.md), driven by the test
// over DevTools as a person's hands would drive it: it opens the side panel's page, types ouro's
// port and the pairing code, evaluates in tabs. Two ways to start it: over a DevTools pipe only
// the test holds (no debugging flag ouro could use; ouro's launcher's flags), or as a plain
// Chromium with --remote-debugging-port (RemoteChromium's flags, none of ouro's hardening) that
// the test connects to through its port.
#pragma once

#include "remote_chromium.h"
#include "serve_process.h"

#include "browser/launcher.h"
#include "cdp/connection.h"
#include "net/io.h"

#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace ouro::testing {

// Polls `fn` every 100 ms until it is true or `timeout` passes.
bool eventually(const std::function<bool()>& fn, std::chrono::milliseconds timeout);

struct PersonsChromium {
  enum class Over { Pipe, Port };
  std::unique_ptr<net::IoThread> io = net::IoThread::start();
  std::unique_ptr<browser::ChromiumProcess> process;  // Over::Pipe
  std::unique_ptr<RemoteChromium> remote;             // Over::Port
  std::unique_ptr<cdp::Connection> conn;

  // `extension_dir`: one folder, or several separated by commas (installed in that order).
  // Throws when it cannot start or be connected to.
  explicit PersonsChromium(const std::string& extension_dir, Over over = Over::Pipe);

  // ouro's extension's id, from its service worker's URL ("" when none started in 15 s).
  std::string extension_id();
  // Opens a tab at url and attaches to it: its session id.
  std::string open(const std::string& url);
  // The expression's value (awaited); {"error"} or {"exception"} when it failed.
  json eval(const std::string& session, const std::string& expression);
};

// Pairs the extension with `serve` as a person does it: the side panel's page, ouro's port, the
// code ouro serve shows. The panel's tab session, or "" (and a test failure) when it did not pair.
std::string pair(PersonsChromium& chrome, const std::string& ext, ServeProcess& serve);

}  // namespace ouro::testing
