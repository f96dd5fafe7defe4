// The handlers undo and redo apply per kind of change (undo::handler, undo/kinds.cpp), called
// directly on both engines: each puts the journaled value back only when what is there is still
// what the other side of the change says, refuses otherwise naming the thing (and leaves it as it
// is), says what it did, and treats a change it cannot read as DataLoss. A site change moves that
// site alone; a schedule is compared by its definition, not the scheduler's bookkeeping.
#include "undo/journal.h"

#include "memory/memory.h"
#include "postgres_server.h"
#include "schedule/jobs.h"
#include "scripts/store.h"
#include "store/database.h"
#include "store/run_state.h"

#include <gtest/gtest.h>

#include <chrono>

namespace ouro::undo {
namespace {

const std::string kConversation = "rconv000002";

int64_t now_s() { return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count(); }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

json sites_of(store::Database& db) {
  auto stored = db.get_setting("allowed_sites").value();
  return stored ? parse_json(*stored).value() : json(nullptr);
}

class UndoKinds : public ::testing::TestWithParam<store::Engine> {
 protected:
  void SetUp() override {
    if (auto why = testing::engine_unavailable(GetParam()); !why.empty()) GTEST_SKIP() << why;
    db = std::move(store::Database::open(testing::fresh_database(GetParam()).value()).value());
    store::Database::RunRow row;
    row.id = kConversation;
    row.task = "plan the week";
    row.state = runs::State::Done;
    ASSERT_TRUE(db->insert_run(row));
  }
  // Applies kind's handler as undo (value: the change's before, expect: its after) or redo would.
  Result<std::string> apply(const std::string& kind, const json& key, const json& value, const json& expect) {
    Apply h = handler(kind);
    if (!h) return make_error(Code::NotFound, "no handler for " + kind);
    return h(*db, kConversation, key, value, expect);
  }
  std::unique_ptr<store::Database> db;
};

TEST(UndoHandler, EveryJournaledKindHasOneAndNothingElseDoes) {
  for (const char* kind : {"memory", "kv", "schedule", "script", "setting", "site", "goals"}) EXPECT_NE(handler(kind), nullptr) << kind;
  for (const char* kind : {"", "browser", "KV", "memory ", "cookie", "email"}) EXPECT_EQ(handler(kind), nullptr) << "'" << kind << "'";
  EXPECT_NE(handler("kv"), handler("setting")) << "each kind is its own handler";
}

// --- The key-value store --------------------------------------------------------------------------

TEST_P(UndoKinds, AStoreKeyIsPutBackOnlyWhileItHoldsWhatTheTurnLeft) {
  ASSERT_TRUE(db->kv_set("plan", "\"new\""));
  auto undone = apply("kv", "plan", "\"old\"", "\"new\"");
  ASSERT_TRUE(undone) << undone.error().message;
  EXPECT_TRUE(contains(*undone, "plan")) << *undone;
  EXPECT_EQ(db->kv_get("plan").value(), std::optional<std::string>("\"old\""));

  // Applied again with the same expectation: the key holds "old" now, not "new".
  auto stale = apply("kv", "plan", "\"old\"", "\"new\"");
  ASSERT_FALSE(stale);
  EXPECT_EQ(stale.error().code, Code::FailedPrecondition);
  EXPECT_TRUE(contains(stale.error().message, "store key 'plan' changed since")) << stale.error().message;

  // Someone sets it by hand: a redo that expects "old" refuses and leaves the hand's value.
  ASSERT_TRUE(db->kv_set("plan", "\"by hand\""));
  auto refused = apply("kv", "plan", "\"new\"", "\"old\"");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, Code::FailedPrecondition);
  EXPECT_EQ(db->kv_get("plan").value(), std::optional<std::string>("\"by hand\""));
}

TEST_P(UndoKinds, AStoreKeyTheTurnMadeIsRemovedAndAMissingOneIsNotExpected) {
  ASSERT_TRUE(db->kv_set("fresh", "[1,2]"));
  auto removed = apply("kv", "fresh", nullptr, "[1,2]");
  ASSERT_TRUE(removed) << removed.error().message;
  EXPECT_TRUE(contains(*removed, "removed")) << *removed;
  EXPECT_EQ(db->kv_get("fresh").value(), std::nullopt);
  // Redo: it did not exist, and comes back.
  ASSERT_TRUE(apply("kv", "fresh", "[1,2]", nullptr));
  EXPECT_EQ(db->kv_get("fresh").value(), std::optional<std::string>("[1,2]"));
  // Expecting it absent while it exists is a change since.
  auto exists = apply("kv", "fresh", "[3]", nullptr);
  ASSERT_FALSE(exists);
  EXPECT_EQ(exists.error().code, Code::FailedPrecondition);
  EXPECT_EQ(db->kv_get("fresh").value(), std::optional<std::string>("[1,2]"));
}

TEST_P(UndoKinds, AStoreChangeThatCannotBeReadIsDataLoss) {
  auto no_key = apply("kv", 42, "1", nullptr);
  ASSERT_FALSE(no_key);
  EXPECT_EQ(no_key.error().code, Code::DataLoss);
  auto not_text = apply("kv", "k", 5, nullptr);
  ASSERT_FALSE(not_text);
  EXPECT_EQ(not_text.error().code, Code::DataLoss);
  EXPECT_EQ(db->kv_get("k").value(), std::nullopt) << "nothing written";
}

// --- Settings and allowed sites -------------------------------------------------------------------

TEST_P(UndoKinds, ASettingIsPutBackOrRemovedOnlyWhileItHoldsWhatTheTurnLeft) {
  ASSERT_TRUE(db->set_setting("model", "\"turn's\""));
  auto back = apply("setting", "model", "\"earlier\"", "\"turn's\"");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, "setting 'model' is as it was");
  EXPECT_EQ(db->get_setting("model").value(), std::optional<std::string>("\"earlier\""));

  ASSERT_TRUE(db->set_setting("model", "\"by hand\""));
  auto refused = apply("setting", "model", nullptr, "\"earlier\"");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, Code::FailedPrecondition);
  EXPECT_TRUE(contains(refused.error().message, "setting 'model'")) << refused.error().message;
  EXPECT_EQ(db->get_setting("model").value(), std::optional<std::string>("\"by hand\""));

  ASSERT_TRUE(apply("setting", "model", nullptr, "\"by hand\""));
  EXPECT_EQ(db->get_setting("model").value(), std::nullopt) << "a setting the turn made is removed";

  auto bad = apply("setting", "model", json::array(), nullptr);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, Code::DataLoss);
  EXPECT_EQ(db->get_setting("model").value(), std::nullopt);
  auto no_name = apply("setting", 7, nullptr, nullptr);
  ASSERT_FALSE(no_name);
  EXPECT_EQ(no_name.error().code, Code::DataLoss);
}

TEST_P(UndoKinds, ASiteChangeMovesThatSiteAloneAndNeverBringsBackOneRevokedSince) {
  ASSERT_TRUE(db->set_setting("allowed_sites", R"(["a.example","b.example"])"));
  auto allowed = apply("site", "c.example", true, false);
  ASSERT_TRUE(allowed) << allowed.error().message;
  EXPECT_EQ(*allowed, "c.example is allowed always again");
  EXPECT_EQ(sites_of(*db), json::array({"a.example", "b.example", "c.example"}));
  ASSERT_TRUE(apply("site", "c.example", true, false));
  EXPECT_EQ(sites_of(*db), json::array({"a.example", "b.example", "c.example"})) << "listed once";

  // The user revokes a.example in Settings; undoing and redoing c.example leaves it revoked.
  ASSERT_TRUE(db->set_setting("allowed_sites", R"(["b.example","c.example"])"));
  auto revoked = apply("site", "c.example", false, true);
  ASSERT_TRUE(revoked) << revoked.error().message;
  EXPECT_EQ(*revoked, "c.example is no longer allowed always");
  EXPECT_EQ(sites_of(*db), json::array({"b.example"}));
  ASSERT_TRUE(apply("site", "c.example", true, false));
  EXPECT_EQ(sites_of(*db), json::array({"b.example", "c.example"})) << "a.example stays revoked";
}

TEST_P(UndoKinds, ASiteListThatCannotBeReadStartsAgainFromThatSite) {
  ASSERT_TRUE(apply("site", "first.example", true, false)) << "no list at all";
  EXPECT_EQ(sites_of(*db), json::array({"first.example"}));
  ASSERT_TRUE(db->set_setting("allowed_sites", R"({"not":"a list"})"));
  ASSERT_TRUE(apply("site", "x.example", true, false));
  EXPECT_EQ(sites_of(*db), json::array({"x.example"}));
  auto no_site = apply("site", json::array(), true, false);
  ASSERT_FALSE(no_site);
  EXPECT_EQ(no_site.error().code, Code::DataLoss);
  auto no_flag = apply("site", "y.example", "yes", false);
  ASSERT_FALSE(no_flag);
  EXPECT_EQ(no_flag.error().code, Code::DataLoss);
  EXPECT_EQ(sites_of(*db), json::array({"x.example"}));
}

// --- Memories -------------------------------------------------------------------------------------

TEST_P(UndoKinds, AMemoryIsForgottenAndBroughtBackAsItWas) {
  memory::Memory m(*db);
  auto written = m.remember_entry("Yoga is on Tuesdays");
  ASSERT_TRUE(written) << written.error().message;
  const int64_t id = written->entry.id;
  const json after = json(memory::to_json(written->entry, false));

  auto forgotten = apply("memory", id, nullptr, after);
  ASSERT_TRUE(forgotten) << forgotten.error().message;
  EXPECT_EQ(*forgotten, "memory #" + std::to_string(id) + " forgotten ('Yoga is on Tuesdays')");
  EXPECT_FALSE(m.get(id).value());

  auto back = apply("memory", id, after, nullptr);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, "memory #" + std::to_string(id) + " is 'Yoga is on Tuesdays' again");
  auto now = m.get(id).value();
  ASSERT_TRUE(now);
  EXPECT_EQ(now->text, "Yoga is on Tuesdays");
  EXPECT_EQ(json(memory::to_json(*now, false)), after) << "the same entry, times included";
}

TEST_P(UndoKinds, AMemoryWrittenAgainSinceIsNotOverwritten) {
  memory::Memory m(*db);
  auto written = m.remember_entry("The pool closes in August");
  ASSERT_TRUE(written) << written.error().message;
  const int64_t id = written->entry.id;
  const json after = json(memory::to_json(written->entry, false));
  // The same text remembered again later: its time moved, so it is not what the turn left.
  memory::Entry again = written->entry;
  again.updated_at += 60;
  ASSERT_TRUE(m.put(id, again));
  auto refused = apply("memory", id, nullptr, after);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, Code::FailedPrecondition);
  EXPECT_TRUE(contains(refused.error().message, "memory #" + std::to_string(id) + " changed since")) << refused.error().message;
  ASSERT_TRUE(m.get(id).value()) << "still there";
  // Expected gone while it exists: refused too.
  EXPECT_FALSE(apply("memory", id, after, nullptr));
}

TEST_P(UndoKinds, AMemoryChangeWithoutAnIdOrAnEntryIsRefused) {
  auto text_id = apply("memory", "12", nullptr, nullptr);
  ASSERT_FALSE(text_id);
  EXPECT_EQ(text_id.error().code, Code::DataLoss);
  auto real_id = apply("memory", 1.5, nullptr, nullptr);
  ASSERT_FALSE(real_id);
  EXPECT_EQ(real_id.error().code, Code::DataLoss);
  // An id that is free, and a value that is no entry: nothing is written.
  auto not_entry = apply("memory", 424242, json{{"words", "no id, no text"}}, nullptr);
  ASSERT_FALSE(not_entry);
  memory::Memory m(*db);
  EXPECT_FALSE(m.get(424242).value());
}

// --- Schedules ------------------------------------------------------------------------------------

TEST_P(UndoKinds, AScheduleIsComparedByItsDefinitionNotTheSchedulersBookkeeping) {
  schedule::JobSpec spec;
  spec.task = "check the gym timetable";
  spec.kind = schedule::TimingKind::Every;
  spec.when = "1h";
  auto job = schedule::add_job(*db, spec, now_s(), {});
  ASSERT_TRUE(job) << job.error().message;
  const json made = schedule::job_row(*db, job->id).value().value();
  // The scheduler moves its next fire time by itself: that is no change of the user's.
  ASSERT_TRUE(schedule::set_next_fire(*db, job->id, now_s() + 7200));
  auto removed = apply("schedule", job->id, nullptr, made);
  ASSERT_TRUE(removed) << removed.error().message;
  EXPECT_EQ(*removed, "schedule " + job->id + " removed");
  EXPECT_FALSE(schedule::get_job(*db, job->id).value());

  auto back = apply("schedule", job->id, made, nullptr);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, "schedule " + job->id + " is as it was");
  auto restored = schedule::get_job(*db, job->id).value();
  ASSERT_TRUE(restored);
  EXPECT_EQ(restored->task, "check the gym timetable");
  EXPECT_EQ(restored->when, "1h");

  // Its timing changed by hand: that is a change of the definition, and undo refuses.
  spec.when = "2h";
  ASSERT_TRUE(schedule::change_job(*db, job->id, spec, now_s(), {}));
  auto refused = apply("schedule", job->id, nullptr, made);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, Code::FailedPrecondition);
  EXPECT_TRUE(contains(refused.error().message, "schedule " + job->id + " changed since")) << refused.error().message;
  EXPECT_EQ(schedule::get_job(*db, job->id).value()->when, "2h");

  auto no_id = apply("schedule", 3, nullptr, nullptr);
  ASSERT_FALSE(no_id);
  EXPECT_EQ(no_id.error().code, Code::DataLoss);
}

// --- Scripts --------------------------------------------------------------------------------------

TEST_P(UndoKinds, AScriptVersionIsRemovedAndComesBackWhole) {
  scripts::Script script;
  script.name = "gym";
  script.task = "open the timetable";
  scripts::Step step;
  step.iteration = 1;
  step.code = "setFinal(1)";
  script.steps.push_back(step);
  auto saved = scripts::save(*db, script);
  ASSERT_TRUE(saved) << saved.error().message;
  const json key = {{"name", "gym"}, {"version", saved->version}};
  const json made = scripts::version_row(*db, "gym", saved->version).value().value();

  auto removed = apply("script", key, nullptr, made);
  ASSERT_TRUE(removed) << removed.error().message;
  EXPECT_EQ(*removed, "script gym version " + std::to_string(saved->version) + " removed");
  EXPECT_FALSE(scripts::get(*db, "gym"));

  auto back = apply("script", key, made, nullptr);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, "script gym version " + std::to_string(saved->version) + " is back");
  EXPECT_EQ(scripts::version_row(*db, "gym", saved->version).value(), std::optional<json>(made));

  // Expected gone, yet there: refused, and the version stays.
  auto refused = apply("script", key, made, nullptr);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, Code::FailedPrecondition);
  EXPECT_TRUE(contains(refused.error().message, "script gym version " + std::to_string(saved->version))) << refused.error().message;
  EXPECT_TRUE(scripts::get(*db, "gym"));

  for (const json& bad : {json("gym"), json{{"name", "gym"}}, json{{"version", 1}}, json{{"name", "gym"}, {"version", "1"}}}) {
    auto r = apply("script", bad, nullptr, nullptr);
    ASSERT_FALSE(r) << bad.dump();
    EXPECT_EQ(r.error().code, Code::DataLoss) << bad.dump();
  }
}

// --- Goals ----------------------------------------------------------------------------------------

TEST_P(UndoKinds, TheConversationsGoalsComeBackOnlyWhileTheyAreWhatTheTurnLeft) {
  const json turn_left = json::array({json{{"text", "book the gym"}, {"done", false}}});
  auto kept = store::set_checkpoint_goals(*db, kConversation, turn_left);
  ASSERT_TRUE(kept) << kept.error().message;
  auto undone = apply("goals", "goals", json::array(), turn_left);
  ASSERT_TRUE(undone) << undone.error().message;
  EXPECT_EQ(*undone, "goals are as they were (0)");
  EXPECT_EQ(store::checkpoint_goals(*db, kConversation).value(), json::array());

  auto stale = apply("goals", "goals", json::array(), turn_left);
  ASSERT_FALSE(stale);
  EXPECT_EQ(stale.error().code, Code::FailedPrecondition);
  EXPECT_TRUE(contains(stale.error().message, "goals changed since")) << stale.error().message;

  // None expected reads as an empty list: the redo finds none and puts the turn's back.
  auto redone = apply("goals", "goals", turn_left, nullptr);
  ASSERT_TRUE(redone) << redone.error().message;
  EXPECT_EQ(*redone, "goals are as they were (1)");
  EXPECT_EQ(store::checkpoint_goals(*db, kConversation).value(), turn_left);
}

INSTANTIATE_TEST_SUITE_P(Engines, UndoKinds, ::testing::Values(store::Engine::Sqlite, store::Engine::Postgres), testing::engine_test_name);

}  // namespace
}  // namespace ouro::undo
