// Plans the steps that click: click, tap, press, add … to, the row actions (delete, edit …), the verbs that name their control, close, submit (docs/guides/without-a-model.md).
#include "commands/sentence_impl.h"

#include "commands/words.h"

#include <algorithm>
#include <cstring>
#include <regex>
#include <set>

namespace ouro::commands::detail {

namespace {

// "it", "them all", "this one now": a pronoun, and words after it that name nothing. It points at
// what the steps before acted on, never at a row holding those words.
bool only_pronoun(const std::string& lrest) {
  static const std::set<std::string> pronouns = {"it", "them", "this", "these", "that", "those"};
  static const std::set<std::string> filler = {"now", "all", "both", "too", "again", "also", "please", "one", "ones",
                                               "immediately", "anyway", "as", "well", "for", "me", "right", "away"};
  auto words = split_ws(lrest);
  if (words.empty() || !pronouns.count(words[0])) return false;
  for (size_t i = 1; i < words.size(); ++i) {
    std::string w = words[i];
    while (!w.empty() && (w.back() == '.' || w.back() == '!' || w.back() == ',')) w.pop_back();
    if (!filler.count(w)) return false;
  }
  return true;
}

}  // namespace

bool plan_click(std::string rest, const std::string& source, Clauses& out, bool twice) {
  {
    // "the star icon to mark it as important", "the trash icon in order to delete it": the purpose is not the target.
    static const std::regex purpose("\\s+(?:in order\\s+)?to\\s+(?:mark|make|delete|remove|open|close|show|hide|see|view|save|confirm|send|star|flag|"
                                    "archive|like|share|expand|collapse|reveal|get|continue|proceed|finish|complete|submit|select|choose|"
                                    "toggle|start|stop|play|pause|copy|edit|dismiss|accept|reject)\\s+(?:it|them|this|that|the|a|an|your|my|its|their)\\b.*$",
                                    std::regex::icase);
    std::smatch m;
    if (std::regex_search(rest, m, purpose) && m.position(0) > 0 &&
        std::count(rest.begin(), rest.begin() + static_cast<long>(m.position(0)), '"') % 2 == 0)
      rest = rest.substr(0, static_cast<size_t>(m.position(0)));
  }
  std::string l = lower(rest);
  for (const char* p : {"on ", "at ", "onto "})
    if (starts_with(l, p)) rest = trim(rest.substr(strlen(p))), l = lower(rest);
  if (rest.empty()) return false;
  // "button ONE and button TWO": several targets when each part names one clearly.
  auto parts = split_on_and(rest);
  if (parts.size() > 1) {
    bool clear = true;
    for (auto& p : parts) {
      Target t = parse_target(p);
      if (!(t.exact || !t.roles.empty() || t.kind != Target::Kind::Words)) clear = false;
    }
    if (clear) {
      for (auto& p : parts) {
        Command c = make(twice ? Verb::DoubleClick : Verb::Click, source);
        c.target = parse_target(p);
        out.push_back(c);
      }
      return true;
    }
  }
  Command c = make(twice ? Verb::DoubleClick : Verb::Click, source);
  c.target = parse_target(rest);
  out.push_back(c);
  return true;
}

// "Add Blue Mug to the wishlist": the control that does it, in Blue Mug's card.
std::optional<bool> plan_add_to(const Clause& c, Clauses& out, std::string&) {
  static const std::regex to_re("^(.+?)\\s+to\\s+(?:the\\s+|my\\s+|your\\s+|our\\s+)?(cart|basket|bag|wishlist|wish list|favorites|favourites|"
                                "compare|comparison|collection|playlist|library|watchlist|watch list|reading list|list|trash|archive|folder)$",
                                std::regex::icase);
  std::smatch m;
  if (!std::regex_match(c.rest, m, to_re)) return std::nullopt;
  std::string what = trim(std::string(m[1])), lw = lower(what);
  if (lw == "it" || lw == "them" || lw == "this" || lw == "these" || lw == "that" || lw == "everything" || lw == "all") return std::nullopt;
  std::vector<std::string> q;
  if (std::string left = extract_quoted(what, q); !q.empty() && trim(left).empty()) what = q[0];
  if (starts_with(lower(what), "the ")) what = trim(what.substr(4));
  Command cmd = make(Verb::Click, c.source);
  cmd.target = parse_target(c.verb + " to " + std::string(m[2]));
  cmd.target.text = c.verb + " " + c.rest;
  cmd.target.near = what;
  out.push_back(cmd);
  return true;
}

// "Delete the row for Carol", "edit Bob": the control named by the verb, in the row of what follows.
std::optional<bool> plan_row_action(const Clause& c, Clauses& out, std::string&) {
  if (c.rest.empty() || only_pronoun(c.lrest) || c.lrest.find(" to ") != std::string::npos) return std::nullopt;
  std::string what = c.rest;
  static const std::regex lead("^(the |a |my |this )?((row|entry|line|item|record|card|listing)s? (for|of|with|containing|named|called) |(row|entry|item|record) )?",
                               std::regex::icase);
  what = std::regex_replace(what, lead, "", std::regex_constants::format_first_only);
  std::vector<std::string> q;
  if (std::string left = extract_quoted(what, q); !q.empty() && trim(left).empty()) what = q[0];
  Command cmd = make(Verb::Click, c.source);
  cmd.target = parse_target(c.verb);
  cmd.target.text = c.verb + " " + c.rest;
  cmd.target.near = trim(what);
  out.push_back(cmd);
  return true;
}

// The control is named by the verb and its object: "add it to the cart" → Add to cart; "archive
// them all" → Archive.
std::optional<bool> plan_bare_action(const Clause& c, Clauses& out, std::string&) {
  std::string words = c.verb;
  for (const auto& w : only_pronoun(c.lrest) ? std::vector<std::string>{} : split_ws(c.rest)) {
    std::string lw = lower(w);
    if (lw == "it" || lw == "them" || lw == "this" || lw == "these" || lw == "my" || lw == "your" || lw == "our" || lw == "now") continue;
    words += " " + w;
  }
  Command cmd = make(Verb::Click, c.source);
  cmd.target = parse_target(words);
  out.push_back(cmd);
  return true;
}

// Keys and clicks: "press Enter", "click the Submit button", "double-click the file".
std::optional<bool> plan_press(const Clause& c, Clauses& out, std::string&) {
  const std::string& v = c.verb;
  const std::string& r = c.rest;
  if ((v == "press" || v == "hit") && !c.lrest.empty()) {
    bool named_control = c.lrest.find("button") != std::string::npos || c.lrest.find("link") != std::string::npos || r.find('"') != std::string::npos;
    if (!named_control)
      if (auto key = key_name(r)) {
        Command cmd = make(Verb::Press, c.source);
        cmd.text = *key;
        out.push_back(cmd);
        return true;
      }
  }
  return plan_click(r, c.source, out, v == "double-click" || v == "doubleclick");
}

// "close the dialog": its close control.
std::optional<bool> plan_close(const Clause& c, Clauses& out, std::string&) {
  const std::string& lrest = c.lrest;
  Command cmd = make(Verb::Click, c.source);
  Target t = parse_target(c.rest);
  Target close;
  close.kind = Target::Kind::Words;
  close.text = "close " + c.rest;
  close.name = "close";
  close.within = t.within.empty() ? (lrest.find("dialog") != std::string::npos || lrest.find("popup") != std::string::npos ||
                                     lrest.find("modal") != std::string::npos || lrest.find("window") != std::string::npos
                                         ? "dialog"
                                         : "")
                                  : t.within;
  cmd.target = close;
  out.push_back(cmd);
  return true;
}

// "submit the form"; "confirm the order" is a click on what it names.
std::optional<bool> plan_submit(const Clause& c, Clauses& out, std::string&) {
  if (c.verb != "submit" && !c.rest.empty()) return plan_click(c.rest, c.source, out);
  out.push_back(make(Verb::Submit, c.source));
  return true;
}

}  // namespace ouro::commands::detail
