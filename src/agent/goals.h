// A conversation's goals (docs/guides/goals.md): a short checklist the run keeps for
// itself — addGoal, updateGoal, listGoals in the REPL and tool mode — carried across the turns of
// a conversation and across resumes (the events give it back: goal_added, goal_updated), shown in
// the Command Center and in the prompt's stable part. Pure: no I/O; the run guards it.
#pragma once

#include "base/error.h"
#include "base/json.h"

#include <string>

namespace ouro::agent {

constexpr size_t kMaxGoals = 20;
constexpr size_t kGoalChars = 200;  // a goal's text; longer is cut
constexpr size_t kGoalNoteChars = 500;

class Goals {
 public:
  // From a checkpoint or the events: [{id, text, status, note?}]; anything else is no goals.
  explicit Goals(const json& saved = json::array());

  // A new open goal; InvalidArgument for empty text, ResourceExhausted past kMaxGoals.
  Result<json> add(const std::string& text);
  // Changes a goal's status ('open' | 'done' | 'dropped'), note or text; NotFound names the ids.
  Result<json> update(const std::string& id, const json& changes);
  json list() const { return m_goals; }
  // "## Goals" with one line per goal ("- [x] g1 Find the cheapest flight — booked"), or "".
  std::string prompt_section() const;

 private:
  json m_goals = json::array();
  int m_next = 1;
};

}  // namespace ouro::agent
