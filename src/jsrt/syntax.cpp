#include "jsrt/syntax.h"

#include <cctype>
#include <vector>

namespace ouro::jsrt {

namespace {

// Whether a '/' here starts a regular expression literal rather than a division: after an
// operator, an opening bracket, a comma or the start, or after a keyword such as `return`.
bool regex_can_start(std::string_view code, size_t at) {
  size_t i = at;
  while (i > 0 && (code[i - 1] == ' ' || code[i - 1] == '\t' || code[i - 1] == '\n' || code[i - 1] == '\r')) --i;
  if (i == 0) return true;
  char p = code[i - 1];
  if (std::isalnum(static_cast<unsigned char>(p)) || p == '_' || p == '$') {
    size_t w = i;
    while (w > 0 && (std::isalnum(static_cast<unsigned char>(code[w - 1])) || code[w - 1] == '_' || code[w - 1] == '$')) --w;
    std::string_view word = code.substr(w, i - w);
    for (std::string_view k : {"return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw", "yield", "await"})
      if (word == k) return true;
    return false;
  }
  return p != ')' && p != ']' && p != '}' && p != '"' && p != '\'' && p != '`';
}

}  // namespace

std::optional<Unclosed> last_unclosed(std::string_view code) {
  std::vector<Unclosed> open;
  int line = 1, column = 0;
  // Advances over code[i], keeping line and column (columns count code points).
  auto step = [&](size_t i) {
    unsigned char c = static_cast<unsigned char>(code[i]);
    if (c == '\n') {
      ++line;
      column = 0;
    } else if ((c & 0xC0) != 0x80) {
      ++column;
    }
  };
  size_t i = 0;
  auto at_here = [&](char opener) { return Unclosed{opener, line, column}; };
  while (i < code.size()) {
    char c = code[i];
    bool in_template = !open.empty() && open.back().opener == '`';
    if (in_template) {
      step(i);
      if (c == '\\' && i + 1 < code.size()) {
        step(++i);
      } else if (c == '`') {
        open.pop_back();
      } else if (c == '$' && i + 1 < code.size() && code[i + 1] == '{') {
        step(++i);
        open.push_back(at_here('{'));
        open.back().column -= 1;  // the ${ starts at the $
      }
      ++i;
      continue;
    }
    step(i);
    if (c == '/' && i + 1 < code.size() && code[i + 1] == '/') {
      while (i + 1 < code.size() && code[i + 1] != '\n') step(++i);
    } else if (c == '/' && i + 1 < code.size() && code[i + 1] == '*') {
      Unclosed start = at_here('*');
      step(++i);
      bool closed = false;
      while (i + 1 < code.size()) {
        step(++i);
        if (code[i] == '*' && i + 1 < code.size() && code[i + 1] == '/') {
          step(++i);
          closed = true;
          break;
        }
      }
      if (!closed) return start;
    } else if (c == '"' || c == '\'') {
      Unclosed start = at_here(c);
      bool closed = false;
      while (i + 1 < code.size() && code[i + 1] != '\n') {
        step(++i);
        if (code[i] == '\\' && i + 1 < code.size()) step(++i);
        else if (code[i] == c) {
          closed = true;
          break;
        }
      }
      if (!closed) return start;
    } else if (c == '/' && regex_can_start(code, i)) {
      bool in_class = false;
      while (i + 1 < code.size() && code[i + 1] != '\n') {
        step(++i);
        if (code[i] == '\\' && i + 1 < code.size()) step(++i);
        else if (code[i] == '[') in_class = true;
        else if (code[i] == ']') in_class = false;
        else if (code[i] == '/' && !in_class) break;
      }
    } else if (c == '`' || c == '(' || c == '[' || c == '{') {
      open.push_back(at_here(c));
    } else if (c == ')' || c == ']' || c == '}') {
      // A closer that matches nothing is the parser's to report; the scan goes on.
      if (!open.empty()) open.pop_back();
    }
    ++i;
  }
  if (open.empty()) return std::nullopt;
  return open.back();
}

}  // namespace ouro::jsrt
