// The spellings a secret value is looked for in: a text streamed through normalised views of it
// ("lanes") in one pass, and the encoded runs of a text decoded so that they can be looked
// through again. Pure functions over text, linear in its length; no allocation that grows with it.
//
// What each lane sees (docs/guides/safety.md, "Spellings"):
//   Exact      the text with compatibility forms folded to ASCII (fullwidth forms, mathematical
//              alphanumerics, circled, squared and regional-indicator letters, super- and subscript
//              digits — a subset of Unicode's NFKC, UAX #15), invisible format characters dropped
//              (soft hyphen, zero-width space and joiners, word joiner, BOM) and ASCII case folded;
//   Skeleton   of that, only the ASCII letters and digits (every other run — separators, spaces,
//              punctuation, emoji — between the characters is skipped);
//   Collapsed  the skeleton with each run of one repeated character kept once ("hhuunntteerr");
//   Stride…    every 2nd (two phases) and every 3rd (three phases) character of the skeleton: a
//              value with a filler character or two interleaved ("hXuXnXtXeXr");
//   Delta      the differences between consecutive code points of the text as written, each as a
//              4-byte token: a value with every code point shifted by the same amount.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ouro::safety::spellings {

enum class Lane : uint8_t { Exact, Skeleton, Collapsed, Stride2a, Stride2b, Stride3a, Stride3b, Stride3c, Delta };
inline constexpr size_t kLanes = 9;

// Receives the bytes of every lane of one text, in the order of the text.
class LaneSink {
 public:
  virtual ~LaneSink() = default;
  // c: the lane's next byte; [begin, end): the bytes of the text it stands for.
  virtual void byte(Lane lane, unsigned char c, size_t begin, size_t end) = 0;
};

// Feeds every lane of `text` to `sink`: O(text.size()) calls.
void stream(std::string_view text, LaneSink& sink);

// A value as the lanes see it: its Exact lane bytes, its Skeleton, the Collapsed form of a
// skeleton, the Delta tokens of its code points as written.
std::string exact(std::string_view value);
std::string skeleton(std::string_view value);
std::string collapsed(std::string_view skeleton);
std::string deltas(std::string_view value);
// Letters shifted by k places in the alphabet, case kept (a Caesar shift; ROT13 is k = 13).
std::string caesar(std::string_view value, int k);
// ROT47: every printable ASCII character but space rotated by 47 within '!'..'~'.
std::string rot47(std::string_view value);

// The encoded runs of `text`, decoded: for each maximal run of base64/hex/percent characters
// ([A-Za-z0-9+/_%-], '=' only as trailing padding) of 8 bytes or more, its decoding —
// percent-decoding (RFC 3986 §2.1, '+' as space) if it holds a %XX escape, else hex if it is all
// hex digits of even length, else base64 (RFC 4648 §4 and §5 alphabets alike) — when that is 4
// bytes or more. Runs do not overlap and each decoding is no longer than its run, so decoding
// what a call yields, to a fixed depth, stays linear in the text.
void decoded_runs(std::string_view text, const std::function<void(size_t begin, size_t end, std::string decoded)>& each);

// Where a value was found in a text: bytes [begin, end), and which value.
struct Span {
  size_t begin = 0, end = 0;
  size_t secret = 0;
};
inline constexpr int kDecodeDepth = 3;
// What a search through encodings did, for tests of its bounds.
struct Work {
  size_t bytes_scanned = 0;  // the text and every decoded run looked through
  int deepest = 0;           // decoding levels reached
};
// `find` applied to the text and, to kDecodeDepth levels, to its decoded runs (base64 of hex,
// percent of base64, base64 twice, …); a run in which anything is found is one span, whole,
// naming the first value found in it. Sorted; overlapping spans merged (the first one's value
// named). At most kDecodeDepth + 1 times the text's size is looked through.
std::vector<Span> find_decoding(std::string_view text, const std::function<std::vector<Span>(std::string_view)>& find, Work& work);

}  // namespace ouro::safety::spellings
