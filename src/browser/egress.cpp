// The egress gate's side of the browser: every request of a gated context's tabs pauses (CDP
// Fetch, Request stage) and waits for the gate with the facts gathered here (egress.h), then goes
// on to interceptRequests' handlers or out; refused ones fail as blocked by the client. Runs on the
// network thread; answers may come from any thread.
#include "base/log.h"
#include "base/random.h"
#include "base/text.h"
#include "browser/browser_impl.h"
#include "net/io.h"
#include "net/timer.h"

#include <boost/url/encoding_opts.hpp>
#include <boost/url/pct_string_view.hpp>
#include <boost/asio/io_context.hpp>

#include <atomic>
#include <future>

namespace ouro::browser {

namespace {

constexpr size_t kInitiatorsKept = 4096, kRunFramesKept = 2000;
constexpr std::string_view kGuardBinding = "__ouroGateRefused";
constexpr std::string_view kGuardReportUrl = "http://ouro-gate.invalid/refused?url=";

// The guard's report names the refused URL with encodeURIComponent; at most 2,000 bytes of it.
std::string url_decode(std::string_view s) {
  auto pct = boost::urls::make_pct_string_view(s);
  std::string out = pct ? pct->decode(boost::urls::encoding_opts(/*space_as_plus=*/true)) : std::string(s);
  return clip_head(out, 2000, ClipMark::None);
}
constexpr auto kSettle = std::chrono::milliseconds(1500);  // an action's effects after it returns
// A request paused before its Network.requestWillBeSent waits this long for it.
constexpr auto kInitiatorWait = std::chrono::milliseconds(300);

template <typename F>
bool any_frame(const json& initiator, F pred) {
  const json* stack = &get_field(initiator, "stack");
  for (int depth = 0; depth < 64 && stack->is_object(); ++depth) {
    for (const auto& f : get_array(*stack, "callFrames"))
      if (pred(f)) return true;
    stack = &get_field(*stack, "parent");
  }
  return false;
}

bool tagged(const json& initiator) {
  return any_frame(initiator, [](const json& f) { return get_str(f, "url").rfind(kExecTag, 0) == 0; });
}

void ignore(Result<json>) {}

}  // namespace

// Network.setBlockedURLs patterns: WebSockets to these URL patterns only.
json websocket_rules(const std::vector<std::string>& allow) {
  json rules = json::array();
  for (const auto& p : allow) rules.push_back({{"urlPattern", p}, {"block", false}});
  rules.push_back({{"urlPattern", "ws://*:*/*"}, {"block", true}});
  rules.push_back({{"urlPattern", "wss://*:*/*"}, {"block", true}});
  return rules;
}

// The in-page guard (page/egress_guard.js) for the allowed patterns of these rules; with
// refuse_windows, it refuses new windows too; `key` lets ouro give an approved action's
// socket messages through (never in the source workers get).
static std::string egress_guard(const json& rules, bool refuse_windows, const std::string& key, bool refuse_writes = false) {
  json allow = json::array();
  for (const auto& r : rules)
    if (!get_bool(r, "block", true)) allow.push_back(get_str(r, "urlPattern"));
  std::string source(embedded::egress_guard_js);
  constexpr std::string_view kCall = "(ALLOWED_PATTERNS, REFUSE_WINDOWS, SOCKET_WRITES);";
  json writes = {{"refuse", refuse_writes}, {"key", key}};
  if (auto at = source.rfind(kCall); at != std::string::npos)
    source.replace(at, kCall.size(), "(" + dump_json(allow) + ", " + (refuse_windows ? "true" : "false") + ", " + dump_json(writes) + ");");
  return source;
}


// --- what the gate learns from events --------------------------------------------------------

bool Browser::Impl::egress_event(const cdp::Event& ev) {
  const std::string& m = ev.method;
  if (m == "Network.requestWillBeSent") {
    std::optional<cdp::Event> resume;
    {
      std::lock_guard lock(mutex);
      auto tab = tracker.by_session(ev.session_id);
      const Child* child = nullptr;
      if (!tab)
        if (auto c = children.find(ev.session_id); c != children.end()) {
          child = &c->second;
          tab = tracker.find(c->second.tab);
        }
      if (!tab || !gated(*tab)) return false;
      std::string id = get_str(ev.params, "requestId");
      if (id.empty()) return false;
      if (!initiators.count(id)) {
        initiator_order.push_back(id);
        while (initiator_order.size() > kInitiatorsKept) {
          initiators.erase(initiator_order.front());
          initiator_order.pop_front();
        }
      }
      // A worker's request may pause in its page's session and be told of in the worker's.
      bool worker = child && child->type.find("worker") != std::string::npos;
      initiators[id] = Initiator{get_field(ev.params, "initiator"), get_str(ev.params, "loaderId"), get_str(ev.params, "frameId"), worker,
                                 worker && child->run_made};
      if (auto w = waiting.find(id); w != waiting.end()) {
        resume = std::move(w->second);
        waiting.erase(w);
      }
    }
    if (resume) decide_paused(*resume);
    return false;  // the page log records it too
  }
  if (m == "Page.frameRequestedNavigation") {
    // Sent by the renderer before the navigation's request starts (CDP Page domain): the request,
    // when it pauses, learns it submits a form, follows a link, or was started by a script.
    std::lock_guard lock(mutex);
    std::shared_ptr<Tab> tab = tracker.by_session(ev.session_id);
    if (!tab)
      if (auto c = children.find(ev.session_id); c != children.end()) tab = tracker.find(c->second.tab);
    if (!tab || !gated(*tab)) return false;
    bool here = get_str(ev.params, "disposition", "currentTab") == "currentTab";
    // The request's URL has no fragment (RFC 9110 §4.2.4: it is not sent).
    std::string url = get_str(ev.params, "url");
    std::string key = (here ? get_str(ev.params, "frameId") : std::string("*")) + " " + url.substr(0, url.find('#'));
    if (!nav_reasons.count(key)) nav_reason_order.push_back(key);
    nav_reasons[key] = clip_head(get_str(ev.params, "reason"), 40, ClipMark::None);
    while (nav_reason_order.size() > kInitiatorsKept) {
      nav_reasons.erase(nav_reason_order.front());
      nav_reason_order.pop_front();
    }
    return false;
  }
  if (m == "Network.webSocketCreated") {
    // Blocked or let through by its URL already; the gate hears of it.
    const json& in = get_field(ev.params, "initiator");
    tell_unpaused(ev.session_id, get_str(ev.params, "url"), tagged(in));
    json websockets;
    {
      std::lock_guard lock(mutex);
      auto c = children.find(ev.session_id);
      if (c == children.end()) return false;
      c->second.socket_seen = true;
      if (!c->second.refuse_at_first_socket) return false;
      c->second.refuse_at_first_socket = false;
      if (auto tab = tracker.find(c->second.tab)) websockets = websockets_of(*tab);
    }
    // Its socket is not open yet (no message can go before the handshake): refused now.
    refuse_worker_writes(ev.session_id, websockets, ignore);
    return false;
  }
  if (m == "Runtime.bindingCalled" && get_str(ev.params, "name") == kGuardBinding) {
    // The in-page guard refused a WebSocket or a new window (the page cannot call the binding: the
    // guard takes it away before the page's scripts run).
    tell_guard_report(ev.session_id, get_str(ev.params, "payload"));
    return true;
  }
  if (m == "Page.frameNavigated" && !get_field(ev.params, "frame").contains("parentId")) {
    std::string lingering_tab;
    {
      std::lock_guard lock(mutex);
      if (auto tab = tracker.by_session(ev.session_id))
        if (auto o = owned.find(tab->id); o != owned.end() && o->second.lingering && !o->second.release_loader.empty() &&
                                          o->second.release_loader == get_str(get_field(ev.params, "frame"), "loaderId"))
          lingering_tab = tab->id;
    }
    if (!lingering_tab.empty()) {
      // The user replaced the document a finished run had put things into: the tab is theirs again.
      end_lingering(lingering_tab);
      return false;
    }
    // Async stack tracking and blocked URLs do not always survive a new document (a renderer
    // swapped in after an error page): set them again for each one, before code of ours runs there.
    json websockets;
    {
      std::lock_guard lock(mutex);
      auto tab = tracker.by_session(ev.session_id);
      if (!tab || !gated(*tab)) return false;
      websockets = websockets_of(*tab);
    }
    conn->send("Runtime.setAsyncCallStackDepth", {{"maxDepth", 32}}, ev.session_id, 10s, ignore);
    spdlog::debug("egress: new document in a gated tab ({}), WebSocket patterns {}", ev.session_id.substr(0, 8), dump_json(websockets));
    conn->send("Network.setBlockedURLs", {{"urlPatterns", websockets}}, ev.session_id, 10s, [](Result<json> r) {
      spdlog::debug("egress: setBlockedURLs {}", r ? "ok" : r.error().message);
    });
    conn->send("Network.setBypassServiceWorker", {{"bypass", true}}, ev.session_id, 10s, ignore);
    return false;
  }
  if (m == "Page.frameAttached") {
    std::lock_guard lock(mutex);
    auto tab = tracker.by_session(ev.session_id);
    if (!tab || !gated(*tab)) return false;
    std::string frame = get_str(ev.params, "frameId"), parent = get_str(ev.params, "parentFrameId");
    bool acting = false;
    if (auto a = activity.find(tab->id); a != activity.end())
      acting = !a->second.running.empty() || Clock::now() < a->second.until;
    json initiator = {{"stack", get_field(ev.params, "stack")}};
    if (!frame.empty() && (acting || tagged(initiator) || run_frames.count(parent))) {
      if (run_frames.insert(frame).second) run_frame_order.push_back(frame);
      while (run_frame_order.size() > kRunFramesKept) {
        run_frames.erase(run_frame_order.front());
        run_frame_order.pop_front();
      }
    }
    return false;
  }
  if (m == "Target.attachedToTarget" && !ev.session_id.empty()) {
    // A frame or worker of a tab (auto-attached on gated tabs): gate it too, then let it run.
    const json& info = get_field(ev.params, "targetInfo");
    std::string sid = get_str(ev.params, "sessionId"), type = get_str(info, "type");
    if (type == "page" || sid.empty()) return false;
    bool gate_it = false;
    json intercept = json::array(), websockets = json::array();
    {
      std::lock_guard lock(mutex);
      std::string tab_id;
      if (auto tab = tracker.by_session(ev.session_id)) tab_id = tab->id;
      else if (auto c = children.find(ev.session_id); c != children.end()) tab_id = c->second.tab;
      auto tab = tracker.find(tab_id);
      if (tab && gated(*tab)) {
        gate_it = true;
        // A worker the run's code started (it attaches while execInTab works or settles) is the run's.
        bool run_code_working = false;
        if (auto a = activity.find(tab_id); a != activity.end()) {
          for (const auto& [id, name] : a->second.running) run_code_working = run_code_working || name == "execInTab";
          run_code_working = run_code_working || (a->second.running.empty() && Clock::now() < a->second.until && a->second.last == "execInTab");
        }
        bool run_made = run_code_working && type.find("worker") != std::string::npos;
        children[sid] = Child{tab_id, type, get_str(info, "targetId"), run_made};
        websockets = websockets_of(*tab);
        // A worker the page started before the run acted boots with messages allowed; its page's
        // guard tells it of the refusal, and ouro refuses them in it too as it opens its first
        // socket (Network.webSocketCreated below).
        children[sid].refuse_at_first_socket = type.find("worker") != std::string::npos && socket_writes_refused_for(sid);
      }
    }
    if (gate_it) {
      conn->send("Network.enable", json::object(), sid, 10s, ignore);  // its blocked URLs and WebSocket events
      if (type == "iframe") conn->send("Page.enable", json::object(), sid, 10s, ignore);  // its navigation reasons
      if (type == "iframe") enable_page_tools(sid, get_str(info, "targetId"), get_str(info, "url"));  // the tools it declares
      egress_commands(sid, true, intercept, websockets, ignore, type);
      conn->send("Runtime.runIfWaitingForDebugger", json::object(), sid, 10s, ignore);
    } else {
      release_target(sid);
    }
    return true;
  }
  if (m == "Target.detachedFromTarget") {
    std::lock_guard lock(mutex);
    children.erase(get_str(ev.params, "sessionId"));
  }
  return false;
}

void Browser::Impl::tell_guard_report(const std::string& session_id, const std::string& payload) {
  if (!payload.empty() && payload.front() == '{')
    if (auto j = parse_json(payload, "the egress guard's report"); j && j->is_object()) {
      std::string kind = get_str(*j, "kind");
      if (kind == "window") return tell_unpaused(session_id, clip_head(get_str(*j, "url"), 2000, ClipMark::None), false, "Window");
      if (kind == "send") return tell_unpaused(session_id, clip_head(get_str(*j, "url"), 2000, ClipMark::None), false, "WebSocket message");
      return;
    }
  tell_unpaused(session_id, clip_head(payload, 2000, ClipMark::None), false);
}

void Browser::Impl::tell_unpaused(const std::string& session_id, std::string url, bool is_tagged, std::string_view type) {
  OutgoingRequest r;
  EgressGate gate;
  {
    std::lock_guard lock(mutex);
    std::shared_ptr<Tab> tab = tracker.by_session(session_id);
    if (!tab)
      if (auto c = children.find(session_id); c != children.end()) tab = tracker.find(c->second.tab);
    if (!tab || !gated(*tab)) return;
    gate = *gate_of(*tab);
    r.tab_id = tab->id;
  }
  r.url = std::move(url);
  r.resource_type = std::string(type);
  r.cannot_pause = true;
  r.tagged = is_tagged;
  if (type == "Window")
    r.refused_in_page = "a tab the run holds in your Chrome opens no new windows: ouro's extension cannot hold a new tab before its "
                        "first request. Load the page in this tab (navigate) instead";
  if (type == "WebSocket message") {
    r.method = "MESSAGE";
    r.refused_in_page = "a message on the open WebSocket to " + clip_head(r.url, 200) +
                        " was refused: after the run acted, a message on a socket is a write, and a socket cannot wait for the user's "
                        "answer; the user's yes to the action that sends it lets its messages through";
  }
  try {
    gate(r, [](bool) {});
  } catch (const std::exception& e) {
    spdlog::warn("egress gate failed on a WebSocket: {}", e.what());
  }
}

// --- paused requests ---------------------------------------------------------------------------

void Browser::Impl::on_request_paused(const cdp::Event& ev) {
  if (worker_request_paused(ev)) return;
  std::string tab_id;
  bool gate_it = false;
  {
    std::lock_guard lock(mutex);
    std::shared_ptr<Tab> tab = tracker.by_session(ev.session_id);
    bool child = false;
    if (!tab)
      if (auto c = children.find(ev.session_id); c != children.end()) {
        tab = tracker.find(c->second.tab);
        child = true;
      }
    if (tab) {
      tab_id = tab->id;
      gate_it = gated(*tab);
    }
    std::string network_id = get_str(ev.params, "networkId");
    if (gate_it && !child && !network_id.empty() && !initiators.count(network_id)) {
      // Its Network.requestWillBeSent (the initiator) may come after the pause: wait for it.
      waiting[network_id] = ev;
      auto timer = std::make_shared<net::Timer>(io->context(), kInitiatorWait);
      std::weak_ptr<Impl> weak = shared_from_this();
      timer->async_wait([timer, weak, network_id](boost::system::error_code ec) {
        auto self = weak.lock();
        if (ec || !self) return;
        std::optional<cdp::Event> late;
        {
          std::lock_guard lock(self->mutex);
          auto w = self->waiting.find(network_id);
          if (w == self->waiting.end()) return;
          late = std::move(w->second);
          self->waiting.erase(w);
        }
        spdlog::debug("egress: no initiator for {} after {} ms", network_id, kInitiatorWait.count());
        self->decide_paused(*late);
      });
      return;
    }
  }
  if (tab_id.empty()) {
    // A session we no longer know (its tab closed): nothing to send it for.
    conn->send("Fetch.failRequest", {{"requestId", get_str(ev.params, "requestId")}, {"errorReason", "BlockedByClient"}}, ev.session_id, 5s, ignore);
    return;
  }
  if (gate_it) decide_paused(ev);
  else deliver_to_interceptor(tab_id, ev);
}

void Browser::Impl::decide_paused(const cdp::Event& ev) {
  const json& p = ev.params;
  const json& req = get_field(p, "request");
  OutgoingRequest r;
  EgressGate gate;
  enum class Then { Decide, Fail } then = Then::Decide;
  bool user_navigation = false;
  // What is known about the request (mutex held).
  auto fill_facts = [&](const Tab& tab, const Child* child) {
    r.url = get_str(req, "url");
    r.method = get_str(req, "method", "GET");
    r.post_data = get_str(req, "postData");
    r.resource_type = get_str(p, "resourceType");
    std::string frame = get_str(p, "frameId");
    r.page_url = tab.url;
    if (!tab.opener.empty())
      if (auto opener = tracker.by_target(tab.opener)) r.opener_tab = opener->id;
    r.main_frame_navigation = !child && r.resource_type == "Document" && frame == tab.target_id;
    r.from_worker = child && child->type.find("worker") != std::string::npos;
    r.from_run_frame = (!frame.empty() && frame != tab.target_id && run_frames.count(frame) > 0) || (child && child->run_made);
    for (const auto& [name, value] : get_field(req, "headers").items()) {
      if (r.headers.size() >= 64) break;
      if (value.is_string()) r.headers.emplace_back(name, value.get<std::string>());
    }
    if (r.resource_type == "Document")
      for (const std::string& key : {frame + " " + r.url, "* " + r.url})
        if (auto n = nav_reasons.find(key); n != nav_reasons.end()) {
          r.navigation_reason = n->second;
          nav_reasons.erase(n);  // its place in nav_reason_order goes with the cap
          break;
        }
    std::string loader;
    if (auto i = initiators.find(get_str(p, "networkId")); i != initiators.end()) {
      r.initiator_known = true;
      r.from_worker = r.from_worker || i->second.worker;
      r.from_run_frame = r.from_run_frame || i->second.run_worker;
      const json& in = i->second.initiator;
      r.initiator_type = get_str(in, "type");
      r.tagged = tagged(in);
      r.anonymous_code = any_frame(in, [](const json& f) { return get_str(f, "url").empty(); });
      r.has_stack = any_frame(in, [](const json&) { return true; });
      any_frame(in, [&](const json& f) {
        r.script_url = get_str(f, "url");
        return !r.script_url.empty();
      });
      loader = i->second.loader_id;
    }
    if (auto a = activity.find(tab.id); a != activity.end() && (!a->second.running.empty() || Clock::now() < a->second.until)) {
      r.activity = a->second.running.empty() ? a->second.last : a->second.running.rbegin()->second;
      r.activity_approved = a->second.approved;
      // The main frame's document changed since the action began (by the request's own loader, or,
      // for requests that carry none — beacons —, by the tab's current document).
      r.new_document = !child && frame == tab.target_id && r.resource_type != "Document" &&
                       (loader.empty() ? tab.loader_id != a->second.loader : loader != a->second.loader);
    }
  };
  {
    std::lock_guard lock(mutex);
    std::shared_ptr<Tab> tab = tracker.by_session(ev.session_id);
    const Child* child = nullptr;
    if (!tab)
      if (auto c = children.find(ev.session_id); c != children.end()) {
        child = &c->second;
        tab = tracker.find(c->second.tab);
      }
    if (tab) {
      r.tab_id = tab->id;
      if (auto g = gate_of(*tab)) gate = *g;
    }
    // The tab closed (its requests go nowhere), or the gate went while this request waited for
    // its facts: it was paused under a gate, so it is refused, never let through unjudged.
    if (!tab || !gate) then = Then::Fail;
    else fill_facts(*tab, child);
    // The user's own navigation of a tab a finished run left lingering (the browser started it:
    // initiator "other", no script on the stack): it goes, and the tab is theirs once it commits.
    if (then == Then::Decide && r.main_frame_navigation && r.initiator_known && r.initiator_type == "other" && !r.has_stack)
      if (auto o = owned.find(r.tab_id); o != owned.end() && o->second.lingering)
        if (auto i = initiators.find(get_str(p, "networkId")); i != initiators.end() && !i->second.loader_id.empty()) {
          o->second.release_loader = i->second.loader_id;
          user_navigation = true;
        }
  }
  if (user_navigation) return deliver_to_interceptor(r.tab_id, ev);
  if (then == Then::Fail) {
    conn->send("Fetch.failRequest", {{"requestId", get_str(p, "requestId")}, {"errorReason", "BlockedByClient"}}, ev.session_id, 5s, ignore);
    return;
  }
  if (r.url.rfind(kGuardReportUrl, 0) == 0) {
    // A worker's guard refused a WebSocket or a message on one: tell the gate, and send nothing.
    // (Workers open no windows; the page's own code can fetch this address too, and then only
    // adds a refusal to the record.)
    conn->send("Fetch.failRequest", {{"requestId", get_str(p, "requestId")}, {"errorReason", "BlockedByClient"}}, ev.session_id, 5s, ignore);
    tell_guard_report(ev.session_id, url_decode(r.url.substr(kGuardReportUrl.size())));
    return;
  }
  if (spdlog::should_log(spdlog::level::debug)) {
    std::lock_guard lock(mutex);
    auto i = initiators.find(get_str(p, "networkId"));
    spdlog::debug("egress: {} {} {} tab={} tagged={} worker={} run's={} activity='{}' initiator={}", r.method, r.resource_type, r.url.substr(0, 120),
                  r.tab_id, r.tagged, r.from_worker, r.from_run_frame, r.activity, i == initiators.end() ? "?" : dump_json(i->second.initiator).substr(0, 1500));
  }
  std::weak_ptr<Impl> weak = shared_from_this();
  auto once = std::make_shared<std::atomic<bool>>(false);
  std::string tab_id = r.tab_id, request_id = get_str(p, "requestId");
  {
    std::lock_guard lock(mutex);
    pending[request_id] = Pending{ev.session_id, once};
  }
  EgressAnswer answer = [weak, once, tab_id, request_id, ev](bool allow) {
    if (once->exchange(true)) return;
    auto self = weak.lock();
    if (!self) return;
    {
      std::lock_guard lock(self->mutex);
      self->pending.erase(request_id);
    }
    if (allow) self->deliver_to_interceptor(tab_id, ev);
    else
      self->conn->send("Fetch.failRequest", {{"requestId", get_str(ev.params, "requestId")}, {"errorReason", "BlockedByClient"}},
                       ev.session_id, 5s, ignore);
  };
  try {
    gate(r, answer);
  } catch (const std::exception& e) {
    spdlog::warn("egress gate failed on {}: {}; the request is refused", r.url.substr(0, 200), e.what());
    answer(false);
  }
}

void Browser::Impl::deliver_to_interceptor(const std::string& tab_id, const cdp::Event& ev) {
  std::function<void(const std::string&, const json&)> handler;
  {
    std::lock_guard lock(mutex);
    auto tab = tracker.find(tab_id);
    auto pats = intercept_patterns.find(tab_id);
    bool page_session = tab && tab->session_id == ev.session_id;
    if (page_session && pats != intercept_patterns.end() && !pats->second.empty())
      if (auto o = intercept_owner.find(tab_id); o != intercept_owner.end())
        if (auto h = pause_handlers.find(o->second); h != pause_handlers.end()) handler = h->second;
  }
  if (handler) handler(tab_id, ev.params);  // it answers (continue, fulfil or fail)
  else conn->send("Fetch.continueRequest", {{"requestId", get_str(ev.params, "requestId")}}, ev.session_id, 5s, ignore);
}

void Browser::Impl::egress_commands(const std::string& sid, bool gated_now, const json& intercept, const json& websockets,
                                    std::function<void(Result<json>)> last, const std::string& target_type) {
  if (gated_now) {
    // WebSockets cannot be paused: held to the allowed sites in the page's documents (a guard
    // that runs before their scripts, and reports what it refused through a binding only it
    // keeps) and by the browser's blocked URLs. Workers the page starts get the guard from the
    // page's (an evaluation in a worker before it runs crashes Chromium 156).
    if (target_type.find("worker") == std::string::npos) {
      std::string key;
      bool refuse_writes = false;
      {
        std::lock_guard lock(mutex);
        if (socket_key.empty()) socket_key = random_hex(16);
        key = socket_key;
        refuse_writes = socket_writes_refused_for(sid);
      }
      conn->send("Runtime.addBinding", {{"name", std::string(kGuardBinding)}}, sid, 10s, ignore);
      conn->send("Page.addScriptToEvaluateOnNewDocument", {{"source", egress_guard(websockets, bridged, key)}, {"runImmediately", true}}, sid, 10s, ignore);
      if (refuse_writes) add_socket_switch(sid, ignore);
    }
    conn->send("Network.setBypassServiceWorker", {{"bypass", true}}, sid, 10s, ignore);
    conn->send("Runtime.setAsyncCallStackDepth", {{"maxDepth", 32}}, sid, 10s, ignore);
    conn->send("Target.setAutoAttach", {{"autoAttach", true}, {"waitForDebuggerOnStart", true}, {"flatten", true}}, sid, 10s, ignore);
    conn->send("Network.setBlockedURLs", {{"urlPatterns", websockets}}, sid, 10s, [](Result<json> r) {
      if (!r) spdlog::warn("egress: cannot limit WebSockets: {}", r.error().message);
    });
    conn->send("Fetch.enable", {{"patterns", json::array({json{{"urlPattern", "*"}, {"requestStage", "Request"}}})}}, sid, 10s, std::move(last));
    return;
  }
  // What was paused under the gate and not answered yet is refused before Fetch.disable, which
  // would let it through.
  refuse_pending({sid});
  std::string switch_script;
  {
    std::lock_guard lock(mutex);
    if (auto it = socket_scripts.find(sid); it != socket_scripts.end()) {
      switch_script = it->second;
      socket_scripts.erase(it);
    }
  }
  if (!switch_script.empty()) conn->send("Page.removeScriptToEvaluateOnNewDocument", {{"identifier", switch_script}}, sid, 10s, ignore);
  conn->send("Network.setBypassServiceWorker", {{"bypass", false}}, sid, 10s, ignore);
  conn->send("Runtime.setAsyncCallStackDepth", {{"maxDepth", 0}}, sid, 10s, ignore);
  conn->send("Target.setAutoAttach", {{"autoAttach", false}, {"waitForDebuggerOnStart", false}, {"flatten", true}}, sid, 10s, ignore);
  conn->send("Network.setBlockedURLs", {{"urlPatterns", json::array()}}, sid, 10s, ignore);
  if (intercept.is_array() && !intercept.empty()) conn->send("Fetch.enable", {{"patterns", intercept}}, sid, 10s, std::move(last));
  else conn->send("Fetch.disable", json::object(), sid, 10s, std::move(last));
}

void Browser::Impl::refuse_pending(const std::set<std::string>& sessions) {
  std::vector<std::pair<std::string, std::string>> refuse;  // {requestId, session}
  {
    std::lock_guard lock(mutex);
    for (auto it = pending.begin(); it != pending.end();) {
      if (sessions.count(it->second.session) && !it->second.answered->exchange(true)) {
        refuse.emplace_back(it->first, it->second.session);
        it = pending.erase(it);
      } else {
        ++it;
      }
    }
    for (auto it = waiting.begin(); it != waiting.end();) {
      if (sessions.count(it->second.session_id)) {
        refuse.emplace_back(get_str(it->second.params, "requestId"), it->second.session_id);
        it = waiting.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (const auto& [id, sid] : refuse)
    conn->send("Fetch.failRequest", {{"requestId", id}, {"errorReason", "BlockedByClient"}}, sid, 5s, ignore);
}

// --- public ---------------------------------------------------------------------------------------

void EgressControl::refuse_paused(const std::string& context) {
  std::set<std::string> sessions;
  {
    std::lock_guard lock(m_impl->mutex);
    std::set<std::string> tabs;
    for (const auto& t : m_impl->tracker.in_context(context)) {
      tabs.insert(t->id);
      if (!t->session_id.empty()) sessions.insert(t->session_id);
    }
    for (const auto& [sid, child] : m_impl->children)
      if (tabs.count(child.tab)) sessions.insert(sid);
  }
  m_impl->refuse_pending(sessions);
}

Result<void> EgressControl::set_gate(const std::string& context, EgressGate gate, const std::vector<std::string>& websocket_allow) {
  std::vector<std::pair<std::string, json>> sessions;
  bool on = static_cast<bool>(gate);
  json websockets;
  std::vector<std::string> attach;  // running service workers of the origins its tabs show
  {
    std::lock_guard lock(m_impl->mutex);
    m_impl->socket_writes_refused.erase(context);  // a new gate starts before its run acts
    if (on) m_impl->gates[context] = std::move(gate);
    else if (!m_impl->gates.erase(context)) return {};
    if (on) m_impl->websocket_patterns[context] = websocket_rules(websocket_allow);
    else m_impl->websocket_patterns.erase(context);
    websockets = on ? m_impl->websocket_patterns[context] : json::array();
    for (const auto& t : m_impl->tracker.in_context(context)) {
      if (t->closed || t->session_id.empty()) continue;
      if (on) for (auto& w : m_impl->hold_workers_of(*t, t->url)) attach.push_back(std::move(w));
      auto pats = m_impl->intercept_patterns.find(t->id);
      sessions.emplace_back(t->session_id, pats == m_impl->intercept_patterns.end() ? json::array() : pats->second);
    }
  }
  m_impl->attach_workers(attach);
  return m_impl->gate_sessions(sessions, on, websockets);
}

Result<void> Browser::Impl::gate_sessions(const std::vector<std::pair<std::string, json>>& sessions, bool on, const json& websockets) {
  // Pipelined per tab; the last command of each is awaited, so the tabs are covered on return.
  std::vector<std::shared_ptr<std::promise<Result<json>>>> replies;
  for (auto& [sid, pats] : sessions) {
    auto p = std::make_shared<std::promise<Result<json>>>();
    replies.push_back(p);
    egress_commands(sid, on, pats, websockets, [p](Result<json> r) { p->set_value(std::move(r)); });
  }
  for (auto& p : replies) {
    auto f = p->get_future();
    if (f.wait_for(15s) != std::future_status::ready) return errorf(Code::DeadlineExceeded, "the browser did not put a tab under the egress gate within 15 s");
    if (auto r = f.get(); !r && on && r.error().cause != Cause::TargetGone)
      return errorf(Code::Internal, "cannot put a tab under the egress gate: {}", r.error().message);
  }
  return {};
}

Result<void> EgressControl::set_websocket_allowlist(const std::string& context, std::vector<std::string> url_patterns, const std::string& owner) {
  json patterns = websocket_rules(url_patterns);
  std::vector<std::pair<std::string, json>> sessions;
  {
    std::lock_guard lock(m_impl->mutex);
    if (owner.empty()) {
      if (!m_impl->gated(context)) return {};
      m_impl->websocket_patterns[context] = patterns;
    } else {
      for (auto& [tab, o] : m_impl->owned)
        if (o.owner == owner && o.gate) o.websockets = patterns;
    }
    for (const auto& [sid, type] : m_impl->gated_sessions(context, owner)) sessions.emplace_back(sid, m_impl->websockets_for_session(sid, patterns));
  }
  for (const auto& [sid, rules] : sessions) {
    auto r = m_impl->conn->call("Network.setBlockedURLs", {{"urlPatterns", rules}}, sid, 10s);
    if (!r && r.error().cause != Cause::TargetGone)
      return errorf(Code::Internal, "cannot limit WebSockets to the allowed sites: {}", r.error().message);
  }
  return {};
}

void EgressControl::limit_tab_websockets(const std::string& tab_id, const std::vector<std::string>& url_patterns) {
  json rules = websocket_rules(url_patterns);
  std::vector<std::string> sessions;
  {
    std::lock_guard lock(m_impl->mutex);
    auto& limit = m_impl->websocket_limits[tab_id];
    if (limit == rules) return;
    limit = rules;
    if (auto tab = m_impl->tracker.find(tab_id); tab && !tab->closed && !tab->session_id.empty()) sessions.push_back(tab->session_id);
    for (const auto& [sid, child] : m_impl->children)
      if (child.tab == tab_id) sessions.push_back(sid);
    // The service workers held for it (service_workers.cpp): their sockets keep to its rule too.
    for (auto& [key, hold] : m_impl->worker_holds)
      if (hold.tab == tab_id) {
        hold.websockets = rules;
        for (const auto& [target, w] : m_impl->service_workers)
          if (w.context == key.first && w.origin == key.second && !w.session.empty()) sessions.push_back(w.session);
      }
  }
  spdlog::debug("egress: tab {} bound by a secret's rule: WebSockets to {} only", tab_id.substr(0, 8), dump_json(url_patterns));
  for (const auto& sid : sessions)
    m_impl->conn->send("Network.setBlockedURLs", {{"urlPatterns", rules}}, sid, 10s, [tab_id](Result<json> r) {
      if (!r && r.error().cause != Cause::TargetGone) spdlog::warn("egress: cannot limit the WebSockets of tab {}: {}", tab_id.substr(0, 8), r.error().message);
    });
}

// Mutex held. The rules for a session of a gated tab: its tab's limit, else `rules`.
json Browser::Impl::websockets_for_session(const std::string& session_id, const json& rules) const {
  std::string tab;
  if (auto t = tracker.by_session(session_id)) tab = t->id;
  else if (auto c = children.find(session_id); c != children.end()) tab = c->second.tab;
  if (auto l = websocket_limits.find(tab); !tab.empty() && l != websocket_limits.end()) return l->second;
  return rules;
}

std::vector<std::pair<std::string, std::string>> Browser::Impl::gated_sessions(const std::string& context, const std::string& owner) const {
  std::set<std::string> tabs;
  if (owner.empty()) {
    for (const auto& t : tracker.in_context(context)) tabs.insert(t->id);
  } else {
    for (const auto& [tab, o] : owned)
      if (o.owner == owner && o.gate) tabs.insert(tab);
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& id : tabs)
    if (auto t = tracker.find(id); t && !t->closed && !t->session_id.empty()) out.emplace_back(t->session_id, "page");
  for (const auto& [sid, child] : children)
    if (tabs.count(child.tab)) out.emplace_back(sid, child.type);
  return out;
}

std::string Browser::Impl::socket_refusal_key(const Tab& tab) const {
  if (auto o = owned.find(tab.id); o != owned.end() && o->second.gate) return "owner:" + o->second.owner;
  return tab.context;
}

bool Browser::Impl::socket_writes_refused_for(const std::string& session_id) const {
  std::shared_ptr<Tab> tab = tracker.by_session(session_id);
  if (!tab)
    if (auto c = children.find(session_id); c != children.end()) tab = tracker.find(c->second.tab);
  return tab && socket_writes_refused.count(socket_refusal_key(*tab)) > 0;
}

void Browser::Impl::add_socket_switch(const std::string& sid, std::function<void(Result<json>)> done) {
  // Runs in the documents open now and, after the guard, in every later one of this session.
  std::weak_ptr<Impl> weak = shared_from_this();
  conn->send("Page.addScriptToEvaluateOnNewDocument", {{"source", std::string(kRefuseSocketWrites)}, {"runImmediately", true}}, sid, 10s,
             [weak, sid, done = std::move(done)](Result<json> r) {
               if (auto self = weak.lock(); self && r) {
                 std::lock_guard lock(self->mutex);
                 self->socket_scripts[sid] = get_str(*r, "identifier");
               }
               done(std::move(r));
             });
}

void Browser::Impl::refuse_worker_writes(const std::string& sid, const json& websockets, std::function<void(Result<json>)> done) {
  // "refused" once the worker's guard refuses; a worker without the guard gets it, refusing (a
  // guard booted later in it then stands down: one guard per realm).
  std::string expression = "(() => { try { if (typeof WebSocket !== 'function') return 'refused'; "
                           "if (typeof __ouroSocketWrites !== 'function') {\n" +
                           egress_guard(websockets.is_array() ? websockets : json::array(), false, "", true) +
                           "\n} __ouroSocketWrites('refuse'); return 'refused'; } catch (e) { return 'not refused'; } })()";
  struct Try {
    std::weak_ptr<Impl> impl;
    std::string sid, expression;
    std::function<void(Result<json>)> done;
    int left = 3;
    static void next(std::shared_ptr<Try> t) {
      auto self = t->impl.lock();
      if (!self) return t->done(errorf(Code::Cancelled, "the browser is gone"));
      self->conn->send("Runtime.evaluate", {{"expression", t->expression}, {"returnByValue", true}}, t->sid, 10s, [t](Result<json> r) {
        if (r && get_str(get_field(*r, "result"), "value") == "refused") return t->done(std::move(r));
        if (r && --t->left > 0) return next(t);
        auto self = t->impl.lock();
        if (!r || !self) return t->done(std::move(r));
        // Its sockets could still send after the run acted: the worker is stopped instead.
        spdlog::warn("egress: a worker of a gated tab could not refuse socket messages; ouro closed it");
        self->conn->send("Runtime.evaluate", {{"expression", "close()"}}, t->sid, 10s, [](Result<json>) {});
        t->done(std::move(r));
      });
    }
  };
  Try::next(std::make_shared<Try>(Try{shared_from_this(), sid, std::move(expression), std::move(done)}));
}

Result<void> EgressControl::refuse_socket_messages(const std::string& context, const std::string& owner) {
  std::vector<std::pair<std::string, std::string>> sessions;
  std::map<std::string, json> rules;  // a worker's: its tab's WebSocket rules, for a guard it lacks
  {
    std::lock_guard lock(m_impl->mutex);
    if (owner.empty() && !m_impl->gated(context)) return {};
    m_impl->socket_writes_refused.insert(owner.empty() ? context : "owner:" + owner);
    sessions = m_impl->gated_sessions(context, owner);
    // A worker is evaluated in only once it is seen running (it opened a socket): an evaluation
    // in a worker that is still starting hangs it in Chromium 156. One not seen running yet is
    // refused as it opens its first socket (and by its page's guard before that).
    std::erase_if(sessions, [&](const auto& session) {
      auto c = m_impl->children.find(session.first);
      if (c == m_impl->children.end() || session.second.find("worker") == std::string::npos) return false;
      if (!c->second.socket_seen) c->second.refuse_at_first_socket = true;
      else if (auto tab = m_impl->tracker.find(c->second.tab)) rules[session.first] = m_impl->websockets_of(*tab);
      return !c->second.socket_seen;
    });
  }
  // Pipelined; every reply awaited, so the open documents and workers refuse before the run acts.
  std::vector<std::shared_ptr<std::promise<Result<json>>>> replies;
  for (const auto& [sid, type] : sessions) {
    auto p = std::make_shared<std::promise<Result<json>>>();
    replies.push_back(p);
    auto done = [p](Result<json> r) { p->set_value(std::move(r)); };
    if (type.find("worker") != std::string::npos)
      m_impl->refuse_worker_writes(sid, rules[sid], done);
    else
      m_impl->add_socket_switch(sid, done);
  }
  for (auto& p : replies) {
    auto f = p->get_future();
    if (f.wait_for(10s) != std::future_status::ready)
      return errorf(Code::DeadlineExceeded, "a tab did not take the refusal of socket messages within 10 s");
    if (auto r = f.get(); !r && r.error().cause != Cause::TargetGone)
      return errorf(Code::Internal, "cannot refuse socket messages in a tab: {}", r.error().message);
  }
  return {};
}

// The page's guard lets socket messages through while an approved action works ("approve") or
// no longer ("end"); the tab's main document only. Mutex not held; with `wait`, blocks until the
// page has it (not on the network thread).
void Browser::Impl::tell_socket_approval(const std::string& tab_id, bool approved, bool wait) {
  std::string sid, key;
  {
    std::lock_guard lock(mutex);
    auto tab = tracker.find(tab_id);
    if (!tab || tab->session_id.empty() || !socket_writes_refused.count(socket_refusal_key(*tab)) || socket_key.empty()) return;
    sid = tab->session_id;
    key = socket_key;
  }
  std::string expression = fmt::format("try {{ __ouroSocketWrites({}, {}); }} catch (e) {{}}", approved ? "'approve'" : "'end'", dump_json(key));
  if (!wait) return conn->send("Runtime.evaluate", {{"expression", expression}}, sid, 5s, ignore);
  if (auto r = conn->call("Runtime.evaluate", {{"expression", expression}}, sid, 5s); !r)
    spdlog::debug("egress: cannot tell the page about an approved action: {}", r.error().message);
}

void EgressControl::set_pause_handler(const std::string& owner, std::function<void(const std::string&, const json&)> handler) {
  std::lock_guard lock(m_impl->mutex);
  if (handler) m_impl->pause_handlers[owner] = std::move(handler);
  else m_impl->pause_handlers.erase(owner);
}

Result<void> EgressControl::set_intercept_patterns(const std::string& tab_id, json patterns, const std::string& owner, Millis timeout) {
  bool gated_tab;
  {
    std::lock_guard lock(m_impl->mutex);
    auto tab = TRY(m_impl->find_tab(tab_id));
    gated_tab = m_impl->gated(*tab);
    if (patterns.is_array() && !patterns.empty()) {
      m_impl->intercept_patterns[tab_id] = patterns;
      m_impl->intercept_owner[tab_id] = owner;
    } else {
      m_impl->intercept_patterns.erase(tab_id);
      m_impl->intercept_owner.erase(tab_id);
    }
  }
  if (gated_tab) return {};  // every request pauses already
  if (patterns.is_array() && !patterns.empty()) TRY(m_browser.send(tab_id, "Fetch.enable", {{"patterns", patterns}}, timeout));
  else TRY(m_browser.send(tab_id, "Fetch.disable", json::object(), timeout));
  return {};
}

int EgressControl::begin_activity(const std::string& tab_id, const std::string& name) {
  bool withdraw = false;
  {
    // An approval's socket messages end with it: the next action is not approved (yet).
    std::lock_guard lock(m_impl->mutex);
    auto& a = m_impl->activity[tab_id];
    withdraw = a.running.empty() && a.page_approved;
    if (withdraw) a.page_approved = false;
  }
  if (withdraw) m_impl->tell_socket_approval(tab_id, false, /*wait=*/true);
  std::lock_guard lock(m_impl->mutex);
  auto& a = m_impl->activity[tab_id];
  int id = m_impl->next_activity++;
  if (a.running.empty()) a.approved = false;
  a.running[id] = name;
  a.last = name;
  if (auto tab = m_impl->tracker.find(tab_id)) a.loader = tab->loader_id;
  return id;
}

void EgressControl::approve_activity(const std::string& tab_id) {
  {
    std::lock_guard lock(m_impl->mutex);
    auto it = m_impl->activity.find(tab_id);
    if (it == m_impl->activity.end() || it->second.running.empty()) return;
    it->second.approved = it->second.page_approved = true;
  }
  m_impl->tell_socket_approval(tab_id, true, /*wait=*/true);
}

void EgressControl::end_activity(const std::string& tab_id, int id) {
  std::lock_guard lock(m_impl->mutex);
  auto it = m_impl->activity.find(tab_id);
  if (it == m_impl->activity.end()) return;
  it->second.running.erase(id);
  it->second.until = Clock::now() + kSettle;
  if (!it->second.running.empty() || !it->second.page_approved) return;
  // The approved action's socket messages go until it has settled.
  std::weak_ptr<Impl> weak = m_impl;
  m_browser.after(std::chrono::duration_cast<Millis>(kSettle), [weak, tab_id] {
    auto self = weak.lock();
    if (!self) return;
    {
      std::lock_guard lock(self->mutex);
      auto a = self->activity.find(tab_id);
      if (a == self->activity.end() || !a->second.running.empty() || !a->second.page_approved) return;
      a->second.page_approved = false;
    }
    self->tell_socket_approval(tab_id, false, /*wait=*/false);
  });
}

}  // namespace ouro::browser
