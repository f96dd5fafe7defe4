// Plans the steps that put text into fields: type, enter, fill, set and change … to, clear, focus (docs/guides/without-a-model.md).
#include "commands/sentence_impl.h"

#include "commands/words.h"

#include <algorithm>
#include <cstring>
#include <regex>

namespace ouro::commands::detail {

namespace {

// A few words naming a field: "the username", "password", "the e-mail address".
bool is_clean_field(const std::string& words) {
  auto toks = split_ws(words);
  return !toks.empty() && toks.size() <= 5 && words.find('"') == std::string::npos;
}

// The first match of `re` in s that starts outside double quotes: quoted text is the person's own
// (commands/sentence.h), never a handle or an instruction about the text. A match found after
// others has its prefix from the one before: what stands before it is s.substr(0, m.position(0)).
bool search_outside_quotes(const std::string& s, std::smatch& m, const std::regex& re) {
  for (auto it = std::sregex_iterator(s.begin(), s.end(), re); it != std::sregex_iterator(); ++it)
    if (std::count(s.begin(), s.begin() + it->position(0), '"') % 2 == 0) {
      m = *it;
      return true;
    }
  return false;
}

// secret:NAME / secret("NAME") outside quotes ("my secret:plan" in quotes is text, as the command
// language reads it).
std::optional<std::pair<std::string, std::string>> secret_value(const std::string& s) {
  static const std::regex sec("secret(?::|\\(\\s*\")([A-Za-z0-9_.-]+)\"?\\)?");
  std::smatch m;
  if (search_outside_quotes(s, m, sec))
    return std::make_pair(std::string(m[1]), s.substr(0, static_cast<size_t>(m.position(0))) + " " + std::string(m.suffix()));
  return std::nullopt;
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

}  // namespace

// "enter / type / fill in …" without the verb.
bool plan_type(const std::string& verb, std::string rest, const std::string& source, Clauses& out, std::string& note) {
  // "… in all lower case letters", "… in uppercase": the text as asked. Said outside the quotes
  // only: "Meet in small groups" in quotes is the text itself.
  int casing = 0;  // 1 lower, 2 upper
  {
    static const std::regex lower_re("\\s*,?\\s*\\b(in|using)\\s+(all\\s+)?(lower\\s*-?\\s*case|small)(\\s+letters)?\\b", std::regex::icase);
    static const std::regex upper_re("\\s*,?\\s*\\b(in|using)\\s+(all\\s+)?(upper\\s*-?\\s*case|capital|caps)(\\s+letters)?\\b", std::regex::icase);
    std::smatch m;
    if (search_outside_quotes(rest, m, lower_re)) casing = 1;
    else if (search_outside_quotes(rest, m, upper_re)) casing = 2;
    if (casing) rest = rest.substr(0, static_cast<size_t>(m.position(0))) + std::string(m.suffix());
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
// "Use the textbox to enter "Tora"": the means names where the action goes.
std::optional<bool> plan_use_to(const Clause& c, Clauses& out, std::string& note) {
  static const std::regex use_re("^(.+?)\\s+to\\s+(enter|type|input|write|fill in|put|insert|search for|search)\\s+(.+)$", std::regex::icase);
  std::smatch m;
  if (!std::regex_match(c.rest, m, use_re)) return std::nullopt;
  std::string what = m[1], verb2 = lower(std::string(m[2])), value = m[3];
  if (starts_with(verb2, "search")) verb2 = "enter";
  return plan_type(verb2.substr(0, verb2.find(' ')), value + " into " + what, c.source, out, note);
}

// "Change the quantity to 3": a value for a field.
std::optional<bool> plan_change_to(const Clause& c, Clauses& out, std::string& note) {
  if (find_outside_quotes(c.rest, " to ") == std::string::npos || starts_with(c.lrest, "to ")) return std::nullopt;
  size_t before = out.size();
  if (plan_set(c.rest, c.source, out, note)) return true;
  out.resize(before);
  return std::nullopt;
}

// "enter / type / fill in / set / use "x" as the name": a value for a field.
std::optional<bool> plan_enter(const Clause& c, Clauses& out, std::string& note) { return plan_type(c.verb, c.rest, c.source, out, note); }

// "clear the search box"; "clear the box" is an uncheck. "box" is a word of its own (or the end of
// "checkbox"/"tickbox"): "the mailbox name field", "the inbox filter" are fields to empty.
std::optional<bool> plan_clear(const Clause& c, Clauses& out, std::string&) {
  static const std::regex box("\\b(?:box|boxes|checkbox|checkboxes|tickbox|tickboxes)\\b");
  if (std::regex_search(c.lrest, box) && c.lrest.find("text") == std::string::npos && c.lrest.find("search") == std::string::npos)
    return plan_check(false, c.rest, c.source, out);
  Command cmd = make(Verb::Clear, c.source);
  cmd.target = parse_target(c.rest);
  if (cmd.target.kind == Target::Kind::Words && cmd.target.roles.empty()) cmd.target.roles = {"textbox"};
  out.push_back(cmd);
  return true;
}

// "focus on the name field"; the text field when none is named.
std::optional<bool> plan_focus(const Clause& c, Clauses& out, std::string&) {
  Command cmd = make(Verb::Focus, c.source);
  std::string r = after_prep(c.rest, {"on ", "into ", "in ", "onto "});
  cmd.target = parse_target(r.empty() ? "the text field" : r);
  if (cmd.target.kind == Target::Kind::Words && cmd.target.roles.empty()) cmd.target.roles = {"textbox"};
  out.push_back(cmd);
  return true;
}

}  // namespace ouro::commands::detail
