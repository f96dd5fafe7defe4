// An Aho-Corasick automaton over bytes (Aho & Corasick, "Efficient string matching", CACM 1975):
// many patterns found in one pass over a text, in time linear in the text whatever their number.
// Each state knows the longest pattern that ends there (itself or a suffix of it), with its tag.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace ouro::safety {

class Automaton {
 public:
  // Adds a pattern (not empty) with a tag the caller reads back from match_tag. Before finish().
  void add(std::string_view pattern, uint32_t tag);
  // Links the failure states; call once, after the last add. The automaton is then read-only and
  // safe to share between threads.
  void finish();
  bool empty() const { return m_longest == 0; }
  size_t longest() const { return m_longest; }  // bytes of the longest pattern

  static constexpr int32_t kStart = 0;
  int32_t step(int32_t state, unsigned char c) const;
  // The longest pattern that ends in `state`: its length (0: none) and its tag.
  uint32_t match_len(int32_t state) const { return m_states[state].best_len; }
  uint32_t match_tag(int32_t state) const { return m_states[state].best_tag; }

 private:
  struct State {
    std::vector<std::pair<unsigned char, int32_t>> next;  // sorted by byte
    int32_t fail = 0;
    uint32_t best_len = 0;
    uint32_t best_tag = 0;
  };
  int32_t child(int32_t state, unsigned char c) const;
  std::vector<State> m_states{State{}};  // [0]: the root
  std::vector<int32_t> m_root;           // the root's transitions, all 256 bytes
  size_t m_longest = 0;
};

}  // namespace ouro::safety
