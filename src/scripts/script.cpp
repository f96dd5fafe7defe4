#include "scripts/script.h"

#include "agent/context.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>

namespace ouro::scripts {

namespace {

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }
bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// A lexical token of model-written JavaScript, as far as finding calls and string literals needs:
// identifiers, string literals (quote '"', '\'' or '`'), and single punctuation characters.
// Comments are skipped; regular expression literals are not recognised (their text becomes
// punctuation and identifiers, which is harmless for what is looked for here).
struct Token {
  enum class Kind { Ident, String, Punct } kind;
  size_t begin = 0, end = 0;  // in the code, quotes included for strings
  char quote = 0;
  std::string text;           // identifier or punctuation; for strings the decoded value
};

std::string decode_literal(std::string_view raw) {
  std::string out;
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c != '\\' || i + 1 >= raw.size()) {
      out += c;
      continue;
    }
    char e = raw[++i];
    switch (e) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'v': out += '\v'; break;
      case '0': out += '\0'; break;
      case '\n': break;  // a line continuation
      case 'u':
        if (i + 4 < raw.size()) {
          std::string hex(raw.substr(i + 1, 4));
          if (hex.size() == 4 && std::all_of(hex.begin(), hex.end(), [](char h) { return std::isxdigit(static_cast<unsigned char>(h)); })) {
            unsigned cp = static_cast<unsigned>(std::stoul(hex, nullptr, 16));
            i += 4;
            if (cp < 0x80) {
              out += static_cast<char>(cp);
            } else if (cp < 0x800) {
              out += static_cast<char>(0xC0 | (cp >> 6));
              out += static_cast<char>(0x80 | (cp & 0x3F));
            } else {
              out += static_cast<char>(0xE0 | (cp >> 12));
              out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
              out += static_cast<char>(0x80 | (cp & 0x3F));
            }
            break;
          }
        }
        out += e;
        break;
      default: out += e;
    }
  }
  return out;
}

std::vector<Token> tokenize(const std::string& code) {
  std::vector<Token> out;
  size_t i = 0, n = code.size();
  while (i < n) {
    char c = code[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '/' && i + 1 < n && code[i + 1] == '/') {
      while (i < n && code[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < n && code[i + 1] == '*') {
      size_t e = code.find("*/", i + 2);
      i = e == std::string::npos ? n : e + 2;
    } else if (c == '"' || c == '\'' || c == '`') {
      size_t j = i + 1;
      int depth = 0;  // inside a template literal's ${ … }
      while (j < n) {
        if (code[j] == '\\') {
          j += 2;
          continue;
        }
        if (c == '`' && code[j] == '$' && j + 1 < n && code[j + 1] == '{') {
          ++depth;
          j += 2;
          continue;
        }
        if (c == '`' && depth > 0 && code[j] == '}') {
          --depth;
          ++j;
          continue;
        }
        if (depth == 0 && code[j] == c) break;
        if (c != '`' && code[j] == '\n') break;  // unterminated: stop at the line's end
        ++j;
      }
      size_t end = std::min(j + 1, n);
      Token t{Token::Kind::String, i, end, c, decode_literal(std::string_view(code).substr(i + 1, (j < n ? j : n) - i - 1))};
      out.push_back(std::move(t));
      i = end;
    } else if (ident_char(c)) {
      size_t j = i;
      while (j < n && ident_char(code[j])) ++j;
      out.push_back({Token::Kind::Ident, i, j, 0, code.substr(i, j - i)});
      i = j;
    } else {
      out.push_back({Token::Kind::Punct, i, i + 1, 0, std::string(1, c)});
      ++i;
    }
  }
  return out;
}

bool is_punct(const Token& t, char c) { return t.kind == Token::Kind::Punct && t.text[0] == c; }

// A string token that is secret('…')'s argument: a handle, never a value.
bool secret_argument(const std::vector<Token>& toks, size_t i) {
  return i >= 2 && is_punct(toks[i - 1], '(') && toks[i - 2].kind == Token::Kind::Ident && toks[i - 2].text == "secret";
}

// A call `name(…)`: the token ranges of its top-level arguments.
struct Call {
  std::string name;
  std::vector<std::pair<size_t, size_t>> args;  // [first, last) token indices
};

std::vector<Call> calls_in(const std::vector<Token>& toks, const std::set<std::string>& names) {
  std::vector<Call> out;
  for (size_t i = 0; i + 1 < toks.size(); ++i) {
    if (toks[i].kind != Token::Kind::Ident || !names.count(toks[i].text) || !is_punct(toks[i + 1], '(')) continue;
    Call call{toks[i].text, {}};
    int depth = 0;
    size_t start = i + 2;
    size_t j = i + 2;
    for (; j < toks.size(); ++j) {
      const Token& t = toks[j];
      if (t.kind != Token::Kind::Punct) continue;
      char p = t.text[0];
      if (p == '(' || p == '[' || p == '{') ++depth;
      else if ((p == ')' || p == ']' || p == '}') && depth > 0) --depth;
      else if (p == ')' && depth == 0) break;
      else if (p == ',' && depth == 0) {
        call.args.emplace_back(start, j);
        start = j + 1;
      }
    }
    if (start < j) call.args.emplace_back(start, j);
    out.push_back(std::move(call));
  }
  return out;
}

// The argument if it is one plain string literal ('…' or "…", or a template without ${}).
const Token* single_string(const std::vector<Token>& toks, const std::pair<size_t, size_t>& arg) {
  if (arg.second != arg.first + 1) return nullptr;
  const Token& t = toks[arg.first];
  if (t.kind != Token::Kind::String || secret_argument(toks, arg.first)) return nullptr;
  return t.text.find("${") == std::string::npos || t.quote != '`' ? &t : nullptr;
}

// The quoted values of act()'s command text: type "Ada" into Name → ("Ada", "Name").
std::vector<std::pair<std::string, std::string>> command_values(const std::string& commands) {
  std::vector<std::pair<std::string, std::string>> out;
  static const std::regex quoted(R"re("([^"\n]{1,500})"(?:\s+(?:into|in|from)\s+([^;\n]{1,60}))?)re", std::regex::icase);
  for (auto it = std::sregex_iterator(commands.begin(), commands.end(), quoted); it != std::sregex_iterator(); ++it)
    out.emplace_back((*it)[1].str(), (*it)[2].matched ? (*it)[2].str() : "");
  return out;
}

// A parameter name from a hint (a selector, a field's key, act's target words) or a kind.
std::string name_from(std::string hint, const std::string& fallback) {
  if (auto at = hint.find("name="); at != std::string::npos) hint = hint.substr(at + 5);
  std::string lower;
  for (char c : hint) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.rfind("the ", 0) == 0) lower = lower.substr(4);
  std::string out;
  for (char c : lower) {
    if (word_char(c)) out += c;
    else if (!out.empty() && out.back() != '_') out += '_';
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  // A ref (e12, f2e7) says nothing about the field.
  static const std::regex ref(R"(^(f\d+)?e\d+$)");
  if (out.empty() || std::regex_match(out, ref)) return fallback;
  if (std::isdigit(static_cast<unsigned char>(out[0]))) out = "v_" + out;
  return out.substr(0, 40);
}

bool valid_name(const std::string& name) {
  static const std::regex id(R"(^[A-Za-z_][A-Za-z0-9_]{0,39}$)");
  return std::regex_match(name, id);
}

// Occurrences of `value` in `text` with no word character just before or after it.
std::vector<size_t> word_occurrences(const std::string& text, const std::string& value) {
  std::vector<size_t> out;
  if (value.empty()) return out;
  for (size_t at = text.find(value); at != std::string::npos; at = text.find(value, at + 1)) {
    bool left = at == 0 || !word_char(text[at - 1]) || !word_char(value.front());
    size_t end = at + value.size();
    bool right = end >= text.size() || !word_char(text[end]) || !word_char(value.back());
    if (left && right) {
      out.push_back(at);
      at = end - 1;
    }
  }
  return out;
}

bool is_number(const std::string& v) {
  static const std::regex num(R"(^\d+(\.\d+)?$)");
  return std::regex_match(v, num);
}

const std::set<std::string> kActions = {"click", "dblclick", "type", "fill", "select", "selectOption", "check", "uncheck",
                                         "hover", "press", "upload", "focus", "act",
                                         "getText", "getDOM"};  // reads too: what they read is found again like a target

}  // namespace

json Param::to_json() const { return {{"name", name}, {"value", value}, {"source", source}}; }
json Target::to_json() const {
  json j = {{"action", action}, {"target", target}};
  if (!details.is_null()) j["details"] = details;
  return j;
}

json Step::to_json() const {
  json t = json::array();
  for (const auto& x : targets) t.push_back(x.to_json());
  json j = {{"iteration", iteration}, {"code", code}, {"intent", intent}, {"targets", t}};
  if (set_final) j["setFinal"] = true;
  if (shape.is_object()) j["shape"] = shape;
  if (final_shape.is_object()) j["finalShape"] = final_shape;
  return j;
}

json Script::to_json() const {
  json p = json::array(), s = json::array();
  for (const auto& x : params) p.push_back(x.to_json());
  for (const auto& x : steps) s.push_back(x.to_json());
  json j = {{"name", name}, {"version", version}, {"created_at", created_at}, {"source_run", source_run}, {"task", task},
            {"params", p}, {"steps", s}, {"urls", urls}};
  if (based_on > 0) j["based_on"] = based_on;
  if (changes.is_array() && !changes.empty()) j["changes"] = changes;
  return j;
}

Result<void> check_name(const std::string& name) {
  bool ok = !name.empty() && name.size() <= 64 &&
            std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isalnum(c) || c == '_' || c == '-' || c == '.'; });
  if (!ok) return errorf(Code::InvalidArgument, "a script's name is 1 to 64 letters, digits, '_', '-' or '.'; got \"{}\"", name.substr(0, 80));
  return {};
}

Result<Script> script_from_json(const json& j) {
  if (!j.is_object()) return make_error(Code::InvalidArgument, "a script is a JSON object");
  Script s;
  s.name = get_str(j, "name");
  s.version = static_cast<int>(get_int(j, "version"));
  s.created_at = get_num(j, "created_at");
  s.source_run = get_str(j, "source_run");
  s.task = get_str(j, "task");
  for (const auto& p : get_array(j, "params")) s.params.push_back({get_str(p, "name"), get_str(p, "value"), get_str(p, "source", "user")});
  for (const auto& b : get_array(j, "steps")) {
    Step st;
    st.iteration = static_cast<int>(get_int(b, "iteration"));
    st.code = get_str(b, "code");
    st.intent = get_str(b, "intent");
    st.set_final = get_bool(b, "setFinal");
    if (const json& sh = get_field(b, "shape"); sh.is_object()) st.shape = sh;
    if (const json& sh = get_field(b, "finalShape"); sh.is_object()) st.final_shape = sh;
    for (const auto& t : get_array(b, "targets")) {
      json details = get_field(t, "details");
      st.targets.push_back({get_str(t, "action"), get_str(t, "target"), details.is_object() ? details : json()});
    }
    s.steps.push_back(std::move(st));
  }
  for (const auto& u : get_array(j, "urls"))
    if (u.is_string()) s.urls.push_back(u.get<std::string>());
  s.based_on = static_cast<int>(get_int(j, "based_on"));
  if (const json& c = get_field(j, "changes"); c.is_array()) s.changes = c;
  if (s.steps.empty()) return make_error(Code::InvalidArgument, "a script needs at least one step");
  return s;
}

std::string js_string(const std::string& value) {
  std::string out = json(value).dump(-1, ' ', false, json::error_handler_t::replace);
  // JSON allows the line and paragraph separators raw; escaped, the literal is safe in any engine.
  for (const auto& [raw, esc] : {std::pair<std::string, std::string>{"\xE2\x80\xA8", "\\u2028"}, {"\xE2\x80\xA9", "\\u2029"}})
    for (size_t at = out.find(raw); at != std::string::npos; at = out.find(raw, at + esc.size())) out.replace(at, raw.size(), esc);
  return out;
}

namespace {

// The spans of code that are text, not code: string and template literals, and comments.
std::vector<std::pair<size_t, size_t>> opaque_spans(const std::string& code) {
  std::vector<std::pair<size_t, size_t>> out;
  for (const auto& t : tokenize(code))
    if (t.kind == Token::Kind::String) out.emplace_back(t.begin, t.end);
  // Comments: the tokenizer skips them; find them between the tokens the same way it does.
  size_t i = 0, n = code.size();
  size_t next_span = 0;
  while (i < n) {
    while (next_span < out.size() && out[next_span].second <= i) ++next_span;
    if (next_span < out.size() && out[next_span].first <= i) {
      i = out[next_span].second;
      continue;
    }
    if (code[i] == '/' && i + 1 < n && code[i + 1] == '/') {
      size_t e = code.find('\n', i);
      e = e == std::string::npos ? n : e;
      out.insert(out.begin() + static_cast<std::ptrdiff_t>(next_span), {i, e});
      i = e;
    } else if (code[i] == '/' && i + 1 < n && code[i + 1] == '*') {
      size_t e = code.find("*/", i + 2);
      e = e == std::string::npos ? n : e + 2;
      out.insert(out.begin() + static_cast<std::ptrdiff_t>(next_span), {i, e});
      i = e;
    } else {
      ++i;
    }
  }
  return out;
}

template <class F>
std::string replace_placeholders(const std::string& text, const std::vector<Param>& params, const std::map<std::string, std::string>& vars, F&& render,
                                 const std::vector<std::pair<size_t, size_t>>& opaque = {}) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    size_t open = text.find("{{", i);
    if (open == std::string::npos) break;
    size_t close = text.find("}}", open + 2);
    if (close == std::string::npos) break;
    std::string name = text.substr(open + 2, close - open - 2);
    auto p = std::find_if(params.begin(), params.end(), [&](const Param& x) { return x.name == name; });
    bool in_text = std::any_of(opaque.begin(), opaque.end(), [&](const auto& sp) { return open >= sp.first && open < sp.second; });
    if (p == params.end() || in_text) {
      out += text.substr(i, open + 2 - i);
      i = open + 2;
      continue;
    }
    auto v = vars.find(name);
    out += text.substr(i, open - i) + render(v != vars.end() ? v->second : p->value);
    i = close + 2;
  }
  return out + text.substr(i);
}

}  // namespace

std::string substitute_code(const std::string& code, const std::vector<Param>& params, const std::map<std::string, std::string>& vars) {
  return replace_placeholders(code, params, vars, [](const std::string& v) { return js_string(v); }, opaque_spans(code));
}

std::string substitute_text(const std::string& text, const std::vector<Param>& params, const std::map<std::string, std::string>& vars) {
  return replace_placeholders(text, params, vars, [](const std::string& v) { return v; });
}

std::string lift(const std::string& code, const std::string& value, const std::string& name, bool whole_only) {
  if (value.empty()) return code;
  auto toks = tokenize(code);
  const std::string placeholder = "{{" + name + "}}";
  std::string out;
  size_t copied = 0;
  for (size_t i = 0; i < toks.size(); ++i) {
    const Token& t = toks[i];
    if (t.kind != Token::Kind::String || secret_argument(toks, i)) continue;
    // A template without ${} is a plain string (as propose_params reads it); one with them is
    // code as much as text, and stays as it is.
    if (t.quote == '`' && std::string_view(code).substr(t.begin, t.end - t.begin).find("${") != std::string_view::npos) continue;
    if (t.text == value) {
      out += code.substr(copied, t.begin - copied) + placeholder;
      copied = t.end;
      continue;
    }
    // Inside a literal the value must appear as written: no quote, backslash or line break in it.
    if (whole_only || value.find_first_of("\\\n\r'\"`") != std::string::npos) continue;
    if (t.end - t.begin < 2) continue;
    std::string raw = code.substr(t.begin + 1, t.end - t.begin - 2);
    auto at = word_occurrences(raw, value);
    // An occurrence right after an escaping backslash is part of an escape ('\Ada'): cutting
    // there would leave a piece that ends inside one.
    std::erase_if(at, [&](size_t a) {
      size_t slashes = 0;
      while (slashes < a && raw[a - 1 - slashes] == '\\') ++slashes;
      return slashes % 2 == 1;
    });
    if (at.empty()) continue;
    std::string q(1, t.quote);
    std::string joined;
    size_t from = 0;
    for (size_t a : at) {
      if (a > from) joined += (joined.empty() ? "" : " + ") + q + raw.substr(from, a - from) + q;
      joined += (joined.empty() ? "" : " + ") + placeholder;
      from = a + value.size();
    }
    if (from < raw.size()) joined += " + " + q + raw.substr(from) + q;
    out += code.substr(copied, t.begin - copied) + "(" + joined + ")";
    copied = t.end;
  }
  return out + code.substr(copied);
}

std::string replace_literal(const std::string& code, const std::string& old, const std::string& now) {
  if (old.empty()) return code;
  auto toks = tokenize(code);
  std::string out;
  size_t copied = 0;
  for (size_t i = 0; i < toks.size(); ++i) {
    const Token& t = toks[i];
    if (t.kind != Token::Kind::String || t.quote == '`' || secret_argument(toks, i) || t.text != old) continue;
    out += code.substr(copied, t.begin - copied) + js_string(now);
    copied = t.end;
  }
  return out + code.substr(copied);
}

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  size_t from = 0;
  while (from <= text.size()) {
    size_t e = text.find('\n', from);
    out.push_back(text.substr(from, e == std::string::npos ? std::string::npos : e - from));
    if (e == std::string::npos) break;
    from = e + 1;
  }
  return out;
}

// A line diff by the longest common subsequence (steps are short: bounded at 2,000 lines each).
std::string line_diff(const std::string& a, const std::string& b) {
  auto x = lines_of(a), y = lines_of(b);
  if (x.size() > 2000 || y.size() > 2000) return "-(" + std::to_string(x.size()) + " lines)\n+(" + std::to_string(y.size()) + " lines)\n";
  std::vector<std::vector<int>> l(x.size() + 1, std::vector<int>(y.size() + 1, 0));
  for (size_t i = x.size(); i-- > 0;)
    for (size_t j = y.size(); j-- > 0;) l[i][j] = x[i] == y[j] ? l[i + 1][j + 1] + 1 : std::max(l[i + 1][j], l[i][j + 1]);
  std::string out;
  size_t i = 0, j = 0;
  while (i < x.size() || j < y.size()) {
    if (i < x.size() && j < y.size() && x[i] == y[j]) {
      out += " " + x[i++] + "\n";
      ++j;
    } else if (i < x.size() && (j == y.size() || l[i + 1][j] >= l[i][j + 1])) {
      out += "-" + x[i++] + "\n";  // removals before additions
    } else {
      out += "+" + y[j++] + "\n";
    }
  }
  return out;
}

}  // namespace

std::string diff(const Script& from, const Script& to) {
  std::string out;
  size_t n = std::max(from.steps.size(), to.steps.size());
  for (size_t k = 0; k < n; ++k) {
    const std::string a = k < from.steps.size() ? from.steps[k].code : "";
    const std::string b = k < to.steps.size() ? to.steps[k].code : "";
    if (a == b) continue;
    out += fmt::format("@@ step {}{}\n", k + 1, k >= from.steps.size() ? " (new)" : k >= to.steps.size() ? " (removed)" : "");
    if (k >= from.steps.size()) {
      for (const auto& line : lines_of(b)) out += "+" + line + "\n";
    } else if (k >= to.steps.size()) {
      for (const auto& line : lines_of(a)) out += "-" + line + "\n";
    } else {
      out += line_diff(a, b);
    }
  }
  if (out.empty()) return out;
  return fmt::format("--- {} v{}\n+++ {} v{}\n", from.name, from.version, to.name, to.version) + out;
}

std::vector<Target> targets_of(const std::string& code) {
  auto toks = tokenize(code);
  std::vector<Target> out;
  for (const auto& call : calls_in(toks, kActions)) {
    if (call.args.size() < 2) continue;
    if (call.name == "act") {
      for (size_t k = call.args[1].first; k < call.args[1].second; ++k) {
        if (toks[k].kind != Token::Kind::String) continue;
        std::string text = toks[k].text;
        size_t s = 0;
        while (s <= text.size()) {
          size_t e = text.find_first_of(";\n", s);
          std::string line = text.substr(s, e == std::string::npos ? std::string::npos : e - s);
          line.erase(0, line.find_first_not_of(" \t"));
          if (!line.empty()) out.push_back({"act", line, json()});
          if (e == std::string::npos) break;
          s = e + 1;
        }
      }
    } else if (call.name == "fill") {
      for (size_t k = call.args[1].first; k + 1 < call.args[1].second; ++k)
        if ((toks[k].kind == Token::Kind::String || toks[k].kind == Token::Kind::Ident) && is_punct(toks[k + 1], ':'))
          out.push_back({"fill", toks[k].text, json()});
    } else if (const Token* sel = single_string(toks, call.args[1])) {
      out.push_back({call.name, sel->text, json()});
    }
  }
  return out;
}

std::vector<Param> propose_params(const std::string& task, const std::vector<std::string>& codes) {
  std::vector<Param> out;
  std::set<std::string> names;
  auto add = [&](const std::string& value, const std::string& hint, const std::string& kind, const std::string& source) {
    if (value.empty() || value.size() > 2000) return;
    if (std::any_of(out.begin(), out.end(), [&](const Param& p) { return p.value == value; })) return;
    std::string base = name_from(hint, kind);
    std::string name = base;
    for (int n = 2; names.count(name); ++n) name = fmt::format("{}_{}", base, n);
    names.insert(name);
    out.push_back({name, value, source});
  };
  // What the run typed into pages.
  for (const auto& code : codes) {
    auto toks = tokenize(code);
    for (const auto& call : calls_in(toks, {"type", "fill", "act"})) {
      if (call.args.size() < 2) continue;
      if (call.name == "type" && call.args.size() >= 3) {
        if (const Token* text = single_string(toks, call.args[2])) {
          const Token* sel = single_string(toks, call.args[1]);
          add(text->text, sel ? sel->text : "", "text", "typed");
        }
      } else if (call.name == "fill") {
        for (size_t k = call.args[1].first; k + 2 < call.args[1].second; ++k) {
          if (!(toks[k].kind == Token::Kind::String || toks[k].kind == Token::Kind::Ident) || !is_punct(toks[k + 1], ':')) continue;
          const Token& v = toks[k + 2];
          bool alone = k + 3 >= call.args[1].second || is_punct(toks[k + 3], ',') || is_punct(toks[k + 3], '}');
          if (v.kind == Token::Kind::String && alone && !secret_argument(toks, k + 2) && v.quote != '`') add(v.text, toks[k].text, "text", "typed");
        }
      } else if (call.name == "act") {
        for (size_t k = call.args[1].first; k < call.args[1].second; ++k)
          if (toks[k].kind == Token::Kind::String)
            for (const auto& [value, into] : command_values(toks[k].text)) add(value, into, "text", "typed");
      }
    }
  }
  // The task's own values: quoted text, URLs, dates, numbers (not those inside the others).
  std::vector<std::string> found;
  auto scan = [&](const std::regex& re, int group, const std::string& kind) {
    for (auto it = std::sregex_iterator(task.begin(), task.end(), re); it != std::sregex_iterator(); ++it) {
      std::string v = (*it)[group].str();
      while (kind == "url" && !v.empty() && std::string(".,;:!?)").find(v.back()) != std::string::npos) v.pop_back();
      if (std::any_of(found.begin(), found.end(), [&](const std::string& f) { return f.find(v) != std::string::npos; })) continue;
      found.push_back(v);
      add(v, "", kind, "task");
    }
  };
  scan(std::regex(R"re("([^"\n]{1,200})")re"), 1, "text");
  scan(std::regex("\xE2\x80\x9C([^\xE2\n]{1,200})\xE2\x80\x9D"), 1, "text");
  scan(std::regex(R"re((?:^|\s)'([^'\n]{1,200})'(?=$|[\s.,;:!?]))re"), 1, "text");
  scan(std::regex(R"(https?://[^\s"'<>]+)"), 0, "url");
  scan(std::regex(R"(\b\d{4}-\d{2}-\d{2}\b)"), 0, "date");
  scan(std::regex(R"(\b\d+(?:\.\d+)?\b)"), 0, "number");
  return out;
}

Result<Script> from_events(const std::string& task, const std::vector<RecordedEvent>& events, const std::optional<std::vector<Param>>& params) {
  struct Block {
    int iteration = 0, index = 0;
    std::string code;
    bool done = false, ok = false, set_final = false;
    json shape, final_shape;    // of its value and final, as the run's code-result gave them
    std::vector<json> targets;  // `target` events while it ran: {action, selector, details}
    std::vector<json> heals;    // `heal` events while it ran: {step, action, old, new, confidence}
  };
  std::vector<Block> blocks;
  std::string turn_task = task;
  for (const auto& e : events) {
    if (e.type == "user-message" && !get_bool(e.data, "guidance")) {
      // A new turn of the conversation: the script is its blocks.
      blocks.clear();
      turn_task = get_str(e.data, "text", task);
    } else if (e.type == "code-generated") {
      blocks.push_back({static_cast<int>(get_int(e.data, "iteration")), static_cast<int>(get_int(e.data, "blockIndex")), get_str(e.data, "code"), false, false, false, {}, {}, {}, {}});
    } else if ((e.type == "target" || e.type == "heal") && !blocks.empty() && !blocks.back().done) {
      // What the block's actions acted on (and, in a replay, found again), as it ran.
      auto& list = e.type == "target" ? blocks.back().targets : blocks.back().heals;
      if (list.size() < 200) list.push_back(e.data);
    } else if (e.type == "code-result") {
      int it = static_cast<int>(get_int(e.data, "iteration")), bi = static_cast<int>(get_int(e.data, "blockIndex"));
      for (auto b = blocks.rbegin(); b != blocks.rend(); ++b) {
        if (b->iteration != it || b->index != bi || b->done) continue;
        const json& meta = get_field(e.data, "metadata");
        b->done = true;
        b->ok = get_bool(meta, "ok");
        b->set_final = get_bool(meta, "setFinal");
        if (const json& sh = get_field(meta, "shape"); sh.is_object()) b->shape = sh;
        if (const json& sh = get_field(meta, "finalShape"); sh.is_object()) b->final_shape = sh;
        break;
      }
    }
  }
  Script s;
  std::vector<std::string> codes;
  std::vector<const Block*> kept;
  for (const auto& b : blocks) {
    // A failed block is a dead end, unless it is the one that delivered the final.
    if (!b.done || (!b.ok && !b.set_final)) continue;
    Step st;
    st.iteration = b.iteration;
    st.code = b.code;
    // A replay's healed selectors go into the step's code.
    for (const auto& h : b.heals) {
      std::string old = get_str(h, "old"), now = get_str(h, "new");
      if (old.empty() || now.empty()) continue;
      std::string healed = replace_literal(st.code, old, now);
      if (healed == st.code) continue;  // not a literal of this step's code: nothing changed to list
      st.code = std::move(healed);
      s.changes.push_back({{"kind", "heal"}, {"step", s.steps.size() + 1}, {"action", get_str(h, "action")}, {"old", old}, {"new", now},
                           {"confidence", get_num(h, "confidence")}});
    }
    st.set_final = b.set_final;
    st.shape = b.shape;
    st.final_shape = b.final_shape;
    codes.push_back(st.code);
    s.steps.push_back(std::move(st));
    kept.push_back(&b);
    if (b.set_final) break;
  }
  if (s.steps.empty() || !s.steps.back().set_final)
    return make_error(Code::FailedPrecondition,
                      "the run did not end by setFinal() in a block that ran: only a run that delivered its final becomes a script");
  std::vector<Param> lifted = params ? *params : propose_params(turn_task, codes);
  std::set<std::string> seen;
  for (auto& p : lifted) {
    if (!valid_name(p.name))
      return errorf(Code::InvalidArgument, "parameter name \"{}\" is not allowed: a letter or '_', then letters, digits or '_' (at most 40)", p.name.substr(0, 60));
    if (!seen.insert(p.name).second) return errorf(Code::InvalidArgument, "parameter {} is named twice", p.name);
    if (p.value.empty()) return errorf(Code::InvalidArgument, "parameter {} needs its default value (name=value)", p.name);
    if (p.source.empty()) p.source = "user";
  }
  // Longer values first, so a value inside another's is not lifted out of it.
  std::vector<const Param*> order;
  for (const auto& p : lifted) order.push_back(&p);
  std::stable_sort(order.begin(), order.end(), [](const Param* a, const Param* b) { return a->value.size() > b->value.size(); });
  s.task = turn_task;
  for (const Param* p : order) {
    bool whole = is_number(p->value);
    for (auto& st : s.steps) st.code = lift(st.code, p->value, p->name, whole);
    std::string next;
    size_t from = 0;
    for (size_t at : word_occurrences(s.task, p->value)) {
      next += s.task.substr(from, at - from) + "{{" + p->name + "}}";
      from = at + p->value.size();
    }
    s.task = next + s.task.substr(from);
  }
  for (size_t k = 0; k < s.steps.size(); ++k) {
    auto& st = s.steps[k];
    st.intent = agent::summarize_code_intent(st.code);
    st.targets = targets_of(st.code);
    // Each target's details: the first recorded one of the same action and selector.
    std::vector<bool> used(kept[k]->targets.size(), false);
    for (auto& t : st.targets) {
      for (size_t r = 0; r < used.size(); ++r) {
        const json& rec = kept[k]->targets[r];
        if (used[r] || get_str(rec, "action") != t.action || get_str(rec, "selector") != t.target) continue;
        if (const json& d = get_field(rec, "details"); d.is_object()) t.details = d;
        used[r] = true;
        break;
      }
    }
  }
  s.params = std::move(lifted);
  return s;
}

}  // namespace ouro::scripts
