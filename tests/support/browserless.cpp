#include "browserless.h"

#include "basics.h"

#include <curl/curl.h>

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

namespace ouro::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

const std::string kHere = std::string(OURO_SOURCE_DIR) + "/tests/session/browserless";

int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  ::close(fd);
  return port;
}

std::string random_token() {
  std::random_device rd;
  std::string t = "blTok";
  for (int i = 0; i < 20; ++i) t += "abcdefghijklmnopqrstuvwxyz0123456789"[rd() % 36];
  return t;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// GET with nothing but the URL (browserless answers 400 to a GET that says its body is JSON).
long plain_get_status(const std::string& url) {
  CURL* c = curl_easy_init();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 2000L);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, +[](char*, size_t size, size_t n, void*) { return size * n; });
  long status = 0;
  if (curl_easy_perform(c) == CURLE_OK) curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_cleanup(c);
  return status;
}

void kill_processes_naming(const std::string& marker) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t other = static_cast<pid_t>(std::stol(name));
    if (other == ::getpid()) continue;
    std::string cmdline = read_all(entry.path().string() + "/cmdline");
    if (cmdline.find(marker) != std::string::npos) ::kill(other, SIGKILL);
  }
}

}  // namespace

bool Browserless::installed() { return std::filesystem::exists(kHere + "/node_modules/@browserless.io/browserless/build/index.js"); }

std::string Browserless::log() const { return read_all(log_file); }

Browserless::Browserless(int concurrent, int timeout_ms) : token(random_token()), dir(temp_dir()), log_file(dir + "/browserless.log") {
  port = free_port();
  pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    int fd = ::open(log_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::setenv("HOST", "127.0.0.1", 1);
    ::setenv("PORT", std::to_string(port).c_str(), 1);
    ::setenv("TOKEN", token.c_str(), 1);
    ::setenv("CONCURRENT", std::to_string(concurrent).c_str(), 1);
    ::setenv("QUEUED", "2", 1);
    ::setenv("TIMEOUT", std::to_string(timeout_ms).c_str(), 1);
    ::setenv("METRICS_JSON_PATH", (dir + "/metrics.json").c_str(), 1);
    std::string script = kHere + "/start.sh";
    ::execl("/bin/sh", "sh", script.c_str(), dir.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  // Ready when its management route answers (it launches no browser until a client connects).
  auto deadline = Clock::now() + 90s;
  while (Clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      pid = -1;
      return;
    }
    if (plain_get_status(base() + "/pressure?token=" + token) == 200) {
      ready = true;
      return;
    }
    std::this_thread::sleep_for(250ms);
  }
}

Browserless::~Browserless() {
  if (pid > 0) {
    ::kill(-pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
  // Playwright starts browserless's Chromium detached (a session of its own), so the group's
  // kill misses it: left behind, one spun at 70% of a core through the rest of a make test and
  // made later suites miss their deadlines. Whatever still runs with this test's folder on its
  // command line (the profile browserless gave it) goes too.
  kill_processes_naming(dir + "/");
}

}  // namespace ouro::testing
