// The run manager's answers about runs it is not executing (server/runs.h), on a runtime with a
// database and no browser: an id it does not know is NotFound on every verb, a finished run is not
// cancelled or resumed and says what it is, a request of the wrong shape or without a model key is
// refused before anything is stored, and a run whose companion write was done already is not made.
#include "server/runs.h"
#include "../support/no_model_env.h"
#include "../support/scoped_env.h"
#include "../support/scoped_temp_dir.h"

#include "base/json.h"
#include "runs/state.h"
#include "session/session.h"
#include "store/database.h"

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace ouro::server {
namespace {

class RunManagerTest : public ::testing::Test {
 protected:
  testing::ScopedTempDir tmp;
  std::shared_ptr<session::Runtime> runtime = [this] {
    auto r = std::make_shared<session::Runtime>();
    auto db = store::Database::open(tmp.path + "/ouro.db");
    if (!db) throw std::runtime_error(db.error().message);
    r->db = std::move(*db);
    r->data_dir = tmp.path;
    return r;
  }();
  RunManager manager{runtime, [this] {
                       RunManager::Config c;
                       c.data_dir = tmp.path;
                       c.config_path = tmp.path + "/no-config.json";
                       return c;
                     }()};

  void add_run(const std::string& id, runs::State state) {
    store::Database::RunRow row;
    row.id = id;
    row.task = "a task";
    row.state = state;
    ASSERT_TRUE(runtime->db->insert_run(row));
  }
  size_t stored() {
    auto listed = manager.list();
    EXPECT_TRUE(listed) << listed.error().message;
    return listed ? listed->size() : 0;
  }
};

// Code::Ok when the call succeeded (a verb that should have refused).
Code code_of(const Result<json>& r) { return r ? Code::Ok : r.error().code; }

TEST_F(RunManagerTest, AnIdItDoesNotKnowIsNotFoundOnEveryVerb) {
  const std::string id = "run-that-never-was";
  EXPECT_EQ(code_of(manager.get(id)), Code::NotFound);
  EXPECT_EQ(code_of(manager.cancel(id)), Code::NotFound);
  EXPECT_EQ(code_of(manager.end(id)), Code::NotFound);
  EXPECT_EQ(code_of(manager.resume(id)), Code::NotFound);
  EXPECT_EQ(code_of(manager.events(id, 0)), Code::NotFound);
  EXPECT_EQ(code_of(manager.answer(id, "q1", "yes")), Code::NotFound);
  EXPECT_EQ(code_of(manager.confirm(id, "c1", true)), Code::NotFound);
  EXPECT_EQ(code_of(manager.tabs_of(id)), Code::NotFound);
  EXPECT_EQ(stored(), 0u);
}

TEST_F(RunManagerTest, WithoutAPoolThereIsNoPoolToShow) { EXPECT_EQ(code_of(manager.pool_state()), Code::NotFound); }

TEST_F(RunManagerTest, AFinishedRunIsNeitherCancelledNorResumedAndSaysWhatItIs) {
  add_run("done-run", runs::State::Done);
  auto cancelled = manager.cancel("done-run");
  ASSERT_FALSE(cancelled);
  EXPECT_EQ(cancelled.error().code, Code::FailedPrecondition);
  EXPECT_NE(cancelled.error().message.find("it is done"), std::string::npos) << cancelled.error().message;
  auto resumed = manager.resume("done-run");
  ASSERT_FALSE(resumed);
  EXPECT_EQ(resumed.error().code, Code::FailedPrecondition);
  EXPECT_NE(resumed.error().message.find("only an interrupted run"), std::string::npos) << resumed.error().message;

  // Ending a conversation whose session is not open here is done already.
  auto ended = manager.end("done-run");
  ASSERT_TRUE(ended) << ended.error().message;
  EXPECT_EQ((*ended)["ended"], true);
  auto row = manager.get("done-run");
  ASSERT_TRUE(row) << row.error().message;
  EXPECT_EQ((*row)["state"], "done");
}

TEST_F(RunManagerTest, ARequestOfTheWrongShapeIsRefusedBeforeAnythingIsStored) {
  struct Case {
    json body;
    const char* names;
  };
  for (const auto& c : {Case{json::array(), "task"}, Case{{{"urls", json::array()}}, "task"}, Case{{{"task", 5}}, "task"},
                        Case{{{"task", "x"}, {"urls", "https://a.example"}}, "urls"}, Case{{{"task", "x"}, {"options", {{"bogus", 1}}}}, "bogus"},
                        Case{{{"task", "x"}, {"options", {{"max_iterations", "many"}}}}, "max_iterations"},
                        Case{{{"task", "x"}, {"options", {{"mode", "reckless"}}}}, "mode"}}) {
    auto created = manager.create(c.body);
    ASSERT_FALSE(created) << c.body.dump();
    EXPECT_EQ(created.error().code, Code::InvalidArgument) << c.body.dump() << ": " << created.error().message;
    EXPECT_NE(created.error().message.find(c.names), std::string::npos) << c.body.dump() << ": " << created.error().message;
  }
  EXPECT_EQ(stored(), 0u);
}

TEST_F(RunManagerTest, WithNoModelConfiguredTheRequestIsRefusedNowNotAsAFailedRunLater) {
  testing::ScopedEnv no_anthropic("ANTHROPIC_API_KEY", nullptr);
  testing::ScopedEnv no_openai("OPENAI_API_KEY", nullptr);
  testing::ScopedEnv no_provider("OURO_PROVIDER", nullptr);
  testing::ScopedEnv no_config("OURO_CONFIG", (tmp.path + "/no-config.json").c_str());
  auto created = manager.create({{"task", "Summarize the page"}});
  ASSERT_FALSE(created) << created->dump();
  EXPECT_EQ(created.error().code, Code::FailedPrecondition) << created.error().message;
  EXPECT_NE(created.error().message.find("no model is configured: in Settings"), std::string::npos) << created.error().message;
  EXPECT_EQ(stored(), 0u);
  // A $ command needs no model: it is taken.
  auto command = manager.create({{"task", "$ click Sign in"}, {"options", {{"context", "clean"}}}},
                                [](store::Connection&, const std::string&) -> Result<bool> { return false; });
  ASSERT_FALSE(command);
  EXPECT_EQ(command.error().code, Code::AlreadyExists) << command.error().message;
}

TEST_F(RunManagerTest, AHostedModelWithoutItsKeyIsRefusedNowNotAsAFailedRunLater) {
  testing::NoModelEnv no_model;
  testing::ScopedEnv no_config("OURO_CONFIG", (tmp.path + "/no-config.json").c_str());
  auto created = manager.create({{"task", "Summarize the page"}, {"options", {{"provider", "anthropic"}}}});
  ASSERT_FALSE(created) << created->dump();
  EXPECT_EQ(created.error().code, Code::FailedPrecondition) << created.error().message;
  EXPECT_EQ(get_str(created.error().details, "kind"), "no-key") << created.error().message;
  EXPECT_NE(created.error().message.find("anthropic needs an API key"), std::string::npos) << created.error().message;
  EXPECT_NE(created.error().message.find("ANTHROPIC_API_KEY"), std::string::npos) << "where else a key goes: " << created.error().message;
  // A remote OpenAI-compatible server needs one too; a local one does not.
  auto remote = manager.create({{"task", "Summarize the page"}, {"options", {{"provider", "https://llm.example/v1"}, {"model", "m"}}}});
  ASSERT_FALSE(remote);
  EXPECT_EQ(get_str(remote.error().details, "kind"), "no-key") << remote.error().message;
  EXPECT_EQ(stored(), 0u);
  auto local = manager.create({{"task", "Summarize the page"}, {"options", {{"provider", "http://127.0.0.1:9/v1"}, {"model", "m"}}}},
                              [](store::Connection&, const std::string&) -> Result<bool> { return false; });
  ASSERT_FALSE(local);
  EXPECT_EQ(local.error().code, Code::AlreadyExists) << "taken (up to its companion write): " << local.error().message;
}

TEST_F(RunManagerTest, ARunWhoseCompanionWriteWasDoneAlreadyIsNotMade) {
  auto created = manager.create({{"task", "Every morning, the prices"}, {"options", {{"provider", "script:/nonexistent/script.json"}}}},
                                [](store::Connection&, const std::string&) -> Result<bool> { return false; });
  ASSERT_FALSE(created);
  EXPECT_EQ(created.error().code, Code::AlreadyExists) << created.error().message;
  auto failed = manager.create({{"task", "Every morning, the prices"}, {"options", {{"provider", "script:/nonexistent/script.json"}}}},
                               [](store::Connection&, const std::string&) -> Result<bool> { return make_error(Code::Unavailable, "the scheduler's row is locked"); });
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code, Code::Unavailable);
  EXPECT_EQ(stored(), 0u);
}

}  // namespace
}  // namespace ouro::server
