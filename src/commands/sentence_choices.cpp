// Plans the steps that choose: select, choose, check, uncheck, toggle, filter, rate, accept, turn or switch on/off, switch to, expand and collapse (docs/guides/without-a-model.md).
#include "commands/sentence_impl.h"

#include "commands/words.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <regex>

namespace ouro::commands::detail {

namespace {

bool is_none(const std::string& words) {
  std::string l = lower(trim(words));
  return l == "nothing" || l == "none" || l == "no items" || l == "no options" || l == "nothing at all" || l == "none of them" ||
         l == "no boxes" || l == "no checkboxes";
}

}  // namespace

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
      if (t.kind == Target::Kind::Words) t.roles = {"checkbox"};
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

// "Give it 4 stars", "rate it 5 out of 5", "rate the product 3 stars": the rating of that many stars.
std::optional<bool> plan_rating(const Clause& c, Clauses& out, std::string& note) {
  static const std::regex stars("^(?:it|this|them|him|her|the \\w+|this \\w+)?\\s*(?:a\\s+)?(\\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten)"
                                "(?:\\s*(?:stars?|out of \\d+|/\\s*\\d+))?(?:\\s+rating)?$",
                                std::regex::icase);
  std::smatch m;
  if (!std::regex_match(c.rest, m, stars)) return false;
  static const std::map<std::string, std::string> n = {{"one", "1"}, {"two", "2"}, {"three", "3"}, {"four", "4"}, {"five", "5"}, {"six", "6"},
                                                       {"seven", "7"}, {"eight", "8"}, {"nine", "9"}, {"ten", "10"}};
  std::string k = lower(std::string(m[1]));
  if (auto it = n.find(k); it != n.end()) k = it->second;
  Command cmd = make(Verb::Choose, c.source);
  cmd.text = k + (k == "1" ? " star" : " stars");
  out.push_back(cmd);
  note = "read as a rating of " + k;
  return true;
}

// "Filter by brand Acme and Zenith", "filter the results to Red": each value chosen.
std::optional<bool> plan_filter(const Clause& c, Clauses& out, std::string&) {
  std::string r = after_prep(c.rest, {"the results by ", "results by ", "the list by ", "by ", "to ", "for ", "on "});
  auto parts = split_on_and(r);
  if (parts.empty()) return false;
  static const std::set<std::string> facets = {"brand", "brands", "color", "colour", "size", "category", "type", "genre", "author",
                                               "price", "rating", "make", "model", "material", "seller", "tag", "status", "year"};
  auto first = split_ws(parts[0]);
  if (first.size() >= 2 && facets.count(lower(first[0]))) parts[0] = trim(parts[0].substr(first[0].size()));
  for (auto& p : parts) {
    std::vector<std::string> q;
    std::string left = extract_quoted(p, q);
    Command cmd = make(Verb::Choose, c.source);
    cmd.text = q.empty() ? trim(left) : q[0];
    if (cmd.text.empty()) return false;
    out.push_back(cmd);
  }
  return true;
}

// "accept the terms", "agree to the privacy policy": tick its box, or press the button that says so.
std::optional<bool> plan_accept(const Clause& c, Clauses& out, std::string&) {
  const std::string& v = c.verb;
  std::string r = after_prep(c.rest, {"to ", "with "});
  if (r.empty()) {
    Command cmd = make(Verb::Click, c.source);
    cmd.target = parse_target(v);
    out.push_back(cmd);
    return true;
  }
  std::string lr0 = lower(r);
  if (starts_with(lr0, "all") || lr0.find("cookie") != std::string::npos) {
    // "Accept all cookies": the button that says so ("Accept all"), never every box on the page.
    Command cmd = make(Verb::Click, c.source);
    cmd.target.kind = Target::Kind::Words;
    cmd.target.text = v + " " + r;
    cmd.target.name = v + " " + r;
    out.push_back(cmd);
    return true;
  }
  Command cmd = make(Verb::Check, c.source);
  cmd.target = parse_target(r);
  if (cmd.target.kind == Target::Kind::Words && cmd.target.roles.empty()) cmd.target.roles = {"checkbox"};
  cmd.or_click = true;
  cmd.text = v + " " + r;
  out.push_back(cmd);
  return true;
}

// "turn on dark mode", "switch off notifications", "turn dark mode on".
std::optional<bool> plan_turn_on_off(const Clause& c, Clauses& out, std::string&) {
  const std::string& r = c.lrest;
  // "Turn on", "switch off": on or off of nothing named is no step, for either verb ("switch"
  // would otherwise be read as "switch to" a tab called "on").
  if (r == "on" || r == "off") return false;
  bool on = starts_with(r, "on ") || ends_with(r, " on");
  bool off = starts_with(r, "off ") || ends_with(r, " off");
  if (!on && !off) return std::nullopt;
  std::string what = c.rest;
  if (starts_with(r, "on ") || starts_with(r, "off ")) what = c.rest.substr(c.rest.find(' ') + 1);
  else what = c.rest.substr(0, c.rest.rfind(' '));
  return plan_check(on, what, c.source, out);
}

// "switch to the Billing tab", "move to Settings": a tab.
std::optional<bool> plan_switch_to(const Clause& c, Clauses& out, std::string&) {
  std::string r = after_prep(c.rest, {"over to ", "to ", "into "});
  if (r.empty()) return false;
  Target t = parse_target(r);
  if (t.kind == Target::Kind::Words && t.roles.empty()) t.roles = {"tab"};
  Command cmd = make(Verb::Click, c.source);
  cmd.target = t;
  out.push_back(cmd);
  return true;
}

std::optional<bool> plan_select(const Clause& c, Clauses& out, std::string& note) { return plan_choose(c.rest, c.source, out, note); }

std::optional<bool> plan_tick(const Clause& c, Clauses& out, std::string&) { return plan_check(true, c.rest, c.source, out); }

std::optional<bool> plan_untick(const Clause& c, Clauses& out, std::string&) { return plan_check(false, c.rest, c.source, out); }

std::optional<bool> plan_toggle(const Clause& c, Clauses& out, std::string&) { return plan_click(c.rest, c.source, out); }

// "expand all the sections": no step, a target in a closed section is shown when it is needed.
std::optional<bool> plan_open_sections(const Clause& c, Clauses&, std::string& note) {
  static const std::regex sections("^(all )?(the )?(sections|panels|accordions|tabs|folds|headers)\\b");
  if (!std::regex_search(c.lrest, sections)) return std::nullopt;
  note = "no step: a target in a closed section is shown when it is needed";
  return true;
}

// "expand the Details section", "collapse the sidebar", "show advanced options".
std::optional<bool> plan_expand(const Clause& c, Clauses& out, std::string&) {
  Command cmd = make(c.verb == "collapse" || c.verb == "hide" ? Verb::Collapse : Verb::Expand, c.source);
  cmd.target = parse_target(c.rest.empty() ? "the section" : c.rest);
  if (auto o = std::find(cmd.target.roles.begin(), cmd.target.roles.end(), "option"); o != cmd.target.roles.end() && !cmd.target.exact) {
    // "Show advanced options", "expand more settings": the words name the control that shows them.
    cmd.target.roles.erase(o);
    std::string words = c.rest;
    if (starts_with(lower(words), "the ")) words = trim(words.substr(4));
    cmd.target.name = words;
  }
  out.push_back(cmd);
  return true;
}

}  // namespace ouro::commands::detail
