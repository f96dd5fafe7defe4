#include "host/context.h"

namespace ouro::host {

json ActionCacheStats::to_json() const {
  int64_t h = hits.load(), m = misses.load();
  return {{"hits", h}, {"misses", m}, {"hitRate", h + m ? json(static_cast<double>(h) / static_cast<double>(h + m)) : json(nullptr)}};
}

void Intercepts::add_observer(const std::string& tab, const std::string& pattern, int observer_id) {
  std::lock_guard lock(m_mutex);
  m_observers[tab + " " + pattern].push_back(observer_id);
}

void Intercepts::add_modifier(const std::string& tab, const std::string& pattern, const std::string& handler) {
  std::lock_guard lock(m_mutex);
  m_modifiers[tab][pattern] = handler;
}

Intercepts::Removed Intercepts::remove(const std::string& tab, const std::string& pattern) {
  std::lock_guard lock(m_mutex);
  Removed out;
  if (auto it = m_observers.find(tab + " " + pattern); it != m_observers.end()) {
    out.observers = std::move(it->second);
    m_observers.erase(it);
  }
  if (auto it = m_modifiers.find(tab); it != m_modifiers.end()) {
    out.modifying = it->second.erase(pattern) > 0;
    if (it->second.empty()) m_modifiers.erase(it);
  }
  return out;
}

std::vector<std::string> Intercepts::modifying_patterns(const std::string& tab) const {
  std::lock_guard lock(m_mutex);
  std::vector<std::string> out;
  if (auto it = m_modifiers.find(tab); it != m_modifiers.end())
    for (const auto& [pattern, handler] : it->second) out.push_back(pattern);
  return out;
}

std::string Intercepts::pause(const std::string& tab, const std::string& request_id, const std::function<bool(const std::string& pattern)>& matches) {
  std::lock_guard lock(m_mutex);
  std::string handler;
  if (auto it = m_modifiers.find(tab); it != m_modifiers.end())
    for (const auto& [pattern, h] : it->second)
      if (matches(pattern)) handler = h;
  if (!handler.empty()) m_paused[request_id] = tab;
  return handler;
}

std::optional<std::string> Intercepts::take_paused(const std::string& request_id) {
  std::lock_guard lock(m_mutex);
  auto it = m_paused.find(request_id);
  if (it == m_paused.end()) return std::nullopt;
  std::string tab = std::move(it->second);
  m_paused.erase(it);
  return tab;
}

}  // namespace ouro::host
