// addGoal, updateGoal, listGoals: the conversation's checklist, kept by the run (agent/goals.h)
// and reached through its hook; outside a run (ouro exec, ouro repl) there is none.
#include "actions/impl.h"

namespace ouro::actions::impl {

namespace {

Result<json> through_run(Context& ctx, const char* function, const json& args) {
  auto hooks = ctx.hooks();
  if (!hooks || !hooks->goals)
    return errorf(Code::FailedPrecondition, "{}: goals are kept by a run (ouro run, the Command Center, the runs API), not in this REPL", function);
  return hooks->goals(function, args);
}

}  // namespace

Result<json> add_goal(Context& ctx, const json& args) { return through_run(ctx, "addGoal", args); }
Result<json> update_goal(Context& ctx, const json& args) { return through_run(ctx, "updateGoal", args); }
Result<json> list_goals(Context& ctx, const json& args) { return through_run(ctx, "listGoals", args); }

}  // namespace ouro::actions::impl
