// After a replay, without a browser: a run that healed a step, or that a model took over, leaves
// a new version of its script — the old one kept — made from the run's events but with the
// version's own parameter defaults, task and start pages; a replay that needed neither, or whose
// run cannot become a script, leaves the script as it was.
#include "scripts/rewrite.h"

#include "basics.h"
#include "llm/provider.h"
#include "scripts/store.h"
#include "store/database.h"

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace ouro::scripts {
namespace {

void add_block(std::vector<RecordedEvent>& ev, int it, const std::string& code, bool ok, bool final, std::vector<RecordedEvent> during = {}) {
  ev.push_back({"code-generated", {{"iteration", it}, {"blockIndex", 0}, {"code", code}}});
  for (auto& e : during) ev.push_back(std::move(e));
  json meta = {{"ok", ok}};
  if (!ok) meta["error"] = "click: no element matches '#subscribe'";
  if (final) meta["setFinal"] = true;
  ev.push_back({"code-result", {{"iteration", it}, {"blockIndex", 0}, {"metadata", meta}}});
}

// The version replayed: an email typed, a button clicked, the result read.
Script version_one() {
  Script s;
  s.name = "news";
  s.task = "Subscribe {{email}} to the newsletter";
  s.params = {{"email", "ada@example.com", "typed"}};
  s.urls = {"http://127.0.0.1:9/news"};
  Step type, click, read;
  type.iteration = 1;
  type.code = "await type(activeTab, '#email', {{email}})";
  click.iteration = 2;
  click.code = "await click(activeTab, '#subscribe')";
  read.iteration = 3;
  read.code = "setFinal(await getText(activeTab, '#log'))";
  read.set_final = true;
  s.steps = {type, click, read};
  return s;
}

class Rewrite : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = store::Database::open(":memory:");
    ASSERT_TRUE(opened) << opened.error().message;
    db = std::move(*opened);
    auto saved = scripts::save(*db, version_one());
    ASSERT_TRUE(saved) << saved.error().message;
    v1 = *saved;
  }

  // A finished run of the replay as the database keeps it; its own start pages differ from the script's.
  void record(const std::string& run_id, const std::vector<RecordedEvent>& events) {
    store::Database::RunRow row;
    row.id = run_id;
    row.task = "Subscribe grace@example.com to the newsletter";
    row.state = runs::State::Done;
    row.options = R"({"urls": ["http://127.0.0.1:9/elsewhere"]})";
    row.created_at = row.updated_at = 1700000000;
    ASSERT_TRUE(db->insert_run(row));
    int64_t seq = 0;
    for (const auto& e : events) {
      ++seq;
      ASSERT_TRUE(db->append_event(run_id, seq, e.type, dump_json(e.data), 1700000000.0 + static_cast<double>(seq)));
    }
  }

  int latest_version() {
    auto s = scripts::get(*db, "news");
    return s ? s->version : -1;
  }

  std::unique_ptr<store::Database> db;
  Script v1;
};

const json kHeal = {{"step", 2}, {"action", "click"}, {"old", "#subscribe"}, {"new", "#join"}, {"confidence", 0.8}};

TEST_F(Rewrite, AReplayThatNeitherHealedNorHandedOverLeavesTheScriptAlone) {
  auto replay = ReplayProvider::create(v1, {});
  ASSERT_TRUE(replay) << replay.error().message;
  auto r = save_replayed(*db, "a-run-the-database-does-not-know", **replay);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_FALSE(r->has_value());
  EXPECT_EQ(latest_version(), 1);
}

TEST_F(Rewrite, AHealedReplayOfAnUnknownRunIsNotFoundAndSavesNothing) {
  auto replay = ReplayProvider::create(v1, {});
  ASSERT_TRUE(replay);
  (*replay)->observe("heal", kHeal);
  auto r = save_replayed(*db, "no-such-run", **replay);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::NotFound);
  EXPECT_EQ(latest_version(), 1);
}

TEST_F(Rewrite, AHealedRunThatNeverDeliveredItsFinalSavesNothing) {
  std::vector<RecordedEvent> ev;
  add_block(ev, 1, "await type(activeTab, '#email', \"ada@example.com\")", true, false);
  add_block(ev, 2, "await click(activeTab, '#subscribe')", false, false, {{"heal", kHeal}});
  record("r-stopped", ev);
  auto replay = ReplayProvider::create(v1, {});
  ASSERT_TRUE(replay);
  (*replay)->observe("heal", kHeal);
  auto r = save_replayed(*db, "r-stopped", **replay);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::FailedPrecondition);
  EXPECT_EQ(latest_version(), 1);
}

TEST_F(Rewrite, AHealedReplayBecomesTheNextVersionWithTheOldOneKept) {
  std::vector<RecordedEvent> ev;
  add_block(ev, 1, "await type(activeTab, '#email', \"grace@example.com\")", true, false);
  add_block(ev, 2, "await click(activeTab, '#subscribe')", true, false, {{"heal", kHeal}});
  add_block(ev, 3, "setFinal(await getText(activeTab, '#log'))", true, true);
  record("r-healed", ev);
  auto replay = ReplayProvider::create(v1, {{"email", "grace@example.com"}});
  ASSERT_TRUE(replay);
  (*replay)->observe("heal", kHeal);
  auto r = save_replayed(*db, "r-healed", **replay);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_TRUE(r->has_value());
  const Script& v2 = **r;
  EXPECT_EQ(v2.version, 2);
  EXPECT_EQ(v2.based_on, 1);
  ASSERT_EQ(v2.steps.size(), 3u);
  EXPECT_EQ(v2.steps[0].code, "await type(activeTab, '#email', {{email}})") << "the value this run typed is a parameter again";
  EXPECT_EQ(v2.steps[1].code, "await click(activeTab, \"#join\")") << "the healed selector is in the code";
  ASSERT_EQ(v2.params.size(), 1u);
  EXPECT_EQ(v2.params[0].value, "ada@example.com") << "the version's default, not the value this run used";
  EXPECT_EQ(v2.task, v1.task);
  EXPECT_EQ(v2.urls, v1.urls) << "the script's start pages, not the run's";
  ASSERT_EQ(v2.changes.size(), 1u);
  EXPECT_EQ(v2.changes[0]["kind"], "heal");
  EXPECT_EQ(v2.changes[0]["new"], "#join");
  // As stored: the new version knows what it came from, and the old one is still there.
  auto latest = scripts::get(*db, "news");
  ASSERT_TRUE(latest) << latest.error().message;
  EXPECT_EQ(latest->version, 2);
  EXPECT_EQ(latest->based_on, 1);
  EXPECT_EQ(latest->changes, v2.changes);
  auto first = scripts::get(*db, "news", 1);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->steps[1].code, "await click(activeTab, '#subscribe')");
}

TEST_F(Rewrite, AModelsTakeoverIsSavedWithTheStepItTookOverFrom) {
  const std::string answers = ouro::testing::temp_dir() + "/model.jsonl";
  std::ofstream(answers) << R"({"text": "```repl\nawait click(activeTab, '#join'); setFinal('subscribed')\n```"})" << "\n";
  llm::ProviderSpec spec;
  spec.kind = "script";
  spec.script_path = answers;
  auto model = llm::make_provider(spec);
  ASSERT_TRUE(model) << model.error().message;
  auto replay = ReplayProvider::create(v1, {});
  ASSERT_TRUE(replay);
  (*replay)->set_fallback(std::move(*model), "scripted", "scripted");
  // Step 1 works, step 2 fails, and the next call goes to the model.
  llm::CancelToken cancel;
  auto next = [&] {
    llm::Request req;
    req.messages.push_back({"user", "the page now", {}, {}});
    return (*replay)->complete(req, [](const llm::Delta&) {}, cancel);
  };
  ASSERT_TRUE(next());
  (*replay)->observe("code-result", {{"metadata", {{"ok", true}}}});
  ASSERT_TRUE(next());
  (*replay)->observe("code-result", {{"metadata", {{"ok", false}, {"error", "click: no element matches '#subscribe'"}}}});
  auto taken = next();
  ASSERT_TRUE(taken) << taken.error().message;
  ASSERT_TRUE((*replay)->handed_over());
  EXPECT_EQ((*replay)->heals(), 0);

  std::vector<RecordedEvent> ev;
  add_block(ev, 1, "await type(activeTab, '#email', \"ada@example.com\")", true, false);
  add_block(ev, 2, "await click(activeTab, '#subscribe')", false, false);
  add_block(ev, 3, "await click(activeTab, '#join'); setFinal('subscribed')", true, true);
  record("r-agent", ev);
  auto r = save_replayed(*db, "r-agent", **replay);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_TRUE(r->has_value()) << "a takeover is saved even with nothing healed";
  const Script& v2 = **r;
  EXPECT_EQ(v2.version, 2);
  EXPECT_EQ(v2.based_on, 1);
  ASSERT_EQ(v2.steps.size(), 2u) << "the failed step is dropped; the model's steps follow";
  EXPECT_EQ(v2.steps[0].code, "await type(activeTab, '#email', {{email}})");
  EXPECT_NE(v2.steps[1].code.find("#join"), std::string::npos) << v2.steps[1].code;
  ASSERT_EQ(v2.changes.size(), 1u);
  EXPECT_EQ(v2.changes[0]["kind"], "agent");
  EXPECT_EQ(v2.changes[0]["from_step"], 2);
  EXPECT_EQ(latest_version(), 2);
}

}  // namespace
}  // namespace ouro::scripts
