// Scripts in the database (scripts/store.h), from the parts scripts_test.cpp, rewrite_test.cpp and
// tests/undo leave: a stored run's script with its start pages, a name checked before anything is
// read, versions numbered per name and listed by name, what get says is missing, values that
// survive storage byte for byte, a damaged row skipped by the list but named by get, and the rows
// undo puts back (only rows of this table, one version at a time). On SQLite and PostgreSQL.
#include "scripts/store.h"

#include "postgres_server.h"
#include "store/database.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ouro::scripts {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

Script one_step(const std::string& name, const std::string& task = "open the page") {
  Script s;
  s.name = name;
  s.task = task;
  Step st;
  st.iteration = 1;
  st.code = "setFinal(1)";
  st.set_final = true;
  s.steps.push_back(st);
  return s;
}

// The row version_row gives for a script, its columns as texts, with `params` as given.
json row_of(const std::string& name, int version, const std::string& params, const std::string& meta = "{}") {
  return json::array({name, std::to_string(version), "1700000000000", "r1", "a task", params,
                      R"json([{"iteration": 1, "code": "setFinal(1)", "setFinal": true}])json", "[]", meta});
}

std::unique_ptr<store::Database> memory_db() {
  auto opened = store::Database::open(":memory:");
  if (!opened) {
    ADD_FAILURE() << opened.error().message;
    return nullptr;
  }
  return std::move(*opened);
}

// --- A stored run's script (SQLite in memory) --------------------------------------------------------

class ScriptStore : public ::testing::Test {
 protected:
  void SetUp() override {
    db = memory_db();
    ASSERT_TRUE(db);
  }

  void record(const std::string& id, const std::string& options) {
    store::Database::RunRow row;
    row.id = id;
    row.task = "Open the page";
    row.state = runs::State::Done;
    row.options = options;
    row.created_at = row.updated_at = 1700000000;
    ASSERT_TRUE(db->insert_run(row));
    const std::vector<RecordedEvent> events = {
        {"llm-request", {{"iteration", 1}, {"prompt", "…"}}},
        {"code-generated", {{"iteration", 1}, {"blockIndex", 0}, {"code", "env.a = 1"}}},
        {"stream-token", {{"iteration", 1}, {"text", "env"}}},
        {"code-result", {{"iteration", 1}, {"blockIndex", 0}, {"metadata", {{"ok", true}}}}},
        {"code-generated", {{"iteration", 2}, {"blockIndex", 0}, {"code", "setFinal(env.a)"}}},
        {"code-result", {{"iteration", 2}, {"blockIndex", 0}, {"metadata", {{"ok", true}, {"setFinal", true}}}}},
    };
    int64_t seq = 0;
    for (const auto& e : events) {
      ++seq;
      ASSERT_TRUE(db->append_event(id, seq, e.type, dump_json(e.data), 1700000000.0 + static_cast<double>(seq)));
    }
  }

  std::unique_ptr<store::Database> db;
};

TEST_F(ScriptStore, ARunsScriptHasItsTaskItsBlocksAndItsStringStartPages) {
  record("r1", R"({"urls": ["http://127.0.0.1:9/a", 7, null, "http://127.0.0.1:9/b"]})");
  auto s = from_run(*db, "r1", "mine", std::vector<Param>{});
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->name, "mine");
  EXPECT_EQ(s->source_run, "r1");
  EXPECT_EQ(s->version, 0) << "not saved yet";
  EXPECT_EQ(s->task, "Open the page");
  ASSERT_EQ(s->steps.size(), 2u);
  EXPECT_EQ(s->steps[0].code, "env.a = 1");
  EXPECT_TRUE(s->steps[1].set_final);
  EXPECT_EQ(s->urls, (std::vector<std::string>{"http://127.0.0.1:9/a", "http://127.0.0.1:9/b"}));
  EXPECT_FALSE(get(*db, "mine")) << "from_run stores nothing";
}

TEST_F(ScriptStore, RunOptionsThatDoNotParseMeanNoStartPages) {
  record("r2", "not json at all");
  auto s = from_run(*db, "r2", "mine", std::vector<Param>{});
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_TRUE(s->urls.empty());
}

TEST_F(ScriptStore, ANameIsCheckedBeforeTheRunIsLookedFor) {
  auto bad = from_run(*db, "no-such-run", "bad name!");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, Code::InvalidArgument);
  auto missing = from_run(*db, "no-such-run", "fine");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, Code::NotFound);
  EXPECT_TRUE(has(missing.error().message, "no-such-run")) << missing.error().message;
}

TEST_F(ScriptStore, AScriptWithoutStepsIsNotStored) {
  Script empty = one_step("empty");
  empty.steps.clear();
  auto r = save(*db, empty);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::InvalidArgument);
  EXPECT_EQ(get(*db, "empty").error().code, Code::NotFound);
}

TEST_F(ScriptStore, WhatIsMissingIsSaidInWords) {
  ASSERT_TRUE(save(*db, one_step("gym")));
  auto no_name = get(*db, "pool");
  ASSERT_FALSE(no_name);
  EXPECT_EQ(no_name.error().code, Code::NotFound);
  EXPECT_TRUE(has(no_name.error().message, "no script named pool")) << no_name.error().message;
  auto no_version = get(*db, "gym", 5);
  ASSERT_FALSE(no_version);
  EXPECT_EQ(no_version.error().code, Code::NotFound);
  EXPECT_TRUE(has(no_version.error().message, "script gym has no version 5")) << no_version.error().message;
}

TEST_F(ScriptStore, APutBackRowMustBeOneOfThisTable) {
  ASSERT_TRUE(save(*db, one_step("gym")));
  const std::string good_params = R"([{"name": "a", "value": "1", "source": "user"}])";
  std::vector<json> bad = {
      json::object(),                                   // not a row
      json::array({"gym", "1"}),                        // too short
      row_of("other", 1, good_params),                  // another name's
      row_of("gym", 2, good_params),                    // another version's
  };
  json numeric = row_of("gym", 1, good_params);
  numeric[4] = 42;  // a column that is not text
  bad.push_back(numeric);
  for (const auto& row : bad) {
    auto r = put_version_row(*db, "gym", 1, row);
    ASSERT_FALSE(r) << row.dump();
    EXPECT_EQ(r.error().code, Code::InvalidArgument) << row.dump();
  }
  auto still = get(*db, "gym", 1);
  ASSERT_TRUE(still) << still.error().message;
  EXPECT_EQ(still->task, "open the page") << "a refused row changes nothing";
}

// --- On both engines -----------------------------------------------------------------------------

class ScriptStoreOn : public ::testing::TestWithParam<store::Engine> {};

TEST_P(ScriptStoreOn, VersionsAreNumberedPerNameAndListedByName) {
  OURO_FRESH_DATABASE(db, GetParam());
  for (const char* name : {"zeta", "alpha", "zeta"}) {
    auto saved = save(*db, one_step(name));
    ASSERT_TRUE(saved) << saved.error().message;
    EXPECT_GT(saved->created_at, 0);
  }
  auto alpha = get(*db, "alpha");
  ASSERT_TRUE(alpha) << alpha.error().message;
  EXPECT_EQ(alpha->version, 1) << "another name's versions do not count";
  auto listed = list(*db);
  ASSERT_TRUE(listed) << listed.error().message;
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].latest.name, "alpha");
  EXPECT_EQ((*listed)[0].versions, 1);
  EXPECT_EQ((*listed)[1].latest.name, "zeta");
  EXPECT_EQ((*listed)[1].latest.version, 2);
  EXPECT_EQ((*listed)[1].versions, 2);
  // Removing one name leaves the other.
  auto gone = remove(*db, "zeta");
  ASSERT_TRUE(gone) << gone.error().message;
  EXPECT_EQ(*gone, 2);
  EXPECT_TRUE(get(*db, "alpha"));
}

TEST_P(ScriptStoreOn, TextSurvivesStorageByteForByte) {
  OURO_FRESH_DATABASE(db, GetParam());
  const std::string hostile = "Gr\xC3\xBC\xC3\x9F" "e \xF0\x9F\x8C\x8D \"quoted\" '; DROP TABLE scripts; -- \\ \t end";
  Script s = one_step("hostile", hostile);
  s.params = {{"who", hostile, "user"}};
  s.steps[0].code = "await type(activeTab, '#x', {{who}}); // " + hostile + "\nsetFinal(1)";
  s.urls = {"http://127.0.0.1:9/?q=%27x%27&r=\xC3\xA9"};
  s.source_run = "run-'1'";
  auto saved = save(*db, s);
  ASSERT_TRUE(saved) << saved.error().message;
  auto back = get(*db, "hostile");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->task, hostile);
  ASSERT_EQ(back->params.size(), 1u);
  EXPECT_EQ(back->params[0].value, hostile);
  EXPECT_EQ(back->steps[0].code, s.steps[0].code);
  EXPECT_EQ(back->urls, s.urls);
  EXPECT_EQ(back->source_run, "run-'1'");
  auto listed = list(*db);
  ASSERT_TRUE(listed);
  ASSERT_EQ(listed->size(), 1u) << "the scripts table is still there";
}

TEST_P(ScriptStoreOn, ADamagedRowIsLeftOutOfTheListButNamedByGet) {
  OURO_FRESH_DATABASE(db, GetParam());
  ASSERT_TRUE(save(*db, one_step("fine")));
  auto put = put_version_row(*db, "broken", 1, row_of("broken", 1, "{not json"));
  ASSERT_TRUE(put) << put.error().message;
  auto listed = list(*db);
  ASSERT_TRUE(listed) << listed.error().message;
  ASSERT_EQ(listed->size(), 1u) << "the other scripts are still listed";
  EXPECT_EQ((*listed)[0].latest.name, "fine");
  auto got = get(*db, "broken");
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().code, Code::InvalidArgument);
  EXPECT_TRUE(has(got.error().message, "broken")) << got.error().message;
  // Only the optional meta column damaged: the script still reads, made from nothing.
  ASSERT_TRUE(put_version_row(*db, "meta", 1, row_of("meta", 1, "[]", "{oops")));
  auto meta = get(*db, "meta");
  ASSERT_TRUE(meta) << meta.error().message;
  EXPECT_EQ(meta->based_on, 0);
  EXPECT_TRUE(meta->changes.empty());
}

TEST_P(ScriptStoreOn, PuttingBackNothingDeletesThatVersionOnly) {
  OURO_FRESH_DATABASE(db, GetParam());
  ASSERT_TRUE(save(*db, one_step("gym", "first")));
  ASSERT_TRUE(save(*db, one_step("gym", "second")));
  auto row = version_row(*db, "gym", 2);
  ASSERT_TRUE(row) << row.error().message;
  ASSERT_TRUE(row->has_value());
  ASSERT_TRUE(put_version_row(*db, "gym", 2, std::nullopt));
  auto latest = get(*db, "gym");
  ASSERT_TRUE(latest) << latest.error().message;
  EXPECT_EQ(latest->version, 1);
  EXPECT_EQ(latest->task, "first");
  auto gone = version_row(*db, "gym", 2);
  ASSERT_TRUE(gone);
  EXPECT_FALSE(gone->has_value());
  // And the row put back is the version again, as it was.
  ASSERT_TRUE(put_version_row(*db, "gym", 2, *row));
  auto again = get(*db, "gym");
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->version, 2);
  EXPECT_EQ(again->task, "second");
  EXPECT_EQ(version_row(*db, "gym", 2).value(), *row);
}

// get() reads on the SQLite file's read connection, as list() does: each save is seen at once
// (WAL: a read after a commit sees it), and a read finishes while a writer holds the database,
// seeing what was committed and not the writer's open transaction.
TEST(ScriptStoreReads, GetSeesEachSaveAndDoesNotWaitForAWriter) {
  OURO_FRESH_DATABASE(db, store::Engine::Sqlite);
  ASSERT_TRUE(save(*db, one_step("gym", "first")));
  auto first = get(*db, "gym");
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->version, 1);
  ASSERT_TRUE(save(*db, one_step("gym", "second")));
  auto second = get(*db, "gym");
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(second->version, 2) << "the save just committed is seen";
  EXPECT_EQ(second->task, "second");
  EXPECT_EQ(get(*db, "gym", 1).value().task, "first");

  std::promise<void> holding, release;
  auto writer = std::async(std::launch::async, [&] {
    return db->with_sql([&](store::Connection& c) -> Result<void> {
      return c.transaction([&]() -> Result<void> {
        TRY(c.exec("INSERT INTO scripts (name, version, created_at, source_run, task, params, blocks, urls, meta) "
                   "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                   {"gym", 3, 1700000000000.0, "r1", "a task", "[]", R"json([{"iteration": 1, "code": "setFinal(1)", "setFinal": true}])json", "[]",
                    "{}"}));
        holding.set_value();
        release.get_future().wait();  // the writer holds the database until the read is done
        return {};
      });
    });
  });
  holding.get_future().wait();
  auto reader = std::async(std::launch::async, [&] { return get(*db, "gym"); });
  const auto status = reader.wait_for(std::chrono::seconds(20));
  release.set_value();  // either way, so that neither thread is left waiting
  ASSERT_EQ(status, std::future_status::ready) << "get waited for the writer";
  auto during = reader.get();
  ASSERT_TRUE(during) << during.error().message;
  EXPECT_EQ(during->version, 2) << "it reads what was committed, not the writer's open transaction";
  auto wrote = writer.get();
  ASSERT_TRUE(wrote) << wrote.error().message;
  auto after = get(*db, "gym");
  ASSERT_TRUE(after) << after.error().message;
  EXPECT_EQ(after->version, 3) << "the writer's row, once committed";
  EXPECT_EQ(after->task, "a task");
}

INSTANTIATE_TEST_SUITE_P(Engines, ScriptStoreOn, ::testing::Values(store::Engine::Sqlite, store::Engine::Postgres),
                         ouro::testing::engine_test_name);

}  // namespace
}  // namespace ouro::scripts
