// The rules of tool-calling mode, as pure
// functions over the steps taken: loop detection (three patterns), self-reflection every five
// steps with the "low efficiency twice → stop" rule, the history the prompt carries (the last 20
// steps), and the lenient reading of a model's JSON answer when it has no native function calling.
#pragma once

#include "base/json.h"

#include <optional>
#include <string>
#include <vector>

namespace ouro::agent {

struct ToolStep {
  int number = 0;
  std::string tool;
  json arguments = json::object();
  bool ok = true;
  std::string outcome;      // one line: what it did, or the error
  std::string page_before;  // a fingerprint of the page (URL and text) before the step
  std::string page_after;   // … and after it
};

// "click {"selector":"e3"}": the identity of an action for loop detection (arguments canonical).
std::string action_key(const std::string& tool, const json& arguments);

// Three loop patterns, checked before the next action runs:
//  1. the same action (tool and arguments) three times in a row;
//  2. the same tool four times in a row while the page did not change;
//  3. the same action five times within the last seven steps (alternating loops).
// Returns why, or nullopt.
std::optional<std::string> detect_loop(const std::vector<ToolStep>& steps, const std::string& tool, const json& arguments);

struct Reflection {
  int at_step = 0;
  int observes = 0, errors = 0, successes = 0, distinct = 0;
  bool page_changed = false;
  std::string efficiency;  // "low" | "medium" | "high"
  std::vector<std::string> issues, suggestions;
  json to_json() const;
  std::string text() const;  // for the next prompt
};
// Self-reflection over the last five steps.
Reflection reflect(const std::vector<ToolStep>& steps);

// "Step 3: click e3 → clicked button "Sign in"", the last `keep` steps (20 by default).
std::string history_text(const std::vector<ToolStep>& steps, size_t keep = 20);

// A model's text answer read as an action, leniently: fenced or bare JSON, trailing commas,
// single quotes, and the shapes {"type":"tool_call","tool":{"name","arguments"}},
// {"type":"final","answer"}, {"type":"ask_user","question"}, {"tool"|"name"|"action": …,
// "arguments"|"args"|"parameters": …}.
struct TextAction {
  enum class Kind { None, Tool, Final, Ask } kind = Kind::None;
  std::string name;        // the tool
  json arguments = json::object();
  json answer;             // Final
  std::string question;    // Ask
  std::string error;       // None: why nothing was read
};
TextAction parse_text_action(const std::string& text);

}  // namespace ouro::agent
