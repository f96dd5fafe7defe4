// addGoal, updateGoal, listGoals (actions/goals.cpp): outside a run there is no checklist and the
// call says where goals are kept; in a run each call reaches the run's goals with its name and
// its arguments as the registry checked them, and the run's answer (or its error) is the call's.
#include "browser_env.h"

#include "actions/host.h"

#include <mutex>

namespace ouro::testing {
namespace {

TEST(GoalCalls, OutsideARunTheCallSaysGoalsAreKeptByARun) {
  auto s = isolated_session();
  for (const char* call : {"await addGoal('find the invoice')", "await updateGoal('g1', {status: 'done'})", "await listGoals()"}) {
    std::string err = fails(call, s.get());
    EXPECT_NE(err.find("goals are kept by a run"), std::string::npos) << call << ": " << err;
  }
}

TEST(GoalCalls, InARunEachCallReachesTheRunsGoals) {
  auto s = isolated_session();
  std::mutex mutex;
  std::vector<std::pair<std::string, json>> heard;
  auto hooks = std::make_shared<host::Context::Hooks>();
  hooks->goals = [&](const std::string& function, const json& args) -> Result<json> {
    std::lock_guard lock(mutex);
    heard.emplace_back(function, args);
    if (function == "updateGoal" && args[0] != "g1") return make_error(Code::NotFound, "no goal " + args[0].get<std::string>());
    if (function == "listGoals") return json::array({{{"id", "g1"}, {"text", "find the invoice"}, {"status", "open"}}});
    return json{{"id", "g1"}, {"text", "find the invoice"}, {"status", function == "addGoal" ? "open" : "done"}};
  };
  s->host().context().set_hooks(hooks);
  json r = ok("({ added: await addGoal('find the invoice'), updated: await updateGoal('g1', {status: 'done'}), all: await listGoals() })",
              s.get());
  EXPECT_EQ(r["added"]["status"], "open");
  EXPECT_EQ(r["updated"]["status"], "done");
  EXPECT_EQ(r["all"].size(), 1u);
  std::string err = fails("await updateGoal('g9', {status: 'done'})", s.get());
  EXPECT_NE(err.find("no goal g9"), std::string::npos) << err;
  // Arguments the registry refuses never reach the run.
  std::string bad = fails("await updateGoal('g1', {status: 'finished'})", s.get());
  EXPECT_NE(bad.find("status"), std::string::npos) << bad;
  std::lock_guard lock(mutex);
  ASSERT_EQ(heard.size(), 4u);
  EXPECT_EQ(heard[0].first, "addGoal");
  EXPECT_EQ(heard[0].second, json::array({"find the invoice"}));
  EXPECT_EQ(heard[1].first, "updateGoal");
  EXPECT_EQ(heard[1].second, json::array({"g1", {{"status", "done"}}}));
  EXPECT_EQ(heard[2].first, "listGoals");
  EXPECT_EQ(heard[3].second[0], "g9");
}

}  // namespace
}  // namespace ouro::testing
