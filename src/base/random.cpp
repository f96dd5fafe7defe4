#include "base/random.h"

#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace ouro {

std::string random_bytes(size_t n) {
  std::string out(n, '\0');
  size_t got = 0;
  while (got < n) {
    ssize_t r = getrandom(out.data() + got, n - got, 0);
    if (r < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("getrandom failed: ") + std::strerror(errno));
    }
    got += static_cast<size_t>(r);
  }
  return out;
}

std::string random_id(std::string_view prefix, size_t length) {
  static constexpr std::string_view kDigits = "0123456789abcdefghijklmnopqrstuvwxyz";
  // A byte below 252 (7 × 36) maps to a digit without bias; the rest are drawn again.
  std::string out(prefix);
  while (out.size() < prefix.size() + length) {
    for (unsigned char b : random_bytes(length)) {
      if (b >= 252) continue;
      out += kDigits[b % 36];
      if (out.size() == prefix.size() + length) break;
    }
  }
  return out;
}

std::string random_hex(size_t bytes) {
  static constexpr std::string_view kHex = "0123456789abcdef";
  std::string out;
  out.reserve(bytes * 2);
  for (unsigned char b : random_bytes(bytes)) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

}  // namespace ouro
