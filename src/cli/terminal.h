// The terminal as ouro's commands use it: input a person types (without echo for a secret), the
// questions of a run asked on /dev/tty, Ctrl-C, and values printed.
#pragma once

#include "base/json.h"
#include "base/steady_clock.h"
#include "base/text.h"
#include "runs/sites.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <termios.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

namespace ouro::cli {

// Turns the terminal's echo off on fd for its lifetime (a key, a password, a secret answer) and
// restores it, ending the line the user could not see. Nothing when fd is not a terminal.
class EchoOff {
 public:
  explicit EchoOff(int fd);
  ~EchoOff();
  EchoOff(const EchoOff&) = delete;
  EchoOff& operator=(const EchoOff&) = delete;
  bool active() const { return m_active; }

 private:
  int m_fd;
  bool m_active = false;
  termios m_saved{};
};


// Ctrl-C: a thread waits for SIGINT (blocked everywhere else) and calls `on_interrupt`.
class InterruptWatcher {
 public:
  explicit InterruptWatcher(std::function<void()> on_interrupt) : m_on(std::move(on_interrupt)) {
    m_thread = std::thread([this] {
      sigset_t set;
      sigemptyset(&set);
      sigaddset(&set, SIGINT);
      sigaddset(&set, SIGUSR2);
      while (true) {
        int sig = 0;
        if (sigwait(&set, &sig) != 0) continue;
        if (sig == SIGUSR2 || m_stop) return;
        m_on();
      }
    });
  }
  ~InterruptWatcher() {
    m_stop = true;
    pthread_kill(m_thread.native_handle(), SIGUSR2);
    m_thread.join();
  }

 private:
  std::function<void()> m_on;
  std::atomic<bool> m_stop{false};
  std::thread m_thread;
};

// Asks the person at the terminal (on /dev/tty, so stdin and stdout stay free) whether a
// sensitive action may go ahead. No terminal, no answer in time, or a cancelled run: deny.
class TerminalConfirmer {
 public:
  TerminalConfirmer(std::chrono::seconds timeout, const std::atomic<bool>& cancelled) : m_timeout(timeout), m_cancelled(cancelled) {}
  // Where "always" for a site question goes (the profile's database); unset: yes/no only.
  std::function<void(const std::string& site)> remember;

  bool ask(const json& req) {
    std::lock_guard lock(m_mutex);
    int fd = open("/dev/tty", O_RDWR | O_CLOEXEC);
    std::string question =
        req.value("action", "") == "use-tab"
        ? fmt::format("\n⚠ The agent wants to act ({}) on your tab {} “{}”\n  {}\n  It did not open this tab and was not given it. Allow? [y/N] (no answer in {} s = no) ",
                      req.value("function", ""), req.value("tab", ""), req.value("title", ""), req.value("url", ""), m_timeout.count())
        : req.contains("request")
        ? fmt::format("\n⚠ Safety gate: the agent's {} wants to go out:\n  {}\n  {}. Allow? [y/N] (no answer in {} s = no) ",
                      req.value("action", "request"), req.value("request", ""), req.value("reason", ""), m_timeout.count())
        : fmt::format("\n⚠ The agent wants to {} {} on {}\n  because {}. Allow? [y/N] (no answer in {} s = no) ",
                                       req.value("action", "act on"), req.value("element", req.value("selector", "")).empty()
                                                                          ? req.value("selector", "")
                                                                          : req.value("element", req.value("selector", "")),
                                       req.value("url", ""), req.value("reason", "it looks sensitive"), m_timeout.count());
    // Which one: the row or card the element belongs to (a "Remove" of a list).
    if (std::string context = get_str(req, "context"); !context.empty() && !req.contains("request"))
      if (size_t at = question.find("\n  because"); at != std::string::npos) question.insert(at, "\n  in: " + clip_line(context, 160));
    if (fd < 0) {
      std::cerr << question << "\n  (no terminal to ask: denied)\n";
      return false;
    }
    // A site question can be answered for good: "a" allows the site from now on.
    std::string site = remember ? runs::site_question(req) : "";
    if (!site.empty()) question.replace(question.find("[y/N]"), 5, "[y/N/a = always for " + site + "]");
    (void)!write(fd, question.data(), question.size());
    auto answer = read_line(fd, m_timeout, false);
    close(fd);
    char first = answer && !answer->empty() ? (*answer)[0] : 'n';
    bool always = !site.empty() && (first == 'a' || first == 'A');
    bool yes = always || first == 'y' || first == 'Y';
    if (always) remember(site);
    std::cerr << (always ? "  → allowed, always for " + site + "\n" : yes ? "  → allowed\n" : answer ? "  → denied\n" : "  → no answer: denied\n");
    return yes;
  }

  // askUser: the model's question, answered on /dev/tty (without echo for a secret). nullopt: no
  // terminal, no answer in time, or the run was cancelled.
  std::optional<std::string> ask_text(const json& q, std::chrono::seconds timeout) {
    std::lock_guard lock(m_mutex);
    int fd = open("/dev/tty", O_RDWR | O_CLOEXEC);
    std::string text = "\n? The agent asks: " + get_str(q, "question") + "\n";
    std::vector<std::string> choices;
    for (const auto& c : get_array(q, "choices"))
      if (c.is_string()) choices.push_back(c.get<std::string>());
    for (size_t i = 0; i < choices.size(); ++i) text += fmt::format("  {}) {}\n", i + 1, choices[i]);
    bool secret = get_bool(q, "secret");
    text += secret ? fmt::format("  (typed without echo; the agent gets a handle for {}, never the value)\n", get_str(q, "site")) : "";
    text += fmt::format("  Answer{} (no answer in {} s = none): ", choices.empty() ? "" : " with a number or the text", timeout.count());
    if (fd < 0) {
      std::cerr << text << "\n  (no terminal to ask: no answer)\n";
      return std::nullopt;
    }
    (void)!write(fd, text.data(), text.size());
    std::optional<std::string> answer;
    {
      std::optional<EchoOff> hidden;
      if (secret) hidden.emplace(fd);
      answer = read_line(fd, timeout, true);
    }
    close(fd);
    if (answer && !choices.empty()) {
      char* end = nullptr;
      long n = std::strtol(answer->c_str(), &end, 10);
      if (end && *end == '\0' && n >= 1 && static_cast<size_t>(n) <= choices.size()) *answer = choices[static_cast<size_t>(n - 1)];
    }
    std::cerr << (answer ? "  → answered\n" : "  → no answer\n");
    return answer;
  }

 private:
  // One line from the terminal (without its newline), polling so a cancelled run stops waiting.
  std::optional<std::string> read_line(int fd, std::chrono::seconds timeout, bool long_line) {
    auto deadline = SteadyClock::now() + timeout;
    std::string answer;
    while (!m_cancelled && SteadyClock::now() < deadline) {
      pollfd p{fd, POLLIN, 0};
      if (poll(&p, 1, 200) <= 0) continue;
      char buf[256];
      ssize_t n = read(fd, buf, sizeof buf);
      if (n <= 0) return std::nullopt;
      answer.append(buf, static_cast<size_t>(n));
      if (auto nl = answer.find('\n'); nl != std::string::npos) return answer.substr(0, nl);
      if (answer.size() > (long_line ? 10000u : 64u)) return answer;
    }
    return std::nullopt;
  }

  std::chrono::seconds m_timeout;
  const std::atomic<bool>& m_cancelled;
  std::mutex m_mutex;
};

// A value on stdout: a string as it is, anything else as JSON (one line with `as_json`).
inline void print_value(const json& v, bool as_json) {
  if (v.is_discarded()) {
    if (as_json) std::cout << "null\n";
    return;
  }
  if (!as_json && v.is_string()) std::cout << v.get<std::string>() << "\n";
  else std::cout << dump_json(v, as_json ? -1 : 2) << "\n";
}

}  // namespace ouro::cli
