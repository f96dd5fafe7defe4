#include "safety/automaton.h"

#include <algorithm>
#include <deque>

namespace ouro::safety {

int32_t Automaton::child(int32_t s, unsigned char c) const {
  const auto& next = m_states[s].next;
  auto it = std::lower_bound(next.begin(), next.end(), c, [](const auto& p, unsigned char b) { return p.first < b; });
  return it != next.end() && it->first == c ? it->second : -1;
}

void Automaton::add(std::string_view pattern, uint32_t tag) {
  if (pattern.empty()) return;
  int32_t s = 0;
  for (unsigned char c : pattern) {
    int32_t n = child(s, c);
    if (n < 0) {
      n = static_cast<int32_t>(m_states.size());
      m_states.emplace_back();
      auto& next = m_states[s].next;
      auto it = std::lower_bound(next.begin(), next.end(), c, [](const auto& p, unsigned char b) { return p.first < b; });
      next.insert(it, {c, n});
    }
    s = n;
  }
  if (pattern.size() > m_states[s].best_len) m_states[s].best_len = static_cast<uint32_t>(pattern.size()), m_states[s].best_tag = tag;
  m_longest = std::max(m_longest, pattern.size());
}

// Failure links breadth first (algorithm 3 of the paper); a state's best match is its own
// pattern or, failing that, the best of its failure state (a suffix of it).
void Automaton::finish() {
  m_root.assign(256, 0);
  for (const auto& [c, n] : m_states[0].next) m_root[c] = n;
  std::deque<int32_t> queue;
  for (const auto& [c, n] : m_states[0].next) queue.push_back(n);
  while (!queue.empty()) {
    int32_t s = queue.front();
    queue.pop_front();
    for (const auto& [c, n] : m_states[s].next) {
      int32_t target = step(m_states[s].fail, c);
      m_states[n].fail = target;
      if (!m_states[n].best_len) m_states[n].best_len = m_states[target].best_len, m_states[n].best_tag = m_states[target].best_tag;
      queue.push_back(n);
    }
  }
}

int32_t Automaton::step(int32_t s, unsigned char c) const {
  while (true) {
    if (s == 0) return m_root.empty() ? 0 : m_root[c];
    if (int32_t n = child(s, c); n >= 0) return n;
    s = m_states[s].fail;
  }
}

}  // namespace ouro::safety
