#include "session/session.h"
#include "base/clock.h"
#include "session/start_url.h"
#include "session/prediction.h"

#include "egress/holds.h"
#include "egress/gate.h"
#include "net/socks_proxy.h"
#include "actions/host.h"
#include "actions/registry.h"
#include "base/log.h"
#include "base/log_scrubber.h"
#include "net/io.h"
#include "safety/sites.h"
#include "safety/known_secrets.h"
#include "memory/embeddings.h"
#include "safety/secrets.h"
#include "store/database.h"
#include "browser/contexts.h"
#include "browser/files.h"
#include "browser/shared_tabs.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <filesystem>
#include <set>
#include <unistd.h>
#include <fmt/format.h>
#include <mutex>

namespace ouro::session {

namespace {

// Where tab changes go. The browser calls it from its network thread; the session detaches it
// before the REPL goes away.
struct StateSink {
  std::mutex mutex;
  jsrt::Repl* repl = nullptr;
  browser::Browser* browser = nullptr;
  std::string context;
  bool shared = false, person = false;
  std::string owner, active;  // shared: the tab the session works on, one it holds
  // The session's active tab. In a shared context the browser's active tab may be the user's or
  // another run's: the session keeps to the last tab of its own that was active (mutex held).
  std::string active_tab() {
    std::string now = browser->active_tab(context);
    if (!shared) return now;
    auto held = browser->shared().owned_tabs(owner);
    auto holds = [&](const std::string& t) { return std::find(held.begin(), held.end(), t) != held.end(); };
    if (!now.empty() && holds(now)) active = now;
    if ((!active.empty() && !holds(active)) || active.empty()) active = held.empty() ? "" : held.back();
    return active;
  }
  void push() {
    std::lock_guard lock(mutex);
    if (!repl || !browser) return;
    json tabs = json::array();
    for (const auto& t : browser->tabs(context, person)) tabs.push_back(t.to_json());
    repl->set_state({{"tabs", tabs}, {"activeTab", active_tab()}});
  }
};

// The tab the user was working in, to hand to a session in their browser: a web page they can
// see (the active one of its window), the browser's active tab first; when none is in view (the
// Command Center is in front), the one they looked at last; else the latest opened.
std::string user_tab(browser::Browser& b, const std::string& context) {
  std::vector<std::string> pages, visible;
  std::string seen;
  double seen_at = 0;
  for (const auto& t : b.tabs(context))
    if (t.url.rfind("http://", 0) == 0 || t.url.rfind("https://", 0) == 0) {
      pages.push_back(t.id);
      if (t.seen_at > seen_at) seen_at = t.seen_at, seen = t.id;
    }
  for (const auto& id : pages)
    if (auto v = b.call(id, "visibility", json::array(), "", std::chrono::seconds(2)); v && v->is_string() && *v == "visible")
      visible.push_back(id);
  std::string active = b.active_tab(context);
  if (visible.empty() && !seen.empty()) return seen;
  for (const auto* list : {&visible, &pages}) {
    if (std::find(list->begin(), list->end(), active) != list->end()) return active;
    if (!list->empty()) return list->back();
  }
  return "";
}

struct LogSink {
  std::mutex mutex;
  std::function<void(const std::string&)> handler;
};

}  // namespace

// Every session's sink hears every tab change (it filters by context when it pushes).
struct TabListeners {
  std::mutex mutex;
  std::vector<std::weak_ptr<StateSink>> sinks;
  void add(const std::shared_ptr<StateSink>& s) {
    std::lock_guard lock(mutex);
    sinks.push_back(s);
  }
  void notify() {
    std::vector<std::shared_ptr<StateSink>> live;
    {
      std::lock_guard lock(mutex);
      for (auto it = sinks.begin(); it != sinks.end();) {
        if (auto s = it->lock()) {
          live.push_back(std::move(s));
          ++it;
        } else {
          it = sinks.erase(it);
        }
      }
    }
    for (auto& s : live) s->push();
  }
};

Runtime::~Runtime() {
  if (browser) browser->set_tabs_listener(nullptr);
  restore_prediction(*this);
  browser.reset();
  proxy.reset();
  db.reset();
  io.reset();
}

struct Session::Parts {
  std::shared_ptr<Runtime> runtime;
  std::string context;
  bool owns_context = false;
  std::string handed;  // shared: the user's tab the session was handed
  std::set<std::string> before;  // shared: the context's tabs when the session started (the person's)
  std::shared_ptr<StateSink> sink = std::make_shared<StateSink>();
  std::shared_ptr<LogSink> logs = std::make_shared<LogSink>();

  std::unique_ptr<actions::Host> host;
  std::unique_ptr<jsrt::Repl> repl;
  std::shared_ptr<net::SocksProxy> proxy;  // a context of its own in a browser on this machine
};

namespace {
// Where the session's downloads land: a folder of its own for a context of its own; one folder
// for the profile's context of a browser we launched; the browser's own place in a browser we
// attached to (the user's downloads stay theirs), still reported by getDownloads().
Result<void> set_up_downloads(browser::Browser& b, const std::string& data_dir, const std::string& context, const SessionOptions& options,
                              host::Context& ctx) {
  static std::atomic<uint64_t> next{1};
  std::string dir;
  if (!context.empty()) {
    // A run's own folder ("run r12" → run-r12), else one per session of this process.
    std::string name = options.owner.substr(0, 60);
    for (char& c : name)
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '-';
    if (name.empty()) name = fmt::format("session-{}-{}", getpid(), next++);
    dir = (std::filesystem::path(data_dir) / "downloads" / name).string();
  }
  else if (b.process_id())
    dir = (std::filesystem::path(data_dir) / "downloads" / "mine").string();
  TRY(b.files().set_download_dir(context, dir));
  std::vector<std::string> uploads;
  if (!dir.empty()) uploads.push_back(dir);
  for (const auto& d : options.upload_dirs) uploads.push_back(d);
  ctx.set_files(dir, std::move(uploads));
  return {};
}
}  // namespace

std::shared_ptr<Runtime> make_runtime(std::shared_ptr<net::IoThread> io, std::shared_ptr<store::Database> db,
                                      std::unique_ptr<browser::Browser> browser, std::string data_dir, std::function<void()> on_tabs_changed) {
  auto rt = std::make_shared<Runtime>();
  rt->io = std::move(io);
  rt->db = std::move(db);
  rt->browser = std::move(browser);
  rt->data_dir = std::move(data_dir);
  rt->embeddings = std::make_shared<memory::Embeddings>(memory::configured_embeddings("", rt->data_dir + "/secrets.json"));
  rt->tab_listeners = std::make_shared<TabListeners>();
  std::weak_ptr<TabListeners> weak = rt->tab_listeners;
  rt->browser->set_tabs_listener([weak, also = std::move(on_tabs_changed)] {
    if (auto l = weak.lock()) l->notify();
    if (also) also();
  });
  return rt;
}

Result<std::unique_ptr<Session>> Session::start(SessionOptions options) {
  std::shared_ptr<net::IoThread> io = net::IoThread::start();
  std::string db_path = options.db_path.empty() ? store::default_data_dir() + "/ouro.db" : options.db_path;
  std::filesystem::path parent = std::filesystem::path(db_path).parent_path();
  std::string data_dir = parent.empty() ? std::filesystem::current_path().string() : parent.string();
  std::shared_ptr<store::Database> db = TRY(store::Database::open(db_path));
  // A browser launched for one gated session that works in its default context: every connection
  // of the browser goes through a proxy on our loopback that keeps the gate's rule below HTTP too
  // (WebRTC over TCP, preconnects). Not for the user's own browser (shared), whose other tabs are
  // theirs, nor for one we attach to.
  std::shared_ptr<net::SocksProxy> proxy;
  if (options.gate && !options.isolated && !options.shared && options.browser.connect_url.empty()) {
    proxy = TRY(net::SocksProxy::start(*io));
    options.browser.launch.extra_args.push_back("--proxy-server=" + proxy->url());
    // Chromium bypasses proxies for loopback by default; "<-loopback>" takes that rule away.
    options.browser.launch.extra_args.push_back("--proxy-bypass-list=<-loopback>");
  }
  auto browser = TRY(browser::Browser::start(*io, options.browser));
  auto runtime = make_runtime(std::move(io), std::move(db), std::move(browser), std::move(data_dir));
  runtime->proxy = std::move(proxy);
  return attach(std::move(runtime), std::move(options));
}

Result<std::unique_ptr<Session>> Session::attach(std::shared_ptr<Runtime> runtime, SessionOptions options) {
  std::unique_ptr<Session> s(new Session());
  s->m = std::make_unique<Parts>();
  Parts& p = *s->m;
  p.runtime = std::move(runtime);
  // A server on a browser pool has no browser of its own: its runs attach to an endpoint's.
  if (!p.runtime || !p.runtime->browser)
    return make_error(Code::FailedPrecondition, "this server has no browser of its own (its runs use a browser pool)");
  browser::Browser& b = *p.runtime->browser;
  if (options.isolated) {
    // A browser on this machine reaches a proxy on our loopback: every connection of the context
    // then goes through the gate's rule, below HTTP too (WebRTC over TCP, preconnects).
    if (options.gate && b.process_id()) p.proxy = TRY(net::SocksProxy::start(*p.runtime->io));
    p.context = TRY(b.contexts().create(p.proxy ? p.proxy->url() : std::string()));
    p.owns_context = true;
  }
  bool shared = options.shared && !options.isolated;
  p.host = std::make_unique<actions::Host>(b, p.runtime->db.get(), options.limits, p.context, options.owner, shared);
  p.host->context().set_permission_overrides(options.permissions);
  p.host->context().set_sees_hidden_tabs(options.person);
  p.host->context().set_trusted_sites(options.trusted_sites);
  p.host->context().set_previous_final(options.previous_final);
  if (options.gate) TRY(egress::install_egress_gate(p.host->context(), options.gate));
  // Without ouro's proxy in front of this session's tabs, connections Chromium opens by itself
  // (preconnects, DNS prefetch) never reach the gate: they are turned off instead.
  bool proxied = p.proxy || (p.runtime->proxy && !options.isolated && !shared);
  if (options.gate && !proxied) TRY(hold_prediction(*p.runtime, shared));
  if (auto proxy = p.proxy ? p.proxy : (!options.isolated && !shared ? p.runtime->proxy : nullptr)) {
    proxy->set_rule(egress::connection_rule(p.host->context()));
    egress::watch_connections(p.host->context(), [weak = std::weak_ptr<net::SocksProxy>(proxy)] {
      if (auto px = weak.lock()) px->recheck();
    });
  }
  TRY(set_up_downloads(b, p.runtime->data_dir, p.context, options, p.host->context()));
  if (shared) {
    for (const auto& t : b.tabs(p.context)) p.before.insert(t.id);
    // Handed the tab the user was on: held (so no other run acts there meanwhile), under the
    // gate, and its site one the run may work on.
    p.handed = user_tab(b, p.context);
    if (!p.handed.empty()) {
      if (auto held = egress::take_tab(p.host->context(), p.handed); !held) {
        spdlog::info("session: the user's tab {} is not handed over: {}", p.handed, held.error().message);
        p.handed.clear();
      } else if (auto info = b.tab_info(p.handed)) {
        egress::allow_site(p.host->context(), info->url);
      }
    }
  }
  // The session's own store: the configured secrets, and those the user answers during a run.
  auto secrets = options.secrets ? std::make_shared<safety::SecretStore>(*options.secrets) : std::make_shared<safety::SecretStore>();
  p.host->context().set_secrets(secrets);
  p.host->context().set_embeddings(p.runtime->embeddings);
  // Every secret of every run leaves its digest in the data directory, so that a later run that
  // reads the value back from the store or memory gets it masked (safety/known_secrets.h).
  // A database in memory has nothing that outlives the session to be read back; the digests live
  // in the data directory, beside an SQLite file or the node's own with PostgreSQL.
  std::error_code dir_error;
  if (p.runtime->db && p.runtime->db->path() != ":memory:" && std::filesystem::is_directory(p.runtime->data_dir, dir_error)) {
    auto known = TRY(safety::KnownSecrets::open((std::filesystem::path(p.runtime->data_dir) / "secret-digests").string()));
    for (const auto& name : secrets->names())
      if (auto s = secrets->find(name)) TRY(known->record(name, s->value));
    p.host->context().set_known_secrets(known);
  }
  // Logs too: a page's text quoted in an error may hold a typed value.
  register_log_scrubber(secrets);
  options.repl.host_functions = actions::host_function_names();
  actions::Host* host = p.host.get();
  p.logs->handler = std::move(options.on_log);
  std::weak_ptr<LogSink> weak_logs = p.logs;
  p.repl = TRY(jsrt::Repl::start(
      options.repl, [host](const std::string& fn, json args, jsrt::HostReply reply) { host->call(fn, std::move(args), std::move(reply)); },
      [weak_logs](const std::string& line) {
        if (auto l = weak_logs.lock()) {
          std::lock_guard lock(l->mutex);
          if (l->handler) l->handler(line);
        }
      }));
  p.sink->repl = p.repl.get();
  p.sink->browser = &b;
  p.sink->context = p.context;
  p.sink->shared = shared;
  p.sink->person = options.person;
  p.sink->owner = p.host->context().owner();
  p.sink->active = p.handed;
  std::weak_ptr<StateSink> weak = p.sink;
  p.host->context().set_active_tab([weak] {
    auto sink = weak.lock();
    if (!sink) return std::string();
    std::lock_guard lock(sink->mutex);
    return sink->browser ? sink->active_tab() : std::string();
  });
  p.host->context().set_emit_event([weak, secrets](const std::string& handler, const json& data) {
    if (auto sink = weak.lock()) {
      json shown = data;
      // A request body may carry a secret that was typed into a form.
      secrets->scrub(shown);
      std::lock_guard lock(sink->mutex);
      if (sink->repl) sink->repl->send_event(handler, shown);
    }
  });
  p.runtime->tab_listeners->add(p.sink);
  // A new context has no tab yet: give it one, as a new browser window would have.
  if (options.isolated) TRY(b.open_tab("about:blank", std::chrono::seconds(10), p.context));
  p.sink->push();
  return s;
}

Session::~Session() {
  if (!m) return;
  {
    std::lock_guard lock(m->sink->mutex);
    m->sink->repl = nullptr;
  }
  m->repl.reset();
  // The gate refuses from now on, and what waits under it is refused before the context goes
  // (a disposed tab's sessions detach, and Chromium lets a paused request go on when its
  // interception ends). Its pages are stopped first (blanked, or their renderers crashed), so
  // nothing the run planted still runs when the context goes; a page that may still run keeps its
  // context, under the closed gate, for as long as ouro holds the browser (fail closed).
  bool stopped = true;
  if (m->owns_context) {
    egress::close_gate(m->host->context());
    stopped = egress::stop_pages(m->host->context());
  }
  // Closing the context's tabs fails whatever host call still waits on them, so the host's
  // threads end now rather than at their deadlines.
  if (m->owns_context && stopped && !m->runtime->browser->dead()) m->runtime->browser->contexts().dispose(m->context);
  m->host.reset();
  m->proxy.reset();
  m->runtime.reset();
}

browser::Browser& Session::browser() { return *m->runtime->browser; }
jsrt::Repl& Session::repl() { return *m->repl; }

std::string Session::storable_env() {
  std::string env = m->repl->env_checkpoint();
  const auto& secrets = host().context().secrets();
  if (!secrets || secrets->empty()) return env;
  json parsed = json::parse(env, nullptr, false);
  if (parsed.is_discarded()) return secrets->scrub_text(std::move(env));
  secrets->scrub(parsed);
  return dump_json(parsed);
}
actions::Host& Session::host() { return *m->host; }
store::Database& Session::db() { return *m->runtime->db; }
std::shared_ptr<Runtime> Session::runtime() { return m->runtime; }
const std::string& Session::context() const { return m->context; }
std::vector<browser::TabInfo> Session::tabs() const { return m->runtime->browser->tabs(m->context); }
std::string Session::active_tab() const {
  std::lock_guard lock(m->sink->mutex);
  return m->sink->active_tab();
}

std::vector<browser::TabInfo> Session::held_tabs() const {
  std::vector<browser::TabInfo> out;
  for (const auto& id : m->runtime->browser->shared().owned_tabs(m->host->context().owner()))
    if (auto info = m->runtime->browser->tab_info(id)) out.push_back(*info);
  return out;
}

const std::string& Session::handed_tab() const { return m->handed; }

Session::Held Session::let_go() {
  Held h;
  if (!m->host->context().shared_tabs()) return h;
  h.active = active_tab();
  h.tabs = m->runtime->browser->shared().owned_tabs(m->host->context().owner());
  h.at = wall_ms();
  for (const auto& t : h.tabs)
    if (auto info = m->runtime->browser->tab_info(t)) h.urls[t] = info->url;
  m->runtime->browser->shared().release_tabs(m->host->context().owner(), egress::lingering_gate(m->host->context()));
  return h;
}

void Session::take_back(const Held& held) {
  if (!m->host->context().shared_tabs() || held.tabs.empty()) return;  // nothing was let go
  for (const auto& t : held.tabs)
    if (auto r = egress::take_tab(m->host->context(), t); !r) spdlog::info("session: tab {} is not taken back: {}", t, r.error().message);
  {
    std::lock_guard lock(m->sink->mutex);
    m->sink->active = held.active;
  }
  m->sink->push();
}

std::vector<std::string> Session::close_what_it_opened(const Held& held) {
  std::vector<std::string> closed;
  browser::Browser& b = *m->runtime->browser;
  if (!m->host->context().shared_tabs() || !b.process_id() || b.dead()) return closed;
  for (const auto& t : held.tabs) {
    if (t == m->handed || m->before.count(t)) continue;
    if (!b.shared().tab_owner(t).empty()) continue;  // another run holds it now
    auto info = b.tab_info(t);
    if (!info || info->seen_at > held.at) continue;  // gone, or the person turned to it
    if (auto was = held.urls.find(t); was == held.urls.end() || was->second != info->url) continue;  // another page now
    if (auto r = b.close_tab(t); r) closed.push_back(t);
    else spdlog::info("session: tab {} it opened is not closed: {}", t, r.error().message);
  }
  return closed;
}

void Session::set_log_handler(std::function<void(const std::string&)> handler) {
  std::lock_guard lock(m->logs->mutex);
  m->logs->handler = std::move(handler);
}

Result<void> Session::open_urls(const std::vector<std::string>& urls) {
  if (urls.empty()) return {};
  for (const auto& url : urls) TRY(check_start_url(url));
  browser::Browser& b = browser();
  if (m->host->context().shared_tabs()) {
    // In the user's browser: tabs of the run's own, the user's left as they are.
    std::string first;
    for (const auto& url : urls) {
      auto id = TRY(egress::open_held_tab(m->host->context(), url));
      if (first.empty()) first = id;
    }
    {
      std::lock_guard lock(m->sink->mutex);
      m->sink->active = first;
    }
    // In a window of ouro's own (a profile ouro launched) the run's tab comes to the front. In the
    // person's Chrome (attached, or through the extension) it is the run's active tab, not the
    // window's: the tab the person is on stays theirs and in front (and a new tab they open
    // lands beside theirs, not in the run's group).
    if (b.process_id().has_value()) TRY(b.switch_tab(first));
    return {};
  }
  auto timeout = m->host->context().limits().load_timeout;
  auto tabs = b.tabs(m->context);
  // In a browser we attached to, the first tab is the user's own: leave it be.
  bool reuse_first = b.process_id().has_value() || !m->context.empty();
  std::string first;
  for (size_t i = 0; i < urls.size(); ++i) {
    if (i == 0 && !tabs.empty() && reuse_first) {
      first = tabs[0].id;
      TRY(b.navigate(first, urls[0], timeout));
    } else {
      auto id = TRY(b.open_tab(urls[i], timeout, m->context));
      if (first.empty()) first = id;
    }
  }
  TRY(b.switch_tab(first));
  return {};
}

}  // namespace ouro::session
