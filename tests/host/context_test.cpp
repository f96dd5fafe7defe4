// What a session's capabilities count of the action cache (host/context.h), as a run's usage shows it.
#include "host/context.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace ouro::host {
namespace {

TEST(ActionCacheStats, HitRateIsNullBeforeAnyLookupThenTheShare) {
  ActionCacheStats s;
  EXPECT_EQ(s.to_json(), (json{{"hits", 0}, {"misses", 0}, {"hitRate", nullptr}}));
  s.hits = 3;
  s.misses = 1;
  EXPECT_EQ(s.to_json()["hitRate"], 0.75);
}

TEST(ActionCacheStats, CountsFromManyThreadsAddUp) {
  ActionCacheStats s;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) (i % 2 ? s.hits : s.misses)++;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(s.to_json()["hits"], 40000);
  EXPECT_EQ(s.to_json()["misses"], 40000);
}

}  // namespace
}  // namespace ouro::host
