// The JSON boundary: nlohmann::json throws, so parsing is wrapped once here and returns a Result.
#pragma once

#include "base/error.h"

#include <nlohmann/json.hpp>

namespace ouro {

using json = nlohmann::ordered_json;

// Deeper values are refused by parse_json.
constexpr int kMaxJsonDepth = 512;

// Parses text; on failure the error names the byte offset. `what` says what was being parsed.
Result<json> parse_json(std::string_view text, std::string_view what = "JSON");

// True when text opens more than `limit` arrays or objects inside one another (brackets inside
// strings do not count). One pass, no allocation; for malformed text the answer is a guess.
bool nested_deeper_than(std::string_view text, int limit);

// Serialises without throwing: invalid UTF-8 is replaced rather than rejected.
std::string dump_json(const json& value, int indent = -1);

// Reads of untrusted JSON (CDP events, REPL arguments) that never throw and never hit nlohmann's
// undefined behaviour (a const operator[] on a missing key): a missing key, a value that is not an
// object, or a member of another type gives the default.
std::string get_str(const json& j, std::string_view key, std::string_view dflt = "");
double get_num(const json& j, std::string_view key, double dflt = 0);
// A number rounded toward zero and clamped to int64; NaN gives the default.
int64_t get_int(const json& j, std::string_view key, int64_t dflt = 0);
bool get_bool(const json& j, std::string_view key, bool dflt = false);
// The member, or a null value (so nested reads chain: get_str(get_field(p, "frame"), "url")).
const json& get_field(const json& j, std::string_view key);
// The member if it is an array, else an empty array (iterating a string would yield the string).
const json& get_array(const json& j, std::string_view key);

}  // namespace ouro
