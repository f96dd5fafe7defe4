#include "base/settings_file.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace ouro {

Result<SettingsFile> read_settings_file(const std::string& path) {
  SettingsFile f;
  f.path = path;
  std::ifstream in(path);
  if (!in) {
    // Missing: no settings. There but unreadable: an error, never settings quietly dropped (the
    // sites a run may use, its mode and its secrets are read from this file).
    std::error_code ec;
    if (!std::filesystem::exists(path, ec) && !ec) return f;
    return errorf(Code::FailedPrecondition, "{} cannot be read ({}): make it readable by this user or remove it", f.where(),
                  ec ? ec.message() : std::string("permission denied"));
  }
  std::stringstream ss;
  ss << in.rdbuf();
  auto parsed = parse_json(ss.str(), f.where());
  if (!parsed) return errorf(Code::InvalidArgument, "{}: fix or remove it", parsed.error().message);
  if (!parsed->is_object()) return errorf(Code::InvalidArgument, "{} is not a JSON object: fix or remove it", f.where());
  f.data = std::move(*parsed);
  return f;
}

}  // namespace ouro
