// Metadata summaries of REPL values: type, size, object schema with value previews,
// array element schema, first items, truncation notes. This is the exact text the model sees
// instead of the data itself, so its size is bounded whatever the value's size.
#pragma once

#include "base/text.h"

#include "base/json.h"

#include <string>
#include <vector>

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
// Bytes -> "2.3MB". (with_commas is base/text.h's, named here for the callers that still say jsrt::.)
using ::ouro::with_commas;
std::string human_size(size_t n);

// --- env checkpoints ---------------------------------------------------------------------------
// A checkpoint is env in the REPL's typed JSON (its format is described in js/prelude.js): plain
// JSON, with {"$t": …} tags where JSON cannot say the value (Map, Set, Date, BigInt, undefined, -0,
// typed arrays, shared and cyclic references, values a restart cannot bring back, …).

// The plain JSON of a checkpoint, as summaries and results show values: Map → object (String of
// each key), Set → array, Date → ISO string (invalid: null), BigInt → decimal string, NaN and
// ±Infinity → "NaN"/"Infinity", -0 → 0, undefined → dropped from objects and null in arrays,
// typed arrays → arrays of numbers, RegExp → "/source/flags", Error → {name, message}, a cycle →
// "[Circular]", a shared object → a copy of it (past a copy budget: "[Shared]"), a value a restart
// cannot bring back → {"$lost": why} (a class instance: its own data). Plain JSON (an old
// checkpoint) comes back as it is. Pure; never throws; bounded by the input's size.
json plain_view(const json& typed);

// A value of env that a restart cannot bring back: a checkpoint's {"$t":"Lost"} entries.
struct LostValue {
  std::string path;  // a JavaScript expression for it: "env.tools.parse", "env.byId.get(\"a\")"
  std::string what;  // "function parse", "an instance of class Box (its data is kept in a plain object)"
};
// The lost values of a checkpoint, in env's order, at most `max`. Pure.
std::vector<LostValue> lost_values(const json& typed, size_t max = 100);
// "env.f (function f), env.box (an instance of class Box …)" — for messages to the model.
std::string describe_lost(const std::vector<LostValue>& lost);

}  // namespace ouro::jsrt
