// Ids and tokens: the shape each caller relies on, and no repeats.
#include "base/random.h"

#include <gtest/gtest.h>

#include <set>

namespace ouro {
namespace {

TEST(Random, IdsHaveThePrefixAndLengthInBase36) {
  std::set<std::string> seen;
  for (int i = 0; i < 2000; ++i) {
    std::string id = random_id("r", 10);
    ASSERT_EQ(id.size(), 11u);
    EXPECT_EQ(id[0], 'r');
    EXPECT_EQ(id.find_first_not_of("0123456789abcdefghijklmnopqrstuvwxyz", 1), std::string::npos) << id;
    EXPECT_TRUE(seen.insert(id).second) << "repeated " << id;
  }
  EXPECT_EQ(random_id("", 0), "");
}

TEST(Random, EveryDigitTurnsUp) {
  std::string all;
  for (int i = 0; i < 200; ++i) all += random_id("", 36);
  for (char c : std::string_view("0123456789abcdefghijklmnopqrstuvwxyz")) EXPECT_NE(all.find(c), std::string::npos) << c;
}

TEST(Random, HexTokensAndBytes) {
  std::string t = random_hex(20);
  EXPECT_EQ(t.size(), 40u);
  EXPECT_EQ(t.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_NE(random_hex(16), random_hex(16));
  EXPECT_EQ(random_bytes(1000).size(), 1000u);
}

}  // namespace
}  // namespace ouro
