// A request's plan as the lines `ouro` prints for it (to_line), each step not understood as
// "?? …": what the planner tests compare. Header-only, for the commands unit suite.
#pragma once

#include "commands/sentence.h"

#include <string>
#include <vector>

namespace ouro::commands::testing {

using L = std::vector<std::string>;

inline L plan_of(const std::string& text) {
  auto r = parse_request(text);
  L out;
  for (const auto& c : r.plan) out.push_back(to_line(c));
  for (const auto& n : r.not_understood) out.push_back("?? " + n);
  return out;
}

}  // namespace ouro::commands::testing
