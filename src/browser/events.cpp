// The I/O side of the tab tracker: feeds it CDP events under the browser's mutex, then carries out
// what it decided (commands, tab configuration, title reads, failing the commands of a closed or
// crashed tab, notices) and wakes listeners and waiters. Runs on the network thread, except
// reply callbacks of commands that timed out (the connection's deadline thread).
#include "base/log.h"
#include "base/clock.h"
#include "browser/browser_impl.h"

#include <thread>

namespace ouro::browser {

void Browser::Impl::on_event(const cdp::Event& ev) {
  if (ev.method == "Page.screencastFrame") return on_screencast_frame(ev);
  if (ev.method == "Fetch.requestPaused") return on_request_paused(ev);
  if (private_event(ev)) return;
  if (page_tool_event(ev)) return;
  if (service_worker_event(ev)) return;
  channel_event(ev);
  if (frame_event(ev)) return;
  if (egress_event(ev)) return;
  if (download_event(ev)) return;
  TrackerActions actions;
  std::vector<RequestObserver> observe;
  {
    std::lock_guard lock(mutex);
    actions = tracker.handle(ev, wall_ms());
    if (actions.finished_request)
      for (auto& [id, o] : observers)
        if (o.first == actions.tab) observe.push_back(o.second);
  }
  for (auto& o : observe) o(actions.tab, *actions.finished_request);
  carry_out(std::move(actions));
}

void Browser::Impl::carry_out(TrackerActions actions) {
  auto ignore = [](Result<json>) {};
  for (auto& c : actions.commands) conn->send(c.method, std::move(c.params), c.session_id, 5s, ignore);
  for (const auto& sid : actions.release) release_target(sid);
  if (actions.configure) {
    std::string sid;
    {
      std::lock_guard lock(mutex);
      if (auto tab = tracker.find(*actions.configure)) sid = tab->session_id;
    }
    if (!sid.empty()) configure(*actions.configure, sid);
  }
  std::weak_ptr<Impl> weak = shared_from_this();
  for (auto& read : actions.read_title) {
    conn->send(read.command.method, std::move(read.command.params), read.command.session_id, 5s, [weak, id = read.tab_id](Result<json> r) {
      auto self = weak.lock();
      if (!self) return;
      static const json none;
      json value;
      const json& result = r ? get_field(*r, "result") : none;
      if (get_field(result, "value").is_string())
        if (auto p = parse_json(get_str(result, "value")); p && p->is_object()) value = std::move(*p);
      TrackerActions next;
      {
        std::lock_guard lock(self->mutex);
        next = self->tracker.title_read(id, value);
      }
      self->carry_out(std::move(next));
    });
  }
  for (auto& [sid, error] : actions.fail_sessions) conn->fail_session(sid, error);
  publish(std::move(actions.notices));
  if (actions.tabs_changed) notify_tabs();
  else changed.notify_all();
}

void Browser::Impl::release_target(const std::string& sid) {
  // The detach waits for the run's answer: Chromium drops a command still on its way to a worker
  // when its session goes, and a worker that waits for its debugger then never starts (a page's
  // service worker never installs, its shared worker never answers).
  std::weak_ptr<Impl> weak = shared_from_this();
  conn->send("Runtime.runIfWaitingForDebugger", json::object(), sid, 5s, [weak, sid](Result<json>) {
    if (auto self = weak.lock()) self->conn->send("Target.detachFromTarget", {{"sessionId", sid}}, "", 5s, [](Result<json>) {});
  });
}

// Enables the domains we watch, installs the helpers world, then lets the target run. The
// commands are pipelined; the tab is ready when the last reply arrives.
void Browser::Impl::configure(const std::string& tab_id, const std::string& sid) {
  std::weak_ptr<Impl> weak = shared_from_this();
  auto ignore = [](Result<json>) {};
  conn->send("Page.enable", json::object(), sid, 10s, ignore);
  conn->send("Runtime.addBinding", {{"name", "__ouroNotify"}, {"executionContextName", kHelpersWorld}}, sid, 10s, ignore);
  conn->send("Page.addScriptToEvaluateOnNewDocument",
             {{"source", page_helpers_source()}, {"worldName", kHelpersWorld}, {"runImmediately", true}}, sid, 10s, ignore);
  conn->send("Runtime.enable", json::object(), sid, 10s, ignore);
  conn->send("Network.enable", {{"maxPostDataSize", 65536}}, sid, 10s, ignore);
  conn->send("Log.enable", json::object(), sid, 10s, ignore);
  conn->send("Inspector.enable", json::object(), sid, 10s, ignore);
  enable_page_tools(sid);
  conn->send("Runtime.evaluate", {{"expression", "document.readyState"}, {"returnByValue", true}}, sid, 10s,
             [weak, tab_id](Result<json> r) {
               auto self = weak.lock();
               if (!self || !r) return;
               TrackerActions next;
               {
                 std::lock_guard lock(self->mutex);
                 next = self->tracker.document_state(tab_id, get_str(get_field(*r, "result"), "value"));
               }
               self->carry_out(std::move(next));
             });
  // Under an egress gate before its first request.
  bool gate_it = false;
  json intercept = json::array(), websockets = json::array();
  {
    std::lock_guard lock(mutex);
    if (auto tab = tracker.find(tab_id)) {
      inherit_owner(*tab);
      if (gated(*tab)) {
        gate_it = true;
        websockets = websockets_of(*tab);
      }
    }
  }
  if (gate_it) egress_commands(sid, true, intercept, websockets, ignore);
  conn->send("Runtime.runIfWaitingForDebugger", json::object(), sid, 10s, [weak, tab_id, gate_it, sid](Result<json> r) {
    auto self = weak.lock();
    if (!self) return;
    if (!r) spdlog::debug("cdp: configuring tab {} failed: {}", tab_id, r.error().message);
    // Async stack tracking set while the target waited does not hold for the document it then
    // loads: set it again now that it runs.
    if (gate_it) self->conn->send("Runtime.setAsyncCallStackDepth", {{"maxDepth", 32}}, sid, 10s, [](Result<json>) {});
    TrackerActions next;
    {
      std::lock_guard lock(self->mutex);
      next = self->tracker.configured(tab_id);
    }
    self->carry_out(std::move(next));
  });
}

void Browser::Impl::publish(std::vector<PageNotice> list) {
  if (list.empty()) return;
  {
    std::lock_guard lock(mutex);
    for (const auto& n : list) {
      auto& ring = notices[n.context];
      ring.push_back(n);
      while (ring.size() > kNoticesKept) ring.pop_front();
    }
  }
  // Copies, so a listener may remove itself (or another) while it runs; other threads wait.
  std::lock_guard calls(notice_call_mutex);
  std::vector<std::pair<int, std::function<void(const PageNotice&)>>> listeners(notice_listeners.begin(), notice_listeners.end());
  for (const auto& n : list)
    for (auto& [id, l] : listeners)
      if (notice_listeners.count(id)) l(n);
}

void Browser::Impl::notify_tabs() {
  std::function<void()> l;
  {
    std::lock_guard lock(mutex);
    l = listener;
  }
  if (l) l();
  changed.notify_all();
}

Error Browser::Impl::on_close(const Error& e) {
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

}  // namespace ouro::browser
