// GET /api/memory and DELETE /api/memory/{id} (server/memories.h), on a real SQLite database: a
// parameter of the wrong shape is refused naming it and its range, a tag filters a search and only
// a search, the list pages, and what the API shows is masked for the secrets runs were given.
#include "server/memories.h"
#include "../support/scoped_temp_dir.h"

#include "memory/memory.h"
#include "safety/known_secrets.h"
#include "store/database.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace ouro::server {
namespace {

using testing::ScopedTempDir;

struct MemoriesApi : ::testing::Test {
  ScopedTempDir tmp;
  std::unique_ptr<store::Database> db;
  void SetUp() override {
    auto opened = store::Database::open(tmp.path + "/ouro.db");
    ASSERT_TRUE(opened) << opened.error().message;
    db = std::move(*opened);
  }
  int64_t remember(const std::string& text, std::vector<std::string> tags = {}) {
    memory::Memory m(*db);
    memory::RememberOptions o;
    o.tags = std::move(tags);
    auto id = m.remember(text, o);
    EXPECT_TRUE(id) << id.error().message;
    return id ? *id : 0;
  }
};

TEST_F(MemoriesApi, AParameterOfTheWrongShapeIsRefusedNamingItsRange) {
  remember("the invoice portal is billing.example");
  for (const char* q : {"limit=0", "limit=1001", "limit=ten", "limit=", "limit=5x", "limit=-1", "offset=-1", "offset=1e3", "q=invoice&limit=51",
                        "q=invoice&limit=0"}) {
    auto r = memory_get(*db, q, "");
    ASSERT_FALSE(r) << q;
    EXPECT_EQ(r.error().code, Code::InvalidArgument) << q;
    EXPECT_NE(r.error().message.find(std::string(q).find("offset") != std::string::npos ? "offset" : "limit"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find(" to "), std::string::npos) << "names the range: " << r.error().message;
  }
}

TEST_F(MemoriesApi, ATagFiltersASearchAndOnlyASearch) {
  remember("the rent is paid on the first", {"home"});
  remember("the rent of the office is invoiced", {"work"});
  auto refused = memory_get(*db, "tag=home", "");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, Code::InvalidArgument);
  EXPECT_NE(refused.error().message.find("q="), std::string::npos) << refused.error().message;
  auto found = memory_get(*db, "q=rent&tag=work", "");
  ASSERT_TRUE(found) << found.error().message;
  ASSERT_EQ((*found)["entries"].size(), 1u) << found->dump();
  EXPECT_EQ((*found)["entries"][0]["text"], "the rent of the office is invoiced");
  EXPECT_EQ((*found)["query"], "rent");
  EXPECT_EQ((*found)["total"], 2);
}

TEST_F(MemoriesApi, TheListPagesMostRecentFirst) {
  for (int i = 0; i < 5; ++i) remember("note number " + std::to_string(i));
  auto first = memory_get(*db, "limit=2", "");
  auto second = memory_get(*db, "limit=2&offset=2", "");
  auto rest = memory_get(*db, "limit=2&offset=4", "");
  ASSERT_TRUE(first && second && rest);
  EXPECT_EQ((*first)["total"], 5);
  std::set<std::string> seen;
  for (const auto* page : {&*first, &*second, &*rest})
    for (const auto& e : (*page)["entries"]) seen.insert(e["text"].get<std::string>());
  EXPECT_EQ(seen.size(), 5u);
  EXPECT_EQ((*rest)["entries"].size(), 1u);
  EXPECT_EQ(memory_get(*db, "offset=100", "")->at("entries").size(), 0u);
}

TEST_F(MemoriesApi, WhatTheApiShowsIsMaskedForEveryRunsSecrets) {
  const std::string secret = "hunter2-correct-horse";
  remember("the staging password is " + secret, {"creds"});
  auto known = safety::KnownSecrets::open(tmp.path + "/secret-digests");
  ASSERT_TRUE(known) << known.error().message;
  ASSERT_TRUE((*known)->record("STAGING", secret));
  for (const char* q : {"", "q=staging+password"}) {
    auto shown = memory_get(*db, q, tmp.path);
    ASSERT_TRUE(shown) << shown.error().message;
    ASSERT_EQ((*shown)["entries"].size(), 1u) << q;
    EXPECT_EQ(shown->dump().find(secret), std::string::npos) << shown->dump();
    EXPECT_NE((*shown)["entries"][0]["text"].get<std::string>().find("the staging password is"), std::string::npos);
  }
}

TEST_F(MemoriesApi, DeletingTakesAWholeNumberAndSaysWhenThereIsNothing) {
  int64_t id = remember("a note to forget");
  for (const char* bad : {"", "abc", "-1", "0", "1.5", "99999999999999999999999"}) {
    auto r = memory_delete(*db, bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, Code::InvalidArgument) << bad;
  }
  auto gone = memory_delete(*db, std::to_string(id));
  ASSERT_TRUE(gone) << gone.error().message;
  EXPECT_EQ((*gone)["deleted"], id);
  auto again = memory_delete(*db, std::to_string(id));
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, Code::NotFound);
  EXPECT_EQ(memory_get(*db, "", "")->at("total"), 0);
}

}  // namespace
}  // namespace ouro::server
