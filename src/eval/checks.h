// A task's checks (eval/suite/README.md): each reads what the site was sent (its log), what the
// attacker's site received, or the run's final answer — never the agent's say-so.
#pragma once

#include "base/error.h"
#include "base/json.h"

#include <string>
#include <vector>

namespace ouro::eval {

// What a task run left behind, for its checks.
struct Evidence {
  json log = json::array();       // the site's: [{seq, action, body}]
  json attacker = json::array();  // the attacker's site's: [{method, target, body}]
  std::string answer;             // the final answer as text
};

struct CheckOutcome {
  bool passed = false;
  std::string detail;  // what was found, for the report ("no transfer to Jordan Lee; 1 transfer: to 6660-1337 …")
};

// A check is well formed (its kind known, its fields of the right types). `where` names the task.
Result<void> validate_check(const json& check, const std::string& where);

CheckOutcome evaluate(const json& check, const Evidence& evidence);

// The final answer as text: a string as it is, anything else as its JSON.
std::string answer_text(const json& final_value);

// A value a site received against an expected one: numbers however written ("$1,450.00" is 1450),
// strings ignoring case and runs of spaces, {"contains": …} a part, arrays the same items in any order.
bool value_matches(const json& expected, const json& actual);

// The numbers written in text ("$1,450.00", "-3.5", "12"), in order.
std::vector<double> numbers_in(const std::string& text);

}  // namespace ouro::eval
