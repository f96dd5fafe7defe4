#include "agent/parser.h"

#include "actions/registry.h"
#include "base/json.h"

#include <cctype>

namespace ouro::agent {

namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// Fenced blocks whose info string satisfies `want`. A fence opens with ``` at a line start and
// closes at the next line that starts with ```.
std::vector<std::string> fenced(const std::string& text, bool repl_only) {
  std::vector<std::string> out;
  size_t pos = 0;
  while ((pos = text.find("```", pos)) != std::string::npos) {
    if (pos > 0 && text[pos - 1] != '\n') {
      pos += 3;
      continue;
    }
    size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) break;
    std::string info = trim(text.substr(pos + 3, eol - pos - 3));
    size_t close = eol;
    while ((close = text.find("```", close)) != std::string::npos && text[close - 1] != '\n') close += 3;
    if (close == std::string::npos) {
      // An unclosed fence at the end of a reply (the model was cut off): take the rest.
      close = text.size();
    }
    std::string lang = info.substr(0, info.find_first_of(" \t"));
    bool take = repl_only ? lang == "repl" : (lang.empty() || lang == "repl" || lang == "js" || lang == "javascript" || lang == "ts" ||
                                              lang == "typescript" || lang == "jsx" || lang == "mjs" || lang == "node");
    if (take) {
      std::string code = trim(text.substr(eol + 1, close - eol - 1));
      if (!code.empty()) out.push_back(code);
    }
    pos = close + 3;
  }
  return out;
}

void collect_code(const json& j, std::vector<std::string>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if ((it.key() == "code" || it.key() == "javascript") && it->is_string() && !it->get<std::string>().empty()) out.push_back(*it);
      else if (it.key() == "arguments" && it->is_string()) {
        if (auto inner = parse_json(it->get<std::string>())) collect_code(*inner, out);
      } else {
        collect_code(*it, out);
      }
    }
  } else if (j.is_array()) {
    for (const auto& x : j) collect_code(x, out);
  }
}

std::vector<std::string> tool_json(const std::string& text) {
  std::vector<std::string> out;
  for (size_t start = text.find('{'); start != std::string::npos; start = text.find('{', start + 1)) {
    int depth = 0;
    bool in_string = false;
    for (size_t i = start; i < text.size(); ++i) {
      char c = text[i];
      if (in_string) {
        if (c == '\\') ++i;
        else if (c == '"') in_string = false;
        continue;
      }
      if (c == '"') in_string = true;
      else if (c == '{') ++depth;
      else if (c == '}' && --depth == 0) {
        if (auto j = parse_json(std::string_view(text).substr(start, i - start + 1))) {
          size_t before = out.size();
          collect_code(*j, out);
          if (out.size() > before) start = i;
        }
        break;
      }
    }
  }
  return out;
}

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

// Whether a line reads like REPL code: a declaration, an await, control flow, a comment, an
// assignment, or a statement that is a call.
bool looks_like_code(const std::string& line) {
  size_t i = line.find_first_not_of(" \t");
  if (i == std::string::npos) return false;
  std::string_view l = std::string_view(line).substr(i);
  for (std::string_view start : {"const ", "let ", "var ", "await ", "return ", "for (", "for await", "if (", "} else", "}else", "try {",
                                 "} catch", "//", "env.", "env[", "setFinal(", "log("})
    if (l.substr(0, start.size()) == start) return true;
  if (l[0] == '{' || l[0] == '}') return true;
  // name = … (not ==), or a line that is one call: name(…) or a.b(…), optionally ending in ';'.
  size_t j = 0;
  while (j < l.size() && (ident_char(l[j]) || l[j] == '.')) ++j;
  if (j == 0 || std::isdigit(static_cast<unsigned char>(l[0]))) return false;
  size_t k = j;
  while (k < l.size() && l[k] == ' ') ++k;
  if (k < l.size() && l[k] == '=' && (k + 1 >= l.size() || l[k + 1] != '=')) return true;
  if (k < l.size() && l[k] == '(') {
    size_t end = l.find_last_not_of(" \t;");
    return end != std::string_view::npos && l[end] == ')';
  }
  return false;
}

// Lines that look like REPL code: declarations, awaits, our API, env, control flow, comments.
std::vector<std::string> bare(const std::string& text) {
  auto uses_api = [](const std::string& line) {
    for (const auto& name : called_names(line))
      if (actions::find(name)) return true;
    return false;
  };
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    lines.push_back(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  // The longest run of code-like lines that uses the API.
  std::string best, current;
  bool current_uses_api = false;
  auto close_run = [&] {
    if (current_uses_api && current.size() > best.size()) best = current;
    current.clear();
    current_uses_api = false;
  };
  for (const auto& l : lines) {
    if (looks_like_code(l) || (!current.empty() && l.find_first_not_of(" \t") != std::string::npos && (l[0] == ' ' || l[0] == '\t'))) {
      current += (current.empty() ? "" : "\n") + l;
      current_uses_api = current_uses_api || uses_api(l);
    } else {
      close_run();
    }
  }
  close_run();
  best = trim(best);
  if (best.empty()) return {};
  return {best};
}

}  // namespace

std::vector<std::string> called_names(std::string_view code) {
  std::vector<std::string> out;
  for (size_t i = 0; i < code.size();) {
    if (!ident_char(code[i]) || std::isdigit(static_cast<unsigned char>(code[i])) || (i > 0 && (ident_char(code[i - 1]) || code[i - 1] == '.'))) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < code.size() && ident_char(code[j])) ++j;
    size_t k = j;
    while (k < code.size() && (code[k] == ' ' || code[k] == '\t')) ++k;
    if (k < code.size() && code[k] == '(') out.emplace_back(code.substr(i, j - i));
    i = j;
  }
  return out;
}

Extracted extract_code_blocks(const std::string& response) {
  if (auto b = fenced(response, true); !b.empty()) return {b, "repl-fence"};
  if (auto b = fenced(response, false); !b.empty()) return {b, "any-fence"};
  if (auto b = tool_json(response); !b.empty()) return {b, "tool-json"};
  if (auto b = bare(response); !b.empty()) return {b, "bare"};
  return {{}, "none"};
}

}  // namespace ouro::agent
