#include "store/database.h"

#include "basics.h"
#include "postgres_server.h"
#include "store/run_state.h"
#include "store/sql.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <future>
#include <iostream>
#include <thread>

namespace ouro::store {
namespace {

using testing::engine_test_name;

// --- The same behaviour on both engines ---------------------------------------------------------

class DatabaseOn : public ::testing::TestWithParam<Engine> {};

Database::RunRow running(const std::string& id, const std::string& task) {
  Database::RunRow r;
  r.id = id;
  r.task = task;
  r.state = runs::State::Running;
  return r;
}

TEST_P(DatabaseOn, KeyValueRoundTripAndReplace) {
  OURO_FRESH_DATABASE(db, GetParam());
  EXPECT_EQ(db->engine(), GetParam());
  ASSERT_TRUE(db->kv_set("a", "{\"x\":1}"));
  ASSERT_TRUE(db->kv_set("b", "[1,2]"));
  ASSERT_TRUE(db->kv_set("a", "2"));
  EXPECT_EQ(*db->kv_get("a").value(), "2");
  EXPECT_FALSE(db->kv_get("missing").value().has_value());
  EXPECT_EQ(db->kv_keys().value(), (std::vector<std::string>{"a", "b"}));
}

TEST_P(DatabaseOn, RunsRoundTripWithTheirFields) {
  OURO_FRESH_DATABASE(db, GetParam());
  Database::RunRow r = running("run-1", "find the price — ünïcode");
  r.options = R"({"model":"m"})";
  r.created_at = 1700000000.123456;
  r.updated_at = 1700000000.5;
  ASSERT_TRUE(db->insert_run(r));
  Database::RunRow older = r;
  older.id = "run-0";
  older.created_at = 1600000000.25;
  ASSERT_TRUE(db->insert_run(older));

  auto got = db->get_run("run-1").value();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->task, r.task);
  EXPECT_EQ(got->options, r.options);
  EXPECT_DOUBLE_EQ(got->created_at, r.created_at);
  EXPECT_FALSE(got->cost.has_value());
  EXPECT_TRUE(got->final_json.empty());

  r.state = runs::State::Done;
  r.iterations = 3;
  r.final_json = R"({"answer":42})";
  r.usage_json = R"({"input":10})";
  r.partial = true;
  r.cost = 0.0125;
  r.updated_at = 1700000010.75;
  ASSERT_TRUE(db->update_run(r));
  got = db->get_run("run-1").value();
  EXPECT_EQ(got->state, runs::State::Done);
  EXPECT_EQ(got->iterations, 3);
  EXPECT_EQ(got->final_json, r.final_json);
  EXPECT_EQ(got->usage_json, r.usage_json);
  EXPECT_TRUE(got->partial);
  ASSERT_TRUE(got->cost.has_value());
  EXPECT_DOUBLE_EQ(*got->cost, 0.0125);
  EXPECT_DOUBLE_EQ(got->updated_at, 1700000010.75);

  auto all = db->list_runs(10).value();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].id, "run-1");  // newest first
  EXPECT_EQ(db->list_runs(1).value().size(), 1u);
  EXPECT_FALSE(db->get_run("nope").value().has_value());

  auto again = db->insert_run(r);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, Code::AlreadyExists) << again.error().message;
}

TEST_P(DatabaseOn, EventsKeepOneGapFreeSequencePerRun) {
  OURO_FRESH_DATABASE(db, GetParam());
  int64_t last = 0;
  for (int64_t seq = 1; seq <= 3; ++seq) {
    for (const char* run : {"a", "b"}) {
      auto id = db->append_event(run, seq, "step", fmt::format(R"({{"n":{}}})", seq), 1700000000.0 + static_cast<double>(seq));
      ASSERT_TRUE(id) << id.error().message;
      EXPECT_GT(*id, last);  // ids give one global order
      last = *id;
    }
  }
  // A second writer of the same number is refused, by kind: the sequence stays one.
  auto dup = db->append_event("a", 2, "step", "{}", 0);
  ASSERT_FALSE(dup);
  EXPECT_EQ(dup.error().code, Code::AlreadyExists) << dup.error().message;

  auto a = db->events("a", 1).value();
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].seq, 2);
  EXPECT_EQ(a[1].seq, 3);
  EXPECT_EQ(a[0].data, R"({"n":2})");
  EXPECT_DOUBLE_EQ(a[1].ts, 1700000003.0);
  auto global = db->events("", a[0].id).value();
  ASSERT_EQ(global.size(), 3u);  // everything after a's second event, in id order: b2, a3, b3
  EXPECT_EQ(global[0].run_id, "b");
  EXPECT_EQ(db->events("a", 0, 1).value().size(), 1u);
}

// A turn's last event and the row it ends: a reader sees both or neither.
TEST_P(DatabaseOn, AnEventAndTheRowItEndsAreWrittenTogetherOrNotAtAll) {
  OURO_FRESH_DATABASE(db, GetParam());
  Database::RunRow r = running("r1", "read the list");
  ASSERT_TRUE(db->insert_run(r));
  r.state = runs::State::Done;
  r.iterations = 2;
  r.final_json = R"({"answer":1})";
  auto id = db->append_event_with_run(r, 1, "complete", R"({"final":{"answer":1}})", 2);
  ASSERT_TRUE(id) << id.error().message;
  auto row = db->get_run("r1").value();
  EXPECT_EQ(row->state, runs::State::Done);
  EXPECT_EQ(row->final_json, R"({"answer":1})");
  auto events = db->events("r1", 0).value();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].id, *id);
  EXPECT_EQ(events[0].type, "complete");

  // A row the database refuses to change: the event is not kept either.
  ASSERT_TRUE(db->with_sql([](Connection& c) {
    return c.engine() == Engine::Postgres
               ? c.exec_script("CREATE FUNCTION refuse_update() RETURNS trigger AS $f$ BEGIN RAISE EXCEPTION 'refused'; END $f$ LANGUAGE plpgsql;"
                               "CREATE TRIGGER refuse BEFORE UPDATE ON runs FOR EACH ROW WHEN (NEW.iterations = 3) EXECUTE FUNCTION refuse_update();")
               : c.exec_script("CREATE TRIGGER refuse BEFORE UPDATE ON runs WHEN NEW.iterations = 3 BEGIN SELECT RAISE(ABORT, 'refused'); END;");
  }));
  r.iterations = 3;
  EXPECT_FALSE(db->append_event_with_run(r, 2, "complete", "{}", 3));
  EXPECT_EQ(db->events("r1", 0).value().size(), 1u) << "the event went without its row";
  // An event that cannot be stored (its number is taken): the row is not written.
  r.iterations = 4;
  auto taken = db->append_event_with_run(r, 1, "complete", "{}", 4);
  ASSERT_FALSE(taken);
  EXPECT_EQ(taken.error().code, Code::AlreadyExists) << taken.error().message;
  EXPECT_EQ(db->get_run("r1").value()->iterations, 2) << "the row went without its event";
}

TEST_P(DatabaseOn, CheckpointsAndSettingsReplaceTheirValue) {
  OURO_FRESH_DATABASE(db, GetParam());
  ASSERT_TRUE(db->set_checkpoint("r", R"({"env":1})"));
  ASSERT_TRUE(db->set_checkpoint("r", R"({"env":2})"));
  EXPECT_EQ(*db->checkpoint("r").value(), R"({"env":2})");
  EXPECT_FALSE(db->checkpoint("other").value().has_value());
  ASSERT_TRUE(db->set_setting("mode", "\"careful\""));
  ASSERT_TRUE(db->set_setting("mode", "\"fast\""));
  EXPECT_EQ(*db->get_setting("mode").value(), "\"fast\"");
  EXPECT_FALSE(db->get_setting("none").value().has_value());
}

TEST_P(DatabaseOn, RunCheckpointIsReplacedWhole) {
  OURO_FRESH_DATABASE(db, GetParam());
  EXPECT_FALSE(load_run_checkpoint(*db, "r").value().has_value());
  RunCheckpoint c{2, R"({"s":1})", R"({"x":1})", R"([{"name":"c"}])", R"({"https://a":[["k","v"]]})", 1700000000123.5};
  ASSERT_TRUE(save_run_checkpoint(*db, "r", c));
  c.iteration = 3;
  c.env = R"({"x":2})";
  c.provenance = R"({"user":"task","sites":[{"name":"a.example","page":"https://a.example/","text":"acct de89"}]})";
  ASSERT_TRUE(save_run_checkpoint(*db, "r", c));
  auto got = load_run_checkpoint(*db, "r").value();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->iteration, 3);
  EXPECT_EQ(got->env, R"({"x":2})");
  EXPECT_EQ(got->cookies, c.cookies);
  EXPECT_EQ(got->storage, c.storage);
  EXPECT_EQ(got->provenance, c.provenance) << "where the run's values came from survives a resume";
  EXPECT_DOUBLE_EQ(got->saved_at, c.saved_at);
}

TEST_P(DatabaseOn, SchemaIsVersionedAndMigratedOnce) {
  OURO_FRESH_DATABASE(db, GetParam());
  int version = db->with_sql([](Connection& c) { return schema_version(c, "store"); }).value();
  EXPECT_EQ(version, 4);  // 3 and 4 are PostgreSQL's (the nodes); SQLite records them as done
  EXPECT_EQ(db->with_sql([](Connection& c) { return schema_version(c, "nothing-here"); }).value(), 0);
  // A module's migrations run once, in order, and a later list adds only what is new.
  static constexpr Migration v1[] = {{1, "CREATE TABLE t (n INTEGER)", "CREATE TABLE t (n BIGINT)"}};
  static constexpr Migration v2[] = {{1, "CREATE TABLE t (n INTEGER)", "CREATE TABLE t (n BIGINT)"},
                                     {2, "ALTER TABLE t ADD COLUMN m TEXT", "ALTER TABLE t ADD COLUMN m TEXT"}};
  ASSERT_TRUE(db->with_sql([](Connection& c) { return migrate(c, "demo", v1); }));
  ASSERT_TRUE(db->with_sql([](Connection& c) { return migrate(c, "demo", v1); }));  // cached: nothing runs
  ASSERT_TRUE(db->with_sql([](Connection& c) {
    c.migrated().clear();  // as a new process would see it
    return migrate(c, "demo", v2);
  }));
  EXPECT_EQ(db->with_sql([](Connection& c) { return schema_version(c, "demo"); }).value(), 2);
  ASSERT_TRUE(db->with_sql([](Connection& c) { return c.exec("INSERT INTO t (n, m) VALUES (?1, ?2)", {7, "x"}); }));
  // A failing migration leaves the version where it was and says which one failed.
  static constexpr Migration bad[] = {{1, "", ""}, {2, "", ""}, {3, "CREATE TABLE t (n INTEGER)", "CREATE TABLE t (n BIGINT)"}};
  auto failed = db->with_sql([](Connection& c) {
    c.migrated().clear();
    return migrate(c, "demo", bad);
  });
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().message.find("version 3"), std::string::npos) << failed.error().message;
  EXPECT_EQ(db->with_sql([](Connection& c) { return schema_version(c, "demo"); }).value(), 2);
}

TEST_P(DatabaseOn, TransactionsCommitOrRollBackWhole) {
  OURO_FRESH_DATABASE(db, GetParam());
  ASSERT_TRUE(db->with_sql([](Connection& c) { return c.exec_script("CREATE TABLE tx (n BIGINT PRIMARY KEY)"); }));
  auto failed = db->with_sql([](Connection& c) {
    return c.transaction([&]() -> Result<void> {
      TRY(c.exec("INSERT INTO tx (n) VALUES (?1)", {1}));
      TRY(c.exec("INSERT INTO tx (n) VALUES (?1)", {1}));  // a duplicate: the whole transaction goes
      return {};
    });
  });
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code, Code::AlreadyExists);
  ASSERT_TRUE(db->with_sql([](Connection& c) {
    return c.transaction([&]() -> Result<void> {
      TRY(c.exec("INSERT INTO tx (n) VALUES (?1)", {2}));
      return {};
    });
  }));
  auto rows = db->with_sql([](Connection& c) { return c.exec("SELECT n, 'it''s ?1' FROM tx ORDER BY n"); }).value();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].int64(0), 2);
  EXPECT_EQ(rows[0].text(1), "it's ?1");  // parameters inside literals are left alone
}

INSTANTIATE_TEST_SUITE_P(Engines, DatabaseOn, ::testing::Values(Engine::Sqlite, Engine::Postgres), engine_test_name);

// --- SQLite ---------------------------------------------------------------------------------------

TEST(Database, FileIsPrivateAndSurvivesReopening) {
  std::string path = testing::temp_dir() + "/nested/ouro.db";
  {
    auto db = Database::open(path);
    ASSERT_TRUE(db) << db.error().message;
    ASSERT_TRUE((*db)->kv_set("k", "\"v\""));
  }
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto db = Database::open(path);
  EXPECT_EQ(*(*db)->kv_get("k").value(), "\"v\"");
}

// A module's reads (the memories, schedules and scripts the API lists) go through the file's own
// read connection: they finish while a writer holds the database, instead of waiting for it.
Result<void> notes_schema(Connection& c) {
  return c.exec_script("CREATE TABLE IF NOT EXISTS notes (n INTEGER); INSERT INTO notes SELECT 7 WHERE NOT EXISTS (SELECT 1 FROM notes);");
}

TEST(Database, AModulesReadDoesNotWaitForAWriter) {
  auto db = Database::open(testing::temp_dir() + "/ouro.db").value();
  auto read = [&] {
    return db->with_read_sql("notes", &notes_schema, [](Connection& c) -> Result<int64_t> {
      auto r = TRY(c.exec("SELECT n FROM notes"));
      return r.empty() ? int64_t{0} : r[0].int64(0);
    });
  };
  ASSERT_EQ(read().value(), 7) << "the first read makes the table on the writing connection";
  std::promise<void> holding, release;
  auto writer = std::async(std::launch::async, [&] {
    return db->with_sql([&](Connection& c) -> Result<void> {
      return c.transaction([&]() -> Result<void> {
        TRY(c.exec("INSERT INTO notes VALUES (8)"));
        holding.set_value();
        release.get_future().wait();  // the writer holds the database until the read is done
        return {};
      });
    });
  });
  holding.get_future().wait();
  auto reader = std::async(std::launch::async, read);
  const auto status = reader.wait_for(std::chrono::seconds(20));
  release.set_value();  // either way, so that neither thread is left waiting
  ASSERT_EQ(status, std::future_status::ready) << "the read waited for the writer";
  EXPECT_EQ(reader.get().value(), 7) << "it reads what was committed, not the writer's open transaction";
  EXPECT_TRUE(writer.get());
}

TEST(Database, UnwritableLocationSaysWhatToDo) {
  auto db = Database::open("/proc/ouro-cannot-be-here/ouro.db");
  ASSERT_FALSE(db);
  EXPECT_NE(db.error().message.find("OURO_DATA_DIR"), std::string::npos) << db.error().message;
}

TEST(Database, FileFromBeforeMigrationsIsAdoptedWithItsData) {
  std::string path = testing::temp_dir() + "/old.db";
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &h), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(h,
                         "CREATE TABLE runs (id TEXT PRIMARY KEY, task TEXT NOT NULL, state TEXT NOT NULL, options TEXT NOT NULL,"
                         " created_at REAL NOT NULL, updated_at REAL NOT NULL, iterations INTEGER NOT NULL DEFAULT 0,"
                         " final TEXT, partial INTEGER NOT NULL DEFAULT 0, usage TEXT, cost REAL, error TEXT);"
                         "INSERT INTO runs (id, task, state, options, created_at, updated_at) VALUES ('old', 't', 'running', '{}', 1, 1);"
                         "CREATE TABLE run_checkpoints (run_id TEXT PRIMARY KEY, iteration INTEGER NOT NULL, state TEXT NOT NULL,"
                         " env TEXT NOT NULL, cookies TEXT NOT NULL, saved_at REAL NOT NULL, storage TEXT NOT NULL DEFAULT '{}');",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(h);
  auto db = Database::open(path);
  ASSERT_TRUE(db) << db.error().message;
  EXPECT_EQ((*db)->get_run("old").value()->task, "t");
  EXPECT_EQ((*db)->mark_interrupted().value(), 1);  // one server per data directory: all of them
  RunCheckpoint c;
  EXPECT_TRUE(save_run_checkpoint(**db, "old", c));
}

// The settings file's "database" (or OURO_DATABASE, first) replaces the data directory's file.
TEST(Database, ConfiguredDatabaseReplacesTheDataDirectorysFile) {
  std::string dir = testing::temp_dir();
  std::string config = dir + "/config.json", elsewhere = dir + "/elsewhere.db", env = dir + "/env.db";
  {
    std::ofstream out(config);
    out << R"({"database": ")" << elsewhere << R"(", "database_password": "pw"})";
  }
  setenv("OURO_CONFIG", config.c_str(), 1);
  EXPECT_EQ(configured_database(dir + "/ouro.db").value(), elsewhere);
  auto db = Database::open(dir + "/ouro.db");
  ASSERT_TRUE(db) << db.error().message;
  EXPECT_EQ((*db)->path(), elsewhere);
  setenv("OURO_DATABASE", env.c_str(), 1);
  EXPECT_EQ(configured_database(dir + "/ouro.db").value(), env);
  // A URL without a password takes the settings file's, which path() never shows.
  setenv("OURO_DATABASE", "postgresql://u@h/db", 1);
  EXPECT_EQ(configured_database(dir + "/ouro.db").value(), "postgresql://u@h/db?password=pw");
  EXPECT_EQ(redact_database_url(configured_database(dir + "/ouro.db").value()), "postgresql://u@h/db?password=***");
  unsetenv("OURO_DATABASE");
  {
    std::ofstream out(config);
    out << R"({"database": 5})";
  }
  auto bad = configured_database(dir + "/ouro.db");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, Code::InvalidArgument);
  unsetenv("OURO_CONFIG");
  // ":memory:" is never redirected.
  EXPECT_EQ(Database::open(":memory:").value()->path(), ":memory:");
}

// --- PostgreSQL -----------------------------------------------------------------------------------

class PostgresDatabase : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = testing::engine_unavailable(Engine::Postgres); !why.empty()) GTEST_SKIP() << why;
  }
};

TEST_F(PostgresDatabase, RestartInterruptsOnlyRunsNoLiveNodeHolds) {
  std::string url = testing::fresh_database(Engine::Postgres).value();
  auto a = testing::open_as_node(url, "node-a").value();
  auto b = testing::open_as_node(url, "node-b").value();
  Database::RunRow r;
  r.task = "t";
  r.state = runs::State::Running;
  r.id = "held-by-a";
  ASSERT_TRUE(a->insert_run(r));
  r.id = "held-by-b";
  ASSERT_TRUE(b->insert_run(r));
  r.id = "held-by-dead";
  ASSERT_TRUE(b->insert_run(r));
  ASSERT_TRUE(b->with_sql([](Connection& c) {
    return c.exec("UPDATE runs SET owner = 'node-dead' WHERE id = 'held-by-dead'").and_then([&](Rows) {
      return tl::expected<Rows, Error>(c.exec("INSERT INTO nodes (id, started_at, heartbeat_at) VALUES ('node-dead', 0, 0)"));
    });
  }));
  // Node b restarts: its own runs and the dead node's are interrupted, a's stays running.
  EXPECT_EQ(b->mark_interrupted().value(), 2);
  EXPECT_EQ(a->get_run("held-by-a").value()->state, runs::State::Running);
  EXPECT_EQ(a->get_run("held-by-b").value()->state, runs::State::Interrupted);
  EXPECT_EQ(a->get_run("held-by-dead").value()->state, runs::State::Interrupted);
}

// A turn's end that PostgreSQL ends as a deadlock (two nodes writing one run) is tried again.
TEST_F(PostgresDatabase, AnEndThatDeadlocksIsTriedAgain) {
  OURO_FRESH_DATABASE(db, Engine::Postgres);
  Database::RunRow r = running("r1", "read the list");
  ASSERT_TRUE(db->insert_run(r));
  // The first update of the row fails as a deadlock would (a sequence: it counts across rollbacks).
  ASSERT_TRUE(db->with_sql([](Connection& c) {
    return c.exec_script("CREATE SEQUENCE tries;"
                         "CREATE FUNCTION deadlock_once() RETURNS trigger AS $f$ BEGIN IF nextval('tries') = 1 THEN "
                         "RAISE EXCEPTION 'deadlock detected' USING ERRCODE = '40P01'; END IF; RETURN NEW; END $f$ LANGUAGE plpgsql;"
                         "CREATE TRIGGER deadlock_once BEFORE UPDATE ON runs FOR EACH ROW EXECUTE FUNCTION deadlock_once();");
  }));
  r.state = runs::State::Done;
  auto id = db->append_event_with_run(r, 1, "complete", "{}", 2);
  ASSERT_TRUE(id) << id.error().message;
  EXPECT_EQ(db->get_run("r1").value()->state, runs::State::Done);
  ASSERT_EQ(db->events("r1", 0).value().size(), 1u) << "one event, not one per attempt";
  EXPECT_EQ(db->with_sql([](Connection& c) { return c.exec("SELECT last_value FROM tries"); }).value()[0].int64(0), 2);
}

TEST_F(PostgresDatabase, TwoNodesOpeningAtOnceMigrateOnce) {
  std::string url = testing::fresh_database(Engine::Postgres).value();
  Result<std::unique_ptr<Database>> x, y;
  std::thread t([&] { x = Database::open(url); });
  y = Database::open(url);
  t.join();
  ASSERT_TRUE(x) << x.error().message;
  ASSERT_TRUE(y) << y.error().message;
  auto n = (*x)->with_sql([](Connection& c) { return c.exec("SELECT count(*) FROM schema_migrations WHERE module = 'store'"); }).value();
  EXPECT_EQ(n[0].int64(0), 4);
  // And they see each other's writes.
  ASSERT_TRUE((*x)->kv_set("shared", "1"));
  EXPECT_EQ(*(*y)->kv_get("shared").value(), "1");
}

TEST_F(PostgresDatabase, PasswordNeverShowsInErrorsOrPath) {
  auto server = testing::PostgresServer::shared();
  ASSERT_TRUE(server) << server.error().message;
  // A server that is not there, a password in the URL: the error says what to do, without it.
  auto db = Database::open("postgresql://ouro:hunter2secret@127.0.0.1:1/none?connect_timeout=2");
  ASSERT_FALSE(db);
  EXPECT_EQ(db.error().code, Code::Unavailable);
  EXPECT_EQ(db.error().message.find("hunter2secret"), std::string::npos) << db.error().message;
  EXPECT_NE(db.error().message.find("***"), std::string::npos) << db.error().message;
  // The cluster trusts its socket, so a password is accepted and ignored; path() hides it.
  std::string url = (*server)->create_database().value();
  std::string with_pw = url;
  with_pw.replace(with_pw.find("ouro@"), 5, "ouro:hunter2secret@");
  auto ok = Database::open(with_pw);
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ((*ok)->path().find("hunter2secret"), std::string::npos) << (*ok)->path();
}

TEST(DatabaseUrl, RedactsPasswordsWhereverLibpqTakesThem) {
  EXPECT_EQ(redact_database_url("postgresql://u:p%40ss@h:5432/db"), "postgresql://u:***@h:5432/db");
  EXPECT_EQ(redact_database_url("postgres://u@h/db?sslmode=require&password=x&a=b"), "postgres://u@h/db?sslmode=require&password=***&a=b");
  EXPECT_EQ(redact_database_url("postgresql://h/db"), "postgresql://h/db");
  EXPECT_EQ(redact_database_url("postgresql:///db?password=s"), "postgresql:///db?password=***");
  EXPECT_TRUE(is_postgres_url("postgres://h"));
  EXPECT_FALSE(is_postgres_url("/data/ouro.db"));
}

TEST(DatabaseUrl, ParametersBecomePostgresStyleOutsideQuotes) {
  EXPECT_EQ(to_postgres_parameters("SELECT ?1, '?2', \"a?3\", ?12 -- ?4\n, ?5"), "SELECT $1, '?2', \"a?3\", $12 -- ?4\n, $5");
  EXPECT_EQ(to_postgres_parameters("SELECT 'it''s ?1', ?2"), "SELECT 'it''s ?1', $2");
}

}  // namespace
}  // namespace ouro::store
