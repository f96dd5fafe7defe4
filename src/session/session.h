// A working set for one user of the REPL: a browser context, the host that answers capability
// calls in it, and the sandboxed REPL wired to them, with `tabs`/`activeTab` pushed into the REPL
// whenever they change. Sessions share a Runtime — the network thread, the browser and the
// database — so several runs can work at once, each in its own browser context (cookies and
// storage isolated) or in the profile's. `ouro exec`, `ouro repl`, runs, tests and benchmarks
// use it.
#pragma once

#include "host/context.h"
#include "browser/browser.h"
#include "jsrt/repl.h"

#include <map>
#include <mutex>
#include <memory>
#include <string>
#include <vector>

namespace ouro::actions { class Host; }
namespace ouro::net { class IoThread; class SocksProxy; }
namespace ouro::store { class Database; }
namespace ouro::memory { struct Embeddings; }
namespace ouro::safety { class SecretStore; class GatePolicy; }

namespace ouro::session {

struct SessionOptions {
  browser::BrowserOptions browser;  // used when a new Runtime is started
  std::string db_path;              // empty: <data dir>/ouro.db
  bool isolated = false;            // a browser context of its own instead of the profile's
  // The profile's context is the user's own ("My browser"): the session acts only on tabs it
  // holds (egress/holds.h) — it is handed the tab the user was on, opens its own, asks for
  // others — and leaves them open when it ends. Its Browser State still lists every tab.
  bool shared = false;
  std::string owner;                // who acts, in messages and to the browser ("run r…"); "" = "session N"
  // A person's own session: it sees and may use the hidden tabs (the Command Center's pages,
  // which carry its token). Never for a run.
  bool person = false;
  std::vector<std::string> trusted_sites;  // "always" sites: their tabs are acted on without asking
  host::Limits limits;
  jsrt::ReplOptions repl;           // host_functions are filled in from the registry
  std::function<void(const std::string&)> on_log;  // log() lines, as they happen
  std::shared_ptr<const safety::SecretStore> secrets;  // usable by handle, scrubbed from results
  // The egress gate's policy for this session's context (egress/gate.h); none: no gate (a
  // person at the REPL). Installed before the session opens anything.
  std::shared_ptr<safety::GatePolicy> gate;
  std::map<std::string, int> permissions;  // capability -> actions::Permission, over the registry's
  // Folders upload() may take files from, besides the session's downloads folder.
  std::vector<std::string> upload_dirs;
  // A scheduled run: the final of its schedule's previous run, for previousFinal() (null: none).
  json previous_final;
};

struct TabListeners;

// What sessions share: owned by the sessions that use it, gone with the last one. The network
// thread and the database are shared pointers so that a browser pool (session/pool.h) can give
// each of its endpoints a Runtime of its own — its own Browser and tab listeners — over the one
// network thread and database; the browser goes first, then the thread stops with its last owner.
struct Runtime {
  std::shared_ptr<net::IoThread> io;
  std::shared_ptr<store::Database> db;
  // Memory's embeddings, from the settings file (memory/embeddings.h).
  std::shared_ptr<const memory::Embeddings> embeddings;
  std::unique_ptr<browser::Browser> browser;
  std::shared_ptr<TabListeners> tab_listeners;  // every session's `tabs` sink
  // The browser-wide egress proxy of a browser launched for one gated session in its default
  // context (net/socks_proxy.h); its rule is that session's gate's.
  std::shared_ptr<net::SocksProxy> proxy;
  std::string data_dir;                          // where the database is: downloads go under it
  // Chrome's "Preload pages" held off (session/prediction.h): one hold at a time; whether a note
  // of the user's value is in the data directory.
  std::mutex prediction_mutex;
  bool prediction_noted = false;
  ~Runtime();
};

// A Runtime around a started browser, on a network thread and database that may be shared with
// other Runtimes (a browser pool's endpoints). `on_tabs_changed`, if given, runs after the
// sessions' tab sinks each time the browser reports a change of its tabs or the loss of its
// connection — on the network thread, so it must not block.
std::shared_ptr<Runtime> make_runtime(std::shared_ptr<net::IoThread> io, std::shared_ptr<store::Database> db,
                                      std::unique_ptr<browser::Browser> browser, std::string data_dir,
                                      std::function<void()> on_tabs_changed = {});

class Session {
 public:
  // Starts a runtime (network thread, database, browser) and a session on it.
  static Result<std::unique_ptr<Session>> start(SessionOptions options);
  // A further session on an existing runtime (options.browser and db_path are ignored).
  static Result<std::unique_ptr<Session>> attach(std::shared_ptr<Runtime> runtime, SessionOptions options);
  ~Session();

  browser::Browser& browser();
  jsrt::Repl& repl();
  // env's last checkpoint as it may be kept (the database, a follow-up's restore): every string
  // and key with the run's secrets, in any of their forms, masked (safety/secrets.h). A checkpoint
  // that is not JSON is masked as text.
  std::string storable_env();
  actions::Host& host();
  store::Database& db();
  std::shared_ptr<Runtime> runtime();
  // This session's browser context ("" = the profile's).
  const std::string& context() const;
  std::vector<browser::TabInfo> tabs() const;
  std::string active_tab() const;
  // In the user's own browser: the tabs this session holds (those it opened, the one it was
  // handed), open ones in order.
  std::vector<browser::TabInfo> held_tabs() const;
  // The tab the session was handed when it started ("" when none).
  const std::string& handed_tab() const;
  // Between the turns of a conversation in the user's browser the session lets go of its tabs
  // (another run, or the user, may use them meanwhile) and takes them back for the next turn —
  // those still open and free; the active one stays active.
  struct Held {
    std::vector<std::string> tabs;
    std::string active;
    double at = 0;  // when they were let go (ms since the epoch)
    std::map<std::string, std::string> urls;  // tab -> the page it showed then
  };
  Held let_go();
  void take_back(const Held& held);
  // The conversation is over. In a window of ouro's own (a profile ouro launched; not the
  // person's Chrome, attached or through the extension), the tabs it opened and let go last are
  // closed, except those the person turned to since (browser/tab_tracker.h seen_at) and those
  // that show another page than the run left there (the person loaded one of their own). Tabs
  // that were open before the session started, and the one it was handed, are the person's and
  // stay. Returns the closed ones.
  std::vector<std::string> close_what_it_opened(const Held& held);

  // Where log() lines go from now on (replaces SessionOptions::on_log); any thread.
  void set_log_handler(std::function<void(const std::string&)> handler);

  // Opens the given URLs: the first in the context's first tab (a new one in a browser we
  // attached to, so the user's own tab is left alone), the others in new tabs; the first
  // becomes the active tab.
  Result<void> open_urls(const std::vector<std::string>& urls);

 private:
  Session() = default;
  struct Parts;
  std::unique_ptr<Parts> m;
};

}  // namespace ouro::session
