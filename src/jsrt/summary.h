// Metadata summaries of REPL values (seed 000 §8): type, size, object schema with value previews,
// array element schema, first items, truncation notes. This is the exact text the model sees
// instead of the data itself, so its size is bounded whatever the value's size.
#pragma once

#include "base/json.h"

#include <string>

namespace ouro::jsrt {

// "Array<Object(3 keys: a, b, c)>(12)", "string", "null", …
std::string describe_type(const json& value);
// "{ subject: string \"Meeting…\", count: number 3 }"
std::string describe_schema(const json& value);
// The "Result: …" block for one evaluation's value (discarded json = undefined/void).
std::string summarize_value(const json& value);
// A one-line form for progress lines: "→ Array<Object> (3 items)", "→ number = 3".
std::string one_liner(const json& value);
// The "## REPL Variables" listing for env: one entry per key, nested schemas for objects.
std::string summarize_env(const json& env);
// Size in characters of the value's JSON text, as the model is told ("2,847 chars").
size_t json_chars(const json& value);
// 2847 -> "2,847"; bytes -> "2.3MB".
std::string with_commas(size_t n);
std::string human_size(size_t n);

}  // namespace ouro::jsrt
