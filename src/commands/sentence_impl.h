// The planner's shared helpers and its planners by kind of step (internal to the commands module; docs/design/architecture.md).
#pragma once

#include "commands/language.h"

#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ouro::commands::detail {

using Clauses = std::vector<Command>;

// A clause as the planners see it: the clause (each command's source), its verb and the words after it.
struct Clause {
  std::string source;
  std::string verb;   // the first word, lower case
  std::string rest;   // the words after the verb, as given
  std::string lrest;  // rest, lower case
};

// A planner for some verbs: true planned, false not understood, nullopt not its clause (the next
// planner of the table is asked).
using Planner = std::optional<bool> (*)(const Clause& c, Clauses& out, std::string& note);

// Verbs that are the name of the control that does them: "continue", "save", "add it to the cart".
const std::set<std::string>& bare_actions();

inline Command make(Verb v, std::string source) {
  Command c;
  c.verb = v;
  c.source = std::move(source);
  return c;
}

struct Quoted {
  std::string before, value, after;
};
// The quoted values of a clause with the text between them.
std::vector<Quoted> quoted_parts(const std::string& s);

// Strips a leading preposition ("into the field" → "the field").
std::string after_prep(const std::string& s, std::initializer_list<const char*> preps);

// Fields (sentence_fields.cpp).
// "enter / type / fill in …" without the verb.
bool plan_type(const std::string& verb, std::string rest, const std::string& source, Clauses& out, std::string& note);
std::optional<bool> plan_use_to(const Clause& c, Clauses& out, std::string& note);
std::optional<bool> plan_change_to(const Clause& c, Clauses& out, std::string& note);
std::optional<bool> plan_enter(const Clause& c, Clauses& out, std::string& note);
std::optional<bool> plan_clear(const Clause& c, Clauses& out, std::string& note);
std::optional<bool> plan_focus(const Clause& c, Clauses& out, std::string& note);

// Choices (sentence_choices.cpp).
// select / choose / pick without the verb.
bool plan_choose(std::string rest, const std::string& source, Clauses& out, std::string& note);
// check / uncheck without the verb.
bool plan_check(bool on, std::string rest, const std::string& source, Clauses& out);
std::optional<bool> plan_rating(const Clause& c, Clauses& out, std::string& note);
std::optional<bool> plan_filter(const Clause& c, Clauses& out, std::string& note);
std::optional<bool> plan_accept(const Clause& c, Clauses& out, std::string& note);
std::optional<bool> plan_turn_on_off(const Clause& c, Clauses& out, std::string& note);
std::optional<bool> plan_switch_to(const Clause& c, Clauses& out, std::string& note);
std::optional<bool> plan_select(const Clause& c, Clauses& out, std::string& note);
std::optional<bool> plan_tick(const Clause& c, Clauses& out, std::string& note);
std::optional<bool> plan_untick(const Clause& c, Clauses& out, std::string& note);
std::optional<bool> plan_toggle(const Clause& c, Clauses& out, std::string& note);
std::optional<bool> plan_open_sections(const Clause& c, Clauses& out, std::string& note);
std::optional<bool> plan_expand(const Clause& c, Clauses& out, std::string& note);

// Clicks (sentence_clicks.cpp).
// click / tap without the verb; `twice` for a double click.
bool plan_click(std::string rest, const std::string& source, Clauses& out, bool twice = false);
std::optional<bool> plan_add_to(const Clause& c, Clauses& out, std::string& note);
std::optional<bool> plan_row_action(const Clause& c, Clauses& out, std::string& note);
std::optional<bool> plan_bare_action(const Clause& c, Clauses& out, std::string& note);
std::optional<bool> plan_press(const Clause& c, Clauses& out, std::string& note);
std::optional<bool> plan_close(const Clause& c, Clauses& out, std::string& note);
std::optional<bool> plan_submit(const Clause& c, Clauses& out, std::string& note);

// Navigation, search and reading (sentence_navigation.cpp).
std::optional<bool> plan_look_through(const Clause& c, Clauses& out, std::string& note);
std::optional<bool> plan_go(const Clause& c, Clauses& out, std::string& note);
std::optional<bool> plan_return(const Clause& c, Clauses& out, std::string& note);
std::optional<bool> plan_back(const Clause& c, Clauses& out, std::string& note);
std::optional<bool> plan_reload(const Clause& c, Clauses& out, std::string& note);
std::optional<bool> plan_search(const Clause& c, Clauses& out, std::string& note);
std::optional<bool> plan_log_in(const Clause& c, Clauses& out, std::string& note);
std::optional<bool> plan_find(const Clause& c, Clauses& out, std::string& note);
std::optional<bool> plan_read(const Clause& c, Clauses& out, std::string& note);

}  // namespace ouro::commands::detail
