// Service workers of the origins gated tabs have shown. A page's service worker outlives the page:
// it keeps running (and fetching) after the tab leaves its origin, and a page can wake it with a
// message and leave. The tab's own auto-attached child session of the worker ends when the tab's
// document leaves the worker's scope (CDP Target.setAutoAttach only follows a page's *current*
// workers), so the gate follows the origin instead: once a gated tab has shown an origin, every
// service worker of that origin in that browser context is attached from the browser's session
// (Target.attachToTarget; new ones arrive through the browser-wide auto-attach, paused before
// they run) and each of its requests pauses (Fetch, Request stage) and goes to the gate that held
// the tab — until ouro lets go of the browser, when those workers are stopped
// (Target.closeTarget on a service worker terminates it). A finished run's gate that took its
// state with it refuses everything, so a worker a run's page woke never sends for it unjudged.
// Service Workers spec (W3C): https://www.w3.org/TR/service-workers/ — a registration's scope is
// within its script's origin, so the script URL's origin is the worker's.
#include "base/log.h"
#include "browser/browser_impl.h"

#include <boost/url/parse.hpp>

#include <atomic>

namespace ouro::browser {

namespace {

void ignore(Result<json>) {}

// "http://127.0.0.1:8080" for an http(s) URL (the port always written), "" for anything else.
std::string origin_of(std::string_view url) {
  auto u = boost::urls::parse_uri(url);
  if (!u) return {};
  std::string scheme(u->scheme());
  if (scheme != "http" && scheme != "https") return {};
  std::string port = u->has_port() ? std::string(u->port()) : scheme == "https" ? "443" : "80";
  return scheme + "://" + std::string(u->encoded_host()) + ":" + port;
}

}  // namespace

// Mutex held. Our context name for a Chromium browserContextId.
std::string Browser::Impl::context_name(const std::string& chromium_context) const {
  return chromium_context == tracker.default_context() ? "" : chromium_context;
}

std::vector<std::string> Browser::Impl::hold_workers_of(const Tab& tab, const std::string& url) {
  std::vector<std::string> attach;
  const EgressGate* gate = gate_of(tab);
  std::string origin = origin_of(url);
  if (!gate || origin.empty()) return attach;
  auto o = owned.find(tab.id);
  WorkerHold& hold = worker_holds[{tab.context, origin}];
  hold.tab = tab.id;
  hold.owner = o == owned.end() ? "" : o->second.owner;
  hold.gate = *gate;
  hold.websockets = websockets_of(tab);
  // The origin's workers that run already (a registration from before, or one the page woke).
  for (const auto& [target, w] : service_workers)
    if (w.context == tab.context && w.origin == origin && w.session.empty() && !attaching_workers.count(target)) {
      attaching_workers.insert(target);
      attach.push_back(target);
    }
  return attach;
}

void Browser::Impl::attach_workers(const std::vector<std::string>& targets) {
  for (const auto& t : targets) {
    spdlog::debug("egress: holding the running service worker {}", t.substr(0, 8));
    std::weak_ptr<Impl> weak = shared_from_this();
    conn->send("Target.attachToTarget", {{"targetId", t}, {"flatten", true}}, "", 10s, [weak, t](Result<json> r) {
      if (r) return;  // its Target.attachedToTarget gates it
      if (auto self = weak.lock()) {
        std::lock_guard lock(self->mutex);
        self->attaching_workers.erase(t);
      }
    });
  }
}

bool Browser::Impl::service_worker_event(const cdp::Event& ev) {
  const std::string& m = ev.method;
  if (ev.session_id.empty() && (m == "Target.targetCreated" || m == "Target.targetInfoChanged")) {
    const json& info = get_field(ev.params, "targetInfo");
    if (get_str(info, "type") != "service_worker") return false;
    std::vector<std::string> attach;
    {
      std::lock_guard lock(mutex);
      std::string target = get_str(info, "targetId");
      auto& w = service_workers[target];
      w.context = context_name(get_str(info, "browserContextId"));
      w.origin = origin_of(get_str(info, "url"));
      if (w.session.empty() && worker_holds.count({w.context, w.origin}) && !attaching_workers.count(target)) {
        attaching_workers.insert(target);
        attach.push_back(target);
      }
    }
    attach_workers(attach);
    return false;
  }
  if (ev.session_id.empty() && m == "Target.targetDestroyed") {
    std::lock_guard lock(mutex);
    service_workers.erase(get_str(ev.params, "targetId"));
    attaching_workers.erase(get_str(ev.params, "targetId"));
    return false;
  }
  if (ev.session_id.empty() && m == "Target.attachedToTarget") {
    const json& info = get_field(ev.params, "targetInfo");
    if (get_str(info, "type") != "service_worker") return false;
    std::string sid = get_str(ev.params, "sessionId"), target = get_str(info, "targetId");
    json websockets;
    {
      std::lock_guard lock(mutex);
      attaching_workers.erase(target);
      auto& w = service_workers[target];
      w.context = context_name(get_str(info, "browserContextId"));
      w.origin = origin_of(get_str(info, "url"));
      auto hold = worker_holds.find({w.context, w.origin});
      if (hold == worker_holds.end()) return false;  // not ours to hold: the tracker lets it run
      if (w.session.empty()) {
        w.session = sid;
        held_worker_sessions[sid] = target;
        websockets = hold->second.websockets;
      }
    }
    if (websockets.is_null()) {
      // Held already through another session: this one only lets it run.
      release_target(sid);
      return true;
    }
    spdlog::debug("egress: service worker {} of {} held", target.substr(0, 8), get_str(info, "url").substr(0, 120));
    conn->send("Network.enable", json::object(), sid, 10s, ignore);
    conn->send("Network.setBlockedURLs", {{"urlPatterns", websockets}}, sid, 10s, ignore);
    conn->send("Fetch.enable", {{"patterns", json::array({json{{"urlPattern", "*"}, {"requestStage", "Request"}}})}}, sid, 10s, ignore);
    conn->send("Runtime.runIfWaitingForDebugger", json::object(), sid, 10s, ignore);
    return true;
  }
  if (ev.session_id.empty() && m == "Target.detachedFromTarget") {
    std::lock_guard lock(mutex);
    if (auto h = held_worker_sessions.find(get_str(ev.params, "sessionId")); h != held_worker_sessions.end()) {
      if (auto w = service_workers.find(h->second); w != service_workers.end()) w->second.session.clear();
      held_worker_sessions.erase(h);
    }
    return false;
  }
  if (m == "Page.frameNavigated" || (m == "Target.attachedToTarget" && !ev.session_id.empty())) {
    // A gated tab shows a document of an origin (a frame of its page, or an out-of-process frame
    // attached to it): that origin's service workers are held from now on.
    std::vector<std::string> attach;
    {
      std::lock_guard lock(mutex);
      std::shared_ptr<Tab> tab = tracker.by_session(ev.session_id);
      if (!tab)
        if (auto c = children.find(ev.session_id); c != children.end()) tab = tracker.find(c->second.tab);
      if (!tab) return false;
      const json& where = m == "Page.frameNavigated" ? get_field(ev.params, "frame") : get_field(ev.params, "targetInfo");
      if (m != "Page.frameNavigated" && get_str(where, "type") != "iframe") return false;
      attach = hold_workers_of(*tab, get_str(where, "url"));
    }
    attach_workers(attach);
  }
  return false;
}

bool Browser::Impl::worker_request_paused(const cdp::Event& ev) {
  OutgoingRequest r;
  EgressGate gate;
  {
    std::lock_guard lock(mutex);
    auto h = held_worker_sessions.find(ev.session_id);
    if (h == held_worker_sessions.end()) return false;
    auto w = service_workers.find(h->second);
    if (w != service_workers.end())
      if (auto hold = worker_holds.find({w->second.context, w->second.origin}); hold != worker_holds.end()) {
        gate = hold->second.gate;
        r.tab_id = hold->second.tab;
        r.page_url = w->second.origin;
      }
  }
  const json& p = ev.params;
  const json& req = get_field(p, "request");
  std::string request_id = get_str(p, "requestId"), sid = ev.session_id;
  if (!gate) {
    conn->send("Fetch.failRequest", {{"requestId", request_id}, {"errorReason", "BlockedByClient"}}, sid, 5s, ignore);
    return true;
  }
  r.url = get_str(req, "url");
  r.method = get_str(req, "method", "GET");
  r.post_data = get_str(req, "postData");
  r.resource_type = get_str(p, "resourceType");
  r.from_worker = true;
  auto once = std::make_shared<std::atomic<bool>>(false);
  {
    std::lock_guard lock(mutex);
    pending[request_id] = Pending{sid, once};
  }
  std::weak_ptr<Impl> weak = shared_from_this();
  EgressAnswer answer = [weak, once, request_id, sid](bool allow) {
    if (once->exchange(true)) return;
    auto self = weak.lock();
    if (!self) return;
    {
      std::lock_guard lock(self->mutex);
      self->pending.erase(request_id);
    }
    if (allow) self->conn->send("Fetch.continueRequest", {{"requestId", request_id}}, sid, 5s, ignore);
    else self->conn->send("Fetch.failRequest", {{"requestId", request_id}, {"errorReason", "BlockedByClient"}}, sid, 5s, ignore);
  };
  try {
    gate(r, answer);
  } catch (const std::exception& e) {
    spdlog::warn("egress gate failed on a service worker's request to {}: {}; it is refused", r.url.substr(0, 200), e.what());
    answer(false);
  }
  return true;
}

void Browser::Impl::release_worker_holds(const std::string& owner, const EgressGate& lingering) {
  std::set<std::string> sessions;
  {
    std::lock_guard lock(mutex);
    for (auto it = worker_holds.begin(); it != worker_holds.end();) {
      if (it->second.owner != owner) {
        ++it;
        continue;
      }
      if (lingering) {
        // The finished run's rule, as on its lingering tabs: nothing asked any more.
        it->second.gate = lingering;
        ++it;
        continue;
      }
      // It never acted: nothing of the run's is in its pages, and the workers are the user's again.
      for (auto& [target, w] : service_workers)
        if (w.context == it->first.first && w.origin == it->first.second && !w.session.empty()) {
          sessions.insert(w.session);
          held_worker_sessions.erase(w.session);
          w.session.clear();
        }
      it = worker_holds.erase(it);
    }
  }
  if (sessions.empty()) return;
  refuse_pending(sessions);
  for (const auto& sid : sessions) {
    conn->send("Fetch.disable", json::object(), sid, 5s, ignore);
    conn->send("Target.detachFromTarget", {{"sessionId", sid}}, "", 5s, ignore);
  }
}

size_t Browser::Impl::stop_held_workers(Millis within) {
  std::vector<std::string> targets;
  {
    std::lock_guard lock(mutex);
    for (const auto& [target, w] : service_workers)
      if (!w.session.empty()) targets.push_back(target);
  }
  size_t stopped = 0;
  for (const auto& t : targets)
    if (conn->call("Target.closeTarget", {{"targetId", t}}, "", within)) ++stopped;
  return targets.size() - stopped;
}

}  // namespace ouro::browser
