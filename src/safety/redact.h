// Redaction of what leaves ouro for a model or the disk (prompts, events, traces): the one stage
// where secrets are masked before data is shown to someone else. Pure functions over text.
//
// Secret values: a SecretMatcher finds a value and the usual transformations of it (see
// secret_variants), so code that encodes a secret it read back from a page does not get it out.
//
// URL parameters: a query or fragment value whose name looks like a secret — token, key, password,
// auth, session, secret, signature, code, … (see is_secret_param_name) — becomes "[REDACTED]",
// wherever a URL appears in the text.
#pragma once

#include "base/json.h"
#include "safety/automaton.h"
#include "safety/spellings.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ouro::safety {

// True for parameter names that carry credentials: access_token, api_key, password, sessionid,
// auth, sig, code, … but not keyword, author, page.
bool is_secret_param_name(std::string_view name);

// Masks the values of secret-named URL parameters anywhere in text.
std::string redact_url_params(std::string_view text);

// A request body as it may be shown (a question, an event): the values of secret-named fields
// masked, in a form (name=value&…, names percent-decoded: user%5Bpassword%5D is user[password]),
// a JSON body (members at any depth, when the body is at most kMaxJsonBodyToRead bytes) or
// multipart/form-data, and then what redact() (base/log.h) masks in any text.
inline constexpr size_t kMaxJsonBodyToRead = 256 * 1024;
std::string redact_request_body(std::string_view body);

// The same, applied to every string (and object key's value) of a JSON value, in place.
void redact_json_strings(json& value);

// ouro::redact() (base/log.h: bearer tokens, keys, "password"/"cookie" values, the registered
// secret scrubbers) applied to each string and object key of a JSON value — a member read as the
// text `name: value` is —, for records written as JSON lines (a trace, a hook's payload): what
// is written stays JSON whatever was masked.
json redact_json(const json& value);

// Values shorter than this are not looked for in text: they could not be told apart from ordinary
// text ("1234", "abc"). Such values are still typed only on their own sites.
inline constexpr size_t kMinScrubbedBytes = 4;

// The forms a secret value takes when code transforms it, ASCII case folded (every form is matched
// in any case, so upper-, lower- and mixed-case copies are found as well):
//   the value and its reversal (by code point); base64, standard and URL-safe alphabet, with and
//   without padding (RFC 4648 §4, §5), and the parts of it that appear whatever precedes the value
//   (the value at offsets 1 and 2 modulo 3, so btoa("user:" + value) is found too — only where
//   that part is 8 characters or more, since shorter ones are ordinary text); hex; percent-encoded
//   as encodeURIComponent and encodeURI write it, every byte, and form-encoded
//   (application/x-www-form-urlencoded: space as '+'); JSON-escaped (as JSON.stringify writes it,
//   with \uXXXX for non-ASCII, and every character as \uXXXX or \xXX); HTML-escaped (&amp; …) and
//   every character as a decimal or hex character reference.
// Values of 4096 bytes or more (a key file) are looked for as they are and in any case only.
std::vector<std::string> secret_variants(std::string_view value);

// Finds secret values in text, in time linear in its length whatever the number of variants and
// with memory bounded by the longest variant: Aho-Corasick automata over the lanes of the text
// (safety/spellings.h), built once when the secrets are set, looking for
//   - in the Exact lane: every variant of secret_variants, and for a value of kMinFuzzyBytes or
//     more its 25 Caesar shifts (ROT13 among them) and its ROT47;
//   - for a value whose skeleton (its ASCII letters and digits) is kMinFuzzyBytes or more: in the
//     Skeleton lane the skeleton, reversed, and its Caesar shifts, and its two halves (reported
//     only when both are in the text, in any order and anywhere: a value cut in two); in the
//     Stride lanes the skeleton (a filler interleaved); in the Collapsed lane the skeleton with
//     repeats collapsed, when that is kMinFuzzyBytes or more (each character doubled or tripled);
//   - in the Delta lane the code-point differences of a value of kMinFuzzyBytes code points or
//     more, as written and in lower case (every code point shifted by the same amount);
// and a scan for a value spelled out with a separator: its characters ("h-u-n-t", "h u n t"), or
// its character codes in decimal or hex ("104,117,110", "104 117", "0x68;0x75"), one separator of
// one to three characters that are not letters or digits between each.
// Then the encoded runs of the text (spellings::decoded_runs: base64, hex, percent) are decoded
// and looked through the same way, to spellings::kDecodeDepth levels (base64 of hex, percent of base64,
// base64 twice, …); a run that holds a secret is masked whole. Thread-safe to read.
inline constexpr size_t kMinFuzzyBytes = 8;

class SecretMatcher {
 public:
  using Found = spellings::Span;  // secret: an index into the values given to build
  using Work = spellings::Work;
  // values under kMinScrubbedBytes are skipped.
  static SecretMatcher build(const std::vector<std::string>& values);
  bool empty() const { return m_values.empty(); }
  // Non-overlapping, sorted, merged where two overlap (the first one's secret named).
  std::vector<Found> find(std::string_view text, Work* work = nullptr) const;

 private:
  enum class Part : uint8_t { Whole, FirstHalf, SecondHalf };
  struct Pattern {
    uint32_t secret;
    Part part;
  };
  std::vector<Found> find_in_lanes(std::string_view text) const;
  uint32_t tag(size_t secret, Part part);
  std::vector<Pattern> m_patterns;  // by tag
  Automaton m_exact, m_skeleton, m_collapsed, m_delta;
  // Per secret: its character, decimal and hex code tokens, for the spaced scan.
  struct Spelled {
    std::vector<std::vector<std::string>> token_lists;
  };
  std::vector<Spelled> m_spelled;
  std::vector<std::string> m_values;
};

}  // namespace ouro::safety
