// The command language (docs/guides/without-a-model.md): one command per line or `;`, for people
// and models alike, run by act() without a model.
//
//   navigate URL | back | forward | reload
//   click TARGET | double-click TARGET | hover TARGET | focus TARGET | expand TARGET | collapse TARGET
//   type "TEXT" into TARGET          TEXT may be a secret handle: secret:NAME or secret("NAME")
//   fill TARGET with "TEXT" | clear TARGET
//   select "OPTION" from TARGET | choose "OPTION"  (an option, a radio or checkbox label, a list item)
//   check TARGET | uncheck TARGET
//   press KEY                        Enter, Tab, Escape, ArrowDown, Control+A, …
//   scroll down|up|left|right|top|bottom [PIXELS] | scroll to TARGET
//   wait for TARGET | wait for "text" | wait for load | wait N [ms|s]
//   extract [FIELDS from] TARGET     FIELDS: comma-separated names
//   submit [TARGET]
//   use the page's NAME tool [with INPUT]   a tool the page declared (WebMCP); INPUT: "text" (its
//                                    one text parameter), name="value", … or a JSON object
//
// TARGET is a ref (e12, f2e7), a selector of the selector language (role=button[name="OK"],
// text=…, label=…, CSS), or plain words resolved on the page ("the Sign in button", "Email
// field", "the third link", "alpha"). This unit is pure: text in, commands out.
#pragma once

#include "base/error.h"
#include "base/json.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ouro::commands {

enum class Verb {
  Navigate, Back, Forward, Reload,
  Click, DoubleClick, Hover, Focus, Expand, Collapse,
  Type, Clear, Select, Choose, Check, Uncheck,
  Press, Scroll, ScrollTo, Wait, Extract, Submit, UseTool,
};
std::string_view verb_name(Verb v);

// What a command acts on.
struct Target {
  enum class Kind { None, Ref, Selector, Words };
  Kind kind = Kind::None;
  std::string text;               // as written
  // Words only: what identifies the element, the roles its words name, which one of several.
  std::string name;               // "Sign in" (quoted text is kept whole and matched exactly first)
  bool exact = false;             // the name was quoted
  std::vector<std::string> roles; // canonical role words: button, link, textbox, checkbox, radio, list, tab, option, …
  int ordinal = 0;                // 1-based; -1 = last; 0 = not given
  bool all = false;               // "both text fields", "all checkboxes"
  std::string within;             // "in the dialog": dialog, header, footer, nav, aside, form, main
  std::string near;               // "in the row for Bob", "next to Bob": the text whose row/card holds it
  bool empty() const { return kind == Kind::None; }
};

struct Command {
  Verb verb = Verb::Click;
  Target target;
  std::string text;               // type/fill/select/choose value, wait text, navigate URL, press key, the page tool's name
  json input;                     // use: the page tool's input (an object; a string for its one text parameter)
  std::string secret;             // type/fill: the secret's name when the text is a handle
  std::string direction;          // scroll
  double amount = 0;              // scroll pixels; wait milliseconds
  std::vector<std::string> fields;  // extract: the fields; select: every value when there are several
  bool wait_load = false;         // wait for load
  std::string source;             // the clause it came from
  bool or_click = false;          // check: when nothing checkable matches, click the control by that name ("accept the terms")
  bool or_select = false;         // type: "set Language to French" — a list takes the text as its option, a field as its text
};

// Parses one command of the language. InvalidArgument names what is wrong and how to write it.
Result<Command> parse_command(std::string_view line);
// Splits on newlines and `;` outside quotes; blank lines and `#` comments are skipped.
std::vector<std::string> split_lines(std::string_view text);

// Plain words → a Target (roles from role words, ordinals, quoted names, both/all); refs and
// selectors are recognised and kept as written.
Target parse_target(std::string_view words);

// The canonical line of a command ("type \"Kathy\" into the text field"); secrets stay handles.
std::string to_line(const Command& c);
json to_json(const Command& c);
json target_json(const Target& t);

// A key name for `press` (Enter, Tab, Control+A, …), or nullopt when the words are not one.
std::optional<std::string> key_name(std::string_view words);

}  // namespace ouro::commands
