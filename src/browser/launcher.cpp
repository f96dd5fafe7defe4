#include "browser/launcher.h"
#include "base/priority.h"
#include "base/proc_file.h"
#include "base/steady_clock.h"

#include "base/text.h"


#include <algorithm>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <thread>

extern char** environ;

namespace ouro::browser {

namespace fs = std::filesystem;

namespace {

// A file of /proc/PID as text ("" when it is gone); cmdline's NUL separators become spaces.
std::string proc_text(int pid, const char* name) {
  std::string text = read_proc_file("/proc/" + std::to_string(pid) + "/" + name);
  std::replace(text.begin(), text.end(), '\0', ' ');
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n')) text.pop_back();
  return text;
}

int parent_of(int pid) {
  // /proc/PID/stat: "pid (comm) state ppid …"; comm may hold spaces and parentheses.
  std::string stat = proc_text(pid, "stat");
  auto close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(stat.substr(close + 1));
  std::string state;
  int ppid = 0;
  rest >> state >> ppid;
  return ppid;
}

}  // namespace

std::optional<ProfileHolder> profile_holder(const std::string& profile_dir) {
  std::error_code ec;
  fs::path lock = fs::path(profile_dir) / "SingletonLock";
  if (!fs::is_symlink(lock, ec)) return std::nullopt;
  std::string target = fs::read_symlink(lock, ec).string();
  auto dash = target.rfind('-');
  if (ec || dash == std::string::npos) return std::nullopt;
  int pid = std::atoi(target.c_str() + dash + 1);
  std::string host = target.substr(0, dash);
  char here[256] = {};
  gethostname(here, sizeof here - 1);
  if (pid <= 0) return std::nullopt;
  if (host != here) return ProfileHolder{pid, fmt::format("process {} on host {} (the profile directory is shared)", pid, clip_text(host, 100))};
  if (::kill(pid, 0) != 0 && errno != EPERM) return std::nullopt;  // stale: Chromium clears it on start
  std::string description = fmt::format("process {} ({})", pid, proc_text(pid, "comm"));
  if (int parent = parent_of(pid); parent > 1)
    if (std::string comm = proc_text(parent, "comm"); comm == "ouro") {
      // The command only ("ouro serve"): its options may hold a key.
      std::istringstream words(proc_text(parent, "cmdline"));
      std::string program, command;
      words >> program >> command;
      if (command.starts_with('-')) command.clear();  // plain `ouro` with options
      description += fmt::format(", started by `ouro{}{}` (process {})", command.empty() ? "" : " ", clip_text(command, 40), parent);
    }
  return ProfileHolder{pid, description};
}

Result<std::unique_ptr<ChromiumProcess>> ChromiumProcess::spawn(const LaunchOptions& options) {
  std::string exe = options.executable;
  if (exe.empty()) {
    const char* env = std::getenv("OURO_CHROMIUM");
    exe = env && *env ? env : "/usr/bin/chromium";
  }
  if (access(exe.c_str(), X_OK) != 0)
    return errorf(Code::FailedPrecondition,
                  "Chromium not found at {}: install it with `sudo apt-get install chromium` (or run ./scripts/setup.sh), "
                  "or point OURO_CHROMIUM at a Chromium binary",
                  exe);

  if (options.headed && !std::getenv("DISPLAY") && !std::getenv("WAYLAND_DISPLAY"))
    return make_error(Code::FailedPrecondition,
                      "--headed needs a display, and neither DISPLAY nor WAYLAND_DISPLAY is set: run without --headed, "
                      "or under a virtual display (xvfb-run ouro …)");

  std::unique_ptr<ChromiumProcess> proc(new ChromiumProcess());
  if (options.user_data_dir.empty()) {
    std::string tmpl = (fs::temp_directory_path() / "ouro-profile-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) return errorf(Code::Internal, "cannot create a profile directory: {}", std::strerror(errno));
    proc->m_profile = tmpl;
    proc->m_temp_profile = true;
  } else {
    std::error_code ec;
    fs::create_directories(options.user_data_dir, ec);
    if (auto holder = profile_holder(options.user_data_dir))
      return errorf(Code::FailedPrecondition,
                    "the browser profile {} is in use by {}: close that browser (or stop that ouro), or pass --profile DIR to use "
                    "another profile",
                    options.user_data_dir, holder->description);
    proc->m_profile = options.user_data_dir;
  }

  // to_browser: we write, Chromium reads on fd 3. from_browser: Chromium writes on fd 4.
  int to_browser[2], from_browser[2];
  if (pipe2(to_browser, O_CLOEXEC) != 0 || pipe2(from_browser, O_CLOEXEC) != 0)
    return errorf(Code::Internal, "pipe: {}", std::strerror(errno));

  std::vector<std::string> args = {
      exe,
      "--remote-debugging-pipe",
      "--user-data-dir=" + proc->m_profile,
      "--no-first-run",
      "--no-default-browser-check",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-default-apps",
      "--disable-breakpad",
      "--disable-quic",
      // WebRTC gets no UDP that does not go through a proxy (and a context's proxy here is
      // TCP-only SOCKS5): STUN and TURN over UDP never leave, whatever a page asks for.
      "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
      // Back/forward cache and paint holding keep or delay documents across navigations: an
      // agent wants each navigation to load and show its page now.
      "--disable-back-forward-cache",
      // What the browser process would send on a page's behalf, where no request interception
      // of the tab sees it (docs/guides/safety.md): identity providers (FedCM), payment apps,
      // background downloads, push subscriptions, notifications (their icons), requests deferred
      // past a page's life (fetchLater), Web Share. Background Sync and Periodic Sync only wake
      // a service worker, which the gate holds.
      "--disable-features=Translate,MediaRouter,OptimizationHints,AutofillServerCommunication,PaintHolding,FedCm,WebPayments,"
      "BackgroundFetch,FetchLaterAPI",
      "--disable-blink-features=BackgroundFetch,PeriodicBackgroundSync,PushMessaging,WebShare,FedCm,PaymentRequest,FetchLater,Notifications",
      // Tools pages declare for agents (WebMCP), reached through the DevTools Protocol (page_tools.cpp).
      "--enable-features=WebMCPTesting,DevToolsWebMCPSupport",
      "--metrics-recording-only",
      // The agent works in tabs the user is not looking at: keep them running at full speed.
      "--disable-background-timer-throttling",
      "--disable-backgrounding-occluded-windows",
      "--disable-renderer-backgrounding",
      // Not --disable-ipc-flooding-protection: it also turns off Blink's limit on navigations a
      // page makes by script (200 per 10 s), and a history.pushState storm then queues
      // thousands of navigations in the browser process, which answers no DevTools command
      // (in any tab) for tens of seconds. ouro's own navigations (Page.navigate) are not limited.
      "--disable-client-side-phishing-detection",
      "--disable-hang-monitor",
      "--password-store=basic",
      "--use-mock-keychain",
      "--window-size=" + std::to_string(options.width) + "," + std::to_string(options.height),
  };
  // No extension runs in ouro's browser but ours (the side panel, when asked for with
  // --load-extension; Chromium then needs extensions on).
  bool loads_extension = std::any_of(options.extra_args.begin(), options.extra_args.end(),
                                     [](const std::string& a) { return a.rfind("--load-extension=", 0) == 0; });
  if (!loads_extension) args.push_back("--disable-extensions");
  if (geteuid() == 0) args.push_back("--no-sandbox");  // Chromium refuses to run as root otherwise
  if (!options.headed) {
    args.push_back("--headless");
    args.push_back("--disable-gpu");
    args.push_back("--hide-scrollbars");
    args.push_back("--mute-audio");
  }
  for (const auto& a : options.extra_args) args.push_back(a);
  args.push_back("about:blank");

  std::string log_path = proc->m_profile + "/chromium.log";
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, to_browser[0], 3);
  posix_spawn_file_actions_adddup2(&fa, from_browser[1], 4);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  // Nothing else of ouro's reaches the browser: a listening socket (the API's, a site's) it
  // inherited would stay open in Chromium after ouro closed it, and take connections nobody answers.
  posix_spawn_file_actions_addclosefrom_np(&fa, 5);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Its own process group, so a Ctrl-C in the terminal reaches ouro, which then closes the browser.
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);

  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  int rc = 0;
  auto start = [&] { rc = posix_spawn(&pid, exe.c_str(), &fa, &attr, argv.data(), environ); };
  if (options.headed) {
    start();
  } else {
    // A headless browser's pages are runs' work: it starts (and every process it forks inherits)
    // at a background priority, from a thread of its own — a thread's nice value passes to what it
    // spawns, and an unprivileged thread, once lowered, could not come back (base/priority.h).
    try {
      std::thread spawner([&] {
        run_in_background(kBrowserNice);
        start();
      });
      spawner.join();
    } catch (const std::system_error&) {
      start();  // no thread to spare (EAGAIN): the browser starts at ouro's own priority
    }
  }
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  close(to_browser[0]);
  close(from_browser[1]);
  if (rc != 0) {
    close(to_browser[1]);
    close(from_browser[0]);
    return errorf(Code::Unavailable, "cannot start {}: {}", exe, std::strerror(rc));
  }
  proc->m_pid = pid;
  proc->m_write_fd = to_browser[1];
  proc->m_read_fd = from_browser[0];
  return proc;
}

std::optional<std::string> ChromiumProcess::exit_status() {
  std::lock_guard lock(m_mutex);
  if (m_exit) return m_exit;
  if (m_pid <= 0) return std::nullopt;
  int status = 0;
  pid_t r = waitpid(m_pid, &status, WNOHANG);
  if (r != m_pid) return std::nullopt;
  m_pid = -1;
  if (WIFSIGNALED(status))
    m_exit = "was killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  else
    m_exit = "exited with status " + std::to_string(WEXITSTATUS(status));
  return m_exit;
}

bool ChromiumProcess::wait_exit(std::chrono::milliseconds timeout) {
  auto until = SteadyClock::now() + timeout;
  while (!exit_status()) {
    if (SteadyClock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

std::string ChromiumProcess::log_tail(std::size_t max_bytes) const {
  std::ifstream in(m_profile + "/chromium.log");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  return s.size() > max_bytes ? s.substr(s.size() - max_bytes) : s;
}

ChromiumProcess::~ChromiumProcess() {
  // A spawn that failed before the browser started has no process: kill(-1) would signal every
  // process the user owns.
  if (m_pid > 0 && !exit_status()) {
    // Give the browser a moment to exit cleanly (it flushes the profile), then insist.
    int pid = m_pid;
    kill(pid, SIGTERM);
    for (int i = 0; i < 40 && !exit_status(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(25));
    if (!exit_status()) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
  // Renderer and GPU children live in the browser's process group.
  if (m_temp_profile) {
    std::error_code ec;
    fs::remove_all(m_profile, ec);
  }
}

}  // namespace ouro::browser
