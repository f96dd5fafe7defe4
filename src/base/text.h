// Bounded text: what ouro shows or stores of a string it did not write (page text, error
// messages, arguments) has a size cap. Every cut here lands on a UTF-8 character boundary
// (RFC 3629: continuation bytes are 10xxxxxx), so a clipped string is still valid UTF-8
// when the input was.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ouro {

// Error messages shown to the model and the user are at most this long.
constexpr size_t kMaxErrorChars = 2000;

// What follows a head that was cut.
enum class ClipMark {
  None,      // nothing: the caller adds its own note
  Ellipsis,  // "…"
  Count,     // "…[+N chars]": how many characters were cut
};

// How clip_head's limit counts.
enum class ClipUnit { Bytes, Chars };

// The largest offset at most `at` (and at most s.size()) that does not fall inside a UTF-8 character.
size_t utf8_boundary(std::string_view s, size_t at);

// How many characters (code points) the UTF-8 text holds.
size_t utf8_length(std::string_view s);

// The text unchanged when it fits in max units; else its head of at most max units, ending at a
// character boundary, then the mark (the mark is not counted in max).
std::string clip_head(std::string_view text, size_t max, ClipMark mark = ClipMark::Ellipsis, ClipUnit unit = ClipUnit::Bytes);

// At most max bytes: the head, "…[N chars cut]…", and the tail (where errors keep their notes),
// cut at UTF-8 character boundaries.
std::string clip_text(std::string_view text, size_t max);

// The text on one line (line breaks and tabs become spaces), then clip_head's bytes with "…".
std::string clip_line(std::string_view text, size_t max);

// 2847 -> "2,847", for sizes a person or a model reads.
std::string with_commas(size_t n);

// A URL's port as written (RFC 3986: digits): its number when it is 1 to 65535, else nullopt.
// Boost.URL's port_number() keeps only the low 16 bits of a larger one (99999 becomes 34463).
std::optional<int> port_number(std::string_view digits);

}  // namespace ouro
