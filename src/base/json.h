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

// object[key] if it is a string, else fallback — never throws (nlohmann's value() throws when
// the key holds another type, and operator[] on a missing key of a const object is undefined).
std::string json_str(const json& object, std::string_view key, std::string fallback = {});

// Serialises without throwing: invalid UTF-8 is replaced rather than rejected.
std::string dump_json(const json& value, int indent = -1);

}  // namespace ouro
