#include "base/json.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

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
