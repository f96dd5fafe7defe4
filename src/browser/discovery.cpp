#include "browser/discovery.h"

#include <cstdlib>
#include <fstream>
#include <optional>

namespace ouro::browser {

std::vector<std::string> usual_browser_dirs() {
  std::string config;
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x) config = x;
  else if (const char* h = std::getenv("HOME"); h && *h) config = std::string(h) + "/.config";
  if (config.empty()) return {};
  std::vector<std::string> out;
  for (const char* d : {"google-chrome", "google-chrome-beta", "google-chrome-unstable", "google-chrome-canary", "chromium",
                        "chromium-browser", "BraveSoftware/Brave-Browser", "microsoft-edge"})
    out.push_back(config + "/" + d);
  return out;
}

namespace {
// The file's two lines, checked: a port number, and a path under /devtools/browser/.
std::optional<std::string> read_active_port(const std::string& dir) {
  std::ifstream in(dir + "/DevToolsActivePort");
  if (!in) return std::nullopt;
  std::string port, path;
  if (!std::getline(in, port) || !std::getline(in, path)) return std::nullopt;
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  int n = std::atoi(port.c_str());
  if (n <= 0 || n > 65535) return std::nullopt;
  if (path.rfind("/devtools/browser/", 0) != 0 || path.size() > 200 ||
      path.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-/_") != std::string::npos)
    return std::nullopt;
  return "ws://127.0.0.1:" + port + path;
}
}  // namespace

Result<std::string> find_devtools_url(const std::vector<std::string>& dirs) {
  std::string looked;
  for (const auto& d : dirs) {
    if (auto url = read_active_port(d)) return *url;
    looked += (looked.empty() ? "" : ", ") + d;
  }
  return errorf(Code::NotFound,
                "no browser with remote debugging found (looked for DevToolsActivePort in {}). Start one with a profile of its own, "
                "e.g. chromium --remote-debugging-port=9222 --user-data-dir=$HOME/.config/ouro-chrome, then pass --browser auto "
                "--browser-dir $HOME/.config/ouro-chrome (Chrome 136 and later refuse remote debugging on the default profile)",
                looked.empty() ? "no directory" : looked);
}

}  // namespace ouro::browser
