#include "browser/tab_tracker.h"
#include "base/text.h"

#include <fmt/format.h>

#include <algorithm>

namespace ouro::browser {

namespace {

using Command = TrackerActions::Command;

}  // namespace

json TabInfo::to_json() const {
  return {{"id", id}, {"url", url}, {"title", title}, {"status", status}, {"favicon", favicon}};
}

json PageNotice::to_json() const {
  return {{"context", context}, {"tab", tab}, {"kind", kind}, {"message", message}, {"url", url}, {"timestamp", timestamp}};
}

TabInfo Tab::info() const { return TabInfo{id, url, title.empty() ? url : title, status, favicon, seen_at}; }

int tab_number(const std::string& tab_id) {
  if (tab_id.size() < 2 || tab_id[0] != 't' || tab_id.size() > 10) return 0;
  int n = 0;
  for (size_t i = 1; i < tab_id.size(); ++i) {
    if (tab_id[i] < '0' || tab_id[i] > '9') return 0;
    n = n * 10 + (tab_id[i] - '0');
  }
  return n;
}

void TrackerActions::merge(TrackerActions o) {
  for (auto& c : o.commands) commands.push_back(std::move(c));
  for (auto& r : o.release) release.push_back(std::move(r));
  if (o.configure) configure = std::move(o.configure);
  for (auto& r : o.read_title) read_title.push_back(std::move(r));
  for (auto& f : o.fail_sessions) fail_sessions.push_back(std::move(f));
  for (auto& n : o.notices) notices.push_back(std::move(n));
  if (o.finished_request) finished_request = std::move(o.finished_request);
  if (tab.empty()) tab = std::move(o.tab);
  tabs_changed |= o.tabs_changed;
}

std::shared_ptr<Tab> TabTracker::find(const std::string& tab_id) const {
  auto it = m_tabs.find(tab_id);
  return it == m_tabs.end() ? nullptr : it->second;
}

std::shared_ptr<Tab> TabTracker::by_target(const std::string& target_id) const {
  auto it = m_by_target.find(target_id);
  return it == m_by_target.end() ? nullptr : find(it->second);
}

std::shared_ptr<Tab> TabTracker::by_session(const std::string& session_id) const {
  auto it = m_by_session.find(session_id);
  return it == m_by_session.end() ? nullptr : find(it->second);
}

std::vector<std::shared_ptr<Tab>> TabTracker::in_context(const std::string& context) const {
  std::vector<std::shared_ptr<Tab>> out;
  for (const auto& [id, t] : m_tabs)
    if (t->context == context) out.push_back(t);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return tab_number(a->id) < tab_number(b->id); });
  return out;
}

std::string TabTracker::active(const std::string& context) const {
  auto it = m_active.find(context);
  return it == m_active.end() ? "" : it->second;
}

void TabTracker::set_active(const std::string& context, const std::string& tab_id) { m_active[context] = tab_id; }

void TabTracker::bring_into_view(const std::string& context, double now_ms) {
  constexpr double kOursFor = 1500;  // a page reports its new visibility well within this
  if (m_ours_until.size() > 1000) m_ours_until.clear();  // contexts come and go: bounded
  m_ours_until[context] = now_ms + kOursFor;
}

TrackerActions TabTracker::handle(const cdp::Event& ev, double now_ms) {
  if (ev.session_id.empty()) return browser_event(ev, now_ms);
  auto tab = by_session(ev.session_id);
  if (!tab) return {};
  TrackerActions out = session_event(*tab, ev, now_ms);
  out.tab = tab->id;
  return out;
}

// --- the browser's session: targets come and go ----------------------------------------------

TrackerActions TabTracker::browser_event(const cdp::Event& ev, double now_ms) {
  const json& p = ev.params;
  const std::string& m = ev.method;
  if (m == "Target.attachedToTarget") return attached(p, now_ms);
  if (m == "Target.targetDestroyed" || m == "Target.detachedFromTarget") return detached(p);
  TrackerActions out;
  if (m == "Target.targetInfoChanged") {
    const json& info = get_field(p, "targetInfo");
    auto tab = by_target(get_str(info, "targetId"));
    if (!tab || !get_field(info, "url").is_string()) return out;
    std::string url = clip_head(get_str(info, "url"), kUrlCap, ClipMark::Count);
    out.tab = tab->id;
    if (tab->url == url) return out;
    tab->url = std::move(url);
    out.tabs_changed = true;
  } else if (m == "Target.targetCrashed") {
    auto tab = by_target(get_str(p, "targetId"));
    if (!tab) return out;
    out.tab = tab->id;
    mark_crashed(*tab, clip_head(get_str(p, "status", "crashed"), 100, ClipMark::Count), out);
  }
  return out;
}

TrackerActions TabTracker::attached(const json& p, double now_ms) {
  TrackerActions out;
  const json& info = get_field(p, "targetInfo");
  std::string sid = get_str(p, "sessionId"), tid = get_str(info, "targetId");
  if (sid.empty() || tid.empty()) return out;
  if (get_str(info, "type") != "page") {
    // Workers and the like: let them run, we do not follow them.
    out.release.push_back(sid);
    return out;
  }
  std::string chromium_context = get_str(info, "browserContextId");
  if (m_default_context.empty()) m_default_context = chromium_context;  // the first page is the profile's
  std::string context = chromium_context == m_default_context ? "" : chromium_context;
  std::string opener = get_str(info, "openerId");
  auto tab = by_target(tid);
  if (!tab) {
    if (!opener.empty()) {
      size_t popups = std::count_if(m_tabs.begin(), m_tabs.end(), [&](const auto& kv) {
        return kv.second->context == context && !kv.second->opener.empty();
      });
      if (popups >= m_popup_cap) {
        // Closed at once, and it does not take the focus. It waits for the debugger, and while it
        // waits so does its opener (window.open returns when the popup runs, the two share a
        // renderer): let it run first, or the opener hangs.
        out.commands.push_back({"Runtime.runIfWaitingForDebugger", json::object(), sid});
        out.commands.push_back({"Target.closeTarget", {{"targetId", tid}}, ""});
        auto by = by_target(opener);
        std::string url = get_str(info, "url");
        if (url.empty() && by) url = by->last_window_open;
        notice(out, PageNotice{context, by ? by->id : "", "popup-closed",
                               fmt::format("a page opened more than {} tabs; ouro closed the new one", m_popup_cap),
                               clip_head(url, m_log_limits.url, ClipMark::Count), now_ms});
        return out;
      }
    }
    tab = std::make_shared<Tab>();
    tab->id = "t" + std::to_string(m_next_tab++);
    tab->target_id = tid;
    tab->opener = opener;
    tab->log = PageLog(m_log_limits);
    m_tabs[tab->id] = tab;
    m_by_target[tid] = tab->id;
  }
  if (!tab->session_id.empty() && tab->session_id != sid) m_by_session.erase(tab->session_id);
  tab->session_id = sid;
  tab->url = clip_head(get_str(info, "url"), kUrlCap, ClipMark::Count);
  tab->title = clip_head(get_str(info, "title"), kTitleCap, ClipMark::Count);
  tab->context = context;
  m_by_session[sid] = tab->id;
  // A page that opens a popup hands it the focus, as a browser window would.
  if (active(context).empty() || !opener.empty()) m_active[context] = tab->id;
  out.configure = tab->id;
  out.tab = tab->id;
  return out;
}

TrackerActions TabTracker::detached(const json& p) {
  TrackerActions out;
  std::string tid = get_str(p, "targetId");
  auto tab = tid.empty() ? by_session(get_str(p, "sessionId")) : by_target(tid);
  if (!tab) return out;
  tab->closed = true;
  m_by_session.erase(tab->session_id);
  m_by_target.erase(tab->target_id);
  m_tabs.erase(tab->id);
  if (active(tab->context) == tab->id) {
    // The most recently opened tab left in the same context takes over.
    auto left = in_context(tab->context);
    m_active[tab->context] = left.empty() ? "" : left.back()->id;
  }
  out.fail_sessions.emplace_back(tab->session_id, Error{Code::NotFound, "tab " + tab->id + " was closed", nullptr, Cause::TargetGone});
  out.tab = tab->id;
  out.tabs_changed = true;
  return out;
}

void TabTracker::mark_crashed(Tab& tab, const std::string& why, TrackerActions& out) {
  if (tab.crashed) return;
  tab.crashed = true;
  tab.status = "crashed";
  out.fail_sessions.emplace_back(tab.session_id,
                                 Error{Code::Unavailable, "tab " + tab.id + " crashed (" + why + "); close it and open a new one", nullptr});
  out.tabs_changed = true;
}

// --- a tab's session ---------------------------------------------------------------------------

TrackerActions TabTracker::session_event(Tab& tab, const cdp::Event& ev, double now_ms) {
  const json& p = ev.params;
  const std::string& m = ev.method;
  TrackerActions out;
  if (m == "Page.frameStartedLoading") {
    if (get_str(p, "frameId") != tab.target_id) return out;
    tab.status = "loading";
    ++tab.navigations;
    out.tabs_changed = true;
  } else if (m == "Page.frameNavigated") {
    const json& f = get_field(p, "frame");
    if (!f.is_object() || f.contains("parentId")) return out;
    tab.url = clip_head(get_str(f, "url") + get_str(f, "urlFragment"), kUrlCap, ClipMark::Count);
    tab.loader_id = get_str(f, "loaderId");
    tab.title.clear();  // the new document reports its own title
    out.tabs_changed = true;
  } else if (m == "Page.navigatedWithinDocument") {
    if (get_str(p, "frameId") != tab.target_id) return out;
    ++tab.navigations;
    std::string url = clip_head(get_str(p, "url", tab.url), kUrlCap, ClipMark::Count);
    if (url == tab.url) return out;
    tab.url = std::move(url);
    out.tabs_changed = true;
  } else if (m == "Page.loadEventFired" || (m == "Page.frameStoppedLoading" && get_str(p, "frameId") == tab.target_id)) {
    if (tab.status == "loaded" && tab.loaded_loader_id == tab.loader_id) return out;
    tab.status = "loaded";
    tab.loaded_loader_id = tab.loader_id;
    // The helpers report the title at DOMContentLoaded; read it only if they could not.
    if (tab.titled_loader != tab.loader_id) request_title(tab, out);
    out.tabs_changed = true;
  } else if (m == "Page.javascriptDialogOpening") {
    return dialog_opening(tab, p, now_ms);
  } else if (m == "Page.windowOpen") {
    tab.last_window_open = clip_head(get_str(p, "url"), m_log_limits.url, ClipMark::Count);
  } else if (m == "Runtime.bindingCalled") {
    if (get_str(p, "name") != "__ouroNotify") return out;
    auto payload = parse_json(get_str(p, "payload", "{}"), "page notification");
    if (!payload || !payload->is_object()) return out;
    std::string title = clip_head(get_str(*payload, "title", tab.title), kTitleCap, ClipMark::Count);
    std::string icon = clip_head(get_str(*payload, "favicon", tab.favicon), kUrlCap, ClipMark::Count);
    tab.titled_loader = tab.loader_id;
    const bool visible = get_bool(*payload, "visible");
    if (visible && !tab.in_view) {
      auto ours = m_ours_until.find(tab.context);
      if (ours == m_ours_until.end() || now_ms >= ours->second) tab.seen_at = now_ms;
    }
    tab.in_view = visible;
    if (title == tab.title && icon == tab.favicon) return out;
    tab.title = std::move(title);
    tab.favicon = std::move(icon);
    out.tabs_changed = true;
  } else if (m == "Runtime.executionContextCreated") {
    const json& c = get_field(p, "context");
    if (get_str(c, "name") == kHelpersWorld && get_str(get_field(c, "auxData"), "frameId") == tab.target_id)
      tab.isolated_ctx = static_cast<int>(get_int(c, "id", 0));
  } else if (m == "Runtime.executionContextDestroyed") {
    if (get_int(p, "executionContextId", -1) == tab.isolated_ctx) tab.isolated_ctx = 0;
  } else if (m == "Runtime.executionContextsCleared") {
    tab.isolated_ctx = 0;
  } else if (m == "Inspector.targetCrashed") {
    mark_crashed(tab, "the renderer crashed", out);
  } else {
    auto logged = tab.log.on_event(m, p, now_ms);
    out.finished_request = std::move(logged.finished);
    if (logged.flood_started)
      notice(out, PageNotice{tab.context, tab.id, "log-flood",
                             fmt::format("the page logs more than {} console messages a second; ouro keeps {} a second and drops the rest",
                                         tab.log.limits().console_per_second, tab.log.limits().console_per_second),
                             clip_head(tab.url, m_log_limits.url, ClipMark::Count), now_ms});
  }
  return out;
}

TrackerActions TabTracker::dialog_opening(Tab& tab, const json& p, double now_ms) {
  TrackerActions out;
  std::string type = clip_head(get_str(p, "type", "alert"), m_log_limits.word, ClipMark::Count);
  // Dismissed unless the tab's policy says otherwise; leaving a page is not up to the page.
  DialogPolicy policy;
  policy.accept = type == "beforeunload";
  if (tab.dialog_policy) {
    policy = *tab.dialog_policy;
    if (policy.once) tab.dialog_policy.reset();
  }
  json params = {{"accept", policy.accept}};
  if (policy.accept && type == "prompt") params["promptText"] = policy.prompt_text;
  out.commands.push_back({"Page.handleJavaScriptDialog", std::move(params), tab.session_id});
  std::string text = clip_head(type + ": " + get_str(p, "message"), m_log_limits.text, ClipMark::Count);
  std::string url = clip_head(get_str(p, "url", tab.url), m_log_limits.url, ClipMark::Count);
  tab.log.add_console(ConsoleEntry{"dialog", text, url, 0, now_ms});
  notice(out, PageNotice{tab.context, tab.id, "dialog", text + (policy.accept ? " (accepted)" : " (dismissed)"), url, now_ms});
  return out;
}

// --- replies to what the browser did -----------------------------------------------------------

TrackerActions TabTracker::document_state(const std::string& tab_id, const std::string& ready_state) {
  TrackerActions out;
  auto tab = find(tab_id);
  if (!tab) return out;
  if (ready_state == "complete" && tab->loader_id.empty()) tab->status = "loaded";
  request_title(*tab, out);
  return out;
}

TrackerActions TabTracker::configured(const std::string& tab_id) {
  TrackerActions out;
  auto tab = find(tab_id);
  if (!tab) return out;
  tab->ready = true;
  out.tabs_changed = true;
  return out;
}

TrackerActions TabTracker::title_read(const std::string& tab_id, const json& value) {
  TrackerActions out;
  auto tab = find(tab_id);
  if (!tab) return out;
  tab->title_pending = std::max(0, tab->title_pending - 1);
  if (value.is_object()) {
    tab->title = clip_head(get_str(value, "title", tab->title), kTitleCap, ClipMark::Count);
    tab->favicon = clip_head(get_str(value, "favicon", tab->favicon), kUrlCap, ClipMark::Count);
  }
  out.tabs_changed = true;
  return out;
}

// Reads title and icon once the document has them. The helpers' binding reports later changes,
// but a document created before the binding was installed (a popup sharing its opener's
// renderer) would otherwise keep showing its URL as title.
void TabTracker::request_title(Tab& tab, TrackerActions& out) {
  json params = {{"expression", tab.isolated_ctx ? "JSON.stringify({title: document.title, favicon: __ouro.favicon()})"
                                                 : "JSON.stringify({title: document.title})"},
                 {"returnByValue", true}};
  if (tab.isolated_ctx) params["contextId"] = tab.isolated_ctx;
  ++tab.title_pending;
  out.read_title.push_back({tab.id, {"Runtime.evaluate", std::move(params), tab.session_id}});
}

void TabTracker::notice(TrackerActions& out, PageNotice n) {
  if (!m_notice_rate[n.context].allow(n.timestamp, kNoticesPerSecond)) return;
  out.notices.push_back(std::move(n));
}

}  // namespace ouro::browser
