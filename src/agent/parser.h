// Code extraction from a model's reply, by a fallback chain: ```repl fences,
// then any fence, then tool-call JSON ({"code": "…"}), then bare lines that look like our API.
#pragma once

#include <string>
#include <vector>

namespace ouro::agent {

struct Extracted {
  std::vector<std::string> blocks;
  std::string strategy;  // "repl-fence" | "any-fence" | "tool-json" | "bare" | "none"
};

Extracted extract_code_blocks(const std::string& response);

// Identifiers written as calls (`name(`), in order, with repeats. A plain scanner: std::regex
// recurses per character and overflows the stack on long inputs.
std::vector<std::string> called_names(std::string_view code);

}  // namespace ouro::agent
