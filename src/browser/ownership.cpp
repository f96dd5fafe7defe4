// Tabs of a shared context (the profile's, where the user browses too): who holds which tab, the
// gate a held tab is under, popups that follow their opener, and the hidden tabs (the Command
// Center's own pages) that no one may see or touch.
#include "base/log.h"
#include "browser/browser_impl.h"

#include <algorithm>

namespace ouro::browser {

bool Browser::Impl::is_hidden(const Tab& tab) const {
  for (const auto& prefix : hidden_prefixes)
    if (!prefix.empty() && tab.url.rfind(prefix, 0) == 0) return true;
  return false;
}

const EgressGate* Browser::Impl::gate_of(const Tab& tab) const {
  if (auto o = owned.find(tab.id); o != owned.end() && o->second.gate) return &o->second.gate;
  if (auto g = gates.find(tab.context); g != gates.end()) return &g->second;
  return nullptr;
}

json Browser::Impl::websockets_of(const Tab& tab) const {
  if (auto l = websocket_limits.find(tab.id); l != websocket_limits.end()) return l->second;
  if (auto o = owned.find(tab.id); o != owned.end() && o->second.gate) return o->second.websockets;
  if (auto w = websocket_patterns.find(tab.context); w != websocket_patterns.end()) return w->second;
  return json::array();
}

void Browser::Impl::inherit_owner(const Tab& tab) {
  if (tab.opener.empty() || owned.count(tab.id)) return;
  auto opener = tracker.by_target(tab.opener);
  if (!opener) return;
  if (auto o = owned.find(opener->id); o != owned.end()) owned[tab.id] = o->second;
}

Result<void> SharedTabs::claim_tab(const std::string& tab_id, const std::string& owner, EgressGate gate,
                                const std::vector<std::string>& websocket_allow) {
  std::vector<std::pair<std::string, json>> sessions;
  json websockets = websocket_rules(websocket_allow);
  std::vector<std::string> attach;  // running service workers of the origin it shows
  {
    std::lock_guard lock(m_impl->mutex);
    auto tab = TRY(m_impl->find_tab(tab_id));
    if (tab->closed || m_impl->is_hidden(*tab)) return errorf(Code::NotFound, "no tab '{}'", tab_id);
    if (auto o = m_impl->owned.find(tab_id); o != m_impl->owned.end()) {
      if (o->second.owner != owner && o->second.lingering)
        return errorf(Code::FailedPrecondition,
                      "tab {} still keeps to the rule of {}, which acted on its page and has finished; reload it from the address bar "
                      "or use another tab",
                      tab_id, o->second.owner);
      if (o->second.owner != owner)
        return errorf(Code::FailedPrecondition, "tab {} is in use by {}; a tab works for one run at a time", tab_id, o->second.owner);
      if (o->second.lingering) {
        // Its owner takes it back (a follow-up turn): under its live gate again. Had it been
        // gated, it still is, so no command is needed.
        if (gate) o->second.gate = std::move(gate);
        o->second.lingering = false;
        o->second.release_loader.clear();
        return {};
      }
      if (static_cast<bool>(o->second.gate) == static_cast<bool>(gate)) return {};  // held already
    }
    bool was_gated = m_impl->gated(*tab);
    bool gate_now = static_cast<bool>(gate);
    m_impl->owned[tab_id] = Impl::Owned{owner, std::move(gate), websockets, false, {}};
    if (gate_now) attach = m_impl->hold_workers_of(*tab, tab->url);
    if (gate_now && !was_gated && !tab->session_id.empty()) {
      auto pats = m_impl->intercept_patterns.find(tab_id);
      sessions.emplace_back(tab->session_id, pats == m_impl->intercept_patterns.end() ? json::array() : pats->second);
    }
  }
  m_impl->attach_workers(attach);
  if (sessions.empty()) return {};
  TRY(m_impl->gate_sessions(sessions, true, websockets));
  // What its page opened before the claim was never judged: it ends here (channels.cpp).
  return m_impl->close_channels(tab_id, [&](const std::string& url) { return m_browser.navigate(tab_id, url, 15s); });
}

std::string SharedTabs::tab_owner(const std::string& tab_id) const {
  std::lock_guard lock(m_impl->mutex);
  auto o = m_impl->owned.find(tab_id);
  return o == m_impl->owned.end() ? "" : o->second.owner;
}

std::vector<std::string> SharedTabs::owned_tabs(const std::string& owner) const {
  std::lock_guard lock(m_impl->mutex);
  std::vector<std::string> out;
  for (const auto& [id, t] : m_impl->tracker.all())
    if (auto o = m_impl->owned.find(id); o != m_impl->owned.end() && o->second.owner == owner && !t->closed) out.push_back(id);
  // t2 before t10: the order they were opened in.
  std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) { return a.size() != b.size() ? a.size() < b.size() : a < b; });
  return out;
}

void SharedTabs::release_tabs(const std::string& owner, EgressGate lingering) {
  std::vector<std::pair<std::string, json>> sessions;
  {
    std::lock_guard lock(m_impl->mutex);
    for (auto it = m_impl->owned.begin(); it != m_impl->owned.end();) {
      if (it->second.owner != owner) {
        ++it;
        continue;
      }
      auto open = m_impl->tracker.find(it->first);
      if (lingering && it->second.gate && open && !open->closed) {
        it->second.gate = lingering;
        it->second.lingering = true;
        ++it;
        continue;
      }
      bool had_gate = static_cast<bool>(it->second.gate);
      std::string tab_id = it->first;
      it = m_impl->owned.erase(it);
      m_impl->websocket_limits.erase(tab_id);
      auto tab = m_impl->tracker.find(tab_id);
      if (!had_gate || !tab || tab->closed || tab->session_id.empty() || m_impl->gated(*tab)) continue;
      auto pats = m_impl->intercept_patterns.find(tab_id);
      sessions.emplace_back(tab->session_id, pats == m_impl->intercept_patterns.end() ? json::array() : pats->second);
    }
    bool holds = false;
    for (const auto& [id, o] : m_impl->owned) holds = holds || o.owner == owner;
    if (!holds) m_impl->socket_writes_refused.erase("owner:" + owner);
  }
  if (!m_browser.dead()) m_impl->release_worker_holds(owner, lingering);
  if (sessions.empty() || m_browser.dead()) return;
  // Out of the gate, so the user's own browsing there is not paused any longer.
  if (auto r = m_impl->gate_sessions(sessions, false, json::array()); !r) spdlog::debug("releasing tabs: {}", r.error().message);
}

std::vector<std::string> SharedTabs::lingering_tabs(const std::string& context) const {
  std::lock_guard lock(m_impl->mutex);
  std::vector<std::string> out;
  for (const auto& [id, o] : m_impl->owned)
    if (auto t = m_impl->tracker.find(id); o.lingering && t && !t->closed && t->context == context) out.push_back(id);
  return out;
}

void Browser::Impl::end_lingering(const std::string& tab_id) {
  std::vector<std::pair<std::string, json>> sessions;
  {
    std::lock_guard lock(mutex);
    auto o = owned.find(tab_id);
    if (o == owned.end() || !o->second.lingering) return;
    owned.erase(o);
    websocket_limits.erase(tab_id);
    auto tab = tracker.find(tab_id);
    if (!tab || tab->closed || tab->session_id.empty() || gated(*tab)) return;
    auto pats = intercept_patterns.find(tab_id);
    sessions.emplace_back(tab->session_id, pats == intercept_patterns.end() ? json::array() : pats->second);
  }
  // On the network thread: the commands are sent, not awaited.
  for (auto& [sid, pats] : sessions) egress_commands(sid, false, pats, json::array(), [](Result<json>) {});
}

std::vector<std::string> Browser::Impl::gated_tabs() const {
  std::lock_guard lock(mutex);
  std::vector<std::string> out;
  for (const auto& [id, t] : tracker.all())
    if (!t->closed && !t->session_id.empty() && gated(*t)) out.push_back(id);
  return out;
}

void SharedTabs::set_hidden_prefixes(std::vector<std::string> prefixes) {
  {
    std::lock_guard lock(m_impl->mutex);
    m_impl->hidden_prefixes = std::move(prefixes);
  }
  m_impl->notify_tabs();
}

bool SharedTabs::hidden(const std::string& tab_id) const {
  std::lock_guard lock(m_impl->mutex);
  auto tab = m_impl->tracker.find(tab_id);
  return tab && m_impl->is_hidden(*tab);
}

}  // namespace ouro::browser
