// Memory by meaning (memory/embeddings.h), on both engines, against a stand-in embeddings model
// on loopback: a paraphrase that shares no word is found; without a model, or with one that
// fails or answers nonsense, recall ranks by words and says why; keys replace and merge.
#include "memory/embeddings.h"
#include "base/clock.h"
#include "memory/memory.h"

#include "embeddings_server.h"
#include "postgres_server.h"
#include "raw_server.h"
#include "store/database.h"
#include "store/sql.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace ouro::memory {
namespace {

Embeddings standin(const testing::EmbeddingsServer& server, std::function<std::string(std::string)> scrub = {}) {
  EmbeddingsSettings s;
  s.provider = server.base_url();
  s.base_url = server.base_url();
  s.model = "concepts-64";
  Embeddings e;
  e.embedder = http_embedder(s, std::move(scrub));
  return e;
}

class ByMeaning : public ::testing::TestWithParam<store::Engine> {
 protected:
  void SetUp() override {
    if (auto why = testing::engine_unavailable(GetParam()); !why.empty()) GTEST_SKIP() << why;
    target = testing::fresh_database(GetParam()).value();
    db = std::move(store::Database::open(target).value());
    // Other things remembered, so a match is a choice among several.
    Memory plain(*db);
    for (const char* t : {"The dentist on Main Street opens at 9", "Window seats on the morning train", "Pay the electricity invoice by Friday",
                          "The staging server runs Debian 12"})
      ASSERT_TRUE(plain.remember(t));
  }
  std::string target;
  std::unique_ptr<store::Database> db;
};

TEST_P(ByMeaning, FindsAParaphraseThatSharesNoWord) {
  testing::EmbeddingsServer server;
  Embeddings e = standin(server);
  Memory m(*db, &e);
  auto id = m.remember("Mother's birthday is on 12 March");
  ASSERT_TRUE(id) << id.error().message;
  auto found = m.recall("when was mom born", 3);
  ASSERT_TRUE(found) << found.error().message;
  EXPECT_EQ(found->ranking, "hybrid");
  EXPECT_NE(found->note.find("concepts-64"), std::string::npos) << found->note;
  ASSERT_FALSE(found->empty());
  EXPECT_EQ((*found)[0].id, *id);
  ASSERT_TRUE((*found)[0].similarity.has_value());
  EXPECT_GT(*(*found)[0].similarity, 0.5);
  // Nothing unrelated rides along: the dentist, the train, the invoice and the server are far.
  EXPECT_EQ(found->size(), 1u);
  // Old entries got their vectors on the way (backfill), so they are found by meaning too.
  auto car = m.recall("affordable dental clinic", 3);
  ASSERT_TRUE(car);
  ASSERT_FALSE(car->empty());
  EXPECT_NE((*car)[0].text.find("dentist"), std::string::npos);
  // Words still count: an exact word finds its entry in the same fused list.
  auto debian = m.recall("Debian", 3);
  ASSERT_TRUE(debian);
  ASSERT_FALSE(debian->empty());
  EXPECT_NE((*debian)[0].text.find("Debian"), std::string::npos);
}

TEST_P(ByMeaning, WithoutAModelItRanksByWordsAndSaysSo) {
  Embeddings none;  // nothing configured
  Memory m(*db, &none);
  ASSERT_TRUE(m.remember("Mother's birthday is on 12 March"));
  auto found = m.recall("when was mom born", 3);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->ranking, "bm25");
  EXPECT_NE(found->note.find("no embeddings provider is configured"), std::string::npos) << found->note;
  EXPECT_TRUE(found->empty()) << "no word is shared";
  auto by_word = m.recall("birthday", 3);
  ASSERT_TRUE(by_word);
  EXPECT_EQ(by_word->size(), 1u);
  EXPECT_EQ(Memory(*db).recall("birthday", 3)->ranking, "bm25");
}

TEST_P(ByMeaning, AModelThatIsDownDoesNotStopMemoryAndIsCaughtUpLater) {
  ManualClock clock(wall_ms());
  testing::EmbeddingsServer server;
  Embeddings e = standin(server);
  Memory m(*db, &e);
  server.fail_with(503);
  auto id = m.remember("Mother's birthday is on 12 March");
  ASSERT_TRUE(id) << "stored without its vector: " << id.error().message;
  auto down = m.recall("when was mom born", 3);
  ASSERT_TRUE(down);
  EXPECT_EQ(down->ranking, "bm25");
  EXPECT_NE(down->note.find("503"), std::string::npos) << down->note;
  server.fail_with(0);
  // For 30 s a failed endpoint is not asked again (no recall waits on it); then it is.
  const size_t asked = server.inputs().size();
  EXPECT_FALSE(m.backfill());
  EXPECT_EQ(server.inputs().size(), asked);
  clock.advance(31000);
  auto filled = m.backfill();
  ASSERT_TRUE(filled) << filled.error().message;
  EXPECT_EQ(*filled, 5) << "the entry written while it was down, and the four from before";
  EXPECT_EQ(*m.backfill(), 0) << "nothing left to give a vector";
  auto up = m.recall("when was mom born", 3);
  ASSERT_TRUE(up);
  EXPECT_EQ(up->ranking, "hybrid");
  ASSERT_FALSE(up->empty());
  EXPECT_EQ((*up)[0].id, *id);
}

TEST_P(ByMeaning, ATextTheModelRefusesDoesNotStallTheOthers) {
  testing::EmbeddingsServer server;
  Embeddings e = standin(server);
  Memory m(*db, &e);
  server.refuse_containing("unembeddable");
  auto odd = m.remember("An unembeddable note");
  ASSERT_TRUE(odd) << "stored without its vector";
  auto filled = m.backfill();
  ASSERT_TRUE(filled) << filled.error().message;
  EXPECT_EQ(*filled, 5) << "the four from before got theirs; the refused one is marked, not retried";
  EXPECT_EQ(*m.backfill(), 0);
  auto found = m.recall("affordable dental clinic", 3);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->ranking, "hybrid");
  ASSERT_FALSE(found->empty());
  EXPECT_NE((*found)[0].text.find("dentist"), std::string::npos);
  EXPECT_EQ(m.recall("unembeddable", 3)->size(), 1u) << "still found by its words";
}

TEST_P(ByMeaning, AnEndpointAnsweringNonsenseIsAnErrorNotACrash) {
  testing::RawServer raw;
  auto answer = [](const std::string& body) {
    return testing::Step::write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
                                "\r\nConnection: close\r\n\r\n" + body);
  };
  for (const std::string& body : {std::string("not json"), std::string("{\"data\": []}"), std::string("{\"data\": [{\"embedding\": [1, \"x\"]}]}"),
                                  std::string("{\"data\": [{\"embedding\": []}]}"), std::string("{\"data\": [{\"index\": 7, \"embedding\": [1]}]}"),
                                  "{\"data\": [{\"embedding\": [" + std::string(20000 * 2 - 1, ',').replace(0, 1, "1") + "]}]}",
                                  std::string("{\"data\": [{\"embedding\": [1e300, 1]}]}")})
    raw.push({answer(body)});
  EmbeddingsSettings s;
  s.provider = s.base_url = raw.url() + "/v1";
  s.model = "broken";
  Embeddings e;
  e.embedder = http_embedder(s);
  for (int i = 0; i < 7; ++i) {
    auto v = e.embedder->embed({"hello"});
    EXPECT_FALSE(v) << "answer " << i;
  }
}

TEST_P(ByMeaning, AKeyReplacesItsEntryAndDuplicatesAreMergedAtStart) {
  testing::EmbeddingsServer server;
  Embeddings e = standin(server);
  Memory m(*db, &e);
  RememberOptions keyed;
  keyed.key = "seat-preference";
  auto first = m.remember_entry("Prefers aisle seats", keyed);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_FALSE(first->before);
  auto second = m.remember_entry("Prefers window seats", keyed);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->entry.id, first->entry.id) << "the newer wins, in the same entry";
  ASSERT_TRUE(second->before);
  EXPECT_EQ(second->before->text, "Prefers aisle seats");
  EXPECT_EQ(m.by_key("seat-preference")->value().text, "Prefers window seats");
  auto found = m.recall("favourite seating", 5);
  ASSERT_TRUE(found);
  ASSERT_FALSE(found->empty());
  EXPECT_EQ((*found)[0].text, "Prefers window seats") << "its vector is the new text's";
  // Two nodes writing one key at once may both insert it; the next start keeps the newer.
  ASSERT_TRUE(db->with_sql([&](store::Connection& c) -> Result<void> {
    TRY(c.exec("INSERT INTO memories(text, tags, kind, created_at, updated_at, key) VALUES ('Prefers no seat', '[]', 'user', 1, 1, 'seat-preference')"));
    return {};
  }));
  auto again = store::Database::open(target);
  ASSERT_TRUE(again);
  Memory fresh(**again);
  auto listed = fresh.list(100);
  ASSERT_TRUE(listed);
  EXPECT_EQ(std::count_if(listed->begin(), listed->end(), [](const Entry& x) { return x.key == "seat-preference"; }), 1);
  EXPECT_EQ(fresh.by_key("seat-preference")->value().text, "Prefers window seats");
}

TEST_P(ByMeaning, WhatGoesToTheModelIsScrubbed) {
  testing::EmbeddingsServer server;
  Embeddings e = standin(server, [](std::string t) {
    for (size_t at; (at = t.find("hunter2")) != std::string::npos;) t.replace(at, 7, "[SECRET:pw]");
    return t;
  });
  Memory m(*db, &e);
  ASSERT_TRUE(m.remember("The staging login is admin / hunter2"));
  ASSERT_TRUE(m.recall("what is the password hunter2 for", 3));
  ASSERT_FALSE(server.inputs().empty());
  for (const auto& in : server.inputs()) EXPECT_EQ(in.find("hunter2"), std::string::npos) << in;
}

TEST(EmbeddingsSettings, ConfiguredLikeModels) {
  auto none = resolve_embeddings(json::object(), "");
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
  auto local = resolve_embeddings(json{{"embeddings", {{"provider", "ollama"}, {"model", "nomic-embed-text"}}}}, "");
  ASSERT_TRUE(local && *local);
  EXPECT_EQ((*local)->base_url, "http://127.0.0.1:11434/v1");
  auto url = resolve_embeddings(json{{"embeddings", {{"provider", "http://127.0.0.1:9/v1"}, {"model", "m"}}}}, "");
  ASSERT_TRUE(url && *url);
  EXPECT_EQ((*url)->base_url, "http://127.0.0.1:9/v1");
  auto wrong = resolve_embeddings(json{{"embeddings", {{"provider", "anthropic"}, {"model", "m"}}}}, "");
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.error().message.find("does not serve"), std::string::npos);
  EXPECT_FALSE(resolve_embeddings(json{{"embeddings", "openai"}}, ""));
  EXPECT_FALSE(resolve_embeddings(json{{"embeddings", {{"provider", "openai"}}}}, "")) << "a model is needed";
}

TEST(Vectors, BlobsRoundTripAndRejectDamage) {
  Vector v = {0.5f, -1.25f, 3.0f};
  auto back = from_blob(to_blob(v));
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, v);
  EXPECT_FALSE(from_blob("abc"));
  EXPECT_FALSE(from_blob(""));
  std::string nan = to_blob({0.0f});
  nan[3] = '\x7f', nan[2] = '\xc0';
  EXPECT_FALSE(from_blob(nan));
  EXPECT_DOUBLE_EQ(cosine({1, 0}, {1, 0}), 1.0);
  EXPECT_DOUBLE_EQ(cosine({1, 0}, {0, 1}), 0.0);
  EXPECT_DOUBLE_EQ(cosine({1, 0}, {1, 0, 0}), 0.0);
  EXPECT_DOUBLE_EQ(cosine({0, 0}, {1, 0}), 0.0);
}

INSTANTIATE_TEST_SUITE_P(Engines, ByMeaning, ::testing::Values(store::Engine::Sqlite, store::Engine::Postgres), testing::engine_test_name);

}  // namespace
}  // namespace ouro::memory
