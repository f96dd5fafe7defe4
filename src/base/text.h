// Bounded text: what ouro shows or stores of a string it did not write (page text, error
// messages, arguments) has a size cap.
#pragma once

#include <string>
#include <string_view>

namespace ouro {

// Error messages shown to the model and the user are at most this long.
constexpr size_t kMaxErrorChars = 2000;

// At most max bytes: the head, "…[N chars cut]…", and the tail (where errors keep their notes),
// cut at UTF-8 character boundaries.
std::string clip_text(std::string_view text, size_t max);

}  // namespace ouro
