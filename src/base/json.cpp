#include "base/json.h"

namespace ouro {

Result<json> parse_json(std::string_view text, std::string_view what) {
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    return errorf(Code::InvalidArgument, "malformed {} at byte {}: {}", what, e.byte, e.what());
  }
}

std::string dump_json(const json& value, int indent) {
  return value.dump(indent, ' ', false, json::error_handler_t::replace);
}

}  // namespace ouro
