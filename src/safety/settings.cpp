#include "safety/settings.h"

#include "base/settings_file.h"


namespace ouro::safety {

Result<SafetySettings> safety_settings_from(const json& file, const std::string& where) {
  SafetySettings s;
  if (!file.is_object()) return errorf(Code::InvalidArgument, "{} is not a JSON object: fix or remove it", where);
  auto strings = [&](const json& v, const std::string& field) -> Result<std::vector<std::string>> {
    std::vector<std::string> out;
    if (!v.is_array()) return errorf(Code::InvalidArgument, "{}: \"{}\" must be an array of strings", where, field);
    for (const auto& e : v) {
      if (!e.is_string()) return errorf(Code::InvalidArgument, "{}: \"{}\" must be an array of strings", where, field);
      out.push_back(e.get<std::string>());
    }
    return out;
  };
  if (file.contains("allowed_domains")) {
    s.allowed_domains = TRY(strings(file["allowed_domains"], "allowed_domains"));
    SiteList check;
    for (const auto& d : s.allowed_domains)
      if (auto ok = check.add(d); !ok) return errorf(Code::InvalidArgument, "{}: allowed_domains: {}", where, ok.error().message);
  }
  if (file.contains("mode")) {
    if (!file["mode"].is_string()) return errorf(Code::InvalidArgument, "{}: \"mode\" must be \"careful\" or \"autonomous\"", where);
    auto m = parse_gate_mode(file["mode"].get<std::string>());
    if (!m) return errorf(Code::InvalidArgument, "{}: {}", where, m.error().message);
    s.mode = *m;
  }
  if (file.contains("permissions")) {
    const json& p = file["permissions"];
    if (!p.is_object()) return errorf(Code::InvalidArgument, "{}: \"permissions\" must map capability names to \"auto\", \"ask\" or \"deny\"", where);
    for (auto it = p.begin(); it != p.end(); ++it) {
      if (!it->is_string()) return errorf(Code::InvalidArgument, "{}: permissions.{} must be \"auto\", \"ask\" or \"deny\"", where, it.key());
      s.permissions[it.key()] = it->get<std::string>();
    }
  }
  if (file.contains("secrets")) {
    const json& sec = file["secrets"];
    if (!sec.is_object()) return errorf(Code::InvalidArgument, "{}: \"secrets\" must map names to {{\"value\": …, \"domains\": […]}}", where);
    s.secrets = std::make_shared<SecretStore>();
    for (auto it = sec.begin(); it != sec.end(); ++it) {
      const json& e = *it;
      if (!e.is_object() || !e.contains("value") || !e["value"].is_string() || !e.contains("domains"))
        return errorf(Code::InvalidArgument, "{}: secrets.{} must be {{\"value\": \"…\", \"domains\": [\"site\", …]}}", where, it.key());
      auto domains = TRY(strings(e["domains"], "secrets." + it.key() + ".domains"));
      if (auto added = s.secrets->add(it.key(), e["value"].get<std::string>(), domains); !added)
        return errorf(Code::InvalidArgument, "{}: secrets.{}: {}", where, it.key(), added.error().message);
    }
  }
  return s;
}

Result<SafetySettings> load_safety_settings(const std::string& path) {
  auto file = TRY(read_settings_file(path));
  return safety_settings_from(file.data, file.where());
}

}  // namespace ouro::safety
