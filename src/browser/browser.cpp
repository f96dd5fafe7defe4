#include "browser/browser.h"

#include "base/log.h"
#include "net/io.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

namespace ouro::embedded {
extern const std::string_view helpers_js;
extern const std::string_view serialize_js;
}  // namespace ouro::embedded

namespace ouro::browser {

using Clock = std::chrono::steady_clock;

namespace {

constexpr std::string_view kWorld = "__ouro";
constexpr size_t kMaxConsole = 1000, kMaxErrors = 500, kMaxRequests = 1000;

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string remote_object_text(const json& arg) {
  if (arg.contains("value")) return arg["value"].is_string() ? arg["value"].get<std::string>() : arg["value"].dump();
  if (arg.contains("unserializableValue")) return arg["unserializableValue"].get<std::string>();
  if (arg.contains("description")) return arg["description"].get<std::string>();
  return arg.value("type", "");
}

std::string exception_text(const json& details) {
  if (details.contains("exception")) {
    const json& ex = details["exception"];
    if (ex.contains("description")) return ex["description"].get<std::string>();
    if (ex.contains("value")) return remote_object_text(ex);
  }
  return details.value("text", "exception");
}

template <typename T>
void push_bounded(std::deque<T>& q, T item, size_t max) {
  q.push_back(std::move(item));
  while (q.size() > max) q.pop_front();
}

}  // namespace

json TabInfo::to_json() const {
  return {{"id", id}, {"url", url}, {"title", title}, {"status", status}, {"favicon", favicon}};
}

json ConsoleEntry::to_json() const {
  json j = {{"level", level}, {"text", text}, {"timestamp", timestamp}};
  if (!url.empty()) j["url"] = url, j["line"] = line;
  return j;
}

json PageError::to_json() const {
  json j = {{"message", message}, {"timestamp", timestamp}};
  if (!stack.empty()) j["stack"] = stack;
  if (!url.empty()) j["url"] = url, j["line"] = line, j["column"] = column;
  return j;
}

json RequestRecord::to_json() const {
  json j = {{"requestId", request_id}, {"url", url}, {"method", method}, {"status", status}, {"type", type},
            {"size", size}, {"mimeType", mime_type}, {"timestamp", timestamp}, {"finished", finished}};
  if (!error.empty()) j["error"] = error;
  return j;
}

struct Tab {
  std::string id, target_id, session_id;
  std::string context;  // "" for the default browser context
  std::string url, title, status = "loading", favicon;
  std::string loader_id, loaded_loader_id;
  int isolated_ctx = 0;
  int title_pending = 0;  // title reads in flight: waitForLoad returns after them
  std::string titled_loader;  // the document whose page helpers reported its title
  bool ready = false, closed = false, crashed = false;
  std::string last_interaction_url;
  std::deque<ConsoleEntry> console;
  std::deque<PageError> errors;
  std::deque<RequestRecord> requests;

  TabInfo info() const { return TabInfo{id, url, title.empty() ? url : title, status, favicon}; }
};

struct Browser::Impl : std::enable_shared_from_this<Browser::Impl> {
  net::IoThread* io = nullptr;
  std::unique_ptr<ChromiumProcess> process;
  std::unique_ptr<cdp::Connection> conn;
  bool attached = false;  // connected to someone else's browser: never close it

  mutable std::mutex mutex;
  std::condition_variable changed;
  std::map<std::string, std::shared_ptr<Tab>> tabs;  // by tab id
  std::map<std::string, std::string> by_target, by_session;
  int next_tab = 1;
  std::map<std::string, std::string> active;  // context -> its active tab
  std::string default_context;                // Chromium's id of the profile's context
  std::optional<Error> dead;
  std::function<void()> listener;
  std::map<int, std::pair<std::string, RequestObserver>> observers;
  std::function<void(const std::string&, const json&)> pause_handler;
  struct Viewer {
    std::string tab;
    std::function<void(const std::string&)> on_frame;
  };
  std::map<int, Viewer> viewers;
  int next_viewer = 1;
  int next_observer = 1;

  // --- event handling (network thread) ----------------------------------------------------

  // The listener runs before waiters wake, so the REPL has the new state before any reply that
  // a waiter sends.
  void notify_tabs() {
    std::function<void()> l;
    {
      std::lock_guard lock(mutex);
      l = listener;
    }
    if (l) l();
    changed.notify_all();
  }

  std::shared_ptr<Tab> tab_by_session(const std::string& sid) {
    auto it = by_session.find(sid);
    if (it == by_session.end()) return nullptr;
    auto t = tabs.find(it->second);
    return t == tabs.end() ? nullptr : t->second;
  }

  void on_event(const cdp::Event& ev) {
    if (ev.session_id.empty()) return browser_event(ev);
    bool tabs_changed = false;
    std::vector<std::pair<RequestObserver, RequestRecord>> to_observe;
    std::string tab_id;
    std::function<void(const std::string&, const json&)> on_pause;
    {
      std::lock_guard lock(mutex);
      auto tab = tab_by_session(ev.session_id);
      if (!tab) return;
      tab_id = tab->id;
      if (ev.method == "Fetch.requestPaused") on_pause = pause_handler;
      else tabs_changed = session_event(*tab, ev, to_observe);
    }
    if (ev.method == "Page.screencastFrame") {
      std::vector<std::function<void(const std::string&)>> to_call;
      {
        std::lock_guard lock(mutex);
        for (auto& [id, v] : viewers)
          if (v.tab == tab_id) to_call.push_back(v.on_frame);
      }
      // Chromium sends the next frame only after this one is acknowledged.
      conn->send("Page.screencastFrameAck", {{"sessionId", ev.params.value("sessionId", 0)}}, ev.session_id, 5s, [](Result<json>) {});
      std::string data = ev.params.value("data", "");
      for (auto& f : to_call) f(data);
      return;
    }
    if (ev.method == "Fetch.requestPaused") {
      if (on_pause) on_pause(tab_id, ev.params);
      // Nobody to decide: let it through rather than hang the page.
      else conn->send("Fetch.continueRequest", {{"requestId", ev.params.value("requestId", "")}}, ev.session_id, 5s, [](Result<json>) {});
      return;
    }
    for (auto& [obs, rec] : to_observe) obs(tab_id, rec);
    if (tabs_changed) notify_tabs();
    else changed.notify_all();
  }

  // Returns true when the tab's public info changed. Called with the mutex held.
  bool session_event(Tab& tab, const cdp::Event& ev, std::vector<std::pair<RequestObserver, RequestRecord>>& observe) {
    const json& p = ev.params;
    const std::string& m = ev.method;
    if (m == "Page.frameStartedLoading") {
      if (p.value("frameId", "") != tab.target_id) return false;
      tab.status = "loading";
      return true;
    }
    if (m == "Page.frameNavigated") {
      const json& f = p["frame"];
      if (f.contains("parentId")) return false;
      tab.url = f.value("url", "") + f.value("urlFragment", "");
      tab.loader_id = f.value("loaderId", "");
      tab.title.clear();  // the new document reports its own title
      return true;
    }
    if (m == "Page.navigatedWithinDocument") {
      if (p.value("frameId", "") != tab.target_id) return false;
      tab.url = p.value("url", tab.url);
      return true;
    }
    if (m == "Page.loadEventFired" || (m == "Page.frameStoppedLoading" && p.value("frameId", "") == tab.target_id)) {
      if (tab.status == "loaded" && tab.loaded_loader_id == tab.loader_id) return false;
      tab.status = "loaded";
      tab.loaded_loader_id = tab.loader_id;
      // The helpers report the title at DOMContentLoaded; read it only if they could not.
      if (tab.titled_loader != tab.loader_id) refresh_title(tab);
      return true;
    }
    if (m == "Runtime.bindingCalled") {
      if (p.value("name", "") != "__ouroNotify") return false;
      auto payload = parse_json(p.value("payload", "{}"), "page notification");
      if (!payload || !payload->is_object()) return false;
      std::string title = payload->value("title", tab.title), icon = payload->value("favicon", tab.favicon);
      tab.titled_loader = tab.loader_id;
      if (title == tab.title && icon == tab.favicon) return false;
      tab.title = title;
      tab.favicon = icon;
      return true;
    }
    if (m == "Runtime.executionContextCreated") {
      const json& c = p["context"];
      const json aux = c.value("auxData", json::object());
      if (c.value("name", "") == kWorld && aux.value("frameId", "") == tab.target_id) tab.isolated_ctx = c.value("id", 0);
      return false;
    }
    if (m == "Runtime.executionContextDestroyed") {
      if (p.value("executionContextId", -1) == tab.isolated_ctx) tab.isolated_ctx = 0;
      return false;
    }
    if (m == "Runtime.executionContextsCleared") {
      tab.isolated_ctx = 0;
      return false;
    }
    if (m == "Runtime.consoleAPICalled") {
      ConsoleEntry e;
      e.level = p.value("type", "log");
      if (e.level == "warning") e.level = "warn";
      for (const auto& a : p.value("args", json::array())) {
        if (!e.text.empty()) e.text += ' ';
        e.text += remote_object_text(a);
      }
      if (e.text.size() > 4000) e.text.resize(4000);
      const json frames = p.contains("stackTrace") ? p["stackTrace"].value("callFrames", json::array()) : json::array();
      if (!frames.empty()) e.url = frames[0].value("url", ""), e.line = frames[0].value("lineNumber", 0) + 1;
      e.timestamp = now_ms();
      push_bounded(tab.console, std::move(e), kMaxConsole);
      return false;
    }
    if (m == "Runtime.exceptionThrown") {
      const json& d = p["exceptionDetails"];
      PageError e;
      std::string full = exception_text(d);
      auto nl = full.find('\n');
      e.message = full.substr(0, nl);
      if (nl != std::string::npos) e.stack = full.substr(nl + 1, 2000);
      e.url = d.value("url", "");
      e.line = d.value("lineNumber", 0) + 1;
      e.column = d.value("columnNumber", 0) + 1;
      e.timestamp = now_ms();
      push_bounded(tab.errors, std::move(e), kMaxErrors);
      return false;
    }
    if (m == "Log.entryAdded") {
      const json& en = p["entry"];
      ConsoleEntry e;
      e.level = en.value("level", "info");
      if (e.level == "warning") e.level = "warn";
      if (e.level == "verbose") e.level = "debug";
      e.text = en.value("text", "");
      e.url = en.value("url", "");
      e.line = en.value("lineNumber", 0) + 1;
      e.timestamp = now_ms();
      push_bounded(tab.console, std::move(e), kMaxConsole);
      return false;
    }
    if (m.rfind("Network.", 0) == 0) {
      std::string rid = p.value("requestId", "");
      auto find = [&]() -> RequestRecord* {
        for (auto it = tab.requests.rbegin(); it != tab.requests.rend(); ++it)
          if (it->request_id == rid) return &*it;
        return nullptr;
      };
      if (m == "Network.requestWillBeSent") {
        RequestRecord* r = find();
        if (!r || p.contains("redirectResponse")) {
          RequestRecord rec;
          rec.request_id = rid;
          rec.timestamp = now_ms();
          push_bounded(tab.requests, std::move(rec), kMaxRequests);
          r = &tab.requests.back();
        }
        r->url = p["request"].value("url", "");
        r->method = p["request"].value("method", "GET");
        r->type = p.value("type", "Other");
      } else if (m == "Network.responseReceived") {
        if (RequestRecord* r = find()) {
          r->status = p["response"].value("status", 0);
          r->mime_type = p["response"].value("mimeType", "");
          r->type = p.value("type", r->type);
        }
      } else if (m == "Network.loadingFinished" || m == "Network.loadingFailed") {
        if (RequestRecord* r = find()) {
          r->finished = true;
          if (m == "Network.loadingFinished") r->size = static_cast<int64_t>(p.value("encodedDataLength", 0.0));
          else r->error = p.value("errorText", "failed");
          for (auto& [id, o] : observers)
            if (o.first == tab.id) observe.emplace_back(o.second, *r);
        }
      }
      return false;
    }
    if (m == "Inspector.targetCrashed") {
      mark_crashed(tab, "the renderer crashed");
      return true;
    }
    return false;
  }

  void mark_crashed(Tab& tab, const std::string& why) {
    if (tab.crashed) return;
    tab.crashed = true;
    tab.status = "crashed";
    std::string sid = tab.session_id, id = tab.id;
    io->post([self = shared_from_this(), sid, id, why] {
      self->conn->fail_session(sid, Error{Code::Unavailable, "tab " + id + " crashed (" + why + "); close it and open a new one", nullptr});
    });
  }

  // Reads title and icon once the document has them. The helpers' binding reports later changes,
  // but a document created before the binding was installed (a popup sharing its opener's
  // renderer) would otherwise keep showing its URL as title.
  void refresh_title(Tab& tab) {
    json params = {{"expression", tab.isolated_ctx ? "JSON.stringify({title: document.title, favicon: __ouro.favicon()})"
                                                   : "JSON.stringify({title: document.title})"},
                   {"returnByValue", true}};
    if (tab.isolated_ctx) params["contextId"] = tab.isolated_ctx;
    std::weak_ptr<Impl> weak = shared_from_this();
    std::string id = tab.id;
    ++tab.title_pending;
    conn->send("Runtime.evaluate", std::move(params), tab.session_id, 5s, [weak, id](Result<json> r) {
      auto self = weak.lock();
      if (!self) return;
      std::optional<json> v;
      if (r && (*r)["result"].contains("value") && (*r)["result"]["value"].is_string())
        if (auto p = parse_json((*r)["result"]["value"].get<std::string>()); p && p->is_object()) v = std::move(*p);
      {
        std::lock_guard lock(self->mutex);
        auto it = self->tabs.find(id);
        if (it == self->tabs.end()) return;
        Tab& t = *it->second;
        --t.title_pending;
        if (v) {
          t.title = v->value("title", t.title);
          t.favicon = v->value("favicon", t.favicon);
        }
      }
      self->notify_tabs();
    });
  }

  void browser_event(const cdp::Event& ev) {
    const json& p = ev.params;
    const std::string& m = ev.method;
    if (m == "Target.attachedToTarget") {
      const json& info = p["targetInfo"];
      std::string sid = p.value("sessionId", "");
      if (info.value("type", "") != "page") {
        // Workers and the like: let them run, we do not follow them.
        conn->send("Runtime.runIfWaitingForDebugger", json::object(), sid, 5s, [](Result<json>) {});
        conn->send("Target.detachFromTarget", {{"sessionId", sid}}, "", 5s, [](Result<json>) {});
        return;
      }
      std::shared_ptr<Tab> tab;
      {
        std::lock_guard lock(mutex);
        std::string tid = info.value("targetId", "");
        auto known = by_target.find(tid);
        if (known != by_target.end()) {
          tab = tabs[known->second];
        } else {
          tab = std::make_shared<Tab>();
          tab->id = "t" + std::to_string(next_tab++);
          tab->target_id = tid;
          tabs[tab->id] = tab;
          by_target[tid] = tab->id;
        }
        tab->session_id = sid;
        tab->url = info.value("url", "");
        tab->title = info.value("title", "");
        std::string ctx = info.value("browserContextId", "");
        if (default_context.empty()) default_context = ctx;  // the first page is the profile's
        tab->context = ctx == default_context ? "" : ctx;
        by_session[sid] = tab->id;
        // A page that opens a popup hands it the focus, as a browser window would.
        if (active[tab->context].empty() || !info.value("openerId", "").empty()) active[tab->context] = tab->id;
      }
      configure(tab);
      return;
    }
    if (m == "Target.targetInfoChanged") {
      const json& info = p["targetInfo"];
      {
        std::lock_guard lock(mutex);
        auto it = by_target.find(info.value("targetId", ""));
        if (it == by_target.end()) return;
        Tab& tab = *tabs[it->second];
        std::string url = info.value("url", "");
        if (tab.url == url) return;
        tab.url = url;
      }
      notify_tabs();
      return;
    }
    if (m == "Target.targetDestroyed" || m == "Target.detachedFromTarget") {
      std::string sid, id;
      {
        std::lock_guard lock(mutex);
        std::string tid = p.value("targetId", "");
        if (tid.empty()) {
          auto s = by_session.find(p.value("sessionId", ""));
          if (s == by_session.end()) return;
          tid = tabs[s->second]->target_id;
        }
        auto it = by_target.find(tid);
        if (it == by_target.end()) return;
        id = it->second;
        auto tab = tabs[id];
        tab->closed = true;
        sid = tab->session_id;
        by_session.erase(sid);
        by_target.erase(it);
        tabs.erase(id);
        if (active[tab->context] == id) {
          // The most recently opened tab left in the same context takes over.
          std::string next;
          int best = 0;
          for (auto& [other_id, other] : tabs)
            if (other->context == tab->context && std::stoi(other_id.substr(1)) > best) best = std::stoi(other_id.substr(1)), next = other_id;
          active[tab->context] = next;
        }
      }
      conn->fail_session(sid, Error{Code::NotFound, "tab " + id + " was closed", nullptr});
      notify_tabs();
      return;
    }
    if (m == "Target.targetCrashed") {
      {
        std::lock_guard lock(mutex);
        auto it = by_target.find(p.value("targetId", ""));
        if (it == by_target.end()) return;
        mark_crashed(*tabs[it->second], p.value("status", "crashed"));
      }
      notify_tabs();
    }
  }

  // Enables the domains we watch, installs the helpers world, then lets the target run. The
  // commands are pipelined; the tab is ready when the last reply arrives.
  void configure(const std::shared_ptr<Tab>& tab) {
    const std::string sid = tab->session_id;
    std::weak_ptr<Impl> weak = shared_from_this();
    std::weak_ptr<Tab> wtab = tab;
    auto ignore = [](Result<json>) {};
    conn->send("Page.enable", json::object(), sid, 10s, ignore);
    conn->send("Runtime.addBinding", {{"name", "__ouroNotify"}, {"executionContextName", kWorld}}, sid, 10s, ignore);
    conn->send("Page.addScriptToEvaluateOnNewDocument",
               {{"source", std::string(embedded::helpers_js)}, {"worldName", kWorld}, {"runImmediately", true}}, sid, 10s, ignore);
    conn->send("Runtime.enable", json::object(), sid, 10s, ignore);
    conn->send("Network.enable", {{"maxPostDataSize", 65536}}, sid, 10s, ignore);
    conn->send("Log.enable", json::object(), sid, 10s, ignore);
    conn->send("Inspector.enable", json::object(), sid, 10s, ignore);
    conn->send("Runtime.evaluate", {{"expression", "document.readyState"}, {"returnByValue", true}}, sid, 10s,
               [weak, wtab](Result<json> r) {
                 auto self = weak.lock();
                 auto t = wtab.lock();
                 if (!self || !t || !r) return;
                 std::lock_guard lock(self->mutex);
                 if ((*r)["result"].value("value", "") == "complete" && t->loader_id.empty()) t->status = "loaded";
                 // A document that loaded before we attached (a popup) reports no load event.
                 self->refresh_title(*t);
               });
    conn->send("Runtime.runIfWaitingForDebugger", json::object(), sid, 10s, [weak, wtab](Result<json> r) {
      auto self = weak.lock();
      auto t = wtab.lock();
      if (!self || !t) return;
      if (!r) spdlog::debug("cdp: configuring tab failed: {}", r.error().message);
      {
        std::lock_guard lock(self->mutex);
        t->ready = true;
      }
      self->notify_tabs();
    });
  }

  Error on_close(const Error& e) {
    Error out;
    {
      std::lock_guard lock(mutex);
      std::string why = e.message;
      if (process) {
        // The pipe closes as the process dies; give waitpid a moment to see it.
        for (int i = 0; i < 40 && !process->exit_status(); ++i) std::this_thread::sleep_for(5ms);
        if (auto st = process->exit_status()) why = "Chromium " + *st;
      }
      dead = Error{Code::Unavailable, "the browser is gone: " + why + ". Run the command again to start a new one.", nullptr};
      out = *dead;
    }
    notify_tabs();
    return out;
  }

  // --- helpers for public methods -----------------------------------------------------------

  Result<std::shared_ptr<Tab>> find_tab(const std::string& id) const {
    if (dead) return tl::make_unexpected(*dead);
    auto it = tabs.find(id);
    if (it == tabs.end()) {
      std::string open;
      for (auto& [k, t] : tabs) open += (open.empty() ? "" : ", ") + k;
      return errorf(Code::NotFound, "no tab '{}' (open tabs: {})", id, open.empty() ? "none" : open);
    }
    if (it->second->crashed) return errorf(Code::Unavailable, "tab {} crashed; close it and open a new one", id);
    return it->second;
  }

  // Waits on `changed` until pred() or the deadline; pred runs with the mutex held.
  template <typename Pred>
  bool wait_until(std::unique_lock<std::mutex>& lock, Clock::time_point deadline, Pred pred) {
    return changed.wait_until(lock, deadline, [&] { return dead || pred(); });
  }
};

// --- public API -------------------------------------------------------------------------------

Result<std::unique_ptr<Browser>> Browser::start(net::IoThread& io, const BrowserOptions& options) {
  std::unique_ptr<Browser> b(new Browser());
  auto impl = std::make_shared<Impl>();
  impl->io = &io;
  std::unique_ptr<cdp::Transport> transport;
  if (!options.connect_url.empty()) {
    transport = TRY(cdp::make_websocket_transport(io, options.connect_url));
    impl->attached = true;
  } else {
    impl->process = TRY(ChromiumProcess::spawn(options.launch));
    transport = cdp::make_pipe_transport(io, impl->process->read_fd(), impl->process->write_fd());
  }
  impl->conn = cdp::Connection::create(std::move(transport));
  std::weak_ptr<Impl> weak = impl;
  impl->conn->set_event_handler([weak](const cdp::Event& ev) {
    if (auto s = weak.lock()) s->on_event(ev);
  });
  impl->conn->set_close_handler([weak](const Error& e) {
    auto s = weak.lock();
    return s ? s->on_close(e) : e;
  });
  b->m_impl = impl;

  auto fail = [&](const Error& e) -> tl::unexpected<Error> {
    std::string msg = "cannot start the browser: " + e.message;
    if (impl->process) {
      if (auto st = impl->process->exit_status()) msg += "; Chromium " + *st;
      std::string tail = impl->process->log_tail(600);
      if (!tail.empty()) msg += "\nChromium's log ends with:\n" + tail;
    }
    return make_error(Code::Unavailable, msg);
  };
  auto r = impl->conn->call("Target.setDiscoverTargets", {{"discover", true}}, "", 20s);
  if (!r) return fail(r.error());
  r = impl->conn->call("Target.setAutoAttach", {{"autoAttach", true}, {"waitForDebuggerOnStart", true}, {"flatten", true}}, "", 10s);
  if (!r) return fail(r.error());

  // Existing page targets (the first tab, or the tabs of a browser we attach to).
  auto targets = impl->conn->call("Target.getTargets", json::object(), "", 10s);
  if (!targets) return fail(targets.error());
  std::vector<std::string> pages;
  for (const auto& t : (*targets)["targetInfos"])
    if (t.value("type", "") == "page" && !t.value("attached", false)) pages.push_back(t.value("targetId", ""));
  for (const auto& tid : pages)
    impl->conn->send("Target.attachToTarget", {{"targetId", tid}, {"flatten", true}}, "", 10s, [](Result<json>) {});

  std::unique_lock lock(impl->mutex);
  bool ok = impl->wait_until(lock, Clock::now() + 20s, [&] {
    if (impl->tabs.empty()) return false;
    return std::all_of(impl->tabs.begin(), impl->tabs.end(), [](auto& kv) { return kv.second->ready; });
  });
  if (impl->dead) return fail(*impl->dead);
  if (!ok) return fail(Error{Code::DeadlineExceeded, "no page target became ready within 20 s", nullptr});
  return b;
}

Browser::~Browser() {
  if (!m_impl) return;
  if (!m_impl->attached && !m_impl->dead) {
    // Ask politely and let it finish writing the profile (cookies, storage) before the process
    // owner insists.
    if (m_impl->conn->call("Browser.close", json::object(), "", 2s)) {
      ChromiumProcess* p;
      {
        std::lock_guard lock(m_impl->mutex);
        p = m_impl->process.get();
      }
      if (p) p->wait_exit(5s);
    }
  }
  m_impl->conn.reset();
  // The network thread may still be reporting the closed pipe (on_close reads `process` under
  // the mutex): take the process out under it, and let it go outside.
  std::unique_ptr<ChromiumProcess> process;
  {
    std::lock_guard lock(m_impl->mutex);
    process = std::move(m_impl->process);
  }
}

cdp::Connection& Browser::cdp() { return *m_impl->conn; }

std::vector<TabInfo> Browser::tabs(const std::string& context) const {
  std::lock_guard lock(m_impl->mutex);
  std::vector<std::pair<int, TabInfo>> out;
  for (auto& [id, t] : m_impl->tabs)
    if (t->ready && t->context == context) out.emplace_back(std::stoi(id.substr(1)), t->info());
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.first < b.first; });
  std::vector<TabInfo> result;
  for (auto& [n, info] : out) result.push_back(std::move(info));
  return result;
}

std::string Browser::active_tab(const std::string& context) const {
  std::lock_guard lock(m_impl->mutex);
  auto it = m_impl->active.find(context);
  return it == m_impl->active.end() ? "" : it->second;
}

Result<std::string> Browser::create_context() {
  auto r = TRY(m_impl->conn->call("Target.createBrowserContext", {{"disposeOnDetach", true}}, "", 10s));
  return r.value("browserContextId", "");
}

void Browser::dispose_context(const std::string& context) {
  if (context.empty()) return;
  m_impl->conn->call("Target.disposeBrowserContext", {{"browserContextId", context}}, "", 10s);
}

Result<std::string> Browser::tab_context(const std::string& tab_id) const {
  std::lock_guard lock(m_impl->mutex);
  auto it = m_impl->tabs.find(tab_id);
  if (it == m_impl->tabs.end()) return errorf(Code::NotFound, "no tab '{}'", tab_id);
  return it->second->context;
}

Result<TabInfo> Browser::tab_info(const std::string& tab_id) const {
  std::lock_guard lock(m_impl->mutex);
  auto tab = TRY(m_impl->find_tab(tab_id));
  return tab->info();
}

Result<std::string> Browser::open_tab(const std::string& url, Millis timeout, const std::string& context) {
  auto deadline = Clock::now() + timeout;
  json params = {{"url", "about:blank"}};
  if (!context.empty()) params["browserContextId"] = context;
  auto created = TRY(m_impl->conn->call("Target.createTarget", params, "", timeout));
  std::string target_id = created.value("targetId", "");
  std::string id;
  {
    std::unique_lock lock(m_impl->mutex);
    bool ok = m_impl->wait_until(lock, deadline, [&] {
      auto it = m_impl->by_target.find(target_id);
      return it != m_impl->by_target.end() && m_impl->tabs[it->second]->ready;
    });
    if (m_impl->dead) return tl::make_unexpected(*m_impl->dead);
    if (!ok) return errorf(Code::DeadlineExceeded, "the new tab did not become ready within {} ms", timeout.count());
    id = m_impl->by_target[target_id];
    m_impl->active[m_impl->tabs[id]->context] = id;
  }
  m_impl->notify_tabs();
  if (!url.empty() && url != "about:blank") {
    auto left = std::chrono::duration_cast<Millis>(deadline - Clock::now());
    TRY(navigate(id, url, std::max(left, Millis(1000))));
  }
  return id;
}

Result<void> Browser::close_tab(const std::string& tab_id) {
  std::string target_id;
  {
    std::lock_guard lock(m_impl->mutex);
    auto it = m_impl->tabs.find(tab_id);
    if (it == m_impl->tabs.end()) return m_impl->find_tab(tab_id).map([](auto) {});
    target_id = it->second->target_id;
  }
  TRY(m_impl->conn->call("Target.closeTarget", {{"targetId", target_id}}, "", 5s));
  std::unique_lock lock(m_impl->mutex);
  m_impl->wait_until(lock, Clock::now() + 5s, [&] { return !m_impl->tabs.count(tab_id); });
  return {};
}

Result<TabInfo> Browser::navigate(const std::string& tab_id, const std::string& url, Millis timeout) {
  std::string sid;
  {
    std::lock_guard lock(m_impl->mutex);
    sid = TRY(m_impl->find_tab(tab_id))->session_id;
  }
  auto r = TRY(m_impl->conn->call("Page.navigate", {{"url", url}}, sid, timeout));
  if (r.contains("errorText") && !r["errorText"].get<std::string>().empty())
    return errorf(Code::Unavailable, "navigating tab {} to {} failed: {}", tab_id, url, r["errorText"].get<std::string>());
  std::string loader = r.value("loaderId", "");
  std::unique_lock lock(m_impl->mutex);
  auto tab = TRY(m_impl->find_tab(tab_id));
  if (!loader.empty()) {
    // The load may outlast the deadline; the tab is then returned while still "loading".
    m_impl->wait_until(lock, Clock::now() + timeout,
                       [&] { return tab->closed || tab->crashed || (tab->loaded_loader_id == loader && !tab->title_pending); });
  }
  if (m_impl->dead) return tl::make_unexpected(*m_impl->dead);
  tab->last_interaction_url = tab->url;
  return tab->info();
}

Result<void> Browser::switch_tab(const std::string& tab_id) {
  std::string target_id;
  {
    std::lock_guard lock(m_impl->mutex);
    target_id = TRY(m_impl->find_tab(tab_id))->target_id;
  }
  TRY(m_impl->conn->call("Target.activateTarget", {{"targetId", target_id}}, "", 5s));
  {
    std::lock_guard lock(m_impl->mutex);
    if (auto it = m_impl->tabs.find(tab_id); it != m_impl->tabs.end()) m_impl->active[it->second->context] = tab_id;
  }
  m_impl->notify_tabs();
  return {};
}

Result<TabInfo> Browser::wait_for_load(const std::string& tab_id, Millis timeout) {
  std::unique_lock lock(m_impl->mutex);
  auto tab = TRY(m_impl->find_tab(tab_id));
  bool ok = m_impl->wait_until(lock, Clock::now() + timeout,
                               [&] { return tab->closed || tab->crashed || (tab->status == "loaded" && !tab->title_pending); });
  if (m_impl->dead) return tl::make_unexpected(*m_impl->dead);
  if (tab->closed) return errorf(Code::NotFound, "tab {} was closed while waiting for it to load", tab_id);
  if (tab->crashed) return errorf(Code::Unavailable, "tab {} crashed while loading", tab_id);
  if (!ok) return errorf(Code::DeadlineExceeded, "tab {} ({}) did not finish loading within {} ms", tab_id, tab->url, timeout.count());
  return tab->info();
}

void Browser::set_tabs_listener(std::function<void()> listener) {
  std::lock_guard lock(m_impl->mutex);
  m_impl->listener = std::move(listener);
}

Result<json> Browser::send(const std::string& tab_id, std::string_view method, json params, Millis timeout) {
  std::string sid;
  {
    std::lock_guard lock(m_impl->mutex);
    sid = TRY(m_impl->find_tab(tab_id))->session_id;
  }
  return m_impl->conn->call(method, std::move(params), sid, timeout);
}

void Browser::send_async(const std::string& tab_id, std::string_view method, json params) {
  std::string sid;
  {
    std::lock_guard lock(m_impl->mutex);
    auto tab = m_impl->find_tab(tab_id);
    if (!tab) return;
    sid = (*tab)->session_id;
  }
  m_impl->conn->send(method, std::move(params), sid, 10s, [](Result<json>) {});
}

Result<json> Browser::eval_helpers(const std::string& tab_id, const std::string& expression, Millis timeout) {
  auto deadline = Clock::now() + timeout;
  bool created = false;
  while (true) {
    std::string sid;
    int ctx = 0;
    {
      std::unique_lock lock(m_impl->mutex);
      auto tab = TRY(m_impl->find_tab(tab_id));
      // The world appears with each new document; give it a moment before creating it ourselves.
      m_impl->wait_until(lock, std::min(deadline, Clock::now() + 200ms), [&] { return tab->closed || tab->isolated_ctx != 0; });
      if (tab->closed) return errorf(Code::NotFound, "tab {} was closed", tab_id);
      sid = tab->session_id;
      ctx = tab->isolated_ctx;
    }
    if (!ctx && !created) {
      created = true;
      std::string frame;
      {
        std::lock_guard lock(m_impl->mutex);
        frame = TRY(m_impl->find_tab(tab_id))->target_id;
      }
      auto w = m_impl->conn->call("Page.createIsolatedWorld", {{"frameId", frame}, {"worldName", kWorld}}, sid, 5s);
      if (w) {
        ctx = w->value("executionContextId", 0);
        m_impl->conn->call("Runtime.evaluate", {{"expression", std::string(embedded::helpers_js)}, {"contextId", ctx}}, sid, 5s);
        std::lock_guard lock(m_impl->mutex);
        auto tab = TRY(m_impl->find_tab(tab_id));
        if (!tab->isolated_ctx) tab->isolated_ctx = ctx;
      }
    }
    if (!ctx) {
      if (Clock::now() >= deadline)
        return errorf(Code::DeadlineExceeded, "tab {} has no document to run in (is it still loading?)", tab_id);
      continue;
    }
    auto left = std::max(Millis(100), std::chrono::duration_cast<Millis>(deadline - Clock::now()));
    auto r = m_impl->conn->call("Runtime.evaluate",
                                {{"expression", expression}, {"contextId", ctx}, {"returnByValue", true}, {"awaitPromise", true}},
                                sid, left);
    if (!r) {
      const std::string& msg = r.error().message;
      bool gone = msg.find("Cannot find context") != std::string::npos || msg.find("context was destroyed") != std::string::npos;
      if (gone && Clock::now() < deadline) {
        std::lock_guard lock(m_impl->mutex);
        if (auto tab = m_impl->find_tab(tab_id); tab && (*tab)->isolated_ctx == ctx) (*tab)->isolated_ctx = 0;
        continue;
      }
      return tl::make_unexpected(r.error());
    }
    if (r->contains("exceptionDetails")) {
      std::string text = exception_text((*r)["exceptionDetails"]);
      if (text.find("Execution context was destroyed") != std::string::npos && Clock::now() < deadline) continue;
      auto nl = text.find("\n    at ");
      return make_error(Code::InvalidArgument, text.substr(0, nl));
    }
    const json& res = (*r)["result"];
    return res.contains("value") ? res["value"] : json(nullptr);
  }
}

Result<json> Browser::eval_page(const std::string& tab_id, const std::string& code, Millis timeout, size_t cap) {
  std::string sid;
  {
    std::lock_guard lock(m_impl->mutex);
    sid = TRY(m_impl->find_tab(tab_id))->session_id;
  }
  auto run = [&](const std::string& expression, bool repl) {
    json params = {{"expression", expression}, {"awaitPromise", true}, {"returnByValue", false}, {"userGesture", true},
                   {"timeout", timeout.count()}, {"replMode", repl}, {"objectGroup", "ouro-exec"}};
    return m_impl->conn->call("Runtime.evaluate", std::move(params), sid, timeout + 500ms);
  };
  // Statements or an expression, completion value returned, top-level await allowed (REPL mode,
  // inside a block so declarations do not leak into the page); a body with `return` falls back
  // to an async function.
  auto started = Clock::now();
  auto r = run("{\n" + code + "\n}", true);
  if (r && r->contains("exceptionDetails")) {
    std::string text = exception_text((*r)["exceptionDetails"]);
    if (text.rfind("SyntaxError", 0) == 0) {
      auto fn = run("(async () => {\n" + code + "\n})()", false);
      if (fn && (!fn->contains("exceptionDetails") || exception_text((*fn)["exceptionDetails"]).rfind("SyntaxError", 0) != 0))
        r = std::move(fn);
    }
  }
  if (!r) {
    // Runtime.evaluate's own timeout terminates the script and answers "Internal error".
    if (r.error().code == Code::DeadlineExceeded || Clock::now() - started >= timeout * 9 / 10)
      return errorf(Code::DeadlineExceeded, "execInTab on {} was stopped after {} ms (the page's code did not finish)", tab_id, timeout.count());
    if (r.error().message.find("navigated or closed") != std::string::npos)
      return errorf(Code::Aborted, "execInTab on {}: the page navigated away while the code was running", tab_id);
    return tl::make_unexpected(r.error());
  }
  if (r->contains("exceptionDetails")) {
    std::string text = exception_text((*r)["exceptionDetails"]);
    auto stack = text.find("\n    at ");
    std::string msg = text.substr(0, stack);
    if (msg.find("Execution was terminated") != std::string::npos || msg.find("terminated") != std::string::npos)
      return errorf(Code::DeadlineExceeded, "execInTab on {} was stopped after {} ms", tab_id, timeout.count());
    return make_error(Code::InvalidArgument, msg);
  }
  // REPL mode awaits the script's own completion, not a promise that is its value: await that too.
  for (int hops = 0; hops < 4 && (*r)["result"].value("subtype", "") == "promise" && (*r)["result"].contains("objectId"); ++hops) {
    auto left = std::max(Millis(100), timeout - std::chrono::duration_cast<Millis>(Clock::now() - started));
    auto awaited = m_impl->conn->call("Runtime.awaitPromise", {{"promiseObjectId", (*r)["result"]["objectId"]}, {"returnByValue", false}}, sid, left);
    if (!awaited) {
      if (awaited.error().code == Code::DeadlineExceeded)
        return errorf(Code::DeadlineExceeded, "execInTab on {}: the promise did not settle within {} ms", tab_id, timeout.count());
      return tl::make_unexpected(awaited.error());
    }
    if (awaited->contains("exceptionDetails")) {
      std::string text = exception_text((*awaited)["exceptionDetails"]);
      return make_error(Code::InvalidArgument, text.substr(0, text.find("\n    at ")));
    }
    r = std::move(awaited);
  }
  const json& obj = (*r)["result"];
  std::string type = obj.value("type", "");
  if (type == "undefined") return json(json::value_t::discarded);
  if (!obj.contains("objectId")) {
    if (obj.contains("unserializableValue")) return json(obj["unserializableValue"]);
    json v = obj.contains("value") ? obj["value"] : json(nullptr);
    if (v.is_string() && v.get_ref<const std::string&>().size() > cap) {
      const std::string& s = v.get_ref<const std::string&>();
      return json{{"__truncated", true}, {"originalLength", s.size()}, {"data", s.substr(0, cap)},
                  {"hint", "Result truncated. Use a more specific selector to narrow results."}};
    }
    return v;
  }
  std::string object_id = obj["objectId"];
  auto ser = m_impl->conn->call("Runtime.callFunctionOn",
                                {{"functionDeclaration", std::string(embedded::serialize_js)},
                                 {"objectId", object_id},
                                 {"arguments", json::array({json{{"value", cap}}})},
                                 {"returnByValue", true}},
                                sid, timeout);
  m_impl->conn->send("Runtime.releaseObjectGroup", {{"objectGroup", "ouro-exec"}}, sid, 5s, [](Result<json>) {});
  if (!ser) return tl::make_unexpected(ser.error());
  if (ser->contains("exceptionDetails")) return make_error(Code::Internal, "cannot serialise the result: " + exception_text((*ser)["exceptionDetails"]));
  auto parsed = TRY(parse_json((*ser)["result"].value("value", "null"), "execInTab result"));
  if (parsed.contains("undefined")) return json(json::value_t::discarded);
  return parsed["value"];
}

std::vector<ConsoleEntry> Browser::console_log(const std::string& tab_id) const {
  std::lock_guard lock(m_impl->mutex);
  auto it = m_impl->tabs.find(tab_id);
  return it == m_impl->tabs.end() ? std::vector<ConsoleEntry>{} : std::vector<ConsoleEntry>(it->second->console.begin(), it->second->console.end());
}

std::vector<PageError> Browser::errors(const std::string& tab_id) const {
  std::lock_guard lock(m_impl->mutex);
  auto it = m_impl->tabs.find(tab_id);
  return it == m_impl->tabs.end() ? std::vector<PageError>{} : std::vector<PageError>(it->second->errors.begin(), it->second->errors.end());
}

std::vector<RequestRecord> Browser::requests(const std::string& tab_id) const {
  std::lock_guard lock(m_impl->mutex);
  auto it = m_impl->tabs.find(tab_id);
  return it == m_impl->tabs.end() ? std::vector<RequestRecord>{} : std::vector<RequestRecord>(it->second->requests.begin(), it->second->requests.end());
}

Result<std::string> Browser::tab_of_request(const std::string& request_id) const {
  std::lock_guard lock(m_impl->mutex);
  for (auto& [id, t] : m_impl->tabs)
    for (auto& r : t->requests)
      if (r.request_id == request_id) return id;
  return errorf(Code::NotFound, "no recent request with id '{}' (ids come from getRecentRequests)", request_id);
}

int Browser::add_request_observer(const std::string& tab_id, RequestObserver observer) {
  std::lock_guard lock(m_impl->mutex);
  int id = m_impl->next_observer++;
  m_impl->observers[id] = {tab_id, std::move(observer)};
  return id;
}

void Browser::remove_request_observer(int id) {
  std::lock_guard lock(m_impl->mutex);
  m_impl->observers.erase(id);
}

void Browser::set_pause_handler(std::function<void(const std::string&, const json&)> handler) {
  std::lock_guard lock(m_impl->mutex);
  m_impl->pause_handler = std::move(handler);
}

Result<int> Browser::start_screencast(const std::string& tab_id, std::function<void(const std::string&)> on_frame) {
  bool first;
  int id;
  {
    std::lock_guard lock(m_impl->mutex);
    TRY(m_impl->find_tab(tab_id));
    first = std::none_of(m_impl->viewers.begin(), m_impl->viewers.end(), [&](auto& kv) { return kv.second.tab == tab_id; });
    id = m_impl->next_viewer++;
    m_impl->viewers[id] = Impl::Viewer{tab_id, std::move(on_frame)};
  }
  // Not awaited: callers may be on the network thread, which must not block on a reply.
  if (first) send_async(tab_id, "Page.startScreencast", {{"format", "jpeg"}, {"quality", 60}, {"maxWidth", 960}, {"maxHeight", 640}, {"everyNthFrame", 1}});
  return id;
}

void Browser::stop_screencast(int id) {
  std::string tab;
  bool last;
  {
    std::lock_guard lock(m_impl->mutex);
    auto it = m_impl->viewers.find(id);
    if (it == m_impl->viewers.end()) return;
    tab = it->second.tab;
    m_impl->viewers.erase(it);
    last = std::none_of(m_impl->viewers.begin(), m_impl->viewers.end(), [&](auto& kv) { return kv.second.tab == tab; });
  }
  if (last) send_async(tab, "Page.stopScreencast", json::object());
}

void Browser::after(Millis delay, std::function<void()> fn) {
  auto timer = std::make_shared<boost::asio::steady_timer>(m_impl->io->context(), delay);
  timer->async_wait([timer, fn = std::move(fn)](boost::system::error_code ec) {
    if (!ec) fn();
  });
}

void Browser::note_interaction(const std::string& tab_id) {
  std::lock_guard lock(m_impl->mutex);
  if (auto it = m_impl->tabs.find(tab_id); it != m_impl->tabs.end()) it->second->last_interaction_url = it->second->url;
}

std::optional<std::string> Browser::navigation_note(const std::string& tab_id, Millis wait) const {
  std::unique_lock lock(m_impl->mutex);
  auto it = m_impl->tabs.find(tab_id);
  if (it == m_impl->tabs.end()) return std::nullopt;
  std::shared_ptr<Tab> tab = it->second;
  if (wait.count() > 0)
    m_impl->changed.wait_for(lock, wait, [&] { return tab->closed || tab->last_interaction_url != tab->url; });
  const Tab& t = *tab;
  if (t.last_interaction_url.empty() || t.last_interaction_url == t.url) return std::nullopt;
  return fmt::format("[PAGE NAVIGATED] Tab {} URL changed from \"{}\" to \"{}\" since your last interaction. Update your selectors for the new page.",
                     t.id, t.last_interaction_url, t.url);
}

std::optional<Error> Browser::dead() const {
  std::lock_guard lock(m_impl->mutex);
  return m_impl->dead;
}

}  // namespace ouro::browser

namespace ouro::browser {

std::optional<int> Browser::process_id() const {
  if (!m_impl->process || m_impl->process->pid() <= 0) return std::nullopt;
  return m_impl->process->pid();
}

}  // namespace ouro::browser
