// The action cache's store and its rules, without a browser: what is kept (words, never
// positions), per site, bounded, and rows that do not read are skipped rather than trusted.
#include "actions/action_cache.h"
#include "commands/language.h"
#include "host/context.h"
#include "store/database.h"
#include "store/statement.h"

#include <gtest/gtest.h>

namespace ouro::actions {
namespace {

std::unique_ptr<store::Database> open_db() {
  auto db = store::Database::open(":memory:");
  EXPECT_TRUE(db) << db.error().message;
  return std::move(*db);
}

commands::Target words(const std::string& name, std::vector<std::string> roles = {}) {
  commands::Target t;
  t.kind = commands::Target::Kind::Words;
  t.text = name;
  t.name = name;
  t.roles = std::move(roles);
  return t;
}

TEST(ActionCache, KeepsWordsNeverPositionsRefsOrSelectors) {
  EXPECT_EQ(action_cache_key("click", words("Sign  In", {"button"})), "click|~sign in|button");
  EXPECT_EQ(action_cache_key("click", words("sign in", {"button"})), action_cache_key("click", words("  Sign In ", {"button"})));
  EXPECT_NE(action_cache_key("type", words("Email")), action_cache_key("click", words("Email")));
  auto t = words("Delete");
  t.ordinal = 2;
  EXPECT_EQ(action_cache_key("click", t), "") << "the 2nd Delete is another element on another page";
  t = words("Delete");
  t.near = "Bob";
  EXPECT_EQ(action_cache_key("click", t), "");
  t = words("Delete");
  t.within = "dialog";
  EXPECT_EQ(action_cache_key("click", t), "");
  t = words("box");
  t.all = true;
  EXPECT_EQ(action_cache_key("check", t), "");
  commands::Target ref;
  ref.kind = commands::Target::Kind::Ref;
  ref.text = "e12";
  EXPECT_EQ(action_cache_key("click", ref), "");
  EXPECT_EQ(action_cache_key("click", words(std::string(300, 'a'))), "") << "no unbounded keys";
}

TEST(ActionCache, SitesAreOriginsOfWebPagesOnly) {
  EXPECT_EQ(action_cache_site("https://Shop.Example.com/a/b?q=1#x"), "https://shop.example.com");
  EXPECT_EQ(action_cache_site("http://127.0.0.1:8080/p"), "http://127.0.0.1:8080");
  EXPECT_EQ(action_cache_site("about:blank"), "");
  EXPECT_EQ(action_cache_site("data:text/html,<b>x</b>"), "");
  EXPECT_EQ(action_cache_site("file:///etc/passwd"), "");
  EXPECT_EQ(action_cache_site("not a url"), "");
  EXPECT_EQ(action_cache_site(""), "");
}

TEST(ActionCache, KeepsFindsReplacesAndDropsPerSiteAndShape) {
  auto db = open_db();
  ActionCache cache(*db);
  ASSERT_TRUE(cache.put("https://a.test", "click|~sign in", {"s1", "role=button[name=\"Sign in\"]", "button", "Sign in", 0.9}));
  ASSERT_TRUE(cache.put("https://a.test", "click|~sign in", {"s2", "#login", "button", "Sign in", 0.8}));
  auto got = cache.lookup("https://a.test", "click|~sign in");
  ASSERT_TRUE(got);
  ASSERT_EQ(got->size(), 2u);
  EXPECT_TRUE(cache.lookup("https://b.test", "click|~sign in")->empty()) << "another site keeps its own";
  // Kept again on the same shape: replaced, not doubled.
  ASSERT_TRUE(cache.put("https://a.test", "click|~sign in", {"s1", "role=button[name=\"Log in\"]", "button", "Log in", 0.7}));
  got = cache.lookup("https://a.test", "click|~sign in");
  ASSERT_EQ(got->size(), 2u);
  EXPECT_EQ((*got)[0].shape, "s1") << "most recently used first";
  EXPECT_EQ((*got)[0].name, "Log in");
  ASSERT_TRUE(cache.drop("https://a.test", "click|~sign in", "s1"));
  got = cache.lookup("https://a.test", "click|~sign in");
  ASSERT_EQ(got->size(), 1u);
  EXPECT_EQ((*got)[0].shape, "s2");
  EXPECT_EQ(*cache.size(), 1);
}

TEST(ActionCache, IsBoundedAndSkipsRowsThatDoNotRead) {
  auto db = open_db();
  ActionCache cache(*db);
  for (int i = 0; i < ActionCache::kMaxEntries + 50; ++i)
    ASSERT_TRUE(cache.put("https://a.test", "click|~k" + std::to_string(i), {"s", "#x", "button", "X", 0.9}));
  EXPECT_EQ(*cache.size(), ActionCache::kMaxEntries);
  EXPECT_TRUE(cache.lookup("https://a.test", "click|~k0")->empty()) << "the least recently used went first";
  EXPECT_EQ(cache.lookup("https://a.test", "click|~k" + std::to_string(ActionCache::kMaxEntries + 49))->size(), 1u);
  // A damaged row (another program wrote it, a disk error): skipped, never a crash or a guess.
  auto damaged = db->with_connection([](sqlite3* c) -> Result<void> {
    return store::exec(c, "INSERT INTO action_cache (site, key, shape, entry, used) VALUES ('https://a.test', 'click|~bad', 's', '{not json', 1e15),"
                          " ('https://a.test', 'click|~bad', 't', '[1,2]', 1e15), ('https://a.test', 'click|~bad', 'u', '{\"selector\":\"\"}', 1e15)",
                       "insert damaged rows");
  });
  ASSERT_TRUE(damaged) << damaged.error().message;
  auto got = cache.lookup("https://a.test", "click|~bad");
  ASSERT_TRUE(got);
  EXPECT_TRUE(got->empty());
  // Nothing is kept for a page without a site, or without a selector.
  ASSERT_TRUE(cache.put("", "click|~x", {"s", "#x", "button", "X", 0.9}));
  ASSERT_TRUE(cache.put("https://a.test", "click|~y", {"s", "", "button", "X", 0.9}));
  EXPECT_TRUE(cache.lookup("", "click|~x")->empty());
  EXPECT_TRUE(cache.lookup("https://a.test", "click|~y")->empty());
}

TEST(ActionCache, HitRateIsReportedOnlyOnceThereWereLookups) {
  host::ActionCacheStats s;
  EXPECT_TRUE(s.to_json()["hitRate"].is_null());
  ++s.hits;
  ++s.hits;
  ++s.hits;
  ++s.misses;
  EXPECT_EQ(s.to_json()["hits"], 3);
  EXPECT_DOUBLE_EQ(s.to_json()["hitRate"].get<double>(), 0.75);
}

}  // namespace
}  // namespace ouro::actions
