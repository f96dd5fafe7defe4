#include "commands/sentence.h"

#include "base/text.h"
#include "commands/words.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <regex>
#include <set>

namespace ouro::commands {

namespace {

// Verbs that are the name of the control that does them: "continue", "save", "add it to the cart".
const std::set<std::string>& bare_actions() {
  static const std::set<std::string> v = {
      "continue", "proceed", "save", "next", "create", "add", "register", "send", "apply", "finish", "buy", "order", "checkout",
      "remove", "delete", "complete", "place", "book", "subscribe", "join", "post", "publish", "update", "reply", "share", "download",
      "start", "begin", "retry", "cancel", "edit", "archive", "undo", "reset", "done", "upgrade", "unsubscribe", "comment", "vote",
  };
  return v;
}

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

using Clauses = std::vector<Command>;

bool is_clean_field(const std::string& words) {
  // A few words naming a field: "the username", "password", "the e-mail address".
  auto toks = split_ws(words);
  return !toks.empty() && toks.size() <= 5 && words.find('"') == std::string::npos;
}

Command make(Verb v, std::string source) {
  Command c;
  c.verb = v;
  c.source = std::move(source);
  return c;
}

struct Quoted {
  std::string before, value, after;
};
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

std::optional<std::pair<std::string, std::string>> secret_value(const std::string& s) {
  static const std::regex sec("secret(?::|\\(\\s*\")([A-Za-z0-9_.-]+)\"?\\)?");
  std::smatch m;
  if (std::regex_search(s, m, sec)) return std::make_pair(std::string(m[1]), std::string(m.prefix()) + " " + std::string(m.suffix()));
  return std::nullopt;
}

// Strips a leading preposition ("into the field" → "the field").
std::string after_prep(const std::string& s, std::initializer_list<const char*> preps) {
  std::string t = trim(s), l = lower(t);
  for (const char* p : preps)
    if (starts_with(l, p)) return trim(t.substr(std::string_view(p).size()));
  return t;
}

bool plan_type_text(const std::string& verb, std::string rest, const std::string& source, Clauses& out, std::string& note);

// "enter / type / fill in …" without the verb.
bool plan_type(const std::string& verb, std::string rest, const std::string& source, Clauses& out, std::string& note) {
  // "… in all lower case letters", "… in uppercase": the text as asked.
  int casing = 0;  // 1 lower, 2 upper
  {
    static const std::regex lower_re("\\s*,?\\s*\\b(in|using)\\s+(all\\s+)?(lower\\s*-?\\s*case|small)(\\s+letters)?\\b", std::regex::icase);
    static const std::regex upper_re("\\s*,?\\s*\\b(in|using)\\s+(all\\s+)?(upper\\s*-?\\s*case|capital|caps)(\\s+letters)?\\b", std::regex::icase);
    std::smatch m;
    if (std::regex_search(rest, m, lower_re)) casing = 1, rest = std::string(m.prefix()) + std::string(m.suffix());
    else if (std::regex_search(rest, m, upper_re)) casing = 2, rest = std::string(m.prefix()) + std::string(m.suffix());
  }
  size_t first_new = out.size();
  bool planned = plan_type_text(verb, rest, source, out, note);
  if (planned && casing)
    for (size_t i = first_new; i < out.size(); ++i) {
      std::string& t = out[i].text;
      for (auto& ch : t) ch = static_cast<char>(casing == 1 ? std::tolower(static_cast<unsigned char>(ch)) : std::toupper(static_cast<unsigned char>(ch)));
    }
  return planned;
}

// The position of `word` (" to ") in s outside double quotes, from `from`; npos when none.
size_t find_outside_quotes(const std::string& s, const std::string& word, size_t from = 0) {
  std::string l = lower(s);
  for (size_t at = l.find(word, from); at != std::string::npos; at = l.find(word, at + 1))
    if (std::count(s.begin(), s.begin() + static_cast<long>(at), '"') % 2 == 0) return at;
  return std::string::npos;
}

// "Set Language to French", "set "Sort by" to "Price: low to high"", "set the date of birth to
// July 21, 1990 and the appointment time to 9:30 AM": each field and the value it gets; a list
// takes the value as its option.
bool plan_set(std::string rest, const std::string& source, Clauses& out, std::string& note) {
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    size_t at = find_outside_quotes(rest, " and ", start);
    // Only where another "FIELD to VALUE" follows ("Bob and Alice" stay one value).
    while (at != std::string::npos && find_outside_quotes(rest.substr(at + 5), " to ") == std::string::npos) at = std::string::npos;
    if (at == std::string::npos) {
      parts.push_back(trim(rest.substr(start)));
      break;
    }
    parts.push_back(trim(rest.substr(start, at - start)));
    start = at + 5;
  }
  std::vector<Command> cmds;
  for (auto& p : parts) {
    size_t at = find_outside_quotes(p, " to ");
    if (at == std::string::npos) return false;
    std::string field = trim(p.substr(0, at)), value = trim(p.substr(at + 4));
    while (!value.empty() && (value.back() == ',' || value.back() == '.')) value.pop_back();
    std::vector<std::string> q;
    if (std::string left = extract_quoted(value, q); !q.empty() && trim(left).empty()) value = q[0];
    if (field.empty() || value.empty() || value.find('"') != std::string::npos) return false;
    if (field.find('"') == std::string::npos && !is_clean_field(lower(field))) return false;
    for (const char* lead : {"the number of ", "number of ", "the amount of ", "amount of ", "the value of ", "the count of "})
      if (starts_with(lower(field), lead)) field = field.substr(strlen(lead));
    Command c = make(Verb::Type, source);
    c.text = value;
    c.target = parse_target(field);
    if (c.target.kind != Target::Kind::Words) return false;
    c.or_select = true;
    cmds.push_back(c);
  }
  if (cmds.empty()) return false;
  for (auto& c : cmds) out.push_back(c);
  if (cmds.size() > 1) note = "read as " + std::to_string(cmds.size()) + " field/value pairs";
  return true;
}

bool plan_type_text(const std::string& verb, std::string rest, const std::string& source, Clauses& out, std::string& note) {
  std::string l = lower(rest);
  if ((verb == "set" || verb == "change") && find_outside_quotes(rest, " to ") != std::string::npos) {
    size_t before = out.size();
    if (plan_set(rest, source, out, note)) return true;
    out.resize(before);
  }
  if (verb == "fill" || verb == "key" || verb == "put" || verb == "set") {
    for (const char* p : {"in ", "out ", "up "})
      if (starts_with(l, p)) rest = rest.substr(strlen(p)), l = lower(rest);
  }
  // A secret handle: secret:NAME / secret("NAME").
  if (auto sec = secret_value(rest)) {
    Command c = make(Verb::Type, source);
    c.secret = sec->first;
    std::string tail = trim(sec->second);
    std::string lt = lower(tail);
    for (const char* p : {"into ", "in ", "to ", "on ", "as "})
      if (auto at = lt.find(p); at != std::string::npos) {
        c.target = parse_target(tail.substr(at + strlen(p)));
        break;
      }
    if (c.target.empty() && !trim(tail).empty()) c.target = parse_target(tail);
    if (c.target.kind == Target::Kind::Words && c.target.roles.empty()) c.target.roles = {"textbox"};
    out.push_back(c);
    return true;
  }
  auto qs = quoted_parts(rest);
  static const std::vector<std::string> into = {" into ", " in ", " on ", " to ", " as ", " for "};
  auto field_target = [](const std::string& words_in) {
    // "the number of guests" is the Guests field.
    std::string words = words_in;
    for (const char* lead : {"the number of ", "number of ", "the amount of ", "amount of ", "the value of ", "the count of "})
      if (starts_with(lower(words), lead)) words = words.substr(strlen(lead));
    Target t = parse_target(words);
    if (t.kind == Target::Kind::Words && t.roles.empty()) t.roles = {"textbox"};
    return t;
  };
  // Several "FIELD "VALUE"" pairs: Enter the username "a" and the password "b" (into the text fields).
  if (qs.size() >= 2) {
    bool pairs = true;
    for (size_t i = 0; i < qs.size(); ++i) {
      std::string b = lower(qs[i].before);
      for (const char* j : {"and ", ", ", ","})
        if (starts_with(b, j)) b = trim(b.substr(strlen(j)));
      if (b.empty() || !is_clean_field(b)) pairs = false;
    }
    if (pairs) {
      for (auto& q : qs) {
        std::string b = q.before;
        std::string lb = lower(b);
        // "the form with the name "Kate"": the field is what comes after "with".
        for (const char* j : {"and ", ", ", ","})
          if (starts_with(lb, j)) b = trim(b.substr(strlen(j))), lb = lower(b);
        // "City with "Lyon"", "Zip code: "69001"": the field is what comes before the value's word.
        bool field_first = false;
        for (const char* tail : {" with", " to", " as", ":", " ="})
          if (ends_with(lb, tail) && lb.size() > strlen(tail)) {
            b = trim(b.substr(0, b.size() - strlen(tail)));
            lb = lower(b);
            field_first = true;
            break;
          }
        if (!field_first) {
          if (auto w = lb.rfind(" with "); w != std::string::npos) b = b.substr(w + 6), lb = lower(b);
          if (starts_with(lb, "with ")) b = b.substr(5), lb = lower(b);
        }
        for (const char* p : {"into ", "in "})
          if (starts_with(lb, p)) b = b.substr(strlen(p));
        Command c = make(Verb::Type, source);
        c.text = q.value;
        c.target = field_target(b);
        out.push_back(c);
      }
      note = "read as " + std::to_string(qs.size()) + " field/value pairs";
      return true;
    }
  }
  // Several ""VALUE" as FIELD" pairs: Enter "Ada" as the first name, "Lovelace" as the last name and "x@y.z" as the e-mail.
  if (qs.size() >= 2 && trim(qs[0].before).empty()) {
    std::vector<std::pair<std::string, std::string>> pairs;
    for (size_t i = 0; i < qs.size(); ++i) {
      std::string seg = i + 1 < qs.size() ? qs[i + 1].before : qs[i].after;
      seg = trim(seg);
      while (!seg.empty() && (seg.back() == ',' || seg.back() == '.')) seg.pop_back();
      std::string ls = lower(trim(seg));
      for (const char* tail : {" and", ", and", ","})
        if (ends_with(ls, tail)) seg = trim(seg.substr(0, seg.size() - strlen(tail))), ls = lower(seg);
      std::string field;
      for (const char* p : {"as ", "into ", "in ", "for ", "to "})
        if (starts_with(ls, p)) {
          field = trim(seg.substr(strlen(p)));
          break;
        }
      if (field.empty() || !is_clean_field(lower(field))) {
        pairs.clear();
        break;
      }
      pairs.emplace_back(qs[i].value, field);
    }
    if (!pairs.empty()) {
      for (auto& [value, field] : pairs) {
        Command c = make(Verb::Type, source);
        c.text = value;
        c.target = field_target(field);
        out.push_back(c);
      }
      note = "read as " + std::to_string(pairs.size()) + " value/field pairs";
      return true;
    }
  }
  std::string value, target_words, hint;
  if (qs.size() == 1) {
    value = qs[0].value;
    hint = qs[0].before;     // "the password" in: Enter the password "x" into both fields
    std::string after = qs[0].after;
    std::string la = " " + lower(after);
    bool found = false;
    for (const auto& p : into)
      if (starts_with(la, p)) {
        target_words = trim(after.substr(p.size() - 1));
        found = true;
        break;
      }
    if (!found && !after.empty()) {
      // "fill the Email field with "x"": the words before the value are the target.
      std::string lh = lower(hint);
      for (const char* w : {" with", " to", " as"})
        if (ends_with(lh, w)) {
          target_words = trim(hint.substr(0, hint.size() - strlen(w)));
          hint.clear();
          found = true;
          break;
        }
      if (!found) return false;
    }
    if (!found) {
      std::string lh = lower(hint);
      for (const char* w : {" with", " to", " as"})
        if (ends_with(lh, w)) {
          target_words = trim(hint.substr(0, hint.size() - strlen(w)));
          hint.clear();
          break;
        }
    }
  } else if (qs.empty()) {
    // Unquoted: VALUE into TARGET (the last "into"/" in the "), or TARGET with/to VALUE.
    std::string lr = " " + l;
    size_t best = std::string::npos, prep_len = 0;
    for (auto [p, n] : std::initializer_list<std::pair<const char*, size_t>>{
             {" into ", 6}, {" in the ", 4}, {" in a ", 4}, {" in ", 4}, {" as the ", 4}, {" as ", 4}, {" on the ", 4}})
      if (auto at = lr.rfind(p); at != std::string::npos && at > 0 && (best == std::string::npos || at > best)) best = at, prep_len = n;
    if (best != std::string::npos) {
      value = trim(rest.substr(0, best - 1));
      target_words = trim(rest.substr(best - 1 + prep_len));
    } else {
      for (const char* p : {" with ", " to "})
        if (auto at = lr.rfind(p); at != std::string::npos && at > 0) {
          target_words = trim(rest.substr(0, at - 1));
          value = trim(rest.substr(at - 1 + strlen(p)));
          break;
        }
    }
    if (value.empty()) return false;
  } else {
    return false;
  }
  Command c = make(Verb::Type, source);
  c.text = value;
  Target t = field_target(target_words);
  // "Enter the password "x" into the field": the words before the value name it when the target does not.
  if (t.kind == Target::Kind::Words && t.name.empty() && !t.all && t.ordinal == 0 && is_clean_field(lower(hint))) {
    Target h = parse_target(hint);
    if (!h.name.empty()) t.name = h.name;
  }
  if (target_words.empty() && hint.empty()) t = Target{};
  else if (target_words.empty()) t = field_target(hint);
  c.target = t;
  out.push_back(c);
  return true;
}

bool is_none(const std::string& words) {
  std::string l = lower(trim(words));
  return l == "nothing" || l == "none" || l == "no items" || l == "no options" || l == "nothing at all" || l == "none of them" ||
         l == "no boxes" || l == "no checkboxes";
}

// select / choose / pick
bool plan_choose(std::string rest, const std::string& source, Clauses& out, std::string& note) {
  std::string l = lower(rest);
  // "Select Hurley>Nellie", "choose File > Export": a menu path — hover through it, click the last.
  if (rest.find('>') != std::string::npos && rest.find('"') == std::string::npos) {
    auto parts = split(rest, '>');
    std::vector<std::string> names;
    for (auto& p : parts)
      if (auto t = trim(p); !t.empty()) names.push_back(t);
    if (names.size() >= 2 && names.size() <= 8) {
      for (size_t i = 0; i < names.size(); ++i) {
        Command c = make(i + 1 < names.size() ? Verb::Hover : Verb::Click, source);
        c.target = parse_target("\"" + names[i] + "\"");
        out.push_back(c);
      }
      note = "read as a menu path";
      return true;
    }
  }
  if (is_none(rest)) {
    note = "nothing to select: no step";
    return true;
  }
  {
    // "Select -3 with the spinner", "pick 40 on the slider": a value for a spinner or slider.
    static const std::regex with_re("^(.+?)\\s+(?:with|using|on|in)\\s+(.+)$", std::regex::icase);
    std::smatch m;
    if (rest.find('>') == std::string::npos && std::regex_match(rest, m, with_re)) {
      Target t = parse_target(std::string(m[2]));
      if (t.kind == Target::Kind::Words && (std::find(t.roles.begin(), t.roles.end(), "spinbutton") != t.roles.end() ||
                                            std::find(t.roles.begin(), t.roles.end(), "slider") != t.roles.end())) {
        std::vector<std::string> q;
        std::string left = extract_quoted(std::string(m[1]), q);
        Command c = make(Verb::Type, source);
        c.text = q.empty() ? trim(left) : q[0];
        c.target = t;
        c.or_select = true;
        out.push_back(c);
        return true;
      }
    }
  }
  // "Medium from the Size list and Blue from the Colour list": each part its own list.
  if (auto parts = split_on_and(rest); parts.size() > 1) {
    size_t with_place = 0;
    for (const auto& p : parts) {
      std::string lp = " " + lower(p) + " ";
      for (const char* f : {" from ", " in ", " under "})
        if (lp.find(f) != std::string::npos) {
          ++with_place;
          break;
        }
    }
    if (with_place == parts.size()) {
      for (const auto& p : parts) {
        std::string n;
        if (!plan_choose(p, source, out, n)) return false;
      }
      note = "read as " + std::to_string(parts.size()) + " choices, each from its own list";
      return true;
    }
  }
  // "X from the list" / "X in the dropdown"
  auto qs = quoted_parts(rest);
  static const std::vector<std::string> from = {" from ", " in ", " on ", " of ", " under ", " as the ", " as your ", " as my ", " for the "};
  std::string value, target_words;
  std::string lr = " " + l + " ";
  size_t at = std::string::npos, alen = 0;
  bool as_field = false;  // "Canada as the country", "Large for the size": the words name the list
  for (const auto& p : from) {
    // the last "from" outside quotes
    size_t pos = lr.rfind(p);
    while (pos != std::string::npos) {
      size_t quotes_before = std::count(lr.begin(), lr.begin() + static_cast<long>(pos), '"');
      if (quotes_before % 2 == 0) break;
      pos = pos ? lr.rfind(p, pos - 1) : std::string::npos;
    }
    if (pos != std::string::npos && (at == std::string::npos || pos > at)) at = pos, alen = p.size(), as_field = p[1] == 'a' || p[1] == 'f';
  }
  if (at != std::string::npos && at > 0) {
    value = trim(rest.substr(0, at - 1));
    target_words = trim(rest.substr(std::min(rest.size(), at - 1 + alen)));
    Target t = parse_target(target_words);
    // "from the list", "in the dropdown", "from the "Fruit" menu": a control to choose in.
    if (t.kind != Target::Kind::Words || !t.roles.empty() || t.exact || as_field) {
      std::vector<std::string> values;
      for (auto& v : split_on_and(value)) {
        std::vector<std::string> q;
        std::string left = extract_quoted(v, q);
        std::string one = q.empty() ? trim(left) : q[0];
        Target vt = parse_target(one);
        if (vt.ordinal && q.empty()) {
          // "the third option from the list"
          Command c = make(Verb::Select, source);
          c.text = "#" + std::to_string(vt.ordinal);
          c.target = t;
          out.push_back(c);
          continue;
        }
        if (starts_with(lower(one), "the option ")) one = trim(one.substr(11));
        if (starts_with(lower(one), "option ")) one = trim(one.substr(7));
        values.push_back(one);
      }
      if (!values.empty()) {
        // Several values from one list are one selection (a multiple <select> keeps them all).
        Command c = make(Verb::Select, source);
        c.text = values[0];
        if (values.size() > 1) c.fields = values;
        c.target = t;
        if (t.kind == Target::Kind::Words && t.roles.empty()) c.target.roles = {"list"};
        out.push_back(c);
      }
      return !out.empty();
    }
  }
  // "the third option", "the second radio button"
  Target whole = parse_target(rest);
  if (whole.kind == Target::Kind::Words && whole.ordinal != 0 && whole.name.empty()) {
    Command c = make(Verb::Click, source);
    c.target = whole;
    out.push_back(c);
    return true;
  }
  // A list of values: "nXDl8, tVKLw and dolor", "the boxes for alpha and beta", "Bob".
  std::string items = rest;
  std::string li = lower(items);
  for (const char* lead : {"the checkboxes for ", "the check boxes for ", "the boxes for ", "the options for ", "the boxes labeled ",
                           "the boxes labelled ", "the options ", "the option ", "options ", "option ", "the items ", "the item ",
                           "the words ", "the word ", "the value ", "the values ", "the answer ", "the answers ", "the entries "})
    if (starts_with(li, lead)) {
      items = items.substr(strlen(lead));
      break;
    }
  auto values = split_on_and(items);
  if (values.empty()) return false;
  for (auto& v : values) {
    std::vector<std::string> q;
    std::string left = extract_quoted(v, q);
    std::string one = q.empty() ? trim(left) : q[0];
    std::string lo = lower(one);
    for (const char* lead : {"the ", "option ", "item "})
      if (starts_with(lo, lead) && q.empty()) one = trim(one.substr(strlen(lead))), lo = lower(one);
    for (const char* tail : {" checkbox", " check box", " box", " option", " radio button", " button", " item"})
      if (ends_with(lo, tail) && q.empty() && lo.size() > strlen(tail)) one = trim(one.substr(0, one.size() - strlen(tail))), lo = lower(one);
    if (one.empty()) continue;
    Command c = make(Verb::Choose, source);
    c.text = one;
    out.push_back(c);
  }
  if (values.size() > 1) note = "read as " + std::to_string(values.size()) + " values to choose";
  return !out.empty();
}

// check / uncheck
bool plan_check(bool on, std::string rest, const std::string& source, Clauses& out) {
  std::string l = lower(rest);
  if (is_none(rest)) return true;
  static const std::vector<std::string> leads = {"the checkboxes for ", "the check boxes for ", "the boxes for ", "the boxes next to ",
                                                 "the boxes labeled ", "the boxes labelled ", "the checkboxes labeled ", "boxes for ",
                                                 "checkboxes for ", "the checkboxes ", "the boxes ", "the options ", "the box for ",
                                                 "the checkbox for ", "the box next to ", "the box labeled ", "the checkbox labeled ",
                                                 "the checkbox ", "the box "};
  std::string items = rest;
  bool listed = false;
  for (const auto& lead : leads)
    if (starts_with(l, lead)) {
      items = rest.substr(lead.size());
      listed = true;
      break;
    }
  auto parts = split_on_and(items);
  const bool next_to = listed && (l.find(" next to ") != std::string::npos || l.find(" beside ") != std::string::npos);
  if (parts.size() > 1 || listed) {
    for (auto& p : parts) {
      Target t = parse_target(p);
      if (next_to) {
        // "the box next to Partner offers": the box that shares a row with those words.
        t = Target{};
        t.kind = Target::Kind::Words;
        t.text = "the box next to " + p;
        t.near = trim(p);
        std::vector<std::string> q;
        if (std::string left = extract_quoted(t.near, q); !q.empty() && trim(left).empty()) t.near = q[0];
      }
      if (t.kind == Target::Kind::Words) {
        t.roles = {"checkbox"};
        if (!on) {}
      }
      Command c = make(on ? Verb::Check : Verb::Uncheck, source);
      c.target = t;
      out.push_back(c);
    }
    return !out.empty();
  }
  Target t = parse_target(rest);
  if (t.kind == Target::Kind::Words && (t.roles.empty() || t.roles == std::vector<std::string>{"box"})) t.roles = {"checkbox"};
  Command c = make(on ? Verb::Check : Verb::Uncheck, source);
  c.target = t;
  out.push_back(c);
  return true;
}

bool plan_click(std::string rest, const std::string& source, Clauses& out, bool twice = false) {
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

bool plan_one(const std::string& clause, Clauses& out, std::string& note) {
  std::string s = clause;
  std::string l = lower(s);
  // "… by clicking X": the means is the instruction.
  for (const char* by : {" by clicking on ", " by clicking ", " by pressing ", " by tapping ", " by hitting ", " by selecting "})
    if (auto at = l.find(by); at != std::string::npos) {
      std::string what = trim(s.substr(at + strlen(by)));
      if (std::string(by).find("pressing") != std::string::npos || std::string(by).find("hitting") != std::string::npos)
        if (auto key = key_name(what)) {
          Command c = make(Verb::Press, clause);
          c.text = *key;
          out.push_back(c);
          return true;
        }
      if (std::string(by).find("selecting") != std::string::npos) return plan_choose(what, clause, out, note);
      return plan_click(what, clause, out);
    }
  auto toks = split_ws(l);
  if (toks.empty()) return false;
  std::string v = first_word(l);
  auto rest_from = [&](size_t words) {
    size_t pos = 0;
    for (size_t i = 0; i < words; ++i) {
      while (pos < s.size() && std::isspace(static_cast<unsigned char>(s[pos]))) ++pos;
      while (pos < s.size() && !std::isspace(static_cast<unsigned char>(s[pos]))) ++pos;
    }
    return trim(s.substr(std::min(pos, s.size())));
  };
  std::string rest = rest_from(1);
  std::string lrest = lower(rest);

  // "Use the textbox to enter "Tora"": the means names where the action goes.
  if (v == "use") {
    static const std::regex use_re("^(.+?)\\s+to\\s+(enter|type|input|write|fill in|put|insert|search for|search)\\s+(.+)$", std::regex::icase);
    std::smatch m;
    if (std::regex_match(rest, m, use_re)) {
      std::string what = m[1], verb2 = lower(std::string(m[2])), value = m[3];
      if (starts_with(verb2, "search")) verb2 = "enter";
      return plan_type(verb2.substr(0, verb2.find(' ')), value + " into " + what, clause, out, note);
    }
  }
  // "Change the quantity to 3": a value for a field.
  if (v == "change" && find_outside_quotes(rest, " to ") != std::string::npos && !starts_with(lrest, "to ")) {
    size_t before = out.size();
    if (plan_set(rest, clause, out, note)) return true;
    out.resize(before);
  }
  // "Give it 4 stars", "rate it 5 out of 5", "rate the product 3 stars": the rating of that many stars.
  if (v == "give" || v == "rate") {
    static const std::regex stars("^(?:it|this|them|him|her|the \\w+|this \\w+)?\\s*(?:a\\s+)?(\\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten)"
                                  "(?:\\s*(?:stars?|out of \\d+|/\\s*\\d+))?(?:\\s+rating)?$",
                                  std::regex::icase);
    std::smatch m;
    if (std::regex_match(rest, m, stars)) {
      static const std::map<std::string, std::string> n = {{"one", "1"}, {"two", "2"}, {"three", "3"}, {"four", "4"}, {"five", "5"}, {"six", "6"},
                                                           {"seven", "7"}, {"eight", "8"}, {"nine", "9"}, {"ten", "10"}};
      std::string k = lower(std::string(m[1]));
      if (auto it = n.find(k); it != n.end()) k = it->second;
      Command c = make(Verb::Choose, clause);
      c.text = k + (k == "1" ? " star" : " stars");
      out.push_back(c);
      note = "read as a rating of " + k;
      return true;
    }
    return false;
  }
  // "Filter by brand Acme and Zenith", "filter the results to Red": each value chosen.
  if (v == "filter") {
    std::string r = after_prep(rest, {"the results by ", "results by ", "the list by ", "by ", "to ", "for ", "on "});
    auto parts = split_on_and(r);
    if (parts.empty()) return false;
    static const std::set<std::string> facets = {"brand", "brands", "color", "colour", "size", "category", "type", "genre", "author",
                                                 "price", "rating", "make", "model", "material", "seller", "tag", "status", "year"};
    auto first = split_ws(parts[0]);
    if (first.size() >= 2 && facets.count(lower(first[0]))) parts[0] = trim(parts[0].substr(first[0].size()));
    for (auto& p : parts) {
      std::vector<std::string> q;
      std::string left = extract_quoted(p, q);
      Command c = make(Verb::Choose, clause);
      c.text = q.empty() ? trim(left) : q[0];
      if (c.text.empty()) return false;
      out.push_back(c);
    }
    return true;
  }
  // "Add Blue Mug to the wishlist": the control that does it, in Blue Mug's card.
  if (v == "add" || v == "move" || v == "save") {
    static const std::regex to_re("^(.+?)\\s+to\\s+(?:the\\s+|my\\s+|your\\s+|our\\s+)?(cart|basket|bag|wishlist|wish list|favorites|favourites|"
                                  "compare|comparison|collection|playlist|library|watchlist|watch list|reading list|list|trash|archive|folder)$",
                                  std::regex::icase);
    std::smatch m;
    if (std::regex_match(rest, m, to_re)) {
      std::string what = trim(std::string(m[1])), lw = lower(what);
      if (lw != "it" && lw != "them" && lw != "this" && lw != "these" && lw != "that" && lw != "everything" && lw != "all") {
        std::vector<std::string> q;
        if (std::string left = extract_quoted(what, q); !q.empty() && trim(left).empty()) what = q[0];
        if (starts_with(lower(what), "the ")) what = trim(what.substr(4));
        Command c = make(Verb::Click, clause);
        c.target = parse_target(v + " to " + std::string(m[2]));
        c.target.text = v + " " + rest;
        c.target.near = what;
        out.push_back(c);
        return true;
      }
    }
  }

  // "switch between the tabs to find …", "look through the tabs": the binder looks in hidden panels itself.
  if ((v == "switch" || v == "look" || v == "browse" || v == "go" || v == "search" || v == "move" || v == "navigate") &&
      (starts_with(lrest, "between ") || starts_with(lrest, "through ") || starts_with(lrest, "across ") || starts_with(lrest, "at the tabs") ||
       (v == "browse" && lrest.find("tab") != std::string::npos))) {
    note = "no step: targets in other tabs and closed sections are found and shown when needed";
    return true;
  }

  // Navigation.
  if ((v == "go" || v == "navigate" || v == "open" || v == "visit" || v == "browse" || v == "load")) {
    std::string r = after_prep(rest, {"to the page ", "to the url ", "to ", "the page ", "the url ", "url ", "page "});
    std::vector<std::string> q;
    std::string left = extract_quoted(r, q);
    std::string url = !q.empty() && trim(left).empty() ? q[0] : r;
    if (looks_like_url(url)) {
      Command c = make(Verb::Navigate, clause);
      c.text = url;
      out.push_back(c);
      return true;
    }
    if (lower(r) == "back" || lower(rest) == "back" || lower(r) == "back to the previous page" || lower(r) == "the previous page") {
      out.push_back(make(Verb::Back, clause));
      return true;
    }
    if (lower(rest) == "forward") {
      out.push_back(make(Verb::Forward, clause));
      return true;
    }
    // "go to the second tab", "open the Settings tab", "open the menu": a click.
    if (!trim(r).empty()) return plan_click(r, clause, out);
    return false;
  }
  if (v == "return" && (lrest == "to the previous page" || lrest == "back")) return out.push_back(make(Verb::Back, clause)), true;
  if (v == "back") return out.push_back(make(Verb::Back, clause)), true;
  if (v == "reload" || v == "refresh") return out.push_back(make(Verb::Reload, clause)), true;
  static const std::set<std::string> row_actions = {"delete", "remove", "edit", "archive", "cancel", "reply", "share", "download", "update"};
  if (row_actions.count(v) && !rest.empty() && lrest != "it" && lrest != "them" && lrest.find(" to ") == std::string::npos) {
    // "Delete the row for Carol", "edit Bob": the control named by the verb, in the row of what follows.
    std::string what = rest;
    static const std::regex lead("^(the |a |my |this )?((row|entry|line|item|record|card|listing)s? (for|of|with|containing|named|called) |(row|entry|item|record) )?",
                                 std::regex::icase);
    what = std::regex_replace(what, lead, "", std::regex_constants::format_first_only);
    std::vector<std::string> q;
    if (std::string left = extract_quoted(what, q); !q.empty() && trim(left).empty()) what = q[0];
    Command c = make(Verb::Click, clause);
    c.target = parse_target(v);
    c.target.text = v + " " + rest;
    c.target.near = trim(what);
    out.push_back(c);
    return true;
  }
  if (bare_actions().count(v)) {
    // The control is named by the verb and its object: "add it to the cart" → Add to cart.
    std::string words = v;
    for (const auto& w : split_ws(rest)) {
      std::string lw = lower(w);
      if (lw == "it" || lw == "them" || lw == "this" || lw == "these" || lw == "my" || lw == "your" || lw == "our" || lw == "now") continue;
      words += " " + w;
    }
    Command c = make(Verb::Click, clause);
    c.target = parse_target(words);
    out.push_back(c);
    return true;
  }
  if (v == "accept" || v == "agree") {
    // "accept the terms", "agree to the privacy policy": tick its box, or press the button that says so.
    std::string r = after_prep(rest, {"to ", "with "});
    if (r.empty()) {
      Command c = make(Verb::Click, clause);
      c.target = parse_target(v);
      out.push_back(c);
      return true;
    }
    std::string lr0 = lower(r);
    if (starts_with(lr0, "all") || lr0.find("cookie") != std::string::npos) {
      // "Accept all cookies": the button that says so ("Accept all"), never every box on the page.
      Command c = make(Verb::Click, clause);
      c.target.kind = Target::Kind::Words;
      c.target.text = v + " " + r;
      c.target.name = v + " " + r;
      out.push_back(c);
      return true;
    }
    Command c = make(Verb::Check, clause);
    c.target = parse_target(r);
    if (c.target.kind == Target::Kind::Words && c.target.roles.empty()) c.target.roles = {"checkbox"};
    c.or_click = true;
    c.text = v + " " + r;
    out.push_back(c);
    return true;
  }
  if (v == "turn" || v == "switch") {
    // "turn on dark mode", "switch off notifications", "turn dark mode on"
    std::string r = lrest;
    bool on = starts_with(r, "on ") || ends_with(r, " on");
    bool off = starts_with(r, "off ") || ends_with(r, " off");
    if (on || off) {
      std::string what = rest;
      if (starts_with(r, "on ") || starts_with(r, "off ")) what = rest.substr(rest.find(' ') + 1);
      else what = rest.substr(0, rest.rfind(' '));
      return plan_check(on, what, clause, out);
    }
  }
  if (v == "switch" || v == "change" || v == "move") {
    std::string r = after_prep(rest, {"over to ", "to ", "into "});
    if (r.empty()) return false;
    Target t = parse_target(r);
    if (t.kind == Target::Kind::Words && t.roles.empty()) t.roles = {"tab"};
    Command c = make(Verb::Click, clause);
    c.target = t;
    out.push_back(c);
    return true;
  }
  // Keys and clicks.
  if (v == "press" || v == "hit" || v == "push" || v == "tap" || v == "click" || v == "double-click" || v == "doubleclick" || v == "activate" ||
      v == "follow") {
    std::string r = rest;
    if ((v == "press" || v == "hit") && !lower(r).empty()) {
      std::string lr2 = lower(r);
      bool named_control = lr2.find("button") != std::string::npos || lr2.find("link") != std::string::npos || r.find('"') != std::string::npos;
      if (!named_control)
        if (auto key = key_name(r)) {
          Command c = make(Verb::Press, clause);
          c.text = *key;
          out.push_back(c);
          return true;
        }
    }
    if (v == "double-click" || v == "doubleclick") return plan_click(r, clause, out, true);
    if (starts_with(lower(r), "on the link") || starts_with(lower(r), "the link")) return plan_click(r, clause, out);
    return plan_click(r, clause, out);
  }
  if (v == "enter" || v == "type" || v == "input" || v == "write" || v == "fill" || v == "put" || v == "insert" || v == "provide" ||
      v == "key" || v == "use" || v == "set") {
    if (v == "set" || v == "use") {
      // "set the quantity to 3" / "use "x" as the name": a value for a field.
    }
    return plan_type(v, rest, clause, out, note);
  }
  if (v == "select" || v == "choose" || v == "pick") return plan_choose(rest, clause, out, note);
  if (v == "check" || v == "tick" || v == "mark" || v == "enable") return plan_check(true, rest, clause, out);
  if (v == "uncheck" || v == "untick" || v == "unmark" || v == "deselect" || v == "unselect" || v == "disable") return plan_check(false, rest, clause, out);
  if (v == "toggle") return plan_click(rest, clause, out);
  if (v == "clear") {
    if (lrest.find("box") != std::string::npos && lrest.find("text") == std::string::npos && lrest.find("search") == std::string::npos)
      return plan_check(false, rest, clause, out);
    Command c = make(Verb::Clear, clause);
    c.target = parse_target(rest);
    if (c.target.kind == Target::Kind::Words && c.target.roles.empty()) c.target.roles = {"textbox"};
    out.push_back(c);
    return true;
  }
  if (v == "focus") {
    Command c = make(Verb::Focus, clause);
    std::string r = after_prep(rest, {"on ", "into ", "in ", "onto "});
    c.target = parse_target(r.empty() ? "the text field" : r);
    if (c.target.kind == Target::Kind::Words && c.target.roles.empty()) c.target.roles = {"textbox"};
    out.push_back(c);
    return true;
  }
  if ((v == "expand" || v == "open") && std::regex_search(lrest, std::regex("^(all )?(the )?(sections|panels|accordions|tabs|folds|headers)\\b"))) {
    note = "no step: a target in a closed section is shown when it is needed";
    return true;
  }
  if (v == "expand" || v == "collapse" || v == "show" || v == "hide") {
    Command c = make(v == "collapse" || v == "hide" ? Verb::Collapse : Verb::Expand, clause);
    c.target = parse_target(rest.empty() ? "the section" : rest);
    if (auto o = std::find(c.target.roles.begin(), c.target.roles.end(), "option"); o != c.target.roles.end() && !c.target.exact) {
      // "Show advanced options", "expand more settings": the words name the control that shows them.
      c.target.roles.erase(o);
      std::string words = rest;
      if (starts_with(lower(words), "the ")) words = trim(words.substr(4));
      c.target.name = words;
    }
    out.push_back(c);
    return true;
  }
  if (v == "close" || v == "dismiss") {
    // "close the dialog": its close control.
    Command c = make(Verb::Click, clause);
    Target t = parse_target(rest);
    Target close;
    close.kind = Target::Kind::Words;
    close.text = "close " + rest;
    close.name = "close";
    close.within = t.within.empty() ? (lrest.find("dialog") != std::string::npos || lrest.find("popup") != std::string::npos ||
                                       lrest.find("modal") != std::string::npos || lrest.find("window") != std::string::npos
                                           ? "dialog"
                                           : "")
                                    : t.within;
    c.target = close;
    out.push_back(c);
    return true;
  }
  if (v == "submit" || v == "confirm") {
    if (v != "submit" && !rest.empty()) return plan_click(rest, clause, out);
    out.push_back(make(Verb::Submit, clause));
    return true;
  }
  if (v == "search") {
    std::string r = after_prep(rest, {"for "});
    std::vector<std::string> q;
    std::string left = extract_quoted(r, q);
    std::string what = q.empty() ? r : q[0];
    std::string lw = lower(what);
    for (const char* tail : {" on the site", " on this site", " on the page", " on this page"})
      if (ends_with(lw, tail)) what = what.substr(0, what.size() - strlen(tail));
    if (trim(what).empty()) return false;
    Command t = make(Verb::Type, clause);
    t.text = trim(what);
    t.target = parse_target("the search box");
    if (q.empty()) {
      // "comedy movies directed by Lucas from year 1994": the parts a search form may ask for one
      // by one (Genre, Director, Year); act() uses them only when the page has those fields.
      static const std::vector<std::pair<std::regex, std::string>> facets = {
          {std::regex("^(\\w[\\w-]*)\\s+(?:movies|films|books|novels|songs|shows|series|albums|games|podcasts)\\b", std::regex::icase), "Genre"},
          {std::regex("\\bdirected\\s+by\\s+([A-Z][\\w'-]*(?:\\s+[A-Z][\\w'-]*)?)"), "Director"},
          {std::regex("\\b(?:written|authored)\\s+by\\s+([A-Z][\\w'-]*(?:\\s+[A-Z][\\w'-]*)?)"), "Author"},
          {std::regex("\\b(?:from|in|released\\s+in)\\s+(?:the\\s+)?(?:year\\s+)?((?:19|20)\\d\\d)\\b", std::regex::icase), "Year"},
      };
      std::smatch m;
      std::vector<std::string> found;
      for (const auto& [re, label] : facets)
        if (std::regex_search(t.text, m, re)) found.push_back(label + "=" + std::string(m[1]));
      if (found.size() >= 2) t.fields = found;
    }
    out.push_back(t);
    Command p = make(Verb::Press, clause);
    p.text = "Enter";
    out.push_back(p);
    return true;
  }
  if (v == "log" || v == "sign" || v == "login") {
    // "log in with username "a" and password "b""
    std::string r = v == "login" ? rest : after_prep(rest, {"in ", "on ", "into "});
    std::string lr2 = lower(r);
    if (starts_with(lr2, "with ") || starts_with(lr2, "as ") || starts_with(lr2, "using ")) r = r.substr(r.find(' ') + 1);
    auto qs = quoted_parts(r);
    size_t before = out.size();
    if (!qs.empty() && plan_type("enter", r, clause, out, note)) {
      Command c = make(Verb::Click, clause);
      c.target = parse_target("log in");
      c.target.roles = {"button"};
      out.push_back(c);
      return true;
    }
    out.resize(before);
    if (qs.size() == 2) {
      // "log in as "ada" with password "pw"": the first value is the user, the second the password.
      for (int i = 0; i < 2; ++i) {
        Command t = make(Verb::Type, clause);
        t.text = qs[static_cast<size_t>(i)].value;
        t.target = parse_target(i == 0 ? "the username field" : "the password field");
        out.push_back(t);
      }
    }
    Command c = make(Verb::Click, clause);
    c.target = parse_target(v == "sign" ? "sign in" : "log in");
    if (qs.size() == 2) c.target.roles = {"button"};
    out.push_back(c);
    return true;
  }
  if (v == "find" || v == "locate") {
    // "find the link "elit" (and click it)": one control named → wait until it is there (shown if hidden).
    Target t = parse_target(rest);
    if (t.kind != Target::Kind::Words || (!t.roles.empty() && !t.all && (t.exact || t.ordinal) && lrest.find(" of ") == std::string::npos)) {
      Command c = make(Verb::Wait, clause);
      c.target = t;
      out.push_back(c);
      return true;
    }
    if (v == "locate") return false;
  }
  if (v == "scroll" || v == "wait" || v == "extract" || v == "get" || v == "collect" || v == "list" || v == "find") {
    std::string line = clause;
    if (v == "list" || v == "find") line = "extract " + rest;
    auto c = parse_command(line);
    if (!c) return false;
    c->source = clause;
    out.push_back(*c);
    return true;
  }
  // Command-language forms the natural patterns do not cover.
  if (auto c = parse_command(s)) {
    c->source = clause;
    out.push_back(*c);
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
    // A line of the command language is taken as it is (its TARGET may hold "and"), unless it
    // asks for a judgement; "… three times" repeats it.
    std::string once = line;
    int times = repetitions(once);
    if (auto c = parse_command(once); c && c->verb != Verb::Extract && !needs_judgement(lower(line))) {
      bool plain = true;
      std::string l = lower(line);
      for (const char* j : {" and ", " then ", ", "})
        if (l.find(j) != std::string::npos) plain = false;
      if (plain) {
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
