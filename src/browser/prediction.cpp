// Chrome's "Preload pages" setting (Settings → Performance). While it is on, a page's
// <link rel=preconnect>, its DNS prefetches and Chrome's own guesses at the next navigation open
// connections that no request interception sees: Fetch pauses requests, not sockets, so a held
// tab's code could reach a port of its choosing on any host. A browser launched for a gated
// session goes through ouro's proxy (net/socks_proxy.h) and needs none of this; the user's own
// Chrome (attached over DevTools, or launched on their kept profile) and remote browsers have no
// such proxy, so there the setting is turned off while ouro holds tabs in them.
//
// DevTools has no command for a profile's settings, but it may drive Chrome's settings page, whose
// chrome.settingsPrivate API reads and writes them. A background tab of ours opens that page, does
// one read or write of `net.network_prediction_options` (2 = never, as Chrome's
// NetworkPredictionOptions policy documents), and closes. The tab tracker never sees that tab:
// private_event() takes its events first. Through ouro's extension (chrome.debugger cannot open
// chrome:// pages) the extension itself holds the setting, with chrome.privacy.
#include "base/log.h"
#include "base/random.h"
#include "browser/browser_impl.h"

#include <thread>

namespace ouro::browser {

namespace {

constexpr std::string_view kSettingsPage = "chrome://settings/performance?ouro=";

}  // namespace

// The page itself may write the setting once as it starts: Chrome's default is 1, a deprecated
// value it treats as 0 (standard), and the Performance page rewrites a 1 it shows as 0
// (chrome/browser/resources/settings/performance_page/speed_page.ts). When that rewrite lands
// between our write and our read-back it undoes our write: the write is made again (at most
// three times; the page rewrites only once). A rewrite the page decides after our write has
// reached it finds our value, not 1, so a read-back that holds stays held. Values are answered
// as Chrome reads them: 1 as 0.
std::string prediction_change_expression(std::optional<int> set_to, std::optional<int> only_if) {
  auto js = [](std::optional<int> v) { return v ? std::to_string(*v) : std::string("null"); };
  return fmt::format(
      "(async () => {{ const P = 'net.network_prediction_options', read = v => v === 1 ? 0 : v, want = read({}), onlyIf = read({});"
      " const get = () => new Promise((ok, no) => chrome.settingsPrivate.getPref(P, p => p ? ok(p) : no(new Error('Chrome has no such setting'))));"
      " const set = v => new Promise((ok, no) => chrome.settingsPrivate.setPref(P, v, '', done => done ? ok() : no(new Error('Chrome refused the change'))));"
      " const before = await get(); let now = before, writes = 0;"
      " if (want !== null && (onlyIf === null || read(before.value) === onlyIf))"
      "   while (read(now.value) !== want && writes < 3) {{ await set(want); ++writes; now = await get(); }}"
      " return JSON.stringify({{before: read(before.value), after: read(now.value), writes, enforcement: before.enforcement || ''}}); }})()",
      js(set_to), js(only_if));
}

bool is_private_settings_url(std::string_view url) { return url.starts_with(kSettingsPage); }

bool Browser::Impl::private_event(const cdp::Event& ev) {
  if (private_visits.load(std::memory_order_acquire) == 0) return false;
  std::lock_guard lock(mutex);
  if (private_urls.empty() && private_targets.empty()) return false;
  if (!ev.session_id.empty()) {
    for (const auto& [tid, sid] : private_targets)
      if (sid == ev.session_id) return true;  // the settings page's own events
    return false;
  }
  const json& info = get_field(ev.params, "targetInfo");
  std::string tid = get_str(info, "targetId");
  if (tid.empty()) tid = get_str(ev.params, "targetId");
  if (ev.method == "Target.attachedToTarget") {
    std::string url = get_str(info, "url");
    if (!private_urls.count(url)) return private_targets.count(tid) > 0;
    if (private_targets.count(tid)) return true;
    private_targets[tid] = get_str(ev.params, "sessionId");
    changed.notify_all();
    return true;
  }
  if (ev.method == "Target.targetCreated" && private_urls.count(get_str(info, "url"))) return true;
  return !tid.empty() && private_targets.count(tid) > 0;
}

Result<json> Browser::Impl::on_settings_page(const std::string& expression, Millis within) {
  if (bridged) return make_error(Code::FailedPrecondition, "Chrome's settings page cannot be opened through the extension");
  auto deadline = Clock::now() + within;
  auto left = [&] { return std::max(Millis(1), std::chrono::duration_cast<Millis>(deadline - Clock::now())); };
  std::string url = std::string(kSettingsPage) + random_hex(8);
  {
    std::lock_guard lock(mutex);
    private_urls.insert(url);
  }
  ++private_visits;
  std::string target;
  // Whatever happens below, the tab goes and the tracker's filter forgets it.
  struct Cleanup {
    Impl& impl;
    const std::string& url;
    const std::string& target;
    ~Cleanup() {
      // Closed before the caller goes on: a run's first tab opened while this one still closes
      // was seen to get no answer to its navigation.
      if (!target.empty()) (void)impl.conn->call("Target.closeTarget", {{"targetId", target}}, "", 5s);
      std::lock_guard lock(impl.mutex);
      impl.private_urls.erase(url);
      impl.private_targets.erase(target);
      --impl.private_visits;
    }
  } cleanup{*this, url, target};
  auto created = conn->call("Target.createTarget", {{"url", url}, {"background", true}}, "", left());
  if (!created) return make_error(created.error().code, "cannot open Chrome's settings page: " + created.error().message);
  target = get_str(*created, "targetId");
  std::string session;
  {
    std::unique_lock lock(mutex);
    wait_until(lock, deadline, [&] { return private_targets.count(target) > 0; });
    if (auto s = private_targets.find(target); s != private_targets.end()) session = s->second;
  }
  if (session.empty()) return make_error(Code::DeadlineExceeded, "Chrome's settings page did not open");
  // It waits for the debugger, as every new target does under auto-attach.
  (void)conn->call("Runtime.runIfWaitingForDebugger", json::object(), session, left());
  // The page is there once its settings API is (it commits after about:blank, so early
  // evaluations may meet the wrong document or a destroyed context: asked again).
  const json ready = {{"expression", "location.protocol === 'chrome:' && typeof chrome === 'object' && !!chrome.settingsPrivate"},
                      {"returnByValue", true}};
  for (;;) {
    auto r = conn->call("Runtime.evaluate", ready, session, left());
    if (r && get_bool(get_field(*r, "result"), "value")) break;
    if (Clock::now() + 100ms >= deadline)
      return make_error(Code::DeadlineExceeded, "Chrome's settings page did not load (its settings API is not there)");
    std::this_thread::sleep_for(100ms);
  }
  auto r = conn->call("Runtime.evaluate", {{"expression", expression}, {"awaitPromise", true}, {"returnByValue", true}}, session, left());
  if (!r) return make_error(r.error().code, "Chrome's settings page did not answer: " + r.error().message);
  if (const json& ex = get_field(*r, "exceptionDetails"); !ex.is_null()) {
    std::string why = get_str(get_field(ex, "exception"), "description");
    return make_error(Code::FailedPrecondition, "Chrome's settings page refused: " + (why.empty() ? get_str(ex, "text") : why));
  }
  spdlog::debug("browser: Chrome's settings page answered in {} ms", std::chrono::duration_cast<Millis>(Clock::now() - (deadline - within)).count());
  auto value = parse_json(get_str(get_field(*r, "result"), "value"));
  if (!value) return make_error(Code::Internal, "Chrome's settings page answered something unreadable");
  return *value;
}

Result<json> Browser::Impl::change_prediction(std::optional<int> set_to, std::optional<int> only_if, Millis within) {
  json p = TRY(on_settings_page(prediction_change_expression(set_to, only_if), within));
  for (const char* field : {"before", "after", "writes"})
    if (!get_field(p, field).is_number_integer()) return make_error(Code::Internal, "Chrome's network prediction setting is not a number");
  return p;
}

Result<int> EgressControl::network_prediction() {
  json p = TRY(m_impl->change_prediction(std::nullopt, std::nullopt, 15s));
  return p["before"].get<int>();
}

Result<int> EgressControl::hold_network_prediction(std::optional<int> restore_to) {
  std::lock_guard hold(m_impl->prediction_mutex);
  if (m_impl->prediction_restore) return *m_impl->prediction_restore;
  json p = TRY(m_impl->change_prediction(kPredictionOff, std::nullopt, 15s));
  int before = p["before"].get<int>(), after = p["after"].get<int>();
  // Read back after the write: a policy keeps it, or Chrome did not keep the change.
  if (after != kPredictionOff)
    return make_error(Code::FailedPrecondition, get_str(p, "enforcement") == "ENFORCED"
                                                    ? "a policy keeps Chrome's \"Preload pages\" on"
                                                    : fmt::format("Chrome did not keep \"Preload pages\" off: it read back as {} after {} attempt(s) "
                                                                  "(something else in Chrome, such as another program or extension, keeps changing it)",
                                                                  after == 3 ? "\"extended\"" : "\"standard\"", p["writes"].get<int>()));
  int restore = before == kPredictionOff && restore_to ? *restore_to : before;
  m_impl->prediction_restore = restore;
  spdlog::info("browser: Chrome's network prediction is off while ouro holds tabs (it was {})", before);
  return restore;
}

Result<void> EgressControl::restore_network_prediction() {
  std::lock_guard hold(m_impl->prediction_mutex);
  if (!m_impl->prediction_restore) return {};
  int restore = *m_impl->prediction_restore;
  if (m_impl->dead) return make_error(Code::Unavailable, "the browser is gone; Chrome's \"Preload pages\" stays off");
  // What a run left in its tabs stops before connections may be predicted again.
  auto tabs = m_impl->gated_tabs();
  if (auto left = m_browser.shared().blank(tabs, 5s); !left.empty()) spdlog::warn("browser: {} of {} gated tab(s) did not go blank", left.size(), tabs.size());
  // Only over our own "off": a change the user made meanwhile is theirs to keep.
  if (restore != kPredictionOff) TRY(m_impl->change_prediction(restore, kPredictionOff, 15s));
  m_impl->prediction_restore.reset();
  spdlog::info("browser: Chrome's network prediction is back as it was ({})", restore);
  return {};
}

}  // namespace ouro::browser
