// Typed results keep their type when they are too large: an array keeps the whole items
// that fit, a tree is pruned by depth and then breadth, an object keeps the fields that fit. Only
// strings (and execInTab's free-form values) become {__truncated, originalLength, data}. Pure
// functions over JSON; the host applies them to every capability's result.
#pragma once

#include "base/json.h"

#include <optional>
#include <string>

namespace ouro::actions {

enum class Shape { Free, Array, Tree, Object };

struct Fitted {
  json value;
  // Set when something was left out: {kind: "items"|"tree"|"fields", kept, total, cap}, and a
  // tree's maxDepth (with maxChildren when nodes' children were trimmed), an object's dropped
  // field names (the first 20). truncation_note() words it for the model.
  std::optional<json> truncated;
};

// Fits value within cap bytes of JSON text (UTF-8, as dump_json writes it), keeping its shape;
// strings are cut at a character boundary. Never throws, whatever the value holds. A value the page helpers
// already cut ({__truncated, data: [...], total}) is turned back into its array.
Fitted fit_result(json value, Shape shape, size_t cap);

// "getLinks returned 2,212 of 5,340 items (…)": the line the model reads in its metadata.
std::string truncation_note(const std::string& function, const json& truncated);

}  // namespace ouro::actions
