// Random identifiers and secrets, all from the kernel's CSPRNG (getrandom(2)), so that an id
// that is also a capability (a session id, an API token, a pairing credential) cannot be guessed
// from ones seen before.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ouro {

// n random bytes. Any thread. Blocks only before the kernel's pool is first seeded at boot;
// throws std::runtime_error if getrandom itself fails (it does not on Linux ≥ 3.17).
std::string random_bytes(size_t n);

// prefix, then `length` characters drawn uniformly from 0-9a-z: "r" + 10 gives a run id.
std::string random_id(std::string_view prefix, size_t length);

// `bytes` random bytes as lowercase hex (2 characters a byte): tokens and session ids.
std::string random_hex(size_t bytes);

}  // namespace ouro
