#include "base/text.h"

#include <fmt/format.h>

namespace ouro {

namespace {
size_t back_to_boundary(std::string_view s, size_t at) {
  while (at > 0 && at < s.size() && (static_cast<unsigned char>(s[at]) & 0xC0) == 0x80) --at;
  return at;
}
}  // namespace

std::string clip_text(std::string_view text, size_t max) {
  if (text.size() <= max) return std::string(text);
  if (max < 64) return std::string(text.substr(0, back_to_boundary(text, max)));
  size_t tail_len = max / 4, head_len = max - tail_len - 40;
  size_t head_end = back_to_boundary(text, head_len);
  size_t tail_start = back_to_boundary(text, text.size() - tail_len);
  return fmt::format("{}…[{} chars cut]…{}", text.substr(0, head_end), tail_start - head_end, text.substr(tail_start));
}

}  // namespace ouro
