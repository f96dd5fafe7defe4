#include "browser/discovery.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
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
// The file's first bytes, enough for its two lines: only a regular file (a FIFO in its place would
// block the open, a device would never end), and never more than kMaxFile bytes of it.
constexpr size_t kMaxFile = 512;
std::optional<std::string> read_small_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  std::optional<std::string> text;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    text.emplace(kMaxFile, '\0');
    size_t got = 0;
    for (ssize_t n; got < text->size() && (n = ::read(fd, text->data() + got, text->size() - got)) > 0;) got += static_cast<size_t>(n);
    text->resize(got);
  }
  ::close(fd);
  return text;
}

// The file's two lines, checked: a port number, and a path under /devtools/browser/.
std::optional<std::string> read_active_port(const std::string& dir) {
  auto text = read_small_file(dir + "/DevToolsActivePort");
  if (!text) return std::nullopt;
  size_t first = text->find('\n');
  if (first == std::string::npos) return std::nullopt;
  size_t second = text->find('\n', first + 1);
  std::string port = text->substr(0, first);
  std::string path = text->substr(first + 1, second == std::string::npos ? std::string::npos : second - first - 1);
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
