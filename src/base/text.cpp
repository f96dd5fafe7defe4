#include "base/text.h"

#include <fmt/format.h>

namespace ouro {

namespace {
bool continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// The byte offset where the character after the first max characters starts (s.size() when fewer).
size_t offset_of_char(std::string_view s, size_t max) {
  size_t chars = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (continuation(s[i])) continue;
    if (chars == max) return i;
    ++chars;
  }
  return s.size();
}
}  // namespace

size_t utf8_length(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += !continuation(c);
  return n;
}

size_t utf8_boundary(std::string_view s, size_t at) {
  if (at >= s.size()) return s.size();
  while (at > 0 && continuation(s[at])) --at;
  return at;
}

std::string clip_head(std::string_view text, size_t max, ClipMark mark, ClipUnit unit) {
  size_t keep = unit == ClipUnit::Bytes ? utf8_boundary(text, max) : offset_of_char(text, max);
  if (keep >= text.size()) return std::string(text);
  std::string out(text.substr(0, keep));
  if (mark == ClipMark::Ellipsis) out += "…";
  else if (mark == ClipMark::Count) out += fmt::format("…[+{} chars]", utf8_length(text.substr(keep)));
  return out;
}

std::string clip_text(std::string_view text, size_t max) {
  if (text.size() <= max) return std::string(text);
  if (max < 64) return clip_head(text, max, ClipMark::None);
  size_t tail_len = max / 4, head_len = max - tail_len - 40;
  size_t head_end = utf8_boundary(text, head_len);
  size_t tail_start = utf8_boundary(text, text.size() - tail_len);
  return fmt::format("{}…[{} chars cut]…{}", text.substr(0, head_end), tail_start - head_end, text.substr(tail_start));
}

std::string clip_line(std::string_view text, size_t max) {
  // A character is at most 4 bytes, so this copy is longer than max exactly when the text is.
  std::string flat(text.substr(0, max + 4));
  for (char& c : flat)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return clip_head(flat, max);
}

std::string with_commas(size_t n) {
  // Built forwards: GCC 12 reports a false -Wrestrict on std::string::insert here.
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

std::optional<int> port_number(std::string_view digits) {
  if (digits.empty() || digits.size() > 5) return std::nullopt;
  int n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  if (n < 1 || n > 65535) return std::nullopt;
  return n;
}

}  // namespace ouro
