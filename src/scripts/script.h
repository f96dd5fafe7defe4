// Runs that become scripts: a finished run's code blocks, kept so the same task can be
// done again without a model. A script is the blocks that succeeded, in order, ending with the one
// that called setFinal(); the task's values and the values the run typed into pages are lifted
// into named parameters (`{{name}}` placeholders with defaults). Pure: events in, a script out —
// storage is store.h, replaying is replay.h.
//
// The extraction rule, kept simple on purpose: a block that failed is dropped (its effects, if it
// had any before it threw, are not replayed); every block that succeeded is kept, reads included,
// since a later block may use what it left in `env` or globals; the script ends with the first
// block that called setFinal(). Only the last turn of a conversation counts.
#pragma once

#include "base/error.h"
#include "base/json.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ouro::scripts {

// A named value of the script. In the stored code and task its occurrences are `{{name}}`.
struct Param {
  std::string name;    // [A-Za-z_][A-Za-z0-9_]{0,39}
  std::string value;   // the default: what the recorded run used
  std::string source;  // "task" (from the task's text) | "typed" (typed into a page) | "user"
  json to_json() const;
};

// What an action of a block acted on, as the run's code named it: the call and its selector or
// ref ("type", "#name"), or for act() the command line ("type \"Ada\" into Name"); and what
// identified the element beyond the selector when the run acted on it (the run's `target` event,
// browser/page/heal.js's identify(): role, accessible name, label, placeholder, landmark, heading,
// nearby text, form, stable attributes, frame path, ordinal among namesakes, the near-namesakes
// beside it). A replay finds a changed target again from these (perception/targets.h).
struct Target {
  std::string action;
  std::string target;
  json details;  // null when nothing was recorded (act() lines, a step that did not reach it)
  json to_json() const;
};

struct Step {
  int iteration = 0;            // in the recorded run
  std::string code;             // with `{{name}}` placeholders where parameters were lifted
  std::string intent;           // "type, click" (agent::summarize_code_intent)
  std::vector<Target> targets;
  bool set_final = false;
  // What the block's value and final held when it was recorded ({kind, size}; null when unknown):
  // a replay whose step reads nothing where the recording read something stops there.
  json shape;
  json final_shape;
  json to_json() const;
};

struct Script {
  std::string name;
  int version = 0;          // 1, 2, … per name (0 until stored)
  double created_at = 0;    // ms since the epoch
  std::string source_run;
  std::string task;         // with `{{name}}` placeholders
  std::vector<Param> params;
  std::vector<Step> steps;
  std::vector<std::string> urls;  // the recorded run's start pages: the replay's unless it is given others
  // A version written by a replay (healed selectors, or steps an agent took over): the version it
  // was made from, and what changed ({kind: "heal", step, action, old, new, confidence} |
  // {kind: "agent", from_step, steps}).
  int based_on = 0;
  json changes = json::array();
  json to_json() const;     // {name, version, created_at, source_run, task, params, steps, urls, based_on?, changes?}
};

// A stored event of a run, as from_events reads it.
struct RecordedEvent {
  std::string type;
  json data;
};

// The script of a run from its events (those of its last turn): the rule above. `params`: the
// parameters to lift ({name, value}); nullopt: the proposed ones (propose_params). Fails with
// FailedPrecondition when the run did not end by setFinal(), InvalidArgument for a parameter
// whose name is not an identifier, repeats another's, or whose value is empty.
Result<Script> from_events(const std::string& task, const std::vector<RecordedEvent>& events,
                           const std::optional<std::vector<Param>>& params = std::nullopt);

// The parameters proposed for a task and the code of its kept blocks: the values typed into pages
// (string literals given to type(), fill() and act()'s quoted text; never secret('…')), then the
// task's quoted strings, URLs, dates and numbers. Each value once; names from the field it was
// typed into, else from its kind (text, url, date, number), made unique with a suffix.
std::vector<Param> propose_params(const std::string& task, const std::vector<std::string>& codes);

// `value` as a JavaScript string literal (JSON-escaped: quotes, backslashes, control characters
// and U+2028/U+2029), the only form in which a parameter's value ever enters code.
std::string js_string(const std::string& value);

// The code with each `{{name}}` of a declared parameter replaced by js_string(its value); vars
// override the defaults. Placeholders of undeclared names are left alone, and so is every
// `{{…}}` inside a string literal, template literal or comment: a value lifted from a page is
// never a placeholder, so a typed "{{x}}" stays text.
std::string substitute_code(const std::string& code, const std::vector<Param>& params, const std::map<std::string, std::string>& vars);
// The task text with each `{{name}}` replaced by the value itself (it is text, not code).
std::string substitute_text(const std::string& text, const std::vector<Param>& params, const std::map<std::string, std::string>& vars);

// The code with every occurrence of `value` inside a string literal lifted into `{{name}}`: a
// literal that is the value becomes the placeholder; a literal that contains it (as a whole word)
// is split around it — ("type \"" + {{name}} + "\" into Name") — unless whole_only (numbers).
// Literals given to secret() stay, and so do template literals.
std::string lift(const std::string& code, const std::string& value, const std::string& name, bool whole_only = false);

// The action targets the code names (see Target).
std::vector<Target> targets_of(const std::string& code);

// The code with every string literal whose value is `old` replaced by js_string(`now`) (a healed
// selector put in the step's code). Template literals and secret('…') arguments are left alone.
std::string replace_literal(const std::string& code, const std::string& old, const std::string& now);

// The steps' code of two versions as a line diff ("--- v1", "+++ v2", "@@ step N", "-…", "+…"),
// only the steps that differ; "" when none do.
std::string diff(const Script& from, const Script& to);

// Checks a script's name: 1 to 64 of [A-Za-z0-9_.-] (InvalidArgument saying so).
Result<void> check_name(const std::string& name);

// Script::to_json's inverse, for storage (InvalidArgument naming what is wrong).
Result<Script> script_from_json(const json& j);

}  // namespace ouro::scripts
