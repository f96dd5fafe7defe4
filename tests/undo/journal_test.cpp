// Undo and redo (undo/journal.h) on both engines, over the real stores: a turn that wrote two
// memories, changed a schedule, saved a script and set a store key is reverted exactly, and
// applied again; a new change drops what could have been redone; a turn in progress is refused.
#include "undo/journal.h"

#include "memory/memory.h"
#include "postgres_server.h"
#include "schedule/jobs.h"
#include "scripts/store.h"
#include "store/database.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <future>
#include <string>
#include <utility>
#include <vector>

namespace ouro::undo {
namespace {

int64_t now_s() { return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count(); }

json entry_json(const std::optional<memory::Entry>& e) { return e ? json(memory::to_json(*e, false)) : json(nullptr); }

class Undo : public ::testing::TestWithParam<store::Engine> {
 protected:
  void SetUp() override {
    if (auto why = testing::engine_unavailable(GetParam()); !why.empty()) GTEST_SKIP() << why;
    db = std::move(store::Database::open(testing::fresh_database(GetParam()).value()).value());
    store::Database::RunRow row;
    row.id = "rconv000001";
    row.task = "plan the week";
    row.state = runs::State::Done;
    ASSERT_TRUE(db->insert_run(row));
  }
  // A memory written as a run writes it, its change journaled as the run journals it.
  int64_t remember(int turn, const std::string& text) {
    memory::Memory m(*db);
    auto r = m.remember_entry(text);
    EXPECT_TRUE(r) << r.error().message;
    EXPECT_TRUE(record(*db, "rconv000001", turn, {{"kind", "memory"}, {"key", r->entry.id}, {"before", entry_json(r->before)}, {"after", entry_json(r->entry)}}));
    return r->entry.id;
  }
  std::unique_ptr<store::Database> db;
};

TEST_P(Undo, RevertsExactlyWhatTheTurnChangedAndRedoPutsItBack) {
  // Before the turn: a memory, a schedule, a script version and a store key of earlier turns.
  const int64_t older = remember(1, "The gym opens at 6");
  schedule::JobSpec spec;
  spec.task = "check the gym timetable";
  spec.kind = schedule::TimingKind::Every;
  spec.when = "1d";
  auto job = schedule::add_job(*db, spec, now_s(), {});
  ASSERT_TRUE(job) << job.error().message;
  scripts::Script script;
  script.name = "gym";
  script.task = "open the timetable";
  scripts::Step step;
  step.iteration = 1;
  step.code = "setFinal(1)";
  script.steps.push_back(step);
  ASSERT_TRUE(scripts::save(*db, script));
  ASSERT_TRUE(db->kv_set("plan", "\"old\""));

  // Turn 2: two memories, the schedule changed, a script version saved, a store key set.
  const int64_t a = remember(2, "Yoga is on Tuesdays");
  const int64_t b = remember(2, "The pool closes in August");
  auto before_job = schedule::job_row(*db, job->id).value();
  spec.when = "2h";
  ASSERT_TRUE(schedule::change_job(*db, job->id, spec, now_s(), {}));
  ASSERT_TRUE(record(*db, "rconv000001", 2, {{"kind", "schedule"}, {"key", job->id}, {"before", *before_job}, {"after", *schedule::job_row(*db, job->id).value()}}));
  auto saved = scripts::save(*db, script);
  ASSERT_TRUE(saved);
  note_script(*db, "rconv000001", 2, "gym", saved->version);
  ASSERT_TRUE(db->kv_set("plan", "\"new\""));
  ASSERT_TRUE(record(*db, "rconv000001", 2, {{"kind", "kv"}, {"key", "plan"}, {"before", "\"old\""}, {"after", "\"new\""}}));

  auto undone = undo(*db, "rconv000001");
  ASSERT_TRUE(undone) << undone.error().message;
  EXPECT_EQ(undone->turn, 2);
  EXPECT_EQ(undone->changes.size(), 5u);
  EXPECT_NE(undone->note.find("stays sent"), std::string::npos);
  memory::Memory m(*db);
  EXPECT_FALSE(m.get(a).value()) << "the turn's memories are gone";
  EXPECT_FALSE(m.get(b).value());
  EXPECT_TRUE(m.get(older).value()) << "an earlier turn's stays";
  EXPECT_EQ(schedule::get_job(*db, job->id).value()->when, "1d") << "the schedule is as it was";
  EXPECT_EQ(scripts::get(*db, "gym").value().version, 1) << "the turn's script version is gone, the earlier one stays";
  EXPECT_EQ(db->kv_get("plan").value(), std::optional<std::string>("\"old\""));
  auto st = stack(*db, "rconv000001").value();
  EXPECT_TRUE(st["can_undo"].get<bool>()) << "turn 1 is still there to undo";
  EXPECT_TRUE(st["can_redo"].get<bool>());

  auto redone = redo(*db, "rconv000001");
  ASSERT_TRUE(redone) << redone.error().message;
  EXPECT_EQ(redone->turn, 2);
  EXPECT_EQ(m.get(a).value()->text, "Yoga is on Tuesdays");
  EXPECT_EQ(m.get(b).value()->text, "The pool closes in August");
  EXPECT_EQ(schedule::get_job(*db, job->id).value()->when, "2h");
  EXPECT_EQ(scripts::get(*db, "gym").value().version, 2);
  EXPECT_EQ(db->kv_get("plan").value(), std::optional<std::string>("\"new\""));
  EXPECT_FALSE(redo(*db, "rconv000001")) << "nothing left to redo";

  // Undo, then a new change: what could have been redone is gone.
  ASSERT_TRUE(undo(*db, "rconv000001"));
  remember(3, "Climbing wall on Fridays");
  auto none = redo(*db, "rconv000001");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, Code::NotFound);
}

TEST_P(Undo, ChangesToOneThingFoldAndATurnInProgressIsRefused) {
  ASSERT_TRUE(db->kv_set("k", "1"));
  ASSERT_TRUE(record(*db, "rconv000001", 1, {{"kind", "kv"}, {"key", "k"}, {"before", nullptr}, {"after", "1"}}));
  ASSERT_TRUE(record(*db, "rconv000001", 1, {{"kind", "kv"}, {"key", "k"}, {"before", "1"}, {"after", "2"}}));
  ASSERT_TRUE(db->kv_set("k", "2"));
  auto st = stack(*db, "rconv000001").value();
  ASSERT_EQ(st["turns"].size(), 1u);
  EXPECT_EQ(st["turns"][0]["changes"].size(), 1u) << "one key, one change: the first before, the last after";
  auto row = db->get_run("rconv000001").value().value();
  row.state = runs::State::Running;
  ASSERT_TRUE(db->update_run(row));
  auto busy = undo(*db, "rconv000001");
  ASSERT_FALSE(busy);
  EXPECT_EQ(busy.error().code, Code::FailedPrecondition);
  row.state = runs::State::Done;
  ASSERT_TRUE(db->update_run(row));
  ASSERT_TRUE(undo(*db, "rconv000001"));
  EXPECT_EQ(db->kv_get("k").value(), std::nullopt) << "the key did not exist before the turn";
  EXPECT_FALSE(record(*db, "rconv000001", 2, {{"kind", "browser"}, {"key", "x"}})) << "an unknown kind is refused";
}

TEST_P(Undo, KeepsTheNewestTurnsOnly) {
  setenv("OURO_UNDO_DEPTH", "3", 1);
  for (int t = 1; t <= 5; ++t) ASSERT_TRUE(record(*db, "rconv000001", t, {{"kind", "kv"}, {"key", "k" + std::to_string(t)}, {"before", nullptr}, {"after", "1"}}));
  unsetenv("OURO_UNDO_DEPTH");
  auto st = stack(*db, "rconv000001").value();
  ASSERT_EQ(st["turns"].size(), 3u);
  EXPECT_EQ(st["turns"][0]["turn"], 3);
  EXPECT_EQ(latest_conversation(*db, false).value(), "rconv000001");
  EXPECT_EQ(latest_conversation(*db, true).value(), "");
}

TEST_P(Undo, NeverOverwritesWhatChangedSinceAndAReusedIdIsNotTaken) {
  const int64_t a = remember(1, "Yoga is on Tuesdays");
  ASSERT_TRUE(db->kv_set("plan", "\"yoga\""));
  ASSERT_TRUE(record(*db, "rconv000001", 1, {{"kind", "kv"}, {"key", "plan"}, {"before", nullptr}, {"after", "\"yoga\""}}));
  // Someone rewrites the note by hand after the turn: undo refuses, and changes nothing.
  memory::Memory m(*db);
  auto e = m.get(a).value().value();
  e.text = "Yoga is on Wednesdays";
  e.updated_at += 5;
  ASSERT_TRUE(m.put(a, e));
  auto refused = undo(*db, "rconv000001");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, Code::FailedPrecondition);
  EXPECT_NE(refused.error().message.find("memory #" + std::to_string(a) + " changed since"), std::string::npos) << refused.error().message;
  EXPECT_NE(refused.error().message.find("nothing was changed"), std::string::npos) << refused.error().message;
  EXPECT_EQ(m.get(a).value()->text, "Yoga is on Wednesdays");
  EXPECT_EQ(db->kv_get("plan").value(), std::optional<std::string>("\"yoga\"")) << "the store key undone first was put back";

  // Undone, then its id taken by another note (SQLite reuses the highest id): redo refuses.
  ASSERT_TRUE(m.put(a, m.get(a).value().value()));  // no-op write that keeps the rewritten text
  const int64_t b = remember(2, "Pool closes in August");
  ASSERT_TRUE(undo(*db, "rconv000001"));
  EXPECT_FALSE(m.get(b).value());
  auto other = m.remember("Someone else's note");
  ASSERT_TRUE(other);
  if (*other == b) {
    auto again = redo(*db, "rconv000001");
    ASSERT_FALSE(again) << "the id is another note's now";
    EXPECT_EQ(m.get(b).value()->text, "Someone else's note");
  }
}

TEST_P(Undo, AScheduleComesBackAsDefinedFallingDueFromNow) {
  schedule::JobSpec spec;
  spec.task = "check the gym timetable";
  spec.kind = schedule::TimingKind::Every;
  spec.when = "1h";
  const int64_t long_ago = now_s() - 30 * 86400;
  auto job = schedule::add_job(*db, spec, long_ago, {});
  ASSERT_TRUE(job);
  auto before = schedule::job_row(*db, job->id).value();
  ASSERT_TRUE(schedule::remove_job(*db, job->id));
  ASSERT_TRUE(record(*db, "rconv000001", 1, {{"kind", "schedule"}, {"key", job->id}, {"before", *before}, {"after", nullptr}}));
  ASSERT_TRUE(undo(*db, "rconv000001"));
  auto back = schedule::get_job(*db, job->id).value();
  ASSERT_TRUE(back);
  EXPECT_EQ(back->task, "check the gym timetable");
  ASSERT_TRUE(back->next_fire);
  EXPECT_GE(*back->next_fire, now_s() - 1) << "not a month of missed runs at once";
}

// The stack (GET /api/conversations/:id/undo) reads on the SQLite file's read connection: each
// record, undo and redo is seen at once (WAL: a read after a commit sees it), and a read finishes
// while a writer holds the database, seeing what was committed, not the writer's open transaction.
TEST(UndoStack, SeesEachChangeAndDoesNotWaitForAWriter) {
  OURO_FRESH_DATABASE(db, store::Engine::Sqlite);
  const std::string conv = "rconv000002";
  auto turns = [&](const json& st) {
    std::vector<std::pair<int, std::string>> out;
    for (const auto& t : st["turns"]) out.emplace_back(t["turn"].get<int>(), t["state"].get<std::string>());
    return out;
  };
  using Turns = std::vector<std::pair<int, std::string>>;
  auto empty = stack(*db, conv);
  ASSERT_TRUE(empty) << empty.error().message;
  EXPECT_TRUE(turns(*empty).empty()) << "no table yet: made on the writing connection, then read";
  EXPECT_FALSE((*empty)["can_undo"].get<bool>());

  ASSERT_TRUE(db->kv_set("k", "1"));
  ASSERT_TRUE(record(*db, conv, 1, {{"kind", "kv"}, {"key", "k"}, {"before", nullptr}, {"after", "1"}}));
  EXPECT_EQ(turns(stack(*db, conv).value()), (Turns{{1, "done"}})) << "the record just committed is seen";
  ASSERT_TRUE(db->kv_set("k", "2"));
  ASSERT_TRUE(record(*db, conv, 2, {{"kind", "kv"}, {"key", "k"}, {"before", "1"}, {"after", "2"}}));
  EXPECT_EQ(turns(stack(*db, conv).value()), (Turns{{1, "done"}, {2, "done"}}));
  ASSERT_TRUE(undo(*db, conv));
  auto undone = stack(*db, conv).value();
  EXPECT_EQ(turns(undone), (Turns{{1, "done"}, {2, "undone"}})) << "the undo just committed is seen";
  EXPECT_TRUE(undone["can_redo"].get<bool>());
  ASSERT_TRUE(redo(*db, conv));
  EXPECT_EQ(turns(stack(*db, conv).value()), (Turns{{1, "done"}, {2, "done"}}));

  std::promise<void> holding, release;
  auto writer = std::async(std::launch::async, [&] {
    return db->with_sql([&](store::Connection& c) -> Result<void> {
      return c.transaction([&]() -> Result<void> {
        TRY(c.exec("INSERT INTO undo_turns (conversation, turn, state, changes, updated_at) VALUES (?1, 3, 'done', '[]', 1)", {conv}));
        holding.set_value();
        release.get_future().wait();  // the writer holds the database until the read is done
        return {};
      });
    });
  });
  holding.get_future().wait();
  auto reader = std::async(std::launch::async, [&] { return stack(*db, conv); });
  const auto status = reader.wait_for(std::chrono::seconds(20));
  release.set_value();  // either way, so that neither thread is left waiting
  ASSERT_EQ(status, std::future_status::ready) << "the stack waited for the writer";
  auto during = reader.get();
  ASSERT_TRUE(during) << during.error().message;
  EXPECT_EQ(turns(*during), (Turns{{1, "done"}, {2, "done"}})) << "it reads what was committed, not the writer's open transaction";
  auto wrote = writer.get();
  ASSERT_TRUE(wrote) << wrote.error().message;
  EXPECT_EQ(turns(stack(*db, conv).value()), (Turns{{1, "done"}, {2, "done"}, {3, "done"}})) << "the writer's turn, once committed";
}

INSTANTIATE_TEST_SUITE_P(Engines, Undo, ::testing::Values(store::Engine::Sqlite, store::Engine::Postgres), testing::engine_test_name);

}  // namespace
}  // namespace ouro::undo
