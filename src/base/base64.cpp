#include "base/base64.h"

#include <array>
#include <cstdint>

namespace ouro {

namespace {
constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::string_view kUrlAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

// The value of each standard digit; -1 for every other byte.
const std::array<int8_t, 256>& digit_values() {
  static const auto table = [] {
    std::array<int8_t, 256> t;
    t.fill(-1);
    for (size_t i = 0; i < kAlphabet.size(); ++i) t[static_cast<unsigned char>(kAlphabet[i])] = static_cast<int8_t>(i);
    return t;
  }();
  return table;
}
}  // namespace

std::string base64_encode(std::string_view in, Base64 alphabet) {
  std::string_view digits = alphabet == Base64::Url ? kUrlAlphabet : kAlphabet;
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  int val = 0, bits = -6;
  for (unsigned char c : in) {
    val = (val << 8) + c;
    bits += 8;
    while (bits >= 0) {
      out.push_back(digits[(val >> bits) & 0x3F]);
      bits -= 6;
    }
  }
  if (bits > -6) out.push_back(digits[((val << 8) >> (bits + 8)) & 0x3F]);
  if (alphabet == Base64::Standard)
    while (out.size() % 4) out.push_back('=');
  return out;
}

std::string base64_decode(std::string_view in) {
  const auto& values = digit_values();
  std::string out;
  out.reserve(in.size() * 3 / 4);
  int val = 0, bits = -8;
  for (unsigned char c : in) {
    int d = values[c];
    if (d < 0) continue;
    val = (val << 6) + d;
    bits += 6;
    if (bits >= 0) {
      out.push_back(static_cast<char>((val >> bits) & 0xFF));
      bits -= 8;
    }
  }
  return out;
}

std::optional<std::string> base64_decode_strict(std::string_view s) {
  const auto& values = digit_values();
  if (s.size() % 4) return std::nullopt;
  std::string out;
  out.reserve(s.size() / 4 * 3);
  for (size_t i = 0; i < s.size(); i += 4) {
    uint32_t n = 0;
    int pad = 0;
    for (size_t j = 0; j < 4; ++j) {
      char c = s[i + j];
      int d = c == '=' ? 0 : values[static_cast<unsigned char>(c)];
      if (c == '=') ++pad;
      if (d < 0 || (pad && c != '=')) return std::nullopt;
      n = (n << 6) | static_cast<uint32_t>(d);
    }
    if (pad > 2 || (pad && i + 4 != s.size())) return std::nullopt;
    out.push_back(static_cast<char>(n >> 16));
    if (pad < 2) out.push_back(static_cast<char>((n >> 8) & 255));
    if (pad < 1) out.push_back(static_cast<char>(n & 255));
  }
  return out;
}

}  // namespace ouro
