// What a session's capabilities count of the action cache (host/context.h), as a run's usage shows
// it; and interceptRequests' registrations and paused requests (Intercepts), each decided once.
#include "host/context.h"

#include <gtest/gtest.h>

#include <atomic>
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

bool contains(const std::string& url, const std::string& pattern) { return url.find(pattern) != std::string::npos; }

TEST(Intercepts, APausedRequestGoesToTheLastMatchingHandlerAndIsTakenOnce) {
  Intercepts in;
  in.add_modifier("t1", "/api/", "i1");
  in.add_modifier("t1", "/api/items", "i2");
  in.add_modifier("t2", "/api/", "i3");
  auto url = std::string("https://shop.test/api/items?page=2");
  EXPECT_EQ(in.pause("t1", "r1", [&](const std::string& p) { return contains(url, p); }), "i2") << "patterns in order; the last that matches";
  EXPECT_EQ(in.pause("t1", "r2", [&](const std::string& p) { return contains("https://shop.test/img.png", p); }), "") << "no handler: not held";
  EXPECT_EQ(in.take_paused("r2"), std::nullopt);
  EXPECT_EQ(in.take_paused("r1"), "t1");
  EXPECT_EQ(in.take_paused("r1"), std::nullopt) << "a decision after the timeout let it through finds nothing";
  EXPECT_EQ(in.pause("t9", "r3", [](const std::string&) { return true; }), "") << "a tab without registrations";
}

TEST(Intercepts, RemovingARegistrationReturnsWhatItHeldAndTheBrowserPatternsFollow) {
  Intercepts in;
  in.add_observer("t1", "*.js", 4);
  in.add_observer("t1", "*.js", 5);
  in.add_modifier("t1", "/api/", "i1");
  in.add_modifier("t1", "/pay", "i2");
  EXPECT_EQ(in.modifying_patterns("t1"), (std::vector<std::string>{"/api/", "/pay"}));
  auto observers = in.remove("t1", "*.js");
  EXPECT_EQ(observers.observers, (std::vector<int>{4, 5}));
  EXPECT_FALSE(observers.modifying);
  auto api = in.remove("t1", "/api/");
  EXPECT_TRUE(api.observers.empty());
  EXPECT_TRUE(api.modifying);
  EXPECT_EQ(in.modifying_patterns("t1"), (std::vector<std::string>{"/pay"}));
  EXPECT_FALSE(in.remove("t1", "/api/").modifying) << "removed twice: nothing the second time";
  EXPECT_TRUE(in.modifying_patterns("t2").empty());
}

TEST(Intercepts, ARequestDecidedFromTwoThreadsAtOnceIsDecidedOnce) {
  // The handler's decision and the decision timeout race for each paused request: one wins.
  Intercepts in;
  in.add_modifier("t1", "/", "i1");
  constexpr int kRequests = 2000;
  for (int i = 0; i < kRequests; ++i) ASSERT_EQ(in.pause("t1", "r" + std::to_string(i), [](const std::string&) { return true; }), "i1");
  std::atomic<int> taken{0};
  auto decide = [&] {
    for (int i = 0; i < kRequests; ++i)
      if (in.take_paused("r" + std::to_string(i))) ++taken;
  };
  std::thread a(decide), b(decide);
  a.join();
  b.join();
  EXPECT_EQ(taken.load(), kRequests);
}

}  // namespace
}  // namespace ouro::host
