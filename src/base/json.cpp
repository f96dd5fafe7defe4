#include "base/json.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace ouro {

bool nested_deeper_than(std::string_view text, int limit) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

Result<json> parse_json(std::string_view text, std::string_view what) {
  // Nesting is bounded: printing or walking a value a million levels deep would overflow the
  // stack, and no value we exchange needs more than a few dozen levels. It is checked by a scan
  // first rather than by a parser callback: with a callback, nlohmann (3.11) searches the
  // enclosing array at the end of every object for discarded values, quadratic in the length
  // of an array of objects (a large accessibility tree held the network thread for seconds).
  if (nested_deeper_than(text, kMaxJsonDepth))
    return errorf(Code::InvalidArgument, "{} is nested more than {} levels deep", what, kMaxJsonDepth);
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    return errorf(Code::InvalidArgument, "malformed {} at byte {}: {}", what, e.byte, e.what());
  } catch (const std::exception& e) {
    return errorf(Code::InvalidArgument, "cannot read {}: {}", what, e.what());
  }
}

std::string dump_json(const json& value, int indent) {
  return value.dump(indent, ' ', false, json::error_handler_t::replace);
}

namespace {

const json* member(const json& j, std::string_view key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

}  // namespace

std::string get_str(const json& j, std::string_view key, std::string_view dflt) {
  const json* v = member(j, key);
  return v && v->is_string() ? v->get_ref<const std::string&>() : std::string(dflt);
}

double get_num(const json& j, std::string_view key, double dflt) {
  const json* v = member(j, key);
  return v && v->is_number() ? v->get<double>() : dflt;
}

int64_t get_int(const json& j, std::string_view key, int64_t dflt) {
  const json* v = member(j, key);
  if (!v || !v->is_number()) return dflt;
  if (v->is_number_integer()) return v->is_number_unsigned() ? static_cast<int64_t>(std::min<uint64_t>(v->get<uint64_t>(), INT64_MAX)) : v->get<int64_t>();
  double d = v->get<double>();
  if (std::isnan(d)) return dflt;
  if (d >= 9.2e18) return INT64_MAX;
  if (d <= -9.2e18) return INT64_MIN;
  return static_cast<int64_t>(d);
}

bool get_bool(const json& j, std::string_view key, bool dflt) {
  const json* v = member(j, key);
  return v && v->is_boolean() ? v->get<bool>() : dflt;
}

const json& get_field(const json& j, std::string_view key) {
  static const json null_value;
  const json* v = member(j, key);
  return v ? *v : null_value;
}

const json& get_array(const json& j, std::string_view key) {
  static const json empty = json::array();
  const json* v = member(j, key);
  return v && v->is_array() ? *v : empty;
}

}  // namespace ouro
