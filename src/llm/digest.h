// A short stable digest of what a model request asks — its system prompt and its messages — so a
// recorded answer can be matched to the call that asked it (the scripted provider's "asked").
// The same text gives the same digest in any build: FNV-1a, 64 bits, as 16 hex digits.
#pragma once

#include "llm/provider.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace ouro::llm {

inline std::string request_digest(const Request& request) {
  uint64_t h = 1469598103934665603ull;
  auto add = [&](std::string_view s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull;  // a separator no text byte sequence can forge alone
  };
  add(request.system);
  for (const auto& m : request.messages) {
    add(m.role);
    add(m.content);
  }
  static const char* hex = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, h >>= 4) out[static_cast<size_t>(i)] = hex[h & 0xf];
  return out;
}

}  // namespace ouro::llm
