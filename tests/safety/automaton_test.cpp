// The many-pattern matcher under secret redaction (safety/automaton.h): at each byte of a text it
// names the longest pattern that ends there, with its tag — whatever the bytes, and the same
// answer as looking for every pattern one by one.
#include "safety/automaton.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace ouro::safety {
namespace {

using Hits = std::vector<std::pair<uint32_t, uint32_t>>;  // (length, tag) at each byte; (0, 0): none

Hits scan(const Automaton& a, std::string_view text) {
  Hits out;
  int32_t state = Automaton::kStart;
  for (unsigned char c : text) {
    state = a.step(state, c);
    uint32_t len = a.match_len(state);
    out.emplace_back(len, len ? a.match_tag(state) : 0);
  }
  return out;
}

Automaton built(const std::vector<std::pair<std::string, uint32_t>>& patterns) {
  Automaton a;
  for (const auto& [p, tag] : patterns) a.add(p, tag);
  a.finish();
  return a;
}

TEST(Automaton, WithoutPatternsNothingMatchesAndAnEmptyPatternIsNoPattern) {
  Automaton none = built({});
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.longest(), 0u);
  EXPECT_EQ(scan(none, std::string("any\0thing\xff", 10)), Hits(10, {0, 0}));
  Automaton blank = built({{"", 7}});
  EXPECT_TRUE(blank.empty());
  EXPECT_EQ(scan(blank, "abc"), Hits(3, {0, 0}));
}

// The example of Aho and Corasick's paper: he, she, his, hers in "ushers".
TEST(Automaton, TheLongestPatternEndingAtEachByteIsNamed) {
  Automaton a = built({{"he", 1}, {"she", 2}, {"his", 3}, {"hers", 4}});
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a.longest(), 4u);
  EXPECT_EQ(scan(a, "ushers"), (Hits{{0, 0}, {0, 0}, {0, 0}, {3, 2}, {0, 0}, {4, 4}})) << "she (and he inside it), then hers";
  EXPECT_EQ(scan(a, "hishe"), (Hits{{0, 0}, {0, 0}, {3, 3}, {0, 0}, {3, 2}}));
}

TEST(Automaton, APatternInsideAPartlyMatchedLongerOneIsStillFound) {
  // "abc" is on the way to "abcd" and no pattern itself: its suffix "bc" is.
  Automaton a = built({{"abcd", 1}, {"bc", 2}});
  EXPECT_EQ(scan(a, "abce"), (Hits{{0, 0}, {0, 0}, {2, 2}, {0, 0}}));
  EXPECT_EQ(scan(a, "abcd"), (Hits{{0, 0}, {0, 0}, {2, 2}, {4, 1}}));
  // Nested runs of one letter: the longest that fits, at every byte.
  Automaton runs = built({{"a", 1}, {"aa", 2}, {"aaa", 3}});
  EXPECT_EQ(scan(runs, "aaaab"), (Hits{{1, 1}, {2, 2}, {3, 3}, {3, 3}, {0, 0}}));
}

TEST(Automaton, BytesAreMatchedExactlyWhateverTheyAre) {
  Automaton a = built({{"Secret", 1}, {"\xD0\xBF\xD0\xB0\xD1\x80\xD0\xBE\xD0\xBB\xD1\x8C", 2} /* пароль */, {std::string("a\0b\xff", 4), 3},
                       {"\xC3\xA9", 4} /* é */});
  EXPECT_EQ(scan(a, "secret SECRET"), Hits(13, {0, 0})) << "no case folding here: the caller folds";
  std::string russian = "my \xD0\xBF\xD0\xB0\xD1\x80\xD0\xBE\xD0\xBB\xD1\x8C!";
  Hits hits = scan(a, russian);
  EXPECT_EQ(hits[russian.size() - 2], (std::pair<uint32_t, uint32_t>{12, 2}));
  EXPECT_EQ(std::count_if(hits.begin(), hits.end(), [](const auto& h) { return h.first > 0; }), 1);
  EXPECT_EQ(scan(a, std::string("xa\0b\xff", 5)).back(), (std::pair<uint32_t, uint32_t>{4, 3})) << "a NUL byte and 0xFF";
  // è then é: the first byte of both, only the second is the pattern.
  EXPECT_EQ(scan(a, "\xC3\xA8\xC3\xA9"), (Hits{{0, 0}, {0, 0}, {0, 0}, {2, 4}}));
}

// Over a small alphabet patterns overlap, nest and share prefixes and suffixes everywhere.
TEST(Automaton, EveryMatchIsTheOneALookAtEachPatternWouldFind) {
  std::mt19937 rng(20240611);
  const std::string alphabet = std::string("ab\0\xff", 4);
  auto random_text = [&](size_t n) {
    std::string s;
    for (size_t i = 0; i < n; ++i) s += alphabet[rng() % alphabet.size()];
    return s;
  };
  std::map<std::string, uint32_t> patterns;  // each once: a pattern has one tag
  while (patterns.size() < 150) patterns.emplace(random_text(1 + rng() % 9), static_cast<uint32_t>(patterns.size() + 1));
  Automaton a;
  size_t longest = 0;
  for (const auto& [p, tag] : patterns) {
    a.add(p, tag);
    longest = std::max(longest, p.size());
  }
  a.finish();
  EXPECT_EQ(a.longest(), longest);
  std::string text = random_text(5000);
  Hits expected;
  for (size_t end = 1; end <= text.size(); ++end) {
    std::pair<uint32_t, uint32_t> best{0, 0};
    for (size_t len = std::min(end, longest); len > 0 && !best.first; --len)
      if (auto it = patterns.find(text.substr(end - len, len)); it != patterns.end()) best = {static_cast<uint32_t>(len), it->second};
    expected.push_back(best);
  }
  EXPECT_EQ(scan(a, text), expected);
}

TEST(Automaton, OneFinishedAutomatonAnswersEveryThreadAlike) {
  Automaton a = built({{"token", 1}, {"ken", 2}, {"hunter2", 3}});
  std::string text;
  for (int i = 0; i < 2000; ++i) text += i % 3 ? "a token; " : "hunter2 ";
  Hits alone = scan(a, text);
  std::vector<Hits> seen(4);
  std::vector<std::thread> threads;
  for (auto& s : seen) threads.emplace_back([&a, &text, &s] { s = scan(a, text); });
  for (auto& t : threads) t.join();
  for (const auto& s : seen) EXPECT_EQ(s, alone);
}

}  // namespace
}  // namespace ouro::safety
