// The Browser's lifecycle (launch or attach, close), its parts, its browser contexts (contexts.h)
// and its tabs as callers see them: open, navigate, switch, close, wait, read what they logged
// (records.h) and what ouro answered for them (notices.h). Tab state itself comes from
// the tab tracker (tab_tracker.h) through events.cpp.
#include "browser/browser_impl.h"
#include "base/clock.h"

#include "base/log.h"
#include "cdp/bridge.h"
#include "net/io.h"

#include <algorithm>

namespace ouro::browser {

Result<std::shared_ptr<Tab>> Browser::Impl::find_tab(const std::string& id) const {
  if (dead) return tl::make_unexpected(*dead);
  auto tab = tracker.find(id);
  if (!tab) {
    std::string open;
    for (const auto& [k, t] : tracker.all()) open += (open.empty() ? "" : ", ") + k;
    return errorf(Code::NotFound, "no tab '{}' (open tabs: {})", id, open.empty() ? "none" : open);
  }
  if (tab->crashed) return errorf(Code::Unavailable, "tab {} crashed; close it and open a new one", id);
  return tab;
}

// --- public API -------------------------------------------------------------------------------

struct Browser::Parts {
  Parts(Browser& b, const std::shared_ptr<Impl>& impl)
      : contexts(b, impl), notices(b, impl), frames(b, impl), page_tools(b, impl), records(b, impl), egress(b, impl), files(b, impl),
        shared(b, impl), screencast(b, impl) {}
  Contexts contexts;
  Notices notices;
  Frames frames;
  PageTools page_tools;
  Records records;
  EgressControl egress;
  Files files;
  SharedTabs shared;
  Screencast screencast;
};

Browser::Browser() = default;

Contexts& Browser::contexts() { return m_parts->contexts; }
Notices& Browser::notices() { return m_parts->notices; }
Frames& Browser::frames() { return m_parts->frames; }
PageTools& Browser::page_tools() { return m_parts->page_tools; }
Records& Browser::records() { return m_parts->records; }
EgressControl& Browser::egress() { return m_parts->egress; }
Files& Browser::files() { return m_parts->files; }
SharedTabs& Browser::shared() { return m_parts->shared; }
Screencast& Browser::screencast() { return m_parts->screencast; }

Result<std::unique_ptr<Browser>> Browser::start(net::IoThread& io, const BrowserOptions& options) {
  std::unique_ptr<Browser> b(new Browser());
  auto impl = std::make_shared<Impl>();
  impl->io = &io;
  std::unique_ptr<cdp::Transport> transport;
  // An in-process endpoint (the extension bridge, cdp/bridge.h) may have no tab yet: its first
  // tab opens when a run asks for one.
  const bool in_process = cdp::is_offered_transport(options.connect_url);
  if (in_process) {
    transport = cdp::take_transport(options.connect_url);
    if (!transport) return make_error(Code::FailedPrecondition, "the in-process DevTools endpoint " + options.connect_url + " was taken already");
    impl->attached = true;
    impl->bridged = true;
  } else if (!options.connect_url.empty()) {
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
  b->m_parts = std::make_unique<Parts>(*b, impl);

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
  for (const auto& t : get_array(*targets, "targetInfos")) {
    if (get_str(t, "type") != "page" || get_bool(t, "attached")) continue;
    // A settings tab an earlier ouro left (it was killed, or its connection closed first) is
    // ouro's, not the user's: closed, never followed (prediction.cpp).
    if (is_private_settings_url(get_str(t, "url"))) {
      impl->conn->send("Target.closeTarget", {{"targetId", get_str(t, "targetId")}}, "", 5s, [](Result<json>) {});
      continue;
    }
    pages.push_back(get_str(t, "targetId"));
  }
  for (const auto& tid : pages)
    impl->conn->send("Target.attachToTarget", {{"targetId", tid}, {"flatten", true}}, "", 10s, [](Result<json>) {});

  std::unique_lock lock(impl->mutex);
  bool ok = impl->wait_until(lock, Clock::now() + 20s, [&] {
    const auto& all = impl->tracker.all();
    if (in_process && pages.empty()) return true;
    return !all.empty() && std::all_of(all.begin(), all.end(), [](auto& kv) { return kv.second->ready; });
  });
  if (impl->dead) return fail(*impl->dead);
  if (!ok) return fail(Error{Code::DeadlineExceeded, "no page target became ready within 20 s", nullptr});
  return b;
}

Browser::~Browser() {
  if (!m_impl) return;
  // Connections may be predicted again only once what runs left in their tabs has stopped.
  if (auto r = egress().restore_network_prediction(); !r) spdlog::warn("browser: {}", r.error().message);
  // What a run put into the tabs it held (a timer, a tampered poller, an unload handler) would
  // send unjudged once their gates go with our connection — or as the browser closes them (a
  // `pagehide` beacon). Those documents go first (their scripts stop, then about:blank), within
  // 5 s for them all, whether the browser is someone else's or ours.
  if (!m_impl->dead) {
    auto tabs = m_impl->gated_tabs();
    // Not crashed when they do not go blank: in the user's own profile a renderer may hold their
    // other tabs too. (A run's own context had its pages stopped, crashed if need be, as its gate
    // closed: egress/gate.h stop_pages; one whose pages may still run is blanked once more here.)
    if (auto left = shared().blank(tabs, 5s); !left.empty())
      spdlog::warn("browser: {} of {} gated tab(s) did not go blank before ouro let go of the browser", left.size(), tabs.size());
  }
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
  // Someone else's browser goes on without us: the service workers the gate held
  // (service_workers.cpp) would run on unjudged.
  if (m_impl->attached && !m_impl->dead)
    if (size_t left = m_impl->stop_held_workers(2s))
      spdlog::warn("browser: {} held service worker(s) could not be stopped before ouro let go of the browser", left);
  // After this no event or reply is delivered; the connection object stays for work that still
  // holds the Impl (it fails at once).
  m_impl->conn->close();
  // A timed-out reply may still be reporting on the deadline thread (on_close reads `process`
  // under the mutex): take the process out under it, and let it go outside.
  std::unique_ptr<ChromiumProcess> process;
  {
    std::lock_guard lock(m_impl->mutex);
    process = std::move(m_impl->process);
  }
}

cdp::Connection& Browser::cdp() { return *m_impl->conn; }

bool Browser::bridged() const { return m_impl->bridged; }

std::vector<TabInfo> Browser::tabs(const std::string& context, bool with_hidden) const {
  std::lock_guard lock(m_impl->mutex);
  std::vector<TabInfo> result;
  for (const auto& t : m_impl->tracker.in_context(context))
    if (t->ready && (with_hidden || !m_impl->is_hidden(*t))) result.push_back(t->info());
  return result;
}

std::string Browser::active_tab(const std::string& context) const {
  std::lock_guard lock(m_impl->mutex);
  std::string id = m_impl->tracker.active(context);
  auto tab = m_impl->tracker.find(id);
  return tab && m_impl->is_hidden(*tab) ? "" : id;
}

Result<std::string> Contexts::create(const std::string& proxy) {
  json params = {{"disposeOnDetach", true}};
  if (!proxy.empty()) {
    params["proxyServer"] = proxy;
    // Chromium bypasses proxies for loopback by default; "<-loopback>" takes that rule away, so
    // every connection of the context goes through the proxy.
    params["proxyBypassList"] = "<-loopback>";
  }
  auto r = TRY(m_impl->conn->call("Target.createBrowserContext", params, "", 10s));
  return get_str(r, "browserContextId");
}

void Contexts::dispose(const std::string& context) {
  if (context.empty()) return;
  // Best effort: a context that cannot be disposed (the browser is gone) holds nothing of ours.
  if (auto r = m_impl->conn->call("Target.disposeBrowserContext", {{"browserContextId", context}}, "", 10s); !r)
    spdlog::debug("cdp: disposing browser context {} failed: {}", context, r.error().message);
  std::lock_guard lock(m_impl->mutex);
  m_impl->notices.erase(context);
}

Result<json> Contexts::cookies(const std::string& context, Millis timeout) {
  json params = json::object();
  if (!context.empty()) params["browserContextId"] = context;
  auto r = TRY(m_impl->conn->call("Storage.getCookies", params, "", timeout));
  return r.contains("cookies") && r["cookies"].is_array() ? r["cookies"] : json::array();
}

Result<size_t> Contexts::set_cookies(const std::string& context, const json& cookies, Millis timeout) {
  json params = json::array();
  for (const auto& c : cookies.is_array() ? cookies : json::array()) {
    if (!c.is_object() || !c.contains("name") || !c.contains("value")) continue;
    json p = json::object();
    for (const char* k : {"name", "value", "url", "domain", "path", "secure", "httpOnly", "sameSite", "priority", "sourceScheme",
                          "sourcePort", "partitionKey"})
      if (c.contains(k)) p[k] = c[k];
    if (c.contains("expires") && c["expires"].is_number() && c["expires"].get<double>() > 0) p["expires"] = c["expires"];
    params.push_back(std::move(p));
  }
  if (params.empty()) return size_t{0};
  json set = {{"cookies", params}};
  if (!context.empty()) set["browserContextId"] = context;
  TRY(m_impl->conn->call("Storage.setCookies", set, "", timeout));
  return params.size();
}

Result<std::string> Contexts::of_tab(const std::string& tab_id) const {
  std::lock_guard lock(m_impl->mutex);
  auto tab = m_impl->tracker.find(tab_id);
  if (!tab) return errorf(Code::NotFound, "no tab '{}'", tab_id);
  return tab->context;
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
  std::string target_id = get_str(created, "targetId");
  std::string id;
  {
    std::unique_lock lock(m_impl->mutex);
    std::shared_ptr<Tab> tab;
    bool ok = m_impl->wait_until(lock, deadline, [&] {
      tab = m_impl->tracker.by_target(target_id);
      return tab && tab->ready;
    });
    if (m_impl->dead) return tl::make_unexpected(*m_impl->dead);
    if (!ok) return errorf(Code::DeadlineExceeded, "the new tab did not become ready within {} ms", timeout.count());
    id = tab->id;
    m_impl->tracker.set_active(tab->context, id);
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
    auto tab = m_impl->tracker.find(tab_id);
    if (!tab) return m_impl->find_tab(tab_id).map([](auto) {});
    target_id = tab->target_id;
    m_impl->tracker.bring_into_view(tab->context, wall_ms());  // another tab may come to the front
  }
  TRY(m_impl->conn->call("Target.closeTarget", {{"targetId", target_id}}, "", 5s));
  {
    std::unique_lock lock(m_impl->mutex);
    m_impl->wait_until(lock, Clock::now() + 5s, [&] { return !m_impl->tracker.find(tab_id); });
  }
  // As in navigate: the waiter can wake before the listener ran; push the state the caller is
  // about to see, so `tabs` no longer lists the closed tab when closeTab returns.
  m_impl->notify_tabs();
  return {};
}

Result<TabInfo> Browser::navigate(const std::string& tab_id, const std::string& url, Millis timeout) {
  std::string sid;
  {
    std::lock_guard lock(m_impl->mutex);
    sid = TRY(m_impl->find_tab(tab_id))->session_id;
  }
  auto r = TRY(m_impl->conn->call("Page.navigate", {{"url", url}}, sid, timeout));
  if (std::string error = get_str(r, "errorText"); !error.empty())
    return errorf(Code::Unavailable, "navigating tab {} to {} failed: {}", tab_id, url, error);
  std::string loader = get_str(r, "loaderId");
  std::unique_lock lock(m_impl->mutex);
  auto tab = TRY(m_impl->find_tab(tab_id));
  if (!loader.empty()) {
    // The load may outlast the deadline; the tab is then returned while still "loading".
    m_impl->wait_until(lock, Clock::now() + timeout,
                       [&] { return tab->closed || tab->crashed || (tab->loaded_loader_id == loader && !tab->title_pending); });
  }
  if (m_impl->dead) return tl::make_unexpected(*m_impl->dead);
  tab->last_interaction_url = tab->url;
  TabInfo info = tab->info();
  lock.unlock();
  // The listener runs on the network thread after the state changes, but a waiter can wake
  // first (another notification): push the state the caller is about to see.
  m_impl->notify_tabs();
  return info;
}

Result<void> Browser::switch_tab(const std::string& tab_id) {
  std::string target_id;
  {
    std::lock_guard lock(m_impl->mutex);
    auto tab = TRY(m_impl->find_tab(tab_id));
    target_id = tab->target_id;
    m_impl->tracker.bring_into_view(tab->context, wall_ms());
  }
  TRY(m_impl->conn->call("Target.activateTarget", {{"targetId", target_id}}, "", 5s));
  {
    std::lock_guard lock(m_impl->mutex);
    if (auto tab = m_impl->tracker.find(tab_id)) m_impl->tracker.set_active(tab->context, tab_id);
  }
  m_impl->notify_tabs();
  return {};
}

Result<TabInfo> Browser::wait_for_load(const std::string& tab_id, Millis timeout) {
  std::unique_lock lock(m_impl->mutex);
  auto tab = TRY(m_impl->find_tab(tab_id));
  const auto deadline = Clock::now() + timeout;
  // Just after a click or a key press: the navigation it causes begins after the input's reply,
  // so give it a moment to begin rather than answer for the page that is about to go.
  constexpr auto kNavigationGrace = std::chrono::milliseconds(400);
  if (tab->input_at.time_since_epoch().count() != 0 && tab->navigations == tab->navigations_at_input) {
    auto until = std::min(deadline, tab->input_at + kNavigationGrace);
    if (Clock::now() < until)
      (void)m_impl->wait_until(lock, until, [&] { return tab->closed || tab->crashed || tab->navigations != tab->navigations_at_input; });
  }
  bool ok = m_impl->wait_until(lock, deadline,
                               [&] { return tab->closed || tab->crashed || (tab->status == "loaded" && !tab->title_pending); });
  if (m_impl->dead) return tl::make_unexpected(*m_impl->dead);
  if (tab->closed) return errorf(Code::NotFound, "tab {} was closed while waiting for it to load", tab_id);
  if (tab->crashed) return errorf(Code::Unavailable, "tab {} crashed while loading", tab_id);
  if (!ok) return errorf(Code::DeadlineExceeded, "tab {} ({}) did not finish loading within {} ms", tab_id, tab->url, timeout.count());
  TabInfo info = tab->info();
  lock.unlock();
  m_impl->notify_tabs();  // as in navigate
  return info;
}

void Browser::set_tabs_listener(std::function<void()> listener) {
  std::lock_guard lock(m_impl->mutex);
  m_impl->listener = std::move(listener);
}

Result<void> Notices::set_dialog_policy(const std::string& tab_id, std::optional<DialogPolicy> policy) {
  std::lock_guard lock(m_impl->mutex);
  auto tab = TRY(m_impl->find_tab(tab_id));
  tab->dialog_policy = std::move(policy);
  return {};
}

int Notices::add_listener(std::function<void(const PageNotice&)> listener) {
  std::lock_guard lock(m_impl->notice_call_mutex);
  int id = m_impl->next_notice_listener++;
  m_impl->notice_listeners[id] = std::move(listener);
  return id;
}

void Notices::remove_listener(int id) {
  std::lock_guard lock(m_impl->notice_call_mutex);
  m_impl->notice_listeners.erase(id);
}

std::vector<PageNotice> Notices::latest(const std::string& context, size_t max) const {
  std::lock_guard lock(m_impl->mutex);
  auto it = m_impl->notices.find(context);
  if (it == m_impl->notices.end()) return {};
  const auto& ring = it->second;
  size_t skip = ring.size() > max ? ring.size() - max : 0;
  return std::vector<PageNotice>(ring.begin() + static_cast<long>(skip), ring.end());
}

Result<json> Browser::send(const std::string& tab_id, std::string_view method, json params, Millis timeout) {
  std::string sid;
  {
    std::lock_guard lock(m_impl->mutex);
    auto tab = TRY(m_impl->find_tab(tab_id));
    sid = tab->session_id;
    // A press that may navigate (a click's release, a key such as Enter): see wait_for_load.
    std::string kind = params.is_object() ? get_str(params, "type") : "";
    if (method.rfind("Input.dispatch", 0) == 0 && (kind == "mouseReleased" || kind == "keyDown" || kind == "rawKeyDown")) {
      tab->input_at = Clock::now();
      tab->navigations_at_input = tab->navigations;
    }
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

std::vector<ConsoleEntry> Records::console(const std::string& tab_id) const {
  std::lock_guard lock(m_impl->mutex);
  auto tab = m_impl->tracker.find(tab_id);
  return tab ? std::vector<ConsoleEntry>(tab->log.console().begin(), tab->log.console().end()) : std::vector<ConsoleEntry>{};
}

std::vector<PageError> Records::errors(const std::string& tab_id) const {
  std::lock_guard lock(m_impl->mutex);
  auto tab = m_impl->tracker.find(tab_id);
  return tab ? std::vector<PageError>(tab->log.errors().begin(), tab->log.errors().end()) : std::vector<PageError>{};
}

std::vector<RequestRecord> Records::requests(const std::string& tab_id) const {
  std::lock_guard lock(m_impl->mutex);
  auto tab = m_impl->tracker.find(tab_id);
  return tab ? std::vector<RequestRecord>(tab->log.requests().begin(), tab->log.requests().end()) : std::vector<RequestRecord>{};
}

Result<std::string> Records::tab_of_request(const std::string& request_id) const {
  std::lock_guard lock(m_impl->mutex);
  for (const auto& [id, t] : m_impl->tracker.all())
    if (t->log.has_request(request_id)) return id;
  return errorf(Code::NotFound, "no recent request with id '{}' (ids come from getRecentRequests)", request_id);
}

int Records::add_request_observer(const std::string& tab_id, RequestObserver observer) {
  std::lock_guard lock(m_impl->mutex);
  int id = m_impl->next_observer++;
  m_impl->observers[id] = {tab_id, std::move(observer)};
  return id;
}

void Records::remove_request_observer(int id) {
  std::lock_guard lock(m_impl->mutex);
  m_impl->observers.erase(id);
}

void Browser::note_interaction(const std::string& tab_id) {
  std::lock_guard lock(m_impl->mutex);
  if (auto tab = m_impl->tracker.find(tab_id)) tab->last_interaction_url = tab->url;
}

std::optional<std::string> Browser::navigation_note(const std::string& tab_id, Millis wait) const {
  std::unique_lock lock(m_impl->mutex);
  std::shared_ptr<Tab> tab = m_impl->tracker.find(tab_id);
  if (!tab) return std::nullopt;
  if (wait.count() > 0)
    wait_for_ms(m_impl->changed, lock, wait, [&] { return tab->closed || tab->last_interaction_url != tab->url; });
  const Tab& t = *tab;
  if (t.last_interaction_url.empty() || t.last_interaction_url == t.url) return std::nullopt;
  return fmt::format("[PAGE NAVIGATED] Tab {} URL changed from \"{}\" to \"{}\" since your last interaction. Update your selectors for the new page.",
                     t.id, t.last_interaction_url, t.url);
}

std::optional<Error> Browser::dead() const {
  std::lock_guard lock(m_impl->mutex);
  return m_impl->dead;
}

std::optional<int> Browser::process_id() const {
  if (!m_impl->process || m_impl->process->pid() <= 0) return std::nullopt;
  return m_impl->process->pid();
}

}  // namespace ouro::browser
