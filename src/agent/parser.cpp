#include "agent/parser.h"

#include "actions/registry.h"
#include "base/json.h"

#include <regex>

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

// Lines that look like REPL code: declarations, awaits, our API, env, control flow, comments.
std::vector<std::string> bare(const std::string& text) {
  static const std::regex looks_like_code(
      R"(^\s*(const |let |var |await |return |for \(|for await|if \(|\} ?else|try \{|\} catch|\}|\{|//|env\.|env\[|setFinal\(|log\(|[A-Za-z_$][\w$]*\s*=[^=]|[A-Za-z_$][\w$.]*\(.*\)\s*;?\s*$))");
  std::string names;
  for (const auto& c : actions::registry()) names += (names.empty() ? "" : "|") + c.name;
  const std::regex api("\\b(" + names + ")\\s*\\(");
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
    if (std::regex_search(l, looks_like_code) || (!current.empty() && l.find_first_not_of(" \t") != std::string::npos && (l[0] == ' ' || l[0] == '\t'))) {
      current += (current.empty() ? "" : "\n") + l;
      current_uses_api = current_uses_api || std::regex_search(l, api);
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

Extracted extract_code_blocks(const std::string& response) {
  if (auto b = fenced(response, true); !b.empty()) return {b, "repl-fence"};
  if (auto b = fenced(response, false); !b.empty()) return {b, "any-fence"};
  if (auto b = tool_json(response); !b.empty()) return {b, "tool-json"};
  if (auto b = bare(response); !b.empty()) return {b, "bare"};
  return {{}, "none"};
}

}  // namespace ouro::agent
