#include "jsrt/completion.h"

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
    if ((c == ';' || c == '\n') && depth == 0) out.push_back(i + 1);
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

}  // namespace

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
    std::string candidate = code.substr(0, *it) + "\n;return (\n" + suffix + "\n);";
    if (valid(candidate)) return candidate;
  }
  return code;
}

}  // namespace ouro::jsrt
