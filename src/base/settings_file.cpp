#include "base/settings_file.h"

#include <fstream>
#include <sstream>

namespace ouro {

Result<SettingsFile> read_settings_file(const std::string& path) {
  SettingsFile f;
  f.path = path;
  std::ifstream in(path);
  if (!in) return f;
  std::stringstream ss;
  ss << in.rdbuf();
  auto parsed = parse_json(ss.str(), f.where());
  if (!parsed) return errorf(Code::InvalidArgument, "{}: fix or remove it", parsed.error().message);
  if (!parsed->is_object()) return errorf(Code::InvalidArgument, "{} is not a JSON object: fix or remove it", f.where());
  f.data = std::move(*parsed);
  return f;
}

}  // namespace ouro
