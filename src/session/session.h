// A working set for one user of the REPL: the network thread, a browser (launched or attached),
// the database, the host that answers capability calls, and the sandboxed REPL wired to them, with
// `tabs`/`activeTab` pushed into the REPL whenever they change. `ouro exec`, `ouro repl`, tests
// and benchmarks use it; runs (the agent) will too.
#pragma once

#include "actions/context.h"
#include "browser/browser.h"
#include "jsrt/repl.h"

#include <memory>
#include <string>
#include <vector>

namespace ouro::actions { class Host; }
namespace ouro::net { class IoThread; }
namespace ouro::store { class Database; }

namespace ouro::session {

struct SessionOptions {
  browser::BrowserOptions browser;
  std::string db_path;             // empty: <data dir>/ouro.db
  actions::Limits limits;
  jsrt::ReplOptions repl;          // host_functions are filled in from the registry
  std::function<void(const std::string&)> on_log;  // log() lines, as they happen
};

class Session {
 public:
  static Result<std::unique_ptr<Session>> start(SessionOptions options);
  ~Session();

  browser::Browser& browser();
  jsrt::Repl& repl();
  actions::Host& host();
  store::Database& db();

  // Where log() lines go from now on (replaces SessionOptions::on_log); any thread.
  void set_log_handler(std::function<void(const std::string&)> handler);

  // Opens the given URLs: the first in the existing first tab, the others in new tabs; the first
  // becomes the active tab.
  Result<void> open_urls(const std::vector<std::string>& urls);

 private:
  Session() = default;
  struct Parts;
  std::unique_ptr<Parts> m;
};

}  // namespace ouro::session
