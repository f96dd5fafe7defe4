// Ending what a run left running in its pages: a timer, a tampered poller, an unload handler, a
// worker. Their requests are refused while the run's gate stands; once the gate goes (the run's
// context disposed, ouro's connection closed) Chromium lets a request paused at that moment go on
// and sends the next ones unjudged. So the documents go first — replaced by about:blank — and a
// tab that cannot be blanked in time has its renderer crashed: a page whose renderer is gone
// sends nothing.
#include "base/log.h"
#include "browser/browser_impl.h"

namespace ouro::browser {

namespace {
const auto ignore = [](Result<json>) {};
}  // namespace

std::vector<std::string> SharedTabs::blank(const std::vector<std::string>& tab_ids, Millis within) {
  if (tab_ids.empty()) return {};
  const auto deadline = Clock::now() + within;
  // Per tab, what Page.navigate answered; written by reply callbacks under the browser's mutex.
  struct Answer {
    bool answered = false, failed = false;
    std::string loader;  // of its about:blank document
  };
  struct Progress {
    std::vector<Answer> answers;
    size_t frames_waiting = 0;         // other-site frames whose scripts are not known to be stopped yet
    std::vector<char> frame_answered;  // by index in `frames` (1: it answered)
  };
  auto progress = std::make_shared<Progress>();
  progress->answers.resize(tab_ids.size());
  std::weak_ptr<Impl> weak = m_impl;
  std::vector<std::string> sessions(tab_ids.size());
  std::vector<std::string> frames;   // the tabs' out-of-process frames (their own sessions)
  std::vector<std::string> workers;  // their dedicated and shared workers
  {
    std::lock_guard lock(m_impl->mutex);
    for (size_t i = 0; i < tab_ids.size(); ++i) {
      if (auto t = m_impl->tracker.find(tab_ids[i]); t && !t->closed) sessions[i] = t->session_id;
      if (sessions[i].empty()) progress->answers[i] = Answer{true, true, {}};
      for (const auto& [child_sid, child] : m_impl->children)
        if (child.tab == tab_ids[i]) (child.type == "iframe" ? frames : workers).push_back(child_sid);
    }
    progress->frames_waiting = frames.size();
    progress->frame_answered.assign(frames.size(), 0);
  }
  // What no request check can pause is switched off first in every realm: messages on open
  // sockets (the guard's switch), so an unload handler's message does not go out. A frame on
  // another site runs in another renderer, which the main frame's setting does not reach: its
  // sockets are switched off and its scripts stopped, answered before the navigations start
  // (commands of two sessions are not ordered), so no unload handler of theirs sends as the tab
  // goes blank (a stopped renderer may still run one: Chromium dispatches unload to a frame being
  // removed whatever its emulated script setting). All frames at once: one round trip, not one
  // per frame, whatever the number of tabs.
  const json refuse = {{"expression", std::string(Impl::kRefuseSocketWrites)}};
  for (const auto& w : workers) m_impl->conn->send("Runtime.evaluate", refuse, w, within, ignore);
  for (size_t f = 0; f < frames.size(); ++f) {
    m_impl->conn->send("Runtime.evaluate", refuse, frames[f], within, ignore);
    // One session's commands are handled in order: its reply means both are done (or failed).
    m_impl->conn->send("Emulation.setScriptExecutionDisabled", {{"value", true}}, frames[f], within, [weak, progress, f](Result<json> r) {
      auto self = weak.lock();
      if (!self) return;
      {
        std::lock_guard lock(self->mutex);
        --progress->frames_waiting;
        progress->frame_answered[f] = r.has_value() ? 1 : 0;
      }
      self->changed.notify_all();
    });
  }
  if (!frames.empty()) {
    std::vector<std::string> silent;  // frames whose renderer did not answer (busy, or hung)
    {
      std::unique_lock lock(m_impl->mutex);
      m_impl->wait_until(lock, std::min(deadline, Clock::now() + 2s), [&] { return progress->frames_waiting == 0; });
      for (size_t f = 0; f < frames.size(); ++f)
        if (!progress->frame_answered[f]) silent.push_back(frames[f]);
    }
    // Its scripts may run again once it is free — an unload handler as its tab navigates, after its
    // session (and the gate's hold on its requests) has gone with the frame: it is crashed now,
    // while its session is still there (Page.crash interrupts running script).
    for (const auto& f : silent) m_impl->conn->send("Page.crash", json::object(), f, within, ignore);
  }
  for (size_t i = 0; i < tab_ids.size(); ++i) {
    const std::string& sid = sessions[i];
    if (sid.empty()) continue;
    // Sockets refused and scripts stopped before the navigation starts (one session, in order).
    m_impl->conn->send("Runtime.evaluate", refuse, sid, within, ignore);
    m_impl->conn->send("Emulation.setScriptExecutionDisabled", {{"value", true}}, sid, within, ignore);
    m_impl->conn->send("Page.navigate", {{"url", "about:blank"}}, sid, within, [weak, progress, i](Result<json> r) {
      auto self = weak.lock();
      if (!self) return;
      {
        std::lock_guard lock(self->mutex);
        Answer& a = progress->answers[i];
        a.answered = true;
        if (r) a.loader = get_str(*r, "loaderId");
        a.failed = !r || !get_str(*r, "errorText").empty() || a.loader.empty();
      }
      self->changed.notify_all();
    });
  }
  std::unique_lock lock(m_impl->mutex);
  // Whether a tab is not blank yet; with `waiting`, only one that may still get there (not failed).
  auto not_blank = [&](size_t i, bool waiting) {
    auto t = m_impl->tracker.find(tab_ids[i]);
    if (!t || t->closed || t->crashed) return false;
    const Answer& a = progress->answers[i];
    if (a.failed) return !waiting;
    return !a.answered || t->loaded_loader_id != a.loader;
  };
  m_impl->wait_until(lock, deadline, [&] {
    for (size_t i = 0; i < tab_ids.size(); ++i)
      if (not_blank(i, true)) return false;
    return true;
  });
  if (m_impl->dead) return tab_ids;
  std::vector<std::string> left;
  for (size_t i = 0; i < tab_ids.size(); ++i)
    if (not_blank(i, false)) left.push_back(tab_ids[i]);
  return left;
}

size_t SharedTabs::crash(const std::vector<std::string>& tab_ids, Millis within) {
  if (tab_ids.empty()) return 0;
  const auto deadline = Clock::now() + within;
  std::vector<std::string> sessions;  // the tabs' and their other-site frames'
  {
    std::lock_guard lock(m_impl->mutex);
    for (const auto& id : tab_ids) {
      auto t = m_impl->tracker.find(id);
      if (!t || t->closed || t->crashed || t->session_id.empty()) continue;
      for (const auto& [child_sid, child] : m_impl->children)
        if (child.tab == id && child.type == "iframe") sessions.push_back(child_sid);
      sessions.push_back(t->session_id);
    }
  }
  // A crashing renderer does not answer: the replies are not waited for, the crashes are
  // (Target.targetCrashed marks the tab). Chromium refuses to crash a page with a navigation
  // pending (the about:blank that did not get there): it is stopped first, on the same session.
  for (const auto& sid : sessions) {
    m_impl->conn->send("Page.stopLoading", json::object(), sid, within, ignore);
    m_impl->conn->send("Page.crash", json::object(), sid, within, [sid](Result<json> r) {
      if (!r) spdlog::debug("browser: Page.crash in session {}: {}", sid.substr(0, 8), r.error().message);
    });
  }
  std::unique_lock lock(m_impl->mutex);
  auto running = [&] {
    size_t n = 0;
    for (const auto& id : tab_ids)
      if (auto t = m_impl->tracker.find(id); t && !t->closed && !t->crashed) ++n;
    return n;
  };
  m_impl->wait_until(lock, deadline, [&] { return running() == 0; });
  return m_impl->dead ? tab_ids.size() : running();
}

std::vector<std::string> SharedTabs::every_tab(const std::string& context) const {
  std::lock_guard lock(m_impl->mutex);
  std::vector<std::string> out;
  for (const auto& t : m_impl->tracker.in_context(context))
    if (!t->closed) out.push_back(t->id);
  return out;
}

bool SharedTabs::stop_pages(const std::vector<std::string>& tab_ids, Millis blank_within, Millis crash_within) {
  auto left = blank(tab_ids, blank_within);
  if (left.empty()) return true;
  const size_t running = crash(left, crash_within);
  spdlog::warn("browser: {} of {} tab(s) did not go blank in {} ms; {} stopped by crashing their renderers{}", left.size(), tab_ids.size(),
               blank_within.count(), left.size() - running,
               running ? fmt::format(", {} still running", running) : std::string());
  return running == 0;
}

}  // namespace ouro::browser
