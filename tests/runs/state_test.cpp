// A run's states: every documented name reads back as itself, the moves a run makes are legal,
// the ones it never makes are refused, and SQL lists are built from the names.
#include "runs/state.h"

#include <gtest/gtest.h>

namespace ouro::runs {
namespace {

TEST(RunState, EveryStateTheApiDocumentsReadsBackAsItself) {
  std::vector<std::string> names;
  for (State s : kAllStates) {
    names.push_back(name_of(s));
    EXPECT_EQ(parse_state(name(s)), s);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"queued", "running", "awaiting_user", "done", "partial", "failed", "cancelled", "interrupted"}));
  EXPECT_FALSE(parse_state("Running")) << "names are exact";
  EXPECT_FALSE(parse_state(""));
  EXPECT_FALSE(parse_state("finished"));
}

TEST(RunState, TheMovesARunMakesAreLegal) {
  // A run's life: queued, running, asking, running, done; a follow-up; a resume after a crash.
  const std::vector<std::pair<State, State>> made = {
      {State::Queued, State::Running},       {State::Running, State::AwaitingUser}, {State::AwaitingUser, State::Running},
      {State::Running, State::Done},         {State::Done, State::Running},         {State::Running, State::Interrupted},
      {State::Interrupted, State::Queued},   {State::Queued, State::Cancelled},     {State::Running, State::Queued},
      {State::Partial, State::Running},      {State::Cancelled, State::Running},    {State::Failed, State::Running},
      {State::Interrupted, State::Running},  {State::AwaitingUser, State::Interrupted}};
  for (auto [from, to] : made) EXPECT_TRUE(can_move(from, to)) << name(from) << " -> " << name(to);
  for (State s : kAllStates) {
    EXPECT_TRUE(can_move(s, State::Failed)) << "any run may fail: " << name(s);
    EXPECT_TRUE(can_move(s, s)) << "staying is no move: " << name(s);
  }
}

TEST(RunState, MovesNoRunMakesAreRefused) {
  const std::vector<std::pair<State, State>> never = {
      {State::Queued, State::Done},          {State::Queued, State::AwaitingUser}, {State::Done, State::Queued},
      {State::Done, State::Interrupted},     {State::Done, State::Cancelled},      {State::Failed, State::Done},
      {State::Cancelled, State::Interrupted}, {State::Partial, State::Done}};
  for (auto [from, to] : never) EXPECT_FALSE(can_move(from, to)) << name(from) << " -> " << name(to);
}

TEST(RunState, InProgressAndEndedSplitTheStates) {
  for (State s : kAllStates) {
    const bool interrupted = s == State::Interrupted;
    EXPECT_NE(in_progress(s), ended(s) || interrupted) << name(s);
  }
  EXPECT_EQ(sql_in_progress(), "('queued', 'running', 'awaiting_user')");
  EXPECT_EQ(sql_list({State::Done, State::Partial}), "('done', 'partial')");
  EXPECT_EQ(sql_quoted(State::Interrupted), "'interrupted'");
}

}  // namespace
}  // namespace ouro::runs
