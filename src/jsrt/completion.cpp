#include "jsrt/completion.h"

#include <algorithm>

#include <cctype>
#include <vector>

namespace ouro::jsrt {

namespace {

// Offsets just after a top-level ';' or newline (outside strings, comments, templates, regexes and
// brackets): the places where the last statement may begin.
std::vector<size_t> statement_starts(const std::string& s) {
  std::vector<size_t> out;
  int depth = 0;
  std::vector<int> template_depths;  // bracket depth at each open `${`
  char prev_sig = 0;                 // last significant character, for regex detection
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n') ++i;
      if (i < s.size() && depth == 0) out.push_back(i + 1);
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      auto end = s.find("*/", i + 2);
      i = end == std::string::npos ? s.size() : end + 1;
      continue;
    }
    if (c == '\'' || c == '"') {
      for (++i; i < s.size() && s[i] != c && s[i] != '\n'; ++i)
        if (s[i] == '\\') ++i;
      prev_sig = c;
      continue;
    }
    if (c == '`' || (c == '}' && !template_depths.empty() && template_depths.back() == depth)) {
      if (c == '}') template_depths.pop_back();
      for (++i; i < s.size(); ++i) {
        if (s[i] == '\\') { ++i; continue; }
        if (s[i] == '`') break;
        if (s[i] == '$' && i + 1 < s.size() && s[i + 1] == '{') {
          ++i;
          template_depths.push_back(depth);
          break;
        }
      }
      prev_sig = '`';
      continue;
    }
    if (c == '/' && (prev_sig == 0 || std::string_view("(,=:[!&|?{};+-*%<>~^").find(prev_sig) != std::string_view::npos)) {
      for (++i; i < s.size() && s[i] != '/' && s[i] != '\n'; ++i) {
        if (s[i] == '\\') ++i;
        else if (s[i] == '[') while (i + 1 < s.size() && s[++i] != ']') if (s[i] == '\\') ++i;
      }
      prev_sig = 'r';
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    else if (c == ')' || c == ']' || c == '}') --depth;
    // A block's closing brace also ends a statement: `for (…) { … } out`.
    if ((c == ';' || c == '\n' || c == '}') && depth == 0) out.push_back(i + 1);
    if (!std::isspace(static_cast<unsigned char>(c))) prev_sig = c;
  }
  return out;
}

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && (std::isspace(static_cast<unsigned char>(s[e - 1])) || s[e - 1] == ';')) --e;
  return s.substr(b, e - b);
}

bool starts_with_word(const std::string& s, std::string_view word) {
  return s.rfind(word, 0) == 0 && (s.size() == word.size() || !(std::isalnum(static_cast<unsigned char>(s[word.size()])) || s[word.size()] == '_' || s[word.size()] == '$'));
}

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

// Reads an identifier at `i`; returns it and advances `i`, or returns "".
std::string read_ident(const std::string& s, size_t& i) {
  if (i >= s.size() || !ident_start(s[i])) return "";
  size_t b = i;
  while (i < s.size() && ident_char(s[i])) ++i;
  return s.substr(b, i - b);
}

void skip_space(const std::string& s, size_t& i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
}

void skip_blank(const std::string& s, size_t& i) {
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
}

// Past a default value or a computed key inside a pattern: up to `,` or `stop` at its own depth,
// over brackets and string literals. False when the text ends first or holds what this does not
// read (a comment, a template, a regular expression).
bool skip_expression(const std::string& s, size_t& i, char stop) {
  int depth = 0;
  while (i < s.size()) {
    char c = s[i];
    if (depth == 0 && (c == ',' || c == stop)) return true;
    if (c == '/' || c == '`') return false;
    if (c == '\'' || c == '"') {
      for (++i; i < s.size() && s[i] != c; ++i)
        if (s[i] == '\\') ++i;
      if (i >= s.size()) return false;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) return false;
      --depth;
    }
    ++i;
  }
  return false;
}

bool pattern_target(const std::string& s, size_t& i, std::vector<std::string>& names, int nesting);

// {a, b: c, d = 1, ...e, [k]: f, "x y": g} — the names it binds go to `names`.
bool object_pattern(const std::string& s, size_t& i, std::vector<std::string>& names, int nesting) {
  ++i;
  while (true) {
    skip_blank(s, i);
    if (i >= s.size()) return false;
    if (s[i] == '}') return ++i, true;
    if (s.compare(i, 3, "...") == 0) {
      i += 3;
      if (!pattern_target(s, i, names, nesting)) return false;
    } else {
      std::string key;
      if (s[i] == '[') {
        ++i;
        if (!skip_expression(s, i, ']') || i >= s.size() || s[i] != ']') return false;
        ++i;
      } else if (s[i] == '\'' || s[i] == '"') {
        if (!skip_expression(s, i, ':')) return false;
      } else {
        key = read_ident(s, i);
        if (key.empty()) {
          while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;  // a numeric key
        }
      }
      skip_blank(s, i);
      if (i < s.size() && s[i] == ':') {
        ++i;
        if (!pattern_target(s, i, names, nesting)) return false;
      } else if (!key.empty()) {
        names.push_back(key);
      } else {
        return false;
      }
      skip_blank(s, i);
      if (i < s.size() && s[i] == '=') {
        ++i;
        if (!skip_expression(s, i, '}')) return false;
      }
    }
    skip_blank(s, i);
    if (i < s.size() && s[i] == ',') ++i;
  }
}

// [x, , y = 2, ...z, {w}] — the same for an array pattern.
bool array_pattern(const std::string& s, size_t& i, std::vector<std::string>& names, int nesting) {
  ++i;
  while (true) {
    skip_blank(s, i);
    if (i >= s.size()) return false;
    if (s[i] == ']') return ++i, true;
    if (s[i] == ',') {
      ++i;
      continue;
    }
    if (s.compare(i, 3, "...") == 0) i += 3;
    if (!pattern_target(s, i, names, nesting)) return false;
    skip_blank(s, i);
    if (i < s.size() && s[i] == '=') {
      ++i;
      if (!skip_expression(s, i, ']')) return false;
    }
    skip_blank(s, i);
    if (i < s.size() && s[i] == ',') ++i;
  }
}

bool pattern_target(const std::string& s, size_t& i, std::vector<std::string>& names, int nesting) {
  skip_blank(s, i);
  if (i >= s.size() || nesting > 16) return false;
  if (s[i] == '{') return object_pattern(s, i, names, nesting + 1);
  if (s[i] == '[') return array_pattern(s, i, names, nesting + 1);
  std::string name = read_ident(s, i);
  if (name.empty()) return false;
  names.push_back(name);
  return true;
}

}  // namespace

std::string persist_declarations(const std::string& code, const std::function<bool(std::string_view)>& reserved,
                                 const std::function<bool(const std::string&)>& valid) {
  std::vector<size_t> starts = statement_starts(code);
  starts.insert(starts.begin(), 0);
  struct Edit {
    size_t at, len;
    std::string text;
  };
  std::vector<Edit> edits;
  std::string exports;
  struct Destructured {
    size_t after;      // its `=`: the copies go at a statement boundary after it
    std::string copy;  // "globalThis.a = a; …"
  };
  std::vector<Destructured> destructured;
  size_t last = std::string::npos;
  for (size_t start : starts) {
    size_t i = start;
    while (i < code.size() && std::isspace(static_cast<unsigned char>(code[i]))) ++i;
    if (i == last || i >= code.size()) continue;
    last = i;
    size_t kw_at = i;
    std::string kw = read_ident(code, i);
    if (kw == "const" || kw == "let" || kw == "var") {
      size_t after_kw = i;
      skip_space(code, i);
      if (i == after_kw) continue;
      if (i < code.size() && (code[i] == '{' || code[i] == '[')) {
        // A destructuring declaration keeps its bindings; each name it binds is copied to the
        // global object once the statement has run: at the first statement boundary after it
        // where the whole input still parses, else at the end.
        std::vector<std::string> names;
        size_t j = i;
        if (!valid || !pattern_target(code, j, names, 0)) continue;
        skip_blank(code, j);
        if (j >= code.size() || code[j] != '=' || (j + 1 < code.size() && code[j + 1] == '=')) continue;
        std::string copy;
        for (const auto& n : names)
          if (!reserved(n)) copy += "globalThis." + n + " = " + n + "; ";
        if (!copy.empty()) destructured.push_back({j, copy});
        continue;
      }
      std::string name = read_ident(code, i);
      skip_space(code, i);
      if (name.empty() || reserved(name) || i >= code.size() || code[i] != '=' || (i + 1 < code.size() && code[i + 1] == '=')) continue;
      edits.push_back({kw_at, after_kw - kw_at + (code[after_kw] == ' ' ? 1 : 0), "globalThis." });
    } else if (kw == "class") {
      skip_space(code, i);
      std::string name = read_ident(code, i);
      if (!name.empty() && !reserved(name)) edits.push_back({kw_at, 0, "globalThis." + name + " = "});
    } else if (kw == "function" || kw == "async") {
      if (kw == "async") {
        skip_space(code, i);
        if (read_ident(code, i) != "function") continue;
      }
      skip_space(code, i);
      if (i < code.size() && code[i] == '*') ++i;
      skip_space(code, i);
      std::string name = read_ident(code, i);
      if (!name.empty() && !reserved(name)) exports += "globalThis." + name + " = " + name + "; ";
    }
  }
  // Each destructuring's copies, placed where its statement has ended: not after an operator, an
  // opening bracket or a keyword that takes an operand, not before what continues an expression
  // (`.then(…)` on the next line), and where the input still parses. One that finds no such
  // place is left local.
  auto ends_statement = [&](size_t at) {
    size_t b = at;
    while (b > 0 && std::isspace(static_cast<unsigned char>(code[b - 1]))) --b;
    if (b == 0 || std::string_view("=+-*/%&|^!~?:<>,([{").find(code[b - 1]) != std::string_view::npos) return false;
    size_t w = b;
    while (w > 0 && ident_char(code[w - 1])) --w;
    const std::string word = code.substr(w, b - w);
    for (const char* k : {"await", "new", "typeof", "void", "yield", "in", "of", "instanceof", "delete", "return", "throw", "case"})
      if (word == k) return false;
    size_t n = at;
    while (n < code.size() && std::isspace(static_cast<unsigned char>(code[n]))) ++n;
    return n >= code.size() || std::string_view(".([+-*/%,=&|?:<>`").find(code[n]) == std::string_view::npos;
  };
  // Each try parses the whole input, and this runs before the evaluation's deadline is armed: at
  // most kMaxDestructured declarations are made global, each trying its first kMaxPlaces places
  // and the end (an input of a thousand destructurings must not cost a million parses).
  constexpr size_t kMaxDestructured = 16, kMaxPlaces = 4;
  if (destructured.size() > kMaxDestructured) destructured.resize(kMaxDestructured);
  for (const auto& d : destructured) {
    std::vector<size_t> places;
    for (size_t st : starts)
      if (st > d.after && ends_statement(st) && places.size() < kMaxPlaces) places.push_back(st);
    places.push_back(code.size());
    for (size_t at : places) {
      Edit e{at, 0, at == code.size() ? "\n;" + d.copy : d.copy};
      std::vector<Edit> tried = edits;
      tried.push_back(e);
      std::sort(tried.begin(), tried.end(), [](const Edit& a, const Edit& b) { return a.at < b.at; });
      std::string out = code;
      for (auto it = tried.rbegin(); it != tried.rend(); ++it) out.replace(it->at, it->len, it->text);
      if (valid(exports + out)) {
        edits = std::move(tried);
        break;
      }
    }
  }
  std::string out = code;
  for (auto it = edits.rbegin(); it != edits.rend(); ++it) out.replace(it->at, it->len, it->text);
  return exports + out;
}

std::string add_completion_return(const std::string& code, const std::function<bool(const std::string&)>& valid) {
  std::vector<size_t> starts = statement_starts(code);
  starts.insert(starts.begin(), 0);
  int tries = 0;
  for (auto it = starts.rbegin(); it != starts.rend() && tries < 24; ++it) {
    std::string suffix = trim(code.substr(*it));
    if (suffix.empty()) continue;
    ++tries;
    // Declarations and control flow have no value worth returning (and `return` already returns).
    for (std::string_view kw : {"const", "let", "var", "function", "class", "if", "for", "while", "do", "return",
                                "throw", "try", "switch", "import", "export", "async function", "break", "continue"})
      if (starts_with_word(suffix, kw)) return code;
    if (suffix[0] == '}' || suffix[0] == '{') return code;
    // Same line as the original statement, so error line numbers stay true.
    size_t lead = code.find_first_not_of(" \t\r\n", *it);
    std::string candidate = code.substr(0, lead) + ";return (" + suffix + "\n);";
    if (valid(candidate)) return candidate;
  }
  return code;
}

}  // namespace ouro::jsrt
