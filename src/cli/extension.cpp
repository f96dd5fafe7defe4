#include "cli/extension.h"

#include <filesystem>
#include <fstream>
#include <string_view>
#include <utility>

namespace ouro::embedded {
extern const std::string_view manifest_json;
extern const std::string_view service_worker_js;
extern const std::string_view sidepanel_html;
extern const std::string_view sidepanel_js;
extern const std::string_view sidepanel_css;
extern const std::string_view index_html;
extern const std::string_view app_js;
extern const std::string_view app_css;
}  // namespace ouro::embedded

namespace ouro::cli {

Result<std::string> write_extension(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path root = fs::absolute(dir, ec);
  if (ec) return errorf(Code::InvalidArgument, "cannot resolve {}: {}", dir, ec.message());
  const std::pair<const char*, std::string_view> files[] = {
      {"manifest.json", embedded::manifest_json},
      {"service_worker.js", embedded::service_worker_js},
      {"sidepanel.html", embedded::sidepanel_html},
      {"sidepanel.js", embedded::sidepanel_js},
      {"sidepanel.css", embedded::sidepanel_css},
      // The panel runs the Command Center's own files: MV3 pages run only the extension's scripts.
      {"command-center/index.html", embedded::index_html},
      {"command-center/app.js", embedded::app_js},
      {"command-center/app.css", embedded::app_css},
  };
  for (const auto& [name, content] : files) {
    fs::path path = root / name;
    fs::create_directories(path.parent_path(), ec);
    if (ec) return errorf(Code::Internal, "cannot make {}: {}", path.parent_path().string(), ec.message());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    if (!out) return errorf(Code::Internal, "cannot write {}", path.string());
  }
  return root.string();
}

std::vector<std::string> load_extension_args(const std::string& dir) {
  // Chromium only (branded Chrome 137+ ignores --load-extension); every other extension stays off.
  return {"--disable-extensions-except=" + dir, "--load-extension=" + dir};
}

std::string extension_instructions(const std::string& dir) {
  return "ouro's Chrome extension is in " + dir +
         "\nLoad it into Chrome or Chromium:\n"
         "  1. Open chrome://extensions\n"
         "  2. Turn on Developer mode (top right)\n"
         "  3. Load unpacked → " + dir +
         "\nThen open its side panel (the toolbar button), start `ouro serve` if it is not running, and enter the pairing code it "
         "printed (Settings in the Command Center shows it too).\n";
}

}  // namespace ouro::cli
