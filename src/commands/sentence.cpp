// The request parser and the planner's dispatch: clauses, the table of planners by verb, intent and criteria (docs/design/architecture.md, docs/guides/without-a-model.md).
#include "commands/sentence.h"

#include "base/text.h"
#include "commands/sentence_impl.h"
#include "commands/words.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <regex>
#include <set>

namespace ouro::commands {

namespace detail {

const std::set<std::string>& bare_actions() {
  static const std::set<std::string> v = {
      "continue", "proceed", "save", "next", "create", "add", "register", "send", "apply", "finish", "buy", "order", "checkout",
      "remove", "delete", "complete", "place", "book", "subscribe", "join", "post", "publish", "update", "reply", "share", "download",
      "start", "begin", "retry", "cancel", "edit", "archive", "undo", "reset", "done", "upgrade", "unsubscribe", "comment", "vote",
  };
  return v;
}

// The quoted values of a clause with the text between them.
std::vector<Quoted> quoted_parts(const std::string& s) {
  std::vector<Quoted> out;
  std::string before;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '"') {
      size_t end = s.find('"', i + 1);
      if (end == std::string::npos) break;
      Quoted q{trim(before), s.substr(i + 1, end - i - 1), ""};
      out.push_back(q);
      before.clear();
      i = end;
      continue;
    }
    before += s[i];
  }
  if (!out.empty()) out.back().after = trim(before);
  return out;
}

// Strips a leading preposition ("into the field" → "the field").
std::string after_prep(const std::string& s, std::initializer_list<const char*> preps) {
  std::string t = trim(s), l = lower(t);
  for (const char* p : preps) {
    std::string_view prep(p);
    if (starts_with(l, p)) return trim(t.substr(prep.size()));
    // The preposition alone ("search for", "go to"): nothing follows it.
    if (!prep.empty() && prep.back() == ' ' && l == prep.substr(0, prep.size() - 1)) return "";
  }
  return t;
}

}  // namespace detail

namespace {

using detail::bare_actions;

const std::set<std::string>& clause_verbs() {
  static std::set<std::string> v = {
      "click", "tap", "press", "hit", "push", "enter", "type", "input", "write", "fill", "put", "insert", "select", "choose", "pick",
      "check", "tick", "mark", "uncheck", "untick", "unmark", "deselect", "unselect", "clear", "submit", "go", "navigate", "open",
      "visit", "scroll", "wait", "switch", "expand", "collapse", "close", "dismiss", "focus", "search", "extract", "get", "collect",
      "set", "hover", "then", "finally", "double-click", "doubleclick", "accept", "confirm", "login", "log", "sign", "return", "back",
      "reload", "refresh", "toggle", "activate", "follow", "show", "hide", "list", "provide", "use", "move", "change", "find", "also",
      "look", "browse", "locate", "agree", "turn", "enable", "disable", "give", "rate", "filter",
  };
  v.insert(bare_actions().begin(), bare_actions().end());
  return v;
}

std::string first_word(std::string_view s) {
  auto t = split_ws(lower(s));
  if (t.empty()) return "";
  std::string w = t[0];
  while (!w.empty() && !std::isalnum(static_cast<unsigned char>(w.back())) && w.back() != '-') w.pop_back();
  return w;
}

bool starts_clause(std::string_view rest) { return clause_verbs().count(first_word(rest)) > 0; }

std::string strip_lead(std::string s) {
  static const std::vector<std::string> lead = {"and then ", "then ", "and ", "finally ", "next ", "please ", "now ", "first ",
                                                "also ", "after that ", "afterwards ", "lastly ", "last ", "second ", "third "};
  bool changed = true;
  while (changed) {
    changed = false;
    s = trim(s);
    while (!s.empty() && (s[0] == ',' || s[0] == '-' || s[0] == ':')) s = trim(s.substr(1));
    std::string l = lower(s);
    for (const auto& w : lead)
      if (starts_with(l, w) && (w != "last " && w != "second " && w != "third " ? true : starts_clause(s.substr(w.size())))) {
        s = s.substr(w.size());
        changed = true;
        break;
      }
    if (starts_with(lower(s), "please")) s = s.substr(6), changed = true;
  }
  while (!s.empty() && (s.back() == '.' || s.back() == '!' || s.back() == ',')) s.pop_back();
  return trim(s);
}

// Is the text at i a full stop ending a sentence (not a decimal, a URL, a date or "e.g.")?
bool sentence_end(std::string_view s, size_t i) {
  if (s[i] != '.' && s[i] != '!' && s[i] != '?') return false;
  if (i + 1 >= s.size()) return true;
  return std::isspace(static_cast<unsigned char>(s[i + 1])) != 0;
}

}  // namespace

std::vector<std::string> split_clauses(std::string_view sentence) {
  std::string s = normalize_quotes(sentence);
  auto cut = [](std::string_view str, size_t i) -> int {
    if (sentence_end(str, i)) return -1;
    char c = str[i];
    if (c != ',' && c != ' ') return 0;
    std::string_view rest = str.substr(i);
    std::string lr = lower(rest.substr(0, 16));
    // ", then click", " and press", " then type": a new instruction starts at its verb.
    if (c == ',' && starts_clause(strip_lead(std::string(rest.substr(1, 64))))) return 1;
    // ", then" and "and then" always start another instruction (understood or not); a bare "and"
    // only before a verb ("Bob and Alice" are two values).
    if (c == ',' && starts_with(lower(trim(rest.substr(1, 16))), "then ")) return 1;
    if (starts_with(lr, " and then ")) return 10;
    for (std::string_view j : {" then ", " and ", " & "})
      if (starts_with(lr, j) && starts_clause(strip_lead(std::string(rest.substr(j.size(), 64))))) return static_cast<int>(j.size());
    return 0;
  };
  std::vector<std::string> out;
  for (auto& piece : split_outside_quotes(s, cut))
    if (auto t = strip_lead(piece); !t.empty()) out.push_back(std::move(t));
  return out;
}

namespace {

using detail::Clause;
using detail::Clauses;
using detail::make;

// Words that ask for a judgement over what the page shows ("the cheapest", "the best one"): no
// plan can bind them without reading and comparing, so the clause is not understood (a model
// run, or `ouro run --agent tools`, is for those).
bool needs_judgement(const std::string& l) {
  static const std::regex re(
      "\\b(cheapest|least expensive|most expensive|priciest|best|worst|highest|lowest|newest|latest|oldest|most recent|most popular|"
      "top[- ]rated|largest|biggest|smallest|longest|shortest|fastest|closest|nearest|earliest|"
      "similar to|synonyms?|opposite of|antonyms?|rhym\\w*|related to|means the same)\\b");
  std::vector<std::string> quoted;
  std::string outside = extract_quoted(l, quoted);  // a quoted name ("Best Buy") is a name
  return std::regex_search(outside, re);
}

// "click Next three times", "press Tab twice": how many times (1 when not said); the words go.
int repetitions(std::string& s) {
  static const std::regex re("\\s+(once|twice|thrice|(\\d{1,2}|two|three|four|five|six|seven|eight|nine|ten)\\s+times)\\s*[.!]?$", std::regex::icase);
  std::smatch m;
  if (!std::regex_search(s, m, re)) return 1;
  std::string w = lower(std::string(m[1]));
  static const std::map<std::string, int> n = {{"once", 1}, {"twice", 2}, {"thrice", 3}, {"two", 2}, {"three", 3}, {"four", 4}, {"five", 5},
                                               {"six", 6}, {"seven", 7}, {"eight", 8}, {"nine", 9}, {"ten", 10}};
  int count = 1;
  std::string first = w.substr(0, w.find(' '));
  if (auto it = n.find(first); it != n.end()) count = it->second;
  else if (std::isdigit(static_cast<unsigned char>(first[0]))) count = std::stoi(first);
  s = s.substr(0, static_cast<size_t>(m.position(0)));
  return std::clamp(count, 1, 20);
}

bool plan_one(const std::string& clause, Clauses& out, std::string& note);

// "For the user @nulla", "in the row for Bob", "Find the email by Cristin": the text whose item
// the next steps act in, when that is all the clause says.
std::optional<std::string> scope_of(const std::string& clause) {
  static const std::regex lead(
      "^(?:for|within|inside|in|on|under)\\s+(?:the\\s+|a\\s+)?(?:user|person|account|item|row|entry|email|e-mail|message|post|tweet|product|"
      "card|listing|order|record|comment|contact|file|thread|conversation|profile)\\s+(?:for\\s+|of\\s+|from\\s+|named\\s+|called\\s+|by\\s+|with\\s+)?(.+)$",
      std::regex::icase);
  static const std::regex find(
      "^(?:find|locate|look\\s+for|go\\s+to|scroll\\s+to)\\s+(?:the\\s+|an?\\s+)?(?:email|e-mail|message|post|tweet|row|entry|item|product|card|user|listing|"
      "comment|order|record|contact|file|thread|conversation)s?\\s+(?:by|from|for|of|named|called|about|with|mentioning|sent\\s+by|written\\s+by)\\s+(.+)$",
      std::regex::icase);
  std::smatch m;
  if (!std::regex_match(clause, m, lead) && !std::regex_match(clause, m, find)) return std::nullopt;
  std::string what = trim(std::string(m[1]));
  while (!what.empty() && (what.back() == ',' || what.back() == '.')) what.pop_back();
  std::vector<std::string> q;
  if (std::string left = extract_quoted(what, q); !q.empty() && trim(left).empty()) what = q[0];
  if (what.empty() || split_ws(what).size() > 6) return std::nullopt;
  return what;
}

// One clause → commands; false when it is not understood.
bool plan_clause(const std::string& clause_in, Clauses& out, std::string& note) {
  std::string clause = clause_in;
  if (needs_judgement(lower(clause))) return false;
  int times = repetitions(clause);
  size_t before = out.size();
  if (!plan_one(clause, out, note)) return false;
  if (times > 1) {
    std::vector<Command> once(out.begin() + static_cast<long>(before), out.end());
    for (int i = 1; i < times; ++i) out.insert(out.end(), once.begin(), once.end());
    note = "repeated " + std::to_string(times) + " times";
  }
  return true;
}

// The planners by the verb that starts a clause, asked in this order; the first that answers (not
// nullopt) plans the clause. A verb may have several ("change the quantity to 3" is a value,
// "change to the Billing tab" a tab), so the order is part of the grammar.
struct PlannerEntry {
  std::set<std::string> verbs;
  detail::Planner plan;
};

const std::vector<PlannerEntry>& planners() {
  using namespace detail;
  static const std::vector<PlannerEntry> table = {
      {{"use"}, plan_use_to},
      {{"change"}, plan_change_to},
      {{"give", "rate"}, plan_rating},
      {{"filter"}, plan_filter},
      {{"add", "move", "save"}, plan_add_to},
      {{"switch", "look", "browse", "go", "search", "move", "navigate"}, plan_look_through},
      {{"go", "navigate", "open", "visit", "browse", "load"}, plan_go},
      {{"return"}, plan_return},
      {{"back"}, plan_back},
      {{"reload", "refresh"}, plan_reload},
      {{"delete", "remove", "edit", "archive", "cancel", "reply", "share", "download", "update"}, plan_row_action},
      {bare_actions(), plan_bare_action},
      {{"accept", "agree"}, plan_accept},
      {{"turn", "switch"}, plan_turn_on_off},
      {{"switch", "change", "move"}, plan_switch_to},
      {{"press", "hit", "push", "tap", "click", "double-click", "doubleclick", "activate", "follow"}, plan_press},
      {{"enter", "type", "input", "write", "fill", "put", "insert", "provide", "key", "use", "set"}, plan_enter},
      {{"select", "choose", "pick"}, plan_select},
      {{"check", "tick", "mark", "enable"}, plan_tick},
      {{"uncheck", "untick", "unmark", "deselect", "unselect", "disable"}, plan_untick},
      {{"toggle"}, plan_toggle},
      {{"clear"}, plan_clear},
      {{"focus"}, plan_focus},
      {{"expand", "open"}, plan_open_sections},
      {{"expand", "collapse", "show", "hide"}, plan_expand},
      {{"close", "dismiss"}, plan_close},
      {{"submit", "confirm"}, plan_submit},
      {{"search"}, plan_search},
      {{"log", "sign", "login"}, plan_log_in},
      {{"find", "locate"}, plan_find},
      {{"scroll", "wait", "extract", "get", "collect", "list", "find"}, plan_read},
  };
  return table;
}

bool plan_one(const std::string& clause, Clauses& out, std::string& note) {
  std::string l = lower(clause);
  // "… by clicking X": the means is the instruction.
  for (const char* by : {" by clicking on ", " by clicking ", " by pressing ", " by tapping ", " by hitting ", " by selecting "})
    if (auto at = l.find(by); at != std::string::npos) {
      std::string what = trim(clause.substr(at + strlen(by)));
      if (std::string(by).find("pressing") != std::string::npos || std::string(by).find("hitting") != std::string::npos)
        if (auto key = key_name(what)) {
          Command c = make(Verb::Press, clause);
          c.text = *key;
          out.push_back(c);
          return true;
        }
      if (std::string(by).find("selecting") != std::string::npos) return detail::plan_choose(what, clause, out, note);
      return detail::plan_click(what, clause, out);
    }
  if (split_ws(l).empty()) return false;
  Clause c;
  c.source = clause;
  c.verb = first_word(l);
  // The words after the verb.
  size_t pos = 0;
  while (pos < clause.size() && std::isspace(static_cast<unsigned char>(clause[pos]))) ++pos;
  while (pos < clause.size() && !std::isspace(static_cast<unsigned char>(clause[pos]))) ++pos;
  c.rest = trim(clause.substr(pos));
  c.lrest = lower(c.rest);
  for (const auto& entry : planners())
    if (entry.verbs.count(c.verb))
      if (auto planned = entry.plan(c, out, note)) return *planned;
  // Command-language forms the natural patterns do not cover.
  if (auto cmd = parse_command(clause)) {
    cmd->source = clause;
    out.push_back(*cmd);
    return true;
  }
  return false;
}


std::string quote(const std::string& s) { return "\"" + s + "\""; }

std::string target_words(const Target& t) {
  if (t.empty()) return "the focused field";
  return t.text.empty() ? (t.name.empty() ? "it" : t.name) : t.text;
}

}  // namespace

std::string criterion(const Command& c) {
  std::string v = c.secret.empty() ? quote(c.text) : "secret " + c.secret;
  switch (c.verb) {
    case Verb::Navigate: return "on " + c.text;
    case Verb::Back: return "went back a page";
    case Verb::Forward: return "went forward a page";
    case Verb::Reload: return "page reloaded";
    case Verb::Type: return v + " typed into " + target_words(c.target);
    case Verb::Clear: return target_words(c.target) + " empty";
    case Verb::Select: return quote(c.text) + " selected in " + target_words(c.target);
    case Verb::Choose: return quote(c.text) + " chosen";
    case Verb::Check: return target_words(c.target) + " checked";
    case Verb::Uncheck: return target_words(c.target) + " unchecked";
    case Verb::Press: return c.text + " pressed";
    case Verb::Scroll: return "scrolled " + c.direction;
    case Verb::ScrollTo: return target_words(c.target) + " in view";
    case Verb::Wait: return c.wait_load ? "page loaded" : !c.text.empty() ? quote(c.text) + " on the page" : !c.target.empty() ? target_words(c.target) + " present" : "waited";
    case Verb::Extract: return "rows extracted from " + target_words(c.target);
    case Verb::Submit: return "form submitted";
    case Verb::UseTool: return "the page's " + c.text + " tool answered";
    case Verb::Expand: return target_words(c.target) + " expanded";
    case Verb::Collapse: return target_words(c.target) + " collapsed";
    case Verb::Focus: return target_words(c.target) + " focused";
    case Verb::Hover: return "pointer over " + target_words(c.target);
    case Verb::Click: case Verb::DoubleClick: return "clicked " + target_words(c.target);
  }
  return "";
}

ParsedRequest parse_request(std::string_view text_in) {
  ParsedRequest r;
  std::string text(text_in.substr(0, std::min<size_t>(text_in.size(), 20000)));
  r.goal = clip_text(trim(text), 500);
  json values = json::array(), choices = json::array();
  std::set<std::string> kinds;
  std::string scope, last_verb;
  for (const auto& line : split_lines(text)) {
    // A line of the command language is taken as it is, unless it asks for a judgement, holds
    // more than one clause, or the planners read it (below); "… three times" repeats it.
    std::string once = line;
    int times = repetitions(once);
    if (auto c = parse_command(once); c && c->verb != Verb::Extract && !needs_judgement(lower(line))) {
      bool plain = true;
      std::string l = lower(line);
      for (const char* j : {" and ", " then ", ", "})
        if (l.find(j) != std::string::npos) plain = false;
      // A sentence that reads as a command ("Click the Save button to save your changes", "Clear
      // the Remember me box") goes to the planners all the same when they read more in it: the
      // purpose, the means, the casing or the kind of box. A line they read as itself stays the
      // command it is (its target may be of a kind they do not make, a page's tool).
      Clauses read_as_sentence;
      std::string unused;
      auto reads_more = [&] {
        // A page's tool is a step only the command language names.
        if (times > 1 || c->verb == Verb::UseTool || !plan_clause(line, read_as_sentence, unused)) return false;
        return read_as_sentence.size() != 1 || to_line(read_as_sentence[0]) != to_line(*c);
      };
      if (plain && !reads_more()) {
        for (int i = 0; i < times; ++i) r.plan.push_back(*c);
        continue;
      }
    }
    for (const auto& clause : split_clauses(line)) {
      Clauses cmds;
      std::string note;
      // "For the user @nulla, click Retweet", "Find the email by Cristin and click the star": a
      // clause that only says where the next steps act.
      if (auto where = scope_of(clause)) {
        scope = *where;
        r.notes.push_back("'" + clip_text(clause, 120) + "': the next steps act on the item with \"" + scope + "\"");
        continue;
      }
      bool planned = plan_clause(clause, cmds, note), inherited = false;
      // "Click File, then Export, then PDF": a bare target after "then" takes the verb before it.
      // Only a name ("Export", "PDF", "Fit width"), never an unknown verb ("frobnicate TWO").
      auto bare_name = [](const std::string& c) {
        unsigned char c0 = c.empty() ? 0 : static_cast<unsigned char>(c[0]);
        return std::isupper(c0) || std::isdigit(c0) || c0 == '"';
      };
      if (!planned && !last_verb.empty() && split_ws(clause).size() <= 4 && !starts_clause(clause) && bare_name(clause)) {
        cmds.clear();
        note.clear();
        planned = plan_clause(last_verb + " " + clause, cmds, note);
        if (planned) note = "read as '" + last_verb + " " + clip_text(clause, 80) + "'";
        inherited = planned;
      }
      if (!planned) {
        r.not_understood.push_back(clause);
        continue;
      }
      {
        std::string fw = inherited ? last_verb : first_word(clause);
        if (fw == "click" || fw == "tap" || fw == "select" || fw == "choose" || fw == "pick" || fw == "open" || fw == "hover" ||
            fw == "check" || fw == "uncheck")
          last_verb = fw;
        else
          last_verb.clear();
      }
      if (!scope.empty())
        for (auto& c : cmds)
          if (c.target.kind == Target::Kind::Words && c.target.near.empty() && c.target.ordinal == 0 &&
              (c.verb == Verb::Click || c.verb == Verb::DoubleClick || c.verb == Verb::Hover || c.verb == Verb::Check ||
               c.verb == Verb::Uncheck || c.verb == Verb::Expand))
            c.target.near = scope;
      scope.clear();  // the clause right after it only
      if (!note.empty()) r.notes.push_back("'" + clip_text(clause, 120) + "': " + note);
      for (auto& c : cmds) r.plan.push_back(std::move(c));
    }
  }
  // "… and click it": the pronoun is the target of the step before.
  for (size_t i = 1; i < r.plan.size(); ++i) {
    Target& t = r.plan[i].target;
    std::string n = lower(t.name);
    if (t.kind == Target::Kind::Words && t.roles.empty() && !t.ordinal && (n == "it" || n == "them" || n == "that" || n == "this") &&
        !r.plan[i - 1].target.empty())
      t = r.plan[i - 1].target;
  }
  for (const auto& c : r.plan) {
    switch (c.verb) {
      case Verb::Type: kinds.insert("type"); values.push_back(c.secret.empty() ? json(c.text) : json{{"secret", c.secret}}); break;
      case Verb::Select: case Verb::Choose: case Verb::Check: case Verb::Uncheck:
        kinds.insert("choose");
        choices.push_back(c.text.empty() ? json(c.target.text) : json(c.text));
        break;
      case Verb::Navigate: case Verb::Back: case Verb::Forward: case Verb::Reload: kinds.insert("navigate"); break;
      case Verb::Extract: kinds.insert("extract"); break;
      case Verb::Submit: case Verb::Press: kinds.insert("submit"); break;
      default: kinds.insert("click"); break;
    }
    if (c.target.ordinal) r.constraints["ordinal"] = c.target.ordinal;
    r.success_criteria.push_back(criterion(c));
  }
  if (!values.empty()) r.constraints["values"] = values;
  if (!choices.empty()) r.constraints["choices"] = choices;
  kinds.erase("submit");
  if (kinds.size() == 1) {
    const std::string& k = *kinds.begin();
    r.intent = k == "type" ? "fill_form" : k;
  } else if (kinds.empty()) {
    r.intent = r.plan.empty() ? "unknown" : "submit";
  } else if (kinds == std::set<std::string>{"type", "click"} || kinds == std::set<std::string>{"type", "choose"} ||
             kinds == std::set<std::string>{"type", "choose", "click"}) {
    r.intent = "fill_form";
  } else {
    r.intent = "interact";
  }
  return r;
}

json to_json(const ParsedRequest& r) {
  json plan = json::array();
  for (const auto& c : r.plan) plan.push_back(to_line(c));
  json j = {{"intent", r.intent}, {"primaryGoal", r.goal}, {"constraints", r.constraints}, {"successCriteria", r.success_criteria}, {"plan", plan}};
  if (!r.notes.empty()) j["notes"] = r.notes;
  if (!r.not_understood.empty()) j["notUnderstood"] = r.not_understood;
  return j;
}

}  // namespace ouro::commands
