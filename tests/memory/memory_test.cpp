#include "memory/memory.h"

#include "postgres_server.h"
#include "store/database.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

namespace ouro::memory {
namespace {

std::unique_ptr<store::Database> open_sqlite_memory_db() {
  auto db = store::Database::open(":memory:");
  EXPECT_TRUE(db) << db.error().message;
  return std::move(*db);
}

// The tests that hold on both engines: a fresh in-memory SQLite database, or a fresh database on
// the test process's PostgreSQL cluster (skipped when PostgreSQL is not installed).
class MemoryOn : public ::testing::TestWithParam<store::Engine> {
 protected:
  void SetUp() override {
    if (auto why = testing::engine_unavailable(GetParam()); !why.empty()) GTEST_SKIP() << why;
  }
  std::unique_ptr<store::Database> open_memory_db() {
    if (GetParam() == store::Engine::Sqlite) return open_sqlite_memory_db();
    auto target = testing::fresh_database(GetParam());
    EXPECT_TRUE(target) << target.error().message;
    auto db = store::Database::open(target.value());
    EXPECT_TRUE(db) << db.error().message;
    return std::move(*db);
  }
  bool postgres() const { return GetParam() == store::Engine::Postgres; }
};

// A fresh directory of its own for a file database, removed at the end of the test.
struct TempDir {
  std::string path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ouro-memory-XXXXXX").string();
    path = mkdtemp(tmpl.data()) ? tmpl : "";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
};

// Options with every field given (GCC's -Wextra warns on designated initializers that leave some out).
RememberOptions opts(std::vector<std::string> tags, std::string source_run = "", Kind kind = Kind::User) {
  return RememberOptions{std::move(tags), std::move(source_run), kind};
}

int64_t must_remember(Memory& m, const std::string& text, RememberOptions options = {}) {
  auto id = m.remember(text, options);
  EXPECT_TRUE(id) << id.error().message;
  return id ? *id : -1;
}

template <class List>
std::vector<int64_t> ids(const List& entries) {
  std::vector<int64_t> out;
  for (const auto& e : entries) out.push_back(e.id);
  return out;
}

// Entries about other things, so the words tests look for are rare in the collection (BM25's
// inverse document frequency is then positive, as in a real memory of many entries).
void remember_fillers(Memory& m) {
  for (const char* text : {"The weather in Oslo was cold and rainy on Monday",
                           "GitHub login needs the two-factor code from the authenticator app",
                           "Invoices are downloaded from the billing page as PDF files",
                           "The user prefers dark mode and compact tables",
                           "Newsletter signup form has a hidden honeypot field",
                           "Train tickets from Berlin to Hamburg cost 30 EUR in advance"})
    must_remember(m, text);
}

TEST(DatabaseWithConnection, RunsTheCallbackWithTheHandleAndReturnsItsResult) {
  auto db = open_sqlite_memory_db();
  Result<int> r = db->with_connection([](sqlite3* handle) -> Result<int> {
    if (!handle) return errorf(Code::Internal, "no handle");
    return sqlite3_get_autocommit(handle);
  });
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r, 1);
  Result<void> failed = db->with_connection([](sqlite3*) -> Result<void> { return errorf(Code::NotFound, "nothing"); });
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code, Code::NotFound);
  // The lock is released after the callback: the database's own methods still work.
  EXPECT_TRUE(db->kv_set("k", "1"));
}

// One JSON shape for an entry on every face: times in milliseconds, an absent run as null.
TEST(Memory, AnEntryHasOneJsonShape) {
  Entry e;
  e.id = 7;
  e.text = "t";
  e.tags = {"a"};
  e.kind = Kind::Run;
  e.created_at = 1714564800.25;
  e.updated_at = 1714564801;
  e.score = 2.5;
  auto j = to_json(e, false);
  EXPECT_EQ(j.dump(), R"({"id":7,"text":"t","tags":["a"],"kind":"run","key":null,"source_run":null,"sources":[],"created_at":1714564800250,"updated_at":1714564801000})");
  e.source_run = "r1";
  e.key = "k";
  j = to_json(e, true);
  EXPECT_EQ(j["source_run"], "r1");
  EXPECT_EQ(j["key"], "k");
  EXPECT_EQ(j["score"], 2.5);
  EXPECT_TRUE(j["similarity"].is_null()) << "ranked by words only";
  // Undo keeps entries in this shape and reads them back the same.
  auto back = entry_from_json(json::parse(j.dump()));
  ASSERT_TRUE(back);
  EXPECT_EQ(to_json(*back, false).dump(), to_json(e, false).dump());
  EXPECT_FALSE(entry_from_json(json{{"text", "no id"}}));
}

TEST_P(MemoryOn, RecallRanksTheMoreSpecificEntryFirst) {
  auto db = open_memory_db();
  Memory m(*db);
  remember_fillers(m);
  int64_t paris = must_remember(m, "Flight to Paris booked on example-air for a meeting");
  int64_t lisbon = must_remember(m, "Cheapest flight to Lisbon: example-air, 120 EUR; Lisbon flights are cheapest on Tuesdays");
  auto found = m.recall("cheapest flight to Lisbon", 5);
  ASSERT_TRUE(found) << found.error().message;
  ASSERT_EQ(found->size(), 2u);
  EXPECT_EQ(ids(*found), (std::vector<int64_t>{lisbon, paris}));
  EXPECT_GT((*found)[0].score, (*found)[1].score);
  EXPECT_GT((*found)[1].score, 0);
  EXPECT_EQ((*found)[0].text, "Cheapest flight to Lisbon: example-air, 120 EUR; Lisbon flights are cheapest on Tuesdays");
}

TEST_P(MemoryOn, StemsEnglishWordsAndIgnoresDiacritics) {
  auto db = open_memory_db();
  Memory m(*db);
  remember_fillers(m);
  int64_t price = must_remember(m, "The price of oat milk at the corner shop is 2.10");
  int64_t cafe = must_remember(m, "The café on Rua Augusta opens at eight");
  auto prices = m.recall("prices", 5);
  ASSERT_TRUE(prices) << prices.error().message;
  EXPECT_EQ(ids(*prices), std::vector<int64_t>{price});
  auto opening = m.recall("cafe opening", 5);
  ASSERT_TRUE(opening) << opening.error().message;
  EXPECT_EQ(ids(*opening), std::vector<int64_t>{cafe});
}

TEST_P(MemoryOn, TagsAreSearchedAndFilter) {
  auto db = open_memory_db();
  Memory m(*db);
  remember_fillers(m);
  int64_t a = must_remember(m, "Use the coupon SPRING24 at checkout", opts({"shopping", "coupons"}));
  int64_t b = must_remember(m, "The checkout page asks for a phone number", opts({"forms"}));
  auto by_tag_word = m.recall("coupons", 5);
  ASSERT_TRUE(by_tag_word);
  EXPECT_EQ(ids(*by_tag_word), std::vector<int64_t>{a});
  auto checkout = m.recall("checkout", 5);
  ASSERT_TRUE(checkout);
  EXPECT_EQ(checkout->size(), 2u);
  auto filtered = m.recall("checkout", 5, "forms");
  ASSERT_TRUE(filtered);
  EXPECT_EQ(ids(*filtered), std::vector<int64_t>{b});
  auto none = m.recall("checkout", 5, "form");  // tags match exactly
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
  auto entry = m.get(a);
  ASSERT_TRUE(entry && *entry);
  EXPECT_EQ((*entry)->tags, (std::vector<std::string>{"shopping", "coupons"}));
}

TEST_P(MemoryOn, AnEntryKeepsWhereItsTextCameFromAndRememberingAgainNeverWashesItOff) {
  auto db = open_memory_db();
  Memory m(*db);
  int64_t id = must_remember(m, "Refunds go to DE89 3704 0044 0532 0130 00", {.tags = {}, .source_run = "r1", .kind = Kind::Run, .sources = {"evil.example"}});
  // The same text written again from no page, then from another site: the entry keeps every source.
  EXPECT_EQ(must_remember(m, "Refunds go to DE89 3704 0044 0532 0130 00", {.tags = {}, .source_run = "r2", .kind = Kind::Run}), id);
  EXPECT_EQ(must_remember(m, "Refunds go to DE89 3704 0044 0532 0130 00", {.tags = {}, .source_run = "r3", .kind = Kind::Run, .sources = {"shop.example"}}), id);
  auto got = m.get(id);
  ASSERT_TRUE(got && *got);
  std::vector<std::string> sources = (*got)->sources;
  std::sort(sources.begin(), sources.end());
  EXPECT_EQ(sources, (std::vector<std::string>{"evil.example", "shop.example"}));
  auto found = m.recall("refunds account", 5);
  ASSERT_TRUE(found && found->size() == 1);
  EXPECT_EQ(to_json((*found)[0], true)["sources"].size(), 2u) << "recall shows them";
  // An entry from no page has none.
  int64_t plain = must_remember(m, "Ada prefers aisle seats");
  EXPECT_TRUE(m.get(plain).value()->sources.empty());
}

TEST_P(MemoryOn, IdenticalTextAndKindIsStoredOnceAndTheNewerWins) {
  auto db = open_memory_db();
  Memory m(*db);
  int64_t first = must_remember(m, "Amazon orders are under Account > Orders", {.tags = {"amazon"}, .source_run = "r1", .kind = Kind::Run});
  auto before = m.get(first);
  ASSERT_TRUE(before && *before);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  int64_t again = must_remember(m, "  Amazon orders are under Account > Orders\n", {.tags = {"orders"}, .source_run = "r2", .kind = Kind::Run});
  EXPECT_EQ(again, first);
  EXPECT_EQ(m.count().value(), 1);
  auto after = m.get(first);
  ASSERT_TRUE(after && *after);
  EXPECT_GT((*after)->updated_at, (*before)->updated_at);
  EXPECT_EQ((*after)->created_at, (*before)->created_at);
  EXPECT_EQ((*after)->tags, std::vector<std::string>{"orders"});
  EXPECT_EQ((*after)->source_run, "r2");
  EXPECT_EQ((*after)->kind, Kind::Run);
  // The index follows the new tags: the old one no longer finds it, the new one does.
  EXPECT_TRUE(m.recall("amazon", 5, "amazon").value().empty());
  EXPECT_EQ(ids(m.recall("amazon", 5, "orders").value()), std::vector<int64_t>{first});

  // The same text written by the user is another entry.
  int64_t user = must_remember(m, "Amazon orders are under Account > Orders");
  EXPECT_NE(user, first);
  EXPECT_EQ(m.count().value(), 2);
}

TEST_P(MemoryOn, ForgetRemovesTheEntryAndItsIndex) {
  auto db = open_memory_db();
  Memory m(*db);
  remember_fillers(m);
  int64_t id = must_remember(m, "The staging password rotates every Friday");
  ASSERT_EQ(m.recall("staging password", 5).value().size(), 1u);
  EXPECT_TRUE(m.forget(id).value());
  EXPECT_FALSE(m.forget(id).value());
  EXPECT_FALSE(m.get(id).value().has_value());
  EXPECT_TRUE(m.recall("staging password", 5).value().empty());
  EXPECT_EQ(m.count().value(), 6);
  // Remembering it again after forgetting works (the unique constraint and the index agree).
  int64_t back = must_remember(m, "The staging password rotates every Friday");
  EXPECT_EQ(ids(m.recall("rotates", 5).value()), std::vector<int64_t>{back});
}

TEST(Memory, FtsQueryQuotesEveryWord) {
  EXPECT_EQ(fts_query("col:x"), R"("col" OR "x")");
  EXPECT_EQ(fts_query("NEAR(a b, 2)"), R"("NEAR" OR "b" OR "2")");  // "a" is a stop word
  EXPECT_EQ(fts_query("price* -milk ^tea \"oat\""), R"("price" OR "milk" OR "tea" OR "oat")");
  EXPECT_EQ(fts_query("AND OR NOT"), R"("AND" OR "OR" OR "NOT")");  // only stop words: kept
  EXPECT_EQ(fts_query("find the price of the cheapest flight"), R"("find" OR "price" OR "cheapest" OR "flight")");
  EXPECT_EQ(fts_query("Price price PRICE"), R"("Price")");
  EXPECT_EQ(fts_query("café—naïve “quoted” 日本語"), R"("café" OR "naïve" OR "quoted" OR "日本語")");
  EXPECT_EQ(fts_query(std::string("x\0y\xff" "z", 5)), R"("x" OR "y" OR "z")");
  EXPECT_EQ(fts_query(""), "");
  EXPECT_EQ(fts_query(" *** \"\" () : ^ - "), "");
  std::string many;
  for (int i = 0; i < 100; ++i) many += "word" + std::to_string(i) + " ";
  std::string q = fts_query(many);
  EXPECT_EQ(std::count(q.begin(), q.end(), '"'), 64);
  EXPECT_EQ(fts_query(std::string(1000, 'x')), "\"" + std::string(64, 'x') + "\"");
}

TEST_P(MemoryOn, HostileQueriesNeverFail) {
  auto db = open_memory_db();
  Memory m(*db);
  remember_fillers(m);
  must_remember(m, "The price of oat milk is 2.10 (per litre) at the \"corner\" shop: col:x NEAR AND OR NOT");
  std::string huge;
  for (int i = 0; huge.size() < 100 * 1024; ++i) huge += "price \" * ( ) : ^ NEAR/3 - AND OR NOT word" + std::to_string(i) + " ";
  const std::vector<std::string> queries = {
      "\"",
      "\"\"",
      "\"price",
      "price\"",
      "*",
      "price*",
      "*price",
      "AND",
      "OR",
      "NOT",
      "AND OR NOT",
      "price AND",
      "OR milk",
      "NOT price",
      "NEAR",
      "NEAR(price milk)",
      "NEAR(price milk, 2)",
      "price NEAR/2 milk",
      "col:x",
      "text:price",
      "tags:price",
      "{text tags}:price",
      "rowid:1",
      "memories_fts:price",
      "-price",
      "- - -",
      "^",
      "^price",
      "(",
      ")",
      "((price)",
      "price + milk",
      "'",
      "\\",
      std::string(1, '\0'),
      std::string("price\0milk", 10),
      std::string("\0\"\0*", 4),
      "\xff\xfe",
      "\xc3",
      "\xed\xa0\x80price",
      "🙂🙂🙂",
      "—",
      "“price”",
      "日本語のテキスト",
      "café naïve",
      "\t\n\r",
      "   ",
      "",
      "%_$",
      ";DROP TABLE memories;--",
      "SELECT * FROM memories",
      "{}[]<>",
      "price:",
      ":",
      std::string(10000, 'a'),
      std::string(100 * 1024, '"'),
      huge,
  };
  ASSERT_GE(queries.size(), 30u);
  for (const auto& q : queries) {
    auto found = m.recall(q, 10);
    ASSERT_TRUE(found) << "query " << ::testing::PrintToString(q.substr(0, 80)) << ": " << found.error().message;
    auto tagged = m.recall(q, 10, "\" OR 1=1 --");
    ASSERT_TRUE(tagged) << found.error().message;
    EXPECT_TRUE(tagged->empty());
  }
  EXPECT_TRUE(m.recall("*** \"\" () : ^", 10).value().empty());
  EXPECT_TRUE(m.recall("", 10).value().empty());
  EXPECT_EQ(m.recall("\"price\" AND milk*", 10).value().size(), 1u);
  EXPECT_EQ(m.recall(huge, 50).value().size(), 1u);
  EXPECT_EQ(m.count().value(), 7);
  EXPECT_FALSE(m.relevant_for(huge, 5, 500).empty());
}

TEST_P(MemoryOn, TopKIsBounded) {
  auto db = open_memory_db();
  Memory m(*db);
  for (int i = 0; i < 60; ++i) must_remember(m, "receipt number " + std::to_string(i));
  EXPECT_EQ(m.recall("receipt", 1000).value().size(), 50u);
  EXPECT_EQ(m.recall("receipt", 0).value().size(), 1u);
  EXPECT_EQ(m.recall("receipt", -5).value().size(), 1u);
  EXPECT_EQ(m.recall("receipt", 7).value().size(), 7u);
}

TEST_P(MemoryOn, CapsAreErrorsThatSayWhatIsWrong) {
  auto db = open_memory_db();
  Memory m(*db);
  auto too_long = m.remember(std::string(kMaxTextBytes + 1, 'x'));
  ASSERT_FALSE(too_long);
  EXPECT_EQ(too_long.error().code, Code::InvalidArgument);
  EXPECT_NE(too_long.error().message.find("8192"), std::string::npos) << too_long.error().message;
  EXPECT_TRUE(m.remember(std::string(kMaxTextBytes, 'x')));

  for (const std::string& empty : {std::string(), std::string(" \n\t "), std::string("\r\n")}) {
    auto r = m.remember(empty);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, Code::InvalidArgument);
    EXPECT_NE(r.error().message.find("empty"), std::string::npos) << r.error().message;
  }

  std::vector<std::string> seventeen;
  for (int i = 0; i < 17; ++i) seventeen.push_back("t" + std::to_string(i));
  auto too_many = m.remember("tagged", opts(seventeen));
  ASSERT_FALSE(too_many);
  EXPECT_NE(too_many.error().message.find("at most 16"), std::string::npos) << too_many.error().message;
  seventeen.pop_back();
  EXPECT_TRUE(m.remember("tagged", opts(seventeen)));

  auto long_tag = m.remember("tagged", opts({std::string(65, 't')}));
  ASSERT_FALSE(long_tag);
  EXPECT_NE(long_tag.error().message.find("at most 64"), std::string::npos) << long_tag.error().message;
  std::string e64;
  for (int i = 0; i < 64; ++i) e64 += "é";  // 64 characters, 128 bytes
  EXPECT_TRUE(m.remember("tagged", opts({e64})));

  auto empty_tag = m.remember("tagged", opts({"ok", "  "}));
  ASSERT_FALSE(empty_tag);
  EXPECT_NE(empty_tag.error().message.find("tag 2 is empty"), std::string::npos) << empty_tag.error().message;
  EXPECT_FALSE(m.remember("tagged", opts({"a\nb"})));
  EXPECT_FALSE(m.remember("tagged", opts({"\xff"})));
  EXPECT_FALSE(m.remember("tagged", opts({}, std::string(500, 'r'))));

  // Duplicate tags are kept once.
  int64_t id = must_remember(m, "duplicate tags", opts({"a", " a ", "b"}));
  EXPECT_EQ(m.get(id).value()->tags, (std::vector<std::string>{"a", "b"}));
}

// PostgreSQL's text holds no NUL: there it is replaced like an invalid byte.
TEST_P(MemoryOn, InvalidUtf8IsReplacedAndNulBytesKeptWhereTheEngineCan) {
  auto db = open_memory_db();
  Memory m(*db);
  std::string text("bad \xff byte and a \0 nul", 22);
  int64_t id = must_remember(m, text);
  auto e = m.get(id).value();
  ASSERT_TRUE(e);
  if (postgres()) EXPECT_EQ(e->text, "bad \xEF\xBF\xBD byte and a \xEF\xBF\xBD nul");
  else EXPECT_EQ(e->text, std::string("bad \xEF\xBF\xBD byte and a \0 nul", 24));
  EXPECT_EQ(ids(m.recall("nul", 5).value()), std::vector<int64_t>{id});
}

TEST_P(MemoryOn, ListGetAndCount) {
  auto db = open_memory_db();
  Memory m(*db);
  EXPECT_EQ(m.count().value(), 0);
  EXPECT_TRUE(m.list().value().empty());
  EXPECT_FALSE(m.get(42).value().has_value());
  std::vector<int64_t> made;
  for (int i = 0; i < 5; ++i) {
    made.push_back(must_remember(m, "note " + std::to_string(i), opts({}, i % 2 ? "r" + std::to_string(i) : "")));
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_EQ(m.count().value(), 5);
  EXPECT_EQ(ids(m.list(2, 0).value()), (std::vector<int64_t>{made[4], made[3]}));
  EXPECT_EQ(ids(m.list(2, 2).value()), (std::vector<int64_t>{made[2], made[1]}));
  EXPECT_EQ(ids(m.list(10, 4).value()), (std::vector<int64_t>{made[0]}));
  EXPECT_TRUE(m.list(0, 0).value().empty());
  EXPECT_EQ(m.list(5, -3).value().size(), 5u);
  auto e = m.get(made[1]).value();
  ASSERT_TRUE(e);
  EXPECT_EQ(e->text, "note 1");
  EXPECT_EQ(e->source_run, "r1");
  EXPECT_EQ(e->kind, Kind::User);
  EXPECT_EQ(e->score, 0);
  EXPECT_EQ(m.get(made[0]).value()->source_run, "");
}

TEST_P(MemoryOn, TwoMemoriesOverOneDatabaseShareTheEntries) {
  auto db = open_memory_db();
  Memory a(*db), b(*db);
  int64_t id = must_remember(a, "shared entry about invoices");
  EXPECT_EQ(ids(b.recall("invoice", 5).value()), std::vector<int64_t>{id});
  // The database's own tables are untouched by memory's.
  EXPECT_TRUE(db->kv_set("k", "1"));
  EXPECT_EQ(db->kv_keys().value(), std::vector<std::string>{"k"});
}

TEST(Memory, SurvivesReopeningAFileDatabase) {
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  std::string path = dir.path + "/ouro.db";
  int64_t id;
  {
    auto db = store::Database::open(path);
    ASSERT_TRUE(db) << db.error().message;
    Memory m(**db);
    remember_fillers(m);
    id = must_remember(m, "The library closes at 18:00 on Saturdays", {.tags = {"library"}, .source_run = "r7", .kind = Kind::Run});
  }
  auto db = store::Database::open(path);
  ASSERT_TRUE(db) << db.error().message;
  Memory m(**db);
  EXPECT_EQ(m.count().value(), 7);
  auto found = m.recall("When does the library close on Saturday?", 3);
  ASSERT_TRUE(found) << found.error().message;
  ASSERT_FALSE(found->empty());
  EXPECT_EQ((*found)[0].id, id);
  EXPECT_EQ((*found)[0].source_run, "r7");
  EXPECT_EQ((*found)[0].kind, Kind::Run);
  EXPECT_EQ((*found)[0].tags, std::vector<std::string>{"library"});
  // Deduplication holds across the reopening too.
  EXPECT_EQ(must_remember(m, "The library closes at 18:00 on Saturdays", opts({}, "", Kind::Run)), id);
}

TEST(Memory, ConcurrentRememberAndRecallFromFourThreads) {
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  auto db = store::Database::open(dir.path + "/ouro.db");
  ASSERT_TRUE(db) << db.error().message;
  Memory m(**db);  // one Memory used by every thread; its schema is created by whichever is first
  constexpr int kThreads = 4, kEach = 50;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        if (!m.remember(fmt::format("thread{} item{} shared parcel tracking", t, i), opts({fmt::format("t{}", t)}))) ++failures;
        auto found = m.recall(fmt::format("parcel thread{}", t), 5);
        if (!found || found->empty()) ++failures;
        if (i % 10 == 0 && m.relevant_for("parcel tracking", 3, 400).empty()) ++failures;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(m.count().value(), kThreads * kEach);
  EXPECT_EQ(m.recall("parcel", 50, "t2").value().size(), 50u);
}

TEST_P(MemoryOn, RelevantForIsShortDatedAndBounded) {
  auto db = open_memory_db();
  Memory m(*db);
  remember_fillers(m);
  EXPECT_EQ(m.relevant_for("anything about parcels", 5, 1000), "");
  std::string long_text = "Parcel lockers:";
  for (int i = 0; i < 200; ++i) long_text += " locker" + std::to_string(i);
  int64_t a = must_remember(m, long_text);
  int64_t b = must_remember(m, "Parcel\ntracking numbers\n\nstart with JJD", opts({}, "", Kind::Run));
  std::string section = m.relevant_for("track my parcel", 5, 2000);
  ASSERT_FALSE(section.empty());
  // One line per entry, each "- #id (YYYY-MM-DD): text", the long one cut near 200 characters.
  std::vector<std::string> lines;
  for (size_t at = 0; at <= section.size();) {
    size_t nl = section.find('\n', at);
    if (nl == std::string::npos) nl = section.size();
    lines.push_back(section.substr(at, nl - at));
    at = nl + 1;
  }
  ASSERT_EQ(lines.size(), 2u) << section;
  EXPECT_EQ(lines[0].rfind(fmt::format("- #{} (20", b), 0), 0u) << section;
  EXPECT_NE(lines[0].find("): Parcel tracking numbers start with JJD"), std::string::npos) << section;
  EXPECT_EQ(lines[1].rfind(fmt::format("- #{} (20", a), 0), 0u) << section;
  EXPECT_NE(lines[1].find("…"), std::string::npos);
  EXPECT_LE(lines[1].size(), 240u);
  EXPECT_GE(lines[1].size(), 180u);

  for (size_t max : {0u, 10u, 40u, 60u, 100u, 250u, 300u}) {
    std::string s = m.relevant_for("parcel", 5, max);
    EXPECT_LE(s.size(), max) << s;
  }
  EXPECT_EQ(m.relevant_for("parcel", 5, 10), "");
  std::string one = m.relevant_for("parcel", 1, 2000);
  EXPECT_FALSE(one.empty());
  EXPECT_EQ(std::count(one.begin(), one.end(), '\n'), 0);
  EXPECT_EQ(m.relevant_for("parcel", 0, 2000), "");
  EXPECT_EQ(m.relevant_for("", 5, 2000), "");
}

INSTANTIATE_TEST_SUITE_P(Engines, MemoryOn, ::testing::Values(store::Engine::Sqlite, store::Engine::Postgres), testing::engine_test_name);

}  // namespace
}  // namespace ouro::memory
