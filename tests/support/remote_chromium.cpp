#include "remote_chromium.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace ouro::testing {

RemoteChromium::RemoteChromium(std::string d, const std::string& extension_dir) : dir(std::move(d)) {
  using namespace std::chrono_literals;
  std::filesystem::create_directories(dir);
  std::fflush(nullptr);  // else the child's freopen writes out what the parent had not yet flushed
  pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    if (!freopen("/dev/null", "w", stdout) || !freopen((dir + ".log").c_str(), "w", stderr)) _exit(126);
    const char* env = std::getenv("OURO_CHROMIUM");
    std::string exe = env && *env ? env : "/usr/bin/chromium";
    std::vector<std::string> args = {exe, "--headless", "--disable-gpu", "--remote-debugging-port=0", "--user-data-dir=" + dir, "--no-first-run",
                                     "--no-default-browser-check", "--disable-background-networking", "--disable-component-update",
                                     "--disable-sync", "--disable-breakpad", "--disable-back-forward-cache",
                                     "--disable-features=Translate,MediaRouter,OptimizationHints,PaintHolding", "--password-store=basic",
                                     "--use-mock-keychain", "--mute-audio", "--hide-scrollbars"};
    if (extension_dir.empty()) {
      args.push_back("--disable-extensions");
    } else {
      args.push_back("--disable-extensions-except=" + extension_dir);
      args.push_back("--load-extension=" + extension_dir);
    }
    if (geteuid() == 0) args.push_back("--no-sandbox");
    args.push_back("about:blank");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(exe.c_str(), argv.data());
    _exit(127);
  }
  if (pid < 0) return;
  setpgid(pid, pid);
  for (auto until = std::chrono::steady_clock::now() + 30s; std::chrono::steady_clock::now() < until && port == 0;
       std::this_thread::sleep_for(50ms)) {
    std::ifstream in(dir + "/DevToolsActivePort");
    std::string first, second;
    if (std::getline(in, first) && std::getline(in, second) && !first.empty()) {
      port = std::atoi(first.c_str());
      browser_path = second;
    }
  }
}

void RemoteChromium::kill9() {
  if (pid <= 0) return;
  kill(-pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  pid = -1;
}

RemoteChromium::~RemoteChromium() { kill9(); }

}  // namespace ouro::testing
