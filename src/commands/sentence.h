// Plain instructions without a model (a request parser, then a planner):
// "Enter "Kathy" into the text field and press Submit" → intent, goal, constraints, success
// criteria, and the commands of the language that carry it out. Deterministic and pure; what it
// cannot read it lists (not_understood) rather than guess.
#pragma once

#include "commands/language.h"

#include <string>
#include <string_view>
#include <vector>

namespace ouro::commands {

struct ParsedRequest {
  std::string intent;                         // fill_form, choose, click, navigate, extract, search, login, interact
  std::string goal;                           // the request, as given (bounded)
  json constraints = json::object();          // values typed, options chosen, ordinals, counts
  std::vector<std::string> success_criteria;  // one per planned step, in the user's terms
  std::vector<Command> plan;
  std::vector<std::string> notes;             // how clauses were read ("'nothing' selected: no step")
  std::vector<std::string> not_understood;    // clauses it could not read
};

// Reads a request (one or more sentences, lines or `;`-separated commands; command-language
// lines pass through as they are).
ParsedRequest parse_request(std::string_view text);

// The request's parse as JSON: {intent, primaryGoal, constraints, successCriteria, plan: [lines]}.
json to_json(const ParsedRequest& r);

// The criterion a step meets when it did what it says ("\"Kathy\" typed into the text field").
std::string criterion(const Command& c);

// The clauses of a sentence: split at "then", "and", commas and full stops where a new
// instruction (a verb) starts; quotes are never split.
std::vector<std::string> split_clauses(std::string_view sentence);

}  // namespace ouro::commands
