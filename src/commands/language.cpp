#include "commands/language.h"

#include "commands/words.h"

#include <algorithm>
#include <map>
#include <regex>

namespace ouro::commands {

std::string_view verb_name(Verb v) {
  switch (v) {
    case Verb::Navigate: return "navigate";
    case Verb::Back: return "back";
    case Verb::Forward: return "forward";
    case Verb::Reload: return "reload";
    case Verb::Click: return "click";
    case Verb::DoubleClick: return "double-click";
    case Verb::Hover: return "hover";
    case Verb::Focus: return "focus";
    case Verb::Expand: return "expand";
    case Verb::Collapse: return "collapse";
    case Verb::Type: return "type";
    case Verb::Clear: return "clear";
    case Verb::Select: return "select";
    case Verb::Choose: return "choose";
    case Verb::Check: return "check";
    case Verb::Uncheck: return "uncheck";
    case Verb::Press: return "press";
    case Verb::Scroll: return "scroll";
    case Verb::ScrollTo: return "scroll to";
    case Verb::Wait: return "wait";
    case Verb::Extract: return "extract";
    case Verb::Submit: return "submit";
    case Verb::UseTool: return "use";
  }
  return "?";
}

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> out;
  for (auto& piece : split_outside_quotes(text, [](std::string_view s, size_t i) { return s[i] == '\n' || s[i] == '\r' || s[i] == ';' ? 1 : 0; }, true))
    if (auto t = trim(piece); !t.empty() && t[0] != '#') out.push_back(std::move(t));
  return out;
}

std::optional<std::string> key_name(std::string_view words) {
  static const std::map<std::string, std::string> names = {
      {"enter", "Enter"}, {"return", "Enter"}, {"the enter key", "Enter"}, {"tab", "Tab"}, {"escape", "Escape"}, {"esc", "Escape"},
      {"space", "Space"}, {"spacebar", "Space"}, {"backspace", "Backspace"}, {"delete", "Delete"}, {"del", "Delete"},
      {"up", "ArrowUp"}, {"down", "ArrowDown"}, {"left", "ArrowLeft"}, {"right", "ArrowRight"}, {"arrowup", "ArrowUp"},
      {"arrowdown", "ArrowDown"}, {"arrowleft", "ArrowLeft"}, {"arrowright", "ArrowRight"}, {"arrow up", "ArrowUp"},
      {"arrow down", "ArrowDown"}, {"arrow left", "ArrowLeft"}, {"arrow right", "ArrowRight"}, {"up arrow", "ArrowUp"},
      {"down arrow", "ArrowDown"}, {"left arrow", "ArrowLeft"}, {"right arrow", "ArrowRight"}, {"home", "Home"}, {"end", "End"},
      {"pageup", "PageUp"}, {"page up", "PageUp"}, {"pagedown", "PageDown"}, {"page down", "PageDown"},
  };
  static const std::map<std::string, std::string> mods = {{"ctrl", "Control"}, {"control", "Control"}, {"shift", "Shift"},
                                                          {"alt", "Alt"}, {"option", "Alt"}, {"cmd", "Meta"}, {"command", "Meta"}, {"meta", "Meta"}};
  std::string w = trim(words);
  while (!w.empty() && (w.back() == '.' || w.back() == '!')) w.pop_back();
  if (w.size() >= 2 && (w.front() == '"' || w.front() == '\'') && w.back() == w.front()) w = w.substr(1, w.size() - 2);
  std::string l = lower(w);
  for (const char* suffix : {" key", " button"})
    if (ends_with(l, suffix) && l.size() > std::string_view(suffix).size()) {
      l.resize(l.size() - std::string_view(suffix).size());
      w.resize(l.size());
    }
  if (starts_with(l, "the ")) l = l.substr(4), w = w.substr(4);
  // Chords: ctrl+a, Shift+Tab, Control + Enter.
  if (l.find('+') != std::string::npos && l.size() > 1) {
    std::vector<std::string> parts;
    for (auto& p : split(l, '+')) parts.push_back(trim(p));
    std::string out;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
      auto m = mods.find(parts[i]);
      if (m == mods.end()) return std::nullopt;
      out += m->second + "+";
    }
    auto last = key_name(parts.back());
    if (!last) return std::nullopt;
    return out + *last;
  }
  if (auto it = names.find(l); it != names.end()) return it->second;
  if (l.size() >= 2 && l.size() <= 3 && l[0] == 'f' && std::all_of(l.begin() + 1, l.end(), ::isdigit)) {
    int n = std::stoi(l.substr(1));
    if (n >= 1 && n <= 12) return "F" + std::to_string(n);
  }
  if (w.size() == 1 && std::isprint(static_cast<unsigned char>(w[0])) && w[0] != ' ') return w;
  return std::nullopt;
}

namespace {

const std::regex& ref_re() {
  static const std::regex re("^(f[0-9]+)?e[0-9]+$");
  return re;
}

bool looks_like_selector(const std::string& t) {
  static const std::regex engine("^(role|text|label|placeholder|alt|title|testid|css|xpath|nth|within|ref)\\s*=", std::regex::icase);
  if (std::regex_search(t, engine)) return true;
  if (t.empty()) return false;
  if (t[0] == '#' || t[0] == '.' || t[0] == '[' || starts_with(t, "//") || starts_with(t, "(//")) return t.size() > 1 && t.find(' ') == std::string::npos ? true : t[0] != '.';
  // tag[attr], tag#id, tag.class, tag:pseudo, a > b
  static const std::regex css("^[a-zA-Z][a-zA-Z0-9-]*(\\[[^\\]]+\\]|#[\\w-]+|\\.[\\w-]+|:[\\w-]+)");
  if (std::regex_search(t, css) && t.find(' ') == std::string::npos) return true;
  return t.find(" > ") != std::string::npos && t.find_first_of("#.[") != std::string::npos;
}

// Canonical role words, longest phrases first.
const std::vector<std::pair<std::string, std::string>>& role_words() {
  static const std::vector<std::pair<std::string, std::string>> w = {
      {"radio buttons", "radio"}, {"radio button", "radio"}, {"option buttons", "radio"}, {"option button", "radio"},
      {"check boxes", "checkbox"}, {"check box", "checkbox"}, {"checkboxes", "checkbox"}, {"checkbox", "checkbox"},
      {"tick boxes", "checkbox"}, {"tick box", "checkbox"}, {"tickbox", "checkbox"},
      {"text fields", "textbox"}, {"text field", "textbox"}, {"text boxes", "textbox"}, {"text box", "textbox"}, {"textboxes", "textbox"},
      {"textbox", "textbox"}, {"text inputs", "textbox"}, {"text input", "textbox"}, {"input fields", "textbox"}, {"input field", "textbox"},
      {"input boxes", "textbox"}, {"input box", "textbox"}, {"text areas", "textbox"}, {"text area", "textbox"}, {"textarea", "textbox"},
      {"search boxes", "searchbox"}, {"search box", "searchbox"}, {"search field", "searchbox"}, {"search bar", "searchbox"}, {"searchbox", "searchbox"},
      {"entry field", "textbox"}, {"fields", "textbox"}, {"field", "textbox"}, {"inputs", "textbox"}, {"input", "textbox"},
      {"drop-down list", "list"}, {"drop down list", "list"}, {"dropdown list", "list"}, {"drop-down menu", "list"}, {"dropdown menu", "list"},
      {"drop down menu", "list"}, {"drop-down", "list"}, {"drop down", "list"}, {"dropdowns", "list"}, {"dropdown", "list"},
      {"select box", "list"}, {"select menu", "list"}, {"list box", "list"}, {"listbox", "list"}, {"list", "list"}, {"select", "list"},
      {"menu items", "menuitem"}, {"menu item", "menuitem"}, {"menu", "menu"},
      {"buttons", "button"}, {"button", "button"}, {"btn", "button"},
      {"hyperlinks", "link"}, {"hyperlink", "link"}, {"links", "link"}, {"link", "link"},
      {"tabs", "tab"}, {"tab", "tab"}, {"options", "option"}, {"option", "option"}, {"choices", "option"}, {"choice", "option"},
      {"items", "option"}, {"item", "option"}, {"entries", "option"}, {"entry", "option"},
      {"boxes", "box"}, {"box", "box"}, {"toggles", "switch"}, {"toggle", "switch"}, {"switches", "switch"}, {"switch", "switch"},
      {"spin buttons", "spinbutton"}, {"spin button", "spinbutton"}, {"spinners", "spinbutton"}, {"spinner", "spinbutton"}, {"spinbox", "spinbutton"},
      {"sliders", "slider"}, {"slider", "slider"}, {"headings", "heading"}, {"heading", "heading"}, {"images", "image"}, {"image", "image"},
      {"icons", "image"}, {"icon", "image"}, {"pictures", "image"}, {"picture", "image"},
      {"sections", "section"}, {"section", "section"}, {"panels", "section"}, {"panel", "section"}, {"accordion", "section"},
      {"widget", ""}, {"widgets", ""}, {"element", ""}, {"elements", ""}, {"control", ""}, {"controls", ""},
  };
  return w;
}

const std::map<std::string, int>& ordinals() {
  static const std::map<std::string, int> o = {
      {"first", 1}, {"1st", 1}, {"second", 2}, {"2nd", 2}, {"third", 3}, {"3rd", 3}, {"fourth", 4}, {"4th", 4}, {"fifth", 5},
      {"5th", 5}, {"sixth", 6}, {"6th", 6}, {"seventh", 7}, {"7th", 7}, {"eighth", 8}, {"8th", 8}, {"ninth", 9}, {"9th", 9},
      {"tenth", 10}, {"10th", 10}, {"last", -1}, {"final", -1}, {"top", 1}, {"bottom", -1},
  };
  return o;
}

// Where a target lives: "in the dialog", "in the header".
const std::map<std::string, std::string>& places() {
  static const std::map<std::string, std::string> p = {
      {"dialog", "dialog"}, {"dialog box", "dialog"}, {"popup", "dialog"}, {"pop-up", "dialog"}, {"modal", "dialog"}, {"window", "dialog"},
      {"header", "header"}, {"footer", "footer"}, {"sidebar", "aside"}, {"navigation", "nav"}, {"nav", "nav"}, {"menu bar", "nav"},
      {"navbar", "nav"}, {"form", "form"}, {"main content", "main"},
  };
  return p;
}

bool is_filler(const std::string& w) {
  static const std::vector<std::string> f = {"the", "a", "an", "at", "onto", "into", "to", "of", "that", "which", "is", "this",
                                            "my", "its", "your", "our", "their", "here", "there", "below", "above", "page", "one", "ones",
                                            "with", "for", "named", "labeled", "labelled", "called", "titled", "saying", "says", "reads",
                                            "text", "word", "words", "marked", "whose", "label", "shown", "visible", "displayed", "corresponding",
                                            "appropriate", "right", "correct", "given", "following", "specified", "respective", "just"};
  return std::find(f.begin(), f.end(), w) != f.end();
}

std::string unquote(const std::string& s) {
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front()) return s.substr(1, s.size() - 2);
  return s;
}

}  // namespace

Target parse_target(std::string_view words_in) {
  Target t;
  std::string text = normalize_quotes(trim(words_in));
  while (!text.empty() && (text.back() == '.' || text.back() == '!' || text.back() == ',' || text.back() == '?')) text.pop_back();
  text = trim(text);
  t.text = text;
  if (text.empty()) return t;
  if (std::regex_match(text, ref_re())) {
    t.kind = Target::Kind::Ref;
    return t;
  }
  if (looks_like_selector(text)) {
    t.kind = Target::Kind::Selector;
    return t;
  }
  t.kind = Target::Kind::Words;
  // "Remove in the row for Bob", "the Edit link next to "Invoice 7"": the text whose row holds it.
  {
    static const std::regex row(
        "\\s+(?:in|on|within|from|of)\\s+(?:the\\s+|a\\s+)?(?:same\\s+)?(?:row|line|entry|card|item|listing|record|tile)\\s+"
        "(?:for|with|of|containing|that\\s+(?:says|has|contains|shows)|as|where|about|labell?ed|named|called)\\s+(.+)$",
        std::regex::icase);
    static const std::regex next_to("\\s+(?:next\\s+to|beside|alongside|near|by\\s+the\\s+name)\\s+(.+)$", std::regex::icase);
    static const std::regex owner("\\s+(?:in|on|of)\\s+(?:the\\s+)?(.+?)(?:'s|’s)\\s+(?:row|line|entry|card|item|listing|record|tile)$", std::regex::icase);
    static const std::regex named_row("\\s+(?:in|on|of)\\s+the\\s+(.+?)\\s+(?:row|line|card|tile)$", std::regex::icase);
    std::smatch m;
    if (std::regex_search(text, m, row) || std::regex_search(text, m, next_to) || std::regex_search(text, m, owner) ||
        std::regex_search(text, m, named_row)) {
      std::string near = unquote(trim(std::string(m[1])));
      if (starts_with(lower(near), "the ")) near = trim(near.substr(4));
      if (!near.empty() && m.position(0) > 0) {
        t.near = near;
        text = trim(text.substr(0, static_cast<size_t>(m.position(0))));
      }
    }
  }
  // Quoted text names the element exactly.
  std::vector<std::string> quoted;
  std::string rest = extract_quoted(text, quoted);
  if (!quoted.empty()) {
    t.name = quoted[0];
    t.exact = true;
    // "Click on a "checkbox" widget": the quoted word is the kind of element, not its name.
    std::string lr = " " + lower(rest) + " ";
    if (lr.find(" widget ") != std::string::npos || lr.find(" element ") != std::string::npos || lr.find(" control ") != std::string::npos ||
        lr.find(" widgets ") != std::string::npos || lr.find(" elements ") != std::string::npos) {
      // Kinds by what the element is: "text" is a one-line text input, "textarea" the multi-line one.
      static const std::map<std::string, std::string> kinds = {
          {"text", "textinput"}, {"input", "textinput"}, {"textbox", "textinput"}, {"text input", "textinput"}, {"textarea", "textarea"},
          {"text area", "textarea"}, {"radio", "radio"}, {"radio button", "radio"}, {"checkbox", "checkbox"}, {"check box", "checkbox"},
          {"button", "button"}, {"link", "link"}, {"select", "list"}, {"dropdown", "list"}, {"slider", "slider"}, {"range", "slider"},
          {"spinner", "spinbutton"}, {"number", "spinbutton"}, {"switch", "switch"}, {"toggle", "switch"}, {"tab", "tab"}};
      std::string q = lower(trim(quoted[0]));
      std::string role;
      if (auto k = kinds.find(q); k != kinds.end()) role = k->second;
      else
        for (const auto& [phrase, r] : role_words())
          if (!r.empty() && q == phrase) {
            role = r;
            break;
          }
      if (!role.empty()) {
        t.roles.push_back(role);
        t.name.clear();
        t.exact = false;
      }
    }
  }
  std::string l = " " + lower(rest) + " ";
  for (const char* c : {",", ".", "!", "?", ":"})
    for (size_t p; (p = l.find(c)) != std::string::npos;) l.replace(p, 1, " ");
  // "in the dialog box", "within the header"
  std::vector<std::pair<std::string, std::string>> by_length(places().begin(), places().end());
  std::stable_sort(by_length.begin(), by_length.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  for (const auto& [phrase, where] : by_length)
    for (const char* prep : {" in the ", " inside the ", " within the ", " on the ", " in a ", " of the "}) {
      std::string p = std::string(prep) + phrase + " ";
      if (auto at = l.find(p); at != std::string::npos) {
        t.within = where;
        l.replace(at, p.size() - 1, "");
      }
    }
  // Role words: the canonical role of the first one named; "…box" next to check verbs is resolved by the binder.
  // Each is marked where it stands first (\x01 and its index in `found`), so that which are roles
  // can be told by their place; a \x01 of the person's own text is no mark.
  std::replace(l.begin(), l.end(), '\x01', ' ');
  std::vector<std::pair<std::string, std::string>> found;  // phrase, role: in the order of role_words()
  for (const auto& [phrase, role] : role_words()) {
    std::string p = " " + phrase + " ";
    for (size_t at; (at = l.find(p)) != std::string::npos;) {
      l.replace(at + 1, phrase.size(), "\x01" + std::to_string(found.size()));
      found.emplace_back(phrase, role);
    }
  }
  auto marked = [](const std::string& w) { return w.size() > 1 && w[0] == '\x01' ? std::stoi(w.substr(1)) : -1; };
  // The role is the role word that ends the phrase ("the X button", filler after it aside); one
  // that stands after a word of the name, before that last one, is part of the name: "the Add to
  // list button" is the button named "Add to list", "the Open menu button" the one named "Open
  // menu". One before any word of the name says what kind it is ("the toggle button", "the second
  // list item") and stays a role.
  std::vector<bool> in_name(found.size(), false);
  {
    auto words = split_ws(l);
    size_t last = words.size();
    for (size_t i = words.size(); i-- > 0;) {
      if (int m = marked(words[i]); m >= 0) {
        if (found[static_cast<size_t>(m)].second.empty()) continue;  // "… button element"
        last = i;
        break;
      }
      if (!is_filler(words[i])) break;
    }
    bool named = false;
    for (size_t i = 0; i < last && last < words.size(); ++i) {
      const std::string& w = words[i];
      if (int m = marked(w); m >= 0) {
        if (named) in_name[static_cast<size_t>(m)] = true;
      } else if (!is_filler(w) && !ordinals().count(w) && w != "both" && w != "all" && w != "each" && w != "every" && w != "on" && w != "in") {
        named = true;
      }
    }
  }
  for (size_t i = 0; i < found.size(); ++i) {
    const std::string& role = found[i].second;
    if (!in_name[i] && !role.empty() && std::find(t.roles.begin(), t.roles.end(), role) == t.roles.end()) t.roles.push_back(role);
  }
  // The words as they were without the roles: a role word of the name is back in its place.
  std::vector<std::string> toks;
  for (const auto& w : split_ws(l)) {
    int m = marked(w);
    if (m < 0) toks.push_back(w);
    else if (in_name[static_cast<size_t>(m)])
      for (const auto& pw : split_ws(found[static_cast<size_t>(m)].first)) toks.push_back(pw);
  }
  std::vector<std::string> kept;
  for (size_t i = 0; i < toks.size(); ++i) {
    const std::string& w = toks[i];
    if (auto o = ordinals().find(w); o != ordinals().end() && (t.ordinal == 0)) {
      // "top"/"bottom" are ordinals only before a role word or alone ("the top link").
      if ((w == "top" || w == "bottom") && (i + 1 < toks.size())) {
        kept.push_back(w);
        continue;
      }
      t.ordinal = o->second;
      continue;
    }
    if ((w == "#" || w == "number" || w == "no" || w == "nr") && i + 1 < toks.size() && std::all_of(toks[i + 1].begin(), toks[i + 1].end(), ::isdigit) &&
        toks[i + 1].size() <= 4) {
      t.ordinal = std::stoi(toks[i + 1]);
      ++i;
      continue;
    }
    if (w.size() >= 2 && w[0] == '#' && w.size() <= 5 && std::all_of(w.begin() + 1, w.end(), ::isdigit)) {
      t.ordinal = std::stoi(w.substr(1));
      continue;
    }
    if (w == "both" || w == "all" || w == "each" || w == "every") {
      t.all = true;
      continue;
    }
    if (w == "the" || w == "a" || w == "an") continue;
    kept.push_back(w);
  }
  // Filler at the ends goes ("labeled Cancel", "Email address here"); inside a name it stays ("Sign in", "Terms of use").
  // A word the person capitalised whole ("button ONE") or the last one left is a name, not filler.
  auto shouted = [&](const std::string& w) {
    std::string orig = original_spelling(rest, {w});
    return orig.size() > 1 && std::none_of(orig.begin(), orig.end(), [](unsigned char ch) { return std::islower(ch); }) &&
           std::any_of(orig.begin(), orig.end(), [](unsigned char ch) { return std::isupper(ch); });
  };
  auto droppable = [&](const std::string& w) { return !shouted(w) && !(kept.size() == 1 && (w == "text" || w == "label")); };
  while (!kept.empty() && (is_filler(kept.front()) || kept.front() == "on" || kept.front() == "in") && droppable(kept.front())) kept.erase(kept.begin());
  while (!kept.empty() && is_filler(kept.back()) && droppable(kept.back())) kept.pop_back();
  // "the scroll list", "the multi-select box": words that say what kind of list it is, not its name.
  if (!t.exact && !t.roles.empty() && !kept.empty()) {
    static const std::vector<std::string> kind_words = {"scroll", "scrolling", "scrollable", "multi", "multiple", "multi-select", "multiselect",
                                                        "selection", "select", "pull-down", "pulldown", "combo", "only", "single", "native"};
    if (std::all_of(kept.begin(), kept.end(), [&](const std::string& w) { return std::find(kind_words.begin(), kind_words.end(), w) != kind_words.end(); }))
      kept.clear();
  }
  if (!t.exact && !kept.empty()) {
    // Keep the person's own spelling of the words kept (case matters to nobody but reads better).
    t.name = original_spelling(rest, kept);
  }
  // A bare number with a role ("tab 2", "link 3") is an ordinal unless something else names it.
  if (!t.exact && t.ordinal == 0 && !t.roles.empty() && kept.size() == 1 && std::all_of(kept[0].begin(), kept[0].end(), ::isdigit) && kept[0].size() <= 3) {
    t.ordinal = std::stoi(kept[0]);
    t.name.clear();
  }
  return t;
}

json target_json(const Target& t) {
  json j = json::object();
  switch (t.kind) {
    case Target::Kind::None: return nullptr;
    case Target::Kind::Ref: j["ref"] = t.text; return j;
    case Target::Kind::Selector: j["selector"] = t.text; return j;
    case Target::Kind::Words: break;
  }
  j["words"] = t.text;
  if (!t.name.empty()) j["name"] = t.name;
  if (t.exact) j["exact"] = true;
  if (!t.roles.empty()) j["roles"] = t.roles;
  if (t.ordinal) j["ordinal"] = t.ordinal;
  if (t.all) j["all"] = true;
  if (!t.within.empty()) j["within"] = t.within;
  if (!t.near.empty()) j["near"] = t.near;
  return j;
}

namespace {

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string value_text(const Command& c) { return c.secret.empty() ? quote(c.text) : "secret:" + c.secret; }

// "the text field and press" is not a target: a target never holds a clause of its own.
bool takes(std::string_view rest, std::string_view word) { return starts_with(lower(rest), word); }

Result<std::string> need_target(const std::string& rest, std::string_view verb, std::string_view example) {
  if (trim(rest).empty())
    return errorf(Code::InvalidArgument, "'{}' needs a target: a ref (e12), a selector, or words like {}", verb, example);
  return trim(rest);
}

// TEXT: "quoted" (\" escapes), secret:NAME, secret("NAME"), or a single word.
struct Value {
  std::string text, secret, rest;
};
std::optional<Value> take_value(std::string_view s) {
  std::string t = normalize_quotes(trim(s));
  Value v;
  if (t.empty()) return std::nullopt;
  if (t[0] == '"' || t[0] == '\'') {
    char q = t[0];
    size_t i = 1;
    for (; i < t.size() && t[i] != q; ++i) {
      if (t[i] == '\\' && i + 1 < t.size()) ++i;
      v.text += t[i];
    }
    if (i >= t.size()) return std::nullopt;
    v.rest = trim(t.substr(i + 1));
    return v;
  }
  static const std::regex sec1("^secret:([A-Za-z0-9_.-]+)"), sec2("^secret\\(\\s*[\"']([^\"']+)[\"']\\s*\\)");
  std::smatch m;
  if (std::regex_search(t, m, sec2) || std::regex_search(t, m, sec1)) {
    v.secret = m[1];
    v.rest = trim(t.substr(m[0].length()));
    return v;
  }
  return std::nullopt;
}

}  // namespace

Result<Command> parse_command(std::string_view line_in) {
  std::string line = normalize_quotes(trim(line_in));
  while (!line.empty() && (line.back() == '.' || line.back() == '!')) line.pop_back();
  Command c;
  c.source = line;
  std::string l = lower(line);
  auto rest_after = [&](size_t n) { return trim(line.substr(std::min(n, line.size()))); };
  auto first = split_ws(l);
  if (first.empty()) return make_error(Code::InvalidArgument, "an empty command");
  const std::string& v = first[0];
  auto word_end = [&](size_t words) {
    size_t pos = 0;
    for (size_t i = 0; i < words; ++i) {
      while (pos < l.size() && std::isspace(static_cast<unsigned char>(l[pos]))) ++pos;
      while (pos < l.size() && !std::isspace(static_cast<unsigned char>(l[pos]))) ++pos;
    }
    return pos;
  };

  if (v == "navigate" || v == "goto" || v == "visit" || v == "open" || (v == "go" && first.size() > 1 && first[1] == "to")) {
    std::string rest = rest_after(word_end(v == "go" ? 2 : 1));
    if (v == "navigate" && takes(rest, "to ")) rest = trim(rest.substr(3));
    rest = unquote(rest);
    if (!looks_like_url(rest)) return errorf(Code::InvalidArgument, "'{}' needs a URL (https://example.com or example.com/page), got '{}'", v, rest);
    c.verb = Verb::Navigate;
    c.text = rest;
    return c;
  }
  if (l == "back" || l == "go back" || l == "navigate back") return c.verb = Verb::Back, c;
  if (l == "forward" || l == "go forward") return c.verb = Verb::Forward, c;
  if (l == "reload" || l == "refresh" || l == "reload the page" || l == "refresh the page") return c.verb = Verb::Reload, c;

  if (v == "click" || v == "tap" || v == "double-click" || v == "doubleclick" || v == "dblclick" || v == "hover" || v == "focus" ||
      v == "expand" || v == "collapse" || v == "check" || v == "uncheck" || v == "clear" || v == "submit") {
    std::string rest = rest_after(word_end(1));
    for (const char* prep : {"on ", "over ", "into ", "in "})
      if ((v == "click" || v == "tap" || v == "hover" || v == "focus" || v == "double-click" || v == "dblclick") && takes(rest, prep))
        rest = trim(rest.substr(std::string_view(prep).size()));
    static const std::map<std::string, Verb> verbs = {
        {"click", Verb::Click}, {"tap", Verb::Click}, {"double-click", Verb::DoubleClick}, {"doubleclick", Verb::DoubleClick},
        {"dblclick", Verb::DoubleClick}, {"hover", Verb::Hover}, {"focus", Verb::Focus}, {"expand", Verb::Expand},
        {"collapse", Verb::Collapse}, {"check", Verb::Check}, {"uncheck", Verb::Uncheck}, {"clear", Verb::Clear}, {"submit", Verb::Submit}};
    c.verb = verbs.at(v);
    if (c.verb == Verb::Submit) {
      if (!rest.empty() && lower(rest) != "the form" && lower(rest) != "form") c.target = parse_target(rest);
      return c;
    }
    c.target = parse_target(TRY(need_target(rest, v, "\"the Sign in button\" or \"Email field\"")));
    return c;
  }
  if (v == "type" || v == "enter") {
    auto val = take_value(rest_after(word_end(1)));
    if (!val) return errorf(Code::InvalidArgument, "'{}' needs quoted text or a secret: type \"Kathy\" into the Name field, type secret:password into Password", v);
    c.verb = Verb::Type;
    c.text = val->text;
    c.secret = val->secret;
    std::string rest = val->rest;
    for (const char* prep : {"into ", "in ", "on ", "to "})
      if (takes(rest, prep)) {
        rest = trim(rest.substr(std::string_view(prep).size()));
        c.target = parse_target(rest);
        return c;
      }
    if (!rest.empty()) return errorf(Code::InvalidArgument, "after the text, '{}' expects 'into TARGET' (got '{}')", v, rest);
    return c;  // into the focused field
  }
  if (v == "fill") {
    std::string rest = rest_after(word_end(1));
    if (takes(rest, "in ")) rest = trim(rest.substr(3));
    auto at = lower(rest).rfind(" with ");
    if (at == std::string::npos) return make_error(Code::InvalidArgument, "fill needs 'with': fill the Email field with \"a@b.c\"");
    auto val = take_value(rest.substr(at + 6));
    if (!val || !val->rest.empty()) return make_error(Code::InvalidArgument, "fill TARGET with \"TEXT\": the text must be quoted (or secret:NAME)");
    c.verb = Verb::Type;
    c.text = val->text;
    c.secret = val->secret;
    c.target = parse_target(rest.substr(0, at));
    return c;
  }
  if (v == "select" || v == "choose" || v == "pick") {
    auto val = take_value(rest_after(word_end(1)));
    if (!val) return errorf(Code::InvalidArgument, "'{}' needs the option in quotes: select \"Bob\" from the list", v);
    c.verb = v == "select" ? Verb::Select : Verb::Choose;
    c.text = val->text;
    std::string rest = val->rest;
    for (const char* prep : {"from ", "in ", "on ", "of "})
      if (takes(rest, prep)) {
        c.target = parse_target(trim(rest.substr(std::string_view(prep).size())));
        c.verb = Verb::Select;
        return c;
      }
    if (!rest.empty()) return errorf(Code::InvalidArgument, "after the option, '{}' expects 'from TARGET' (got '{}')", v, rest);
    c.verb = Verb::Choose;
    return c;
  }
  if (v == "press" || v == "hit") {
    std::string rest = rest_after(word_end(1));
    auto key = key_name(rest);
    if (!key) return errorf(Code::InvalidArgument, "'{}' needs a key: Enter, Tab, Escape, ArrowDown, PageDown, Control+A, a character (got '{}')", v, rest);
    c.verb = Verb::Press;
    c.text = *key;
    return c;
  }
  if (v == "scroll") {
    std::string rest = lower(rest_after(word_end(1)));
    auto toks = split_ws(rest);
    if (!toks.empty() && toks[0] == "to") {
      std::string what = trim(rest_after(word_end(2)));
      std::string lw = lower(what);
      if (lw == "top" || lw == "the top" || lw == "the top of the page") return c.verb = Verb::Scroll, c.direction = "top", c;
      if (lw == "bottom" || lw == "the bottom" || lw == "the bottom of the page" || lw == "the end") return c.verb = Verb::Scroll, c.direction = "bottom", c;
      c.verb = Verb::ScrollTo;
      c.target = parse_target(TRY(need_target(what, "scroll to", "\"the Reviews heading\"")));
      return c;
    }
    c.verb = Verb::Scroll;
    c.direction = toks.empty() ? "down" : toks[0];
    if (c.direction != "up" && c.direction != "down" && c.direction != "left" && c.direction != "right" && c.direction != "top" && c.direction != "bottom")
      return errorf(Code::InvalidArgument, "scroll takes up, down, left, right, top, bottom or 'to TARGET' (got '{}')", c.direction);
    if (toks.size() > 1) {
      std::string n = toks[1];
      if (ends_with(n, "px")) n.resize(n.size() - 2);
      try {
        c.amount = std::clamp(std::stod(n), 0.0, 1000000.0);
      } catch (...) {
        return errorf(Code::InvalidArgument, "scroll {} N: N is a number of pixels (got '{}')", c.direction, toks[1]);
      }
    }
    return c;
  }
  if (v == "wait") {
    std::string rest = rest_after(word_end(1));
    std::string lr = lower(rest);
    c.verb = Verb::Wait;
    static const std::regex dur("^(?:for\\s+)?([0-9]+(?:\\.[0-9]+)?)\\s*(ms|milliseconds?|s|secs?|seconds?)?$");
    std::smatch m;
    if (std::regex_match(lr, m, dur)) {
      double n = std::stod(m[1]);
      std::string unit = m[2];
      c.amount = std::clamp(unit.empty() || unit[0] == 'm' ? (unit.empty() && n < 100 ? n * 1000 : n) : n * 1000, 0.0, 60000.0);
      return c;
    }
    if (takes(lr, "for ")) rest = trim(rest.substr(4)), lr = lower(rest);
    else if (takes(lr, "until ")) rest = trim(rest.substr(6)), lr = lower(rest);
    if (lr == "load" || lr == "the page" || lr == "the page to load" || lr == "page load" || lr == "the load") return c.wait_load = true, c;
    for (const char* tail : {" to appear", " appears", " is visible", " to show up", " shows up"})
      if (ends_with(lr, tail)) rest = trim(rest.substr(0, rest.size() - std::string_view(tail).size()));
    if (auto val = take_value(rest); val && val->rest.empty() && val->secret.empty()) {
      c.text = val->text;
      return c;
    }
    c.target = parse_target(TRY(need_target(rest, "wait for", "\"the results table\", \"load\" or a quoted text")));
    return c;
  }
  if (v == "use" || v == "call") {
    // use the page's search tool with "pens" | use tool search with q="pens", max=5 | use the page's tool "search" with {"q": "pens"}
    std::string rest = rest_after(word_end(1));
    std::string input_text;
    if (auto at = lower(rest).find(" with "); at != std::string::npos) {
      input_text = trim(rest.substr(at + 6));
      rest = trim(rest.substr(0, at));
    }
    for (const char* lead : {"the page's ", "the pages ", "the page ", "the ", "page ", "tool "})
      if (takes(rest, lead)) rest = trim(rest.substr(std::string_view(lead).size()));
    if (ends_with(lower(rest), " tool")) rest = trim(rest.substr(0, rest.size() - 5));
    if (takes(rest, "tool ")) rest = trim(rest.substr(5));
    rest = unquote(rest);
    if (rest.empty() || rest.find(' ') != std::string::npos)
      return errorf(Code::InvalidArgument, "'{}' needs the name of one of the page's tools: use the page's search tool with \"pens\"", v);
    c.verb = Verb::UseTool;
    c.text = rest;
    c.input = json::object();
    if (input_text.empty()) return c;
    if (input_text.front() == '{') {
      auto j = parse_json(input_text, "the tool's input");
      if (!j || !j->is_object()) return make_error(Code::InvalidArgument, "the tool's input after 'with' must be a JSON object, a quoted text or name=\"value\" pairs");
      c.input = std::move(*j);
      return c;
    }
    if (auto val = take_value(input_text); val && val->rest.empty() && val->secret.empty()) {
      c.input = val->text;
      return c;
    }
    // name="value", other=3
    static const std::regex pair("^\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*=\\s*(\"([^\"]*)\"|[^,]+?)\\s*(,|$)");
    std::string left = input_text;
    std::smatch m;
    while (!trim(left).empty()) {
      if (!std::regex_search(left, m, pair)) return make_error(Code::InvalidArgument, "the tool's input after 'with' must be a JSON object, a quoted text or name=\"value\" pairs");
      std::string value = m[3].matched ? m[3].str() : trim(m[2].str());
      char* end = nullptr;
      double d = m[3].matched ? 0 : std::strtod(value.c_str(), &end);
      if (!m[3].matched && end && *end == '\0' && !value.empty()) c.input[m[1].str()] = d;
      else if (!m[3].matched && (value == "true" || value == "false")) c.input[m[1].str()] = value == "true";
      else c.input[m[1].str()] = value;
      left = left.substr(m[0].length());
    }
    return c;
  }
  if (v == "extract" || v == "get" || v == "collect") {
    std::string rest = rest_after(word_end(1));
    c.verb = Verb::Extract;
    auto at = lower(rest).find(" from ");
    std::string what = at == std::string::npos ? rest : rest.substr(at + 6);
    if (at != std::string::npos)
      for (auto& f : split(rest.substr(0, at), ',')) {
        std::string field = trim(f);
        if (starts_with(lower(field), "and ")) field = trim(field.substr(4));
        for (auto& g : split_on_and(field))
          if (!g.empty()) c.fields.push_back(unquote(g));
      }
    if (!trim(what).empty()) c.target = parse_target(what);
    return c;
  }
  return errorf(Code::InvalidArgument, "unknown command '{}'", v);
}

std::string to_line(const Command& c) {
  std::string v(verb_name(c.verb));
  auto tgt = [&] { return c.target.text; };
  switch (c.verb) {
    case Verb::Navigate: return "navigate " + c.text;
    case Verb::Back: case Verb::Forward: case Verb::Reload: return v;
    case Verb::Type: return "type " + value_text(c) + (c.target.empty() ? "" : " into " + tgt());
    case Verb::Select: {
      std::string values = quote(c.text);
      for (size_t i = 1; i < c.fields.size(); ++i) values += ", " + quote(c.fields[i]);
      return "select " + values + (c.target.empty() ? "" : " from " + tgt());
    }
    case Verb::Choose: return "choose " + quote(c.text);
    case Verb::Press: return "press " + c.text;
    case Verb::Scroll: return "scroll " + c.direction + (c.amount > 0 ? " " + std::to_string(static_cast<long>(c.amount)) : "");
    case Verb::ScrollTo: return "scroll to " + tgt();
    case Verb::Wait:
      if (c.wait_load) return "wait for load";
      if (!c.target.empty()) return "wait for " + tgt();
      if (!c.text.empty()) return "wait for " + quote(c.text);
      return "wait " + std::to_string(static_cast<long>(c.amount)) + " ms";
    case Verb::Extract: {
      std::string f;
      for (size_t i = 0; i < c.fields.size(); ++i) f += (i ? ", " : "") + c.fields[i];
      return "extract " + (f.empty() ? "" : f + " from ") + tgt();
    }
    case Verb::Submit: return c.target.empty() ? "submit" : "submit " + tgt();
    case Verb::UseTool: {
      bool none = c.input.is_null() || (c.input.is_object() && c.input.empty());
      return "use the page's " + c.text + " tool" + (none ? "" : " with " + (c.input.is_string() ? quote(c.input.get<std::string>()) : dump_json(c.input)));
    }
    default: return v + " " + tgt();
  }
}

json to_json(const Command& c) {
  json j = {{"verb", verb_name(c.verb)}, {"line", to_line(c)}};
  if (!c.target.empty()) j["target"] = target_json(c.target);
  if (!c.secret.empty()) j["secret"] = c.secret;
  else if (!c.text.empty()) j["text"] = c.text;
  if (!c.direction.empty()) j["direction"] = c.direction;
  if (c.amount > 0) j["amount"] = c.amount;
  if (!c.fields.empty()) j["fields"] = c.fields;
  if (c.verb == Verb::UseTool) j["input"] = c.input;
  return j;
}

}  // namespace ouro::commands
