#include "safety/spellings.h"

#include <algorithm>
#include <array>

namespace ouro::safety::spellings {

namespace {

struct CodePoint {
  uint32_t cp;
  size_t len;  // bytes; bad UTF-8 is read one byte at a time
};

CodePoint decode_at(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
  if (i + len > s.size()) len = 1;
  for (size_t k = 1; k < len; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) len = 1;
  uint32_t cp = len == 1 ? c : c & (0x7F >> len);
  for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  return {cp, len};
}

// Invisible format characters a value can be laced with without changing how it looks.
bool invisible(uint32_t cp) {
  return cp == 0xAD || (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x2060 && cp <= 0x2064) || cp == 0xFEFF;
}

// The ASCII character a compatibility form stands for (UAX #15's NFKC for these blocks), or 0.
uint32_t ascii_of(uint32_t cp) {
  if (cp < 0x80) return cp;
  if (cp >= 0xFF01 && cp <= 0xFF5E) return cp - 0xFEE0;  // fullwidth forms
  if (cp == 0x3000) return ' ';                          // ideographic space
  auto letter = [](uint32_t n) { return n < 26 ? 'A' + n : 'a' + (n - 26); };
  if (cp >= 0x1D400 && cp <= 0x1D6A3) return letter((cp - 0x1D400) % 52);  // mathematical alphanumerics
  if (cp == 0x1D6A4) return 'i';
  if (cp == 0x1D6A5) return 'j';
  if (cp >= 0x1D7CE && cp <= 0x1D7FF) return '0' + (cp - 0x1D7CE) % 10;
  if (cp >= 0x24B6 && cp <= 0x24CF) return 'A' + (cp - 0x24B6);  // circled letters
  if (cp >= 0x24D0 && cp <= 0x24E9) return 'a' + (cp - 0x24D0);
  if (cp >= 0x2460 && cp <= 0x2468) return '1' + (cp - 0x2460);  // circled digits
  if (cp == 0x24EA) return '0';
  for (uint32_t base : {0x1F130u, 0x1F150u, 0x1F170u})  // squared, negative circled and squared letters
    if (cp >= base && cp < base + 26) return 'A' + (cp - base);
  if (cp >= 0x1F1E6 && cp <= 0x1F1FF) return 'A' + (cp - 0x1F1E6);  // regional indicators
  if (cp == 0x2070 || cp == 0x2080) return '0';                    // super- and subscript digits
  if (cp == 0xB9) return '1';
  if (cp == 0xB2) return '2';
  if (cp == 0xB3) return '3';
  if (cp >= 0x2074 && cp <= 0x2079) return '4' + (cp - 0x2074);
  if (cp >= 0x2081 && cp <= 0x2089) return '1' + (cp - 0x2081);
  return 0;
}

unsigned char lower(unsigned char c) { return c >= 'A' && c <= 'Z' ? static_cast<unsigned char>(c + 32) : c; }
bool alnum(uint32_t c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

std::array<unsigned char, 4> delta_token(uint32_t prev, uint32_t cp) {
  uint32_t u = static_cast<uint32_t>(static_cast<int64_t>(cp) - static_cast<int64_t>(prev) + 0x110000);
  // The first byte alone has its high bit set, so a run of tokens is only ever matched whole.
  return {static_cast<unsigned char>(0x80 | (u >> 21)), static_cast<unsigned char>((u >> 14) & 0x7F),
          static_cast<unsigned char>((u >> 7) & 0x7F), static_cast<unsigned char>(u & 0x7F)};
}

// Collects one lane of a value.
class Collect : public LaneSink {
 public:
  explicit Collect(Lane lane) : m_lane(lane) {}
  void byte(Lane lane, unsigned char c, size_t, size_t) override {
    if (lane == m_lane) out.push_back(static_cast<char>(c));
  }
  std::string out;

 private:
  Lane m_lane;
};

std::string lane_of(std::string_view value, Lane lane) {
  Collect c(lane);
  stream(value, c);
  return std::move(c.out);
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

int base64_digit(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

bool run_char(char c) { return base64_digit(c) >= 0 || c == '%'; }

std::string decode_run(std::string_view run) {
  std::string out;
  bool escaped = false;
  for (size_t i = 0; i + 2 < run.size() + 0 && !escaped; ++i)
    escaped = run[i] == '%' && hex_digit(run[i + 1]) >= 0 && hex_digit(run[i + 2]) >= 0;
  if (escaped) {
    for (size_t i = 0; i < run.size(); ++i) {
      if (run[i] == '%' && i + 2 < run.size() && hex_digit(run[i + 1]) >= 0 && hex_digit(run[i + 2]) >= 0) {
        out.push_back(static_cast<char>(hex_digit(run[i + 1]) * 16 + hex_digit(run[i + 2])));
        i += 2;
      } else {
        out.push_back(run[i] == '+' ? ' ' : run[i]);
      }
    }
    return out;
  }
  std::string_view body = run.substr(0, run.find('='));
  bool hex = body.size() == run.size() && run.size() % 2 == 0;
  for (size_t i = 0; hex && i < run.size(); ++i) hex = hex_digit(run[i]) >= 0;
  if (hex) {
    for (size_t i = 0; i + 1 < run.size(); i += 2) out.push_back(static_cast<char>(hex_digit(run[i]) * 16 + hex_digit(run[i + 1])));
    return out;
  }
  uint32_t bits = 0;
  int have = 0;
  for (char c : body) {
    int d = base64_digit(c);
    if (d < 0) return {};  // a '%' without an escape: not an encoding
    bits = (bits << 6) | static_cast<uint32_t>(d);
    have += 6;
    if (have >= 8) {
      have -= 8;
      out.push_back(static_cast<char>((bits >> have) & 0xFF));
    }
  }
  return out;
}

}  // namespace

void stream(std::string_view text, LaneSink& sink) {
  size_t skeleton_index = 0;
  unsigned char last_skeleton = 0;
  uint32_t prev_cp = 0;
  size_t prev_begin = 0;
  bool have_prev = false;
  for (size_t i = 0; i < text.size();) {
    CodePoint c = decode_at(text, i);
    const size_t begin = i, end = i + c.len;
    i = end;
    if (have_prev)
      for (unsigned char b : delta_token(prev_cp, c.cp)) sink.byte(Lane::Delta, b, prev_begin, end);
    prev_cp = c.cp, prev_begin = begin, have_prev = true;
    if (invisible(c.cp)) continue;
    uint32_t a = ascii_of(c.cp);
    if (!a) {
      for (size_t k = begin; k < end; ++k) sink.byte(Lane::Exact, static_cast<unsigned char>(text[k]), begin, end);
      continue;
    }
    unsigned char l = lower(static_cast<unsigned char>(a));
    sink.byte(Lane::Exact, l, begin, end);
    if (!alnum(l)) continue;
    sink.byte(Lane::Skeleton, l, begin, end);
    if (l != last_skeleton) sink.byte(Lane::Collapsed, l, begin, end);
    last_skeleton = l;
    sink.byte(skeleton_index % 2 ? Lane::Stride2b : Lane::Stride2a, l, begin, end);
    sink.byte(skeleton_index % 3 == 0 ? Lane::Stride3a : skeleton_index % 3 == 1 ? Lane::Stride3b : Lane::Stride3c, l, begin, end);
    ++skeleton_index;
  }
}

std::string exact(std::string_view value) { return lane_of(value, Lane::Exact); }
std::string skeleton(std::string_view value) { return lane_of(value, Lane::Skeleton); }
std::string collapsed(std::string_view skeleton) { return lane_of(skeleton, Lane::Collapsed); }
std::string deltas(std::string_view value) { return lane_of(value, Lane::Delta); }

std::string caesar(std::string_view value, int k) {
  std::string out(value);
  for (auto& ch : out) {
    if (ch >= 'a' && ch <= 'z') ch = static_cast<char>('a' + (ch - 'a' + k) % 26);
    else if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>('A' + (ch - 'A' + k) % 26);
  }
  return out;
}

std::string rot47(std::string_view value) {
  std::string out(value);
  for (auto& ch : out)
    if (ch >= '!' && ch <= '~') ch = static_cast<char>('!' + (ch - '!' + 47) % 94);
  return out;
}

void decoded_runs(std::string_view text, const std::function<void(size_t, size_t, std::string)>& each) {
  for (size_t i = 0; i < text.size();) {
    if (!run_char(text[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && run_char(text[end])) ++end;
    while (end < text.size() && text[end] == '=') ++end;  // padding
    if (end - i >= 8) {
      std::string decoded = decode_run(text.substr(i, end - i));
      if (decoded.size() >= 4) each(i, end, std::move(decoded));
    }
    i = end;
  }
}

namespace {
std::vector<Span> find_at(std::string_view text, int depth, const std::function<std::vector<Span>(std::string_view)>& find, Work& work) {
  work.bytes_scanned += text.size();
  work.deepest = std::max(work.deepest, depth);
  std::vector<Span> found = find(text);
  if (depth < kDecodeDepth)
    decoded_runs(text, [&](size_t begin, size_t end, std::string decoded) {
      if (auto inner = find_at(decoded, depth + 1, find, work); !inner.empty()) found.push_back({begin, end, inner.front().secret});
    });
  if (found.empty()) return found;
  std::sort(found.begin(), found.end(), [](const Span& a, const Span& b) { return a.begin < b.begin || (a.begin == b.begin && a.end > b.end); });
  std::vector<Span> merged{found.front()};
  for (size_t k = 1; k < found.size(); ++k) {
    if (found[k].begin <= merged.back().end) merged.back().end = std::max(merged.back().end, found[k].end);
    else merged.push_back(found[k]);
  }
  return merged;
}
}  // namespace

std::vector<Span> find_decoding(std::string_view text, const std::function<std::vector<Span>(std::string_view)>& find, Work& work) {
  return find_at(text, 0, find, work);
}

}  // namespace ouro::safety::spellings
