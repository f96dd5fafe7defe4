#include "browser/cdp_values.h"

namespace ouro::browser {

std::string remote_object_text(const json& arg) {
  if (!arg.is_object()) return arg.is_string() ? arg.get<std::string>() : dump_json(arg);
  if (auto v = arg.find("value"); v != arg.end()) return v->is_string() ? v->get<std::string>() : dump_json(*v);
  if (arg.contains("unserializableValue")) return get_str(arg, "unserializableValue");
  if (arg.contains("description")) return get_str(arg, "description");
  return get_str(arg, "type");
}

std::string exception_text(const json& details) {
  const json& ex = get_field(details, "exception");
  if (ex.is_object()) {
    if (ex.contains("description")) return get_str(ex, "description");
    if (ex.contains("value")) return remote_object_text(ex);
  }
  return get_str(details, "text", "exception");
}

}  // namespace ouro::browser
