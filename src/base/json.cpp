#include "base/json.h"

namespace ouro {

namespace {
struct TooDeep {};
}  // namespace

Result<json> parse_json(std::string_view text, std::string_view what) {
  // Nesting is bounded: printing or walking a value a million levels deep would overflow the
  // stack, and no value we exchange needs more than a few dozen levels.
  json::parser_callback_t limit = [](int depth, json::parse_event_t, json&) {
    if (depth > kMaxJsonDepth) throw TooDeep{};
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), limit);
  } catch (const json::parse_error& e) {
    return errorf(Code::InvalidArgument, "malformed {} at byte {}: {}", what, e.byte, e.what());
  } catch (const TooDeep&) {
    return errorf(Code::InvalidArgument, "{} is nested more than {} levels deep", what, kMaxJsonDepth);
  } catch (const std::exception& e) {
    return errorf(Code::InvalidArgument, "cannot read {}: {}", what, e.what());
  }
}

std::string json_str(const json& object, std::string_view key, std::string fallback) {
  if (!object.is_object()) return fallback;
  auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return fallback;
  return it->get<std::string>();
}

std::string dump_json(const json& value, int indent) {
  return value.dump(indent, ' ', false, json::error_handler_t::replace);
}

}  // namespace ouro
