// The terminal as ouro's commands use it (cli/terminal.h), without a browser or a model: a value
// printed on stdout (a string as it is, anything else as JSON), echo turned off only on a
// terminal, and a run's questions on /dev/tty (docs/guides/safety.md: "`y` lets it go ahead;
// anything else, silence past the timeout, or no terminal is a denial") — what they show, how an
// answer is read ("a" only for a site question there is a place to remember, a number for a
// choice), and a secret answer typed without echo. A question is asked in a child process: on a
// pseudo-terminal of its own (its /dev/tty) that the test reads and types into, or in a session
// with no terminal at all.
#include "cli/terminal.h"

#include "base/json.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <functional>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace ouro::cli {
namespace {

using namespace std::chrono_literals;
using TestClock = std::chrono::steady_clock;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

size_t count_of(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// What print_value writes on stdout.
std::string printed(const json& v, bool as_json) {
  std::ostringstream out;
  std::streambuf* before = std::cout.rdbuf(out.rdbuf());
  print_value(v, as_json);
  std::cout.rdbuf(before);
  return out.str();
}

// Reads fd into `into` until it is closed (true) or the deadline passes (false).
bool read_until_closed(int fd, std::string& into, TestClock::time_point deadline) {
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - TestClock::now()).count();
    if (left <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left)) <= 0) continue;
    char buf[4096];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;  // a pipe's end, or EIO on a pseudo-terminal whose other side is gone
    into.append(buf, static_cast<size_t>(n));
  }
}

// `body` in a child process, as a run asks its questions. With a terminal: a pseudo-terminal of
// the child's own (forkpty: its controlling terminal, so /dev/tty is it, and its stderr), whose
// other side the test reads and types into. Without: a session of its own (setsid: no
// controlling terminal, so /dev/tty does not open), its stderr on a pipe the test reads. What
// body returns comes back on a pipe of its own when the child ends.
class Child {
 public:
  Child(bool terminal, const std::function<std::string()>& body) {
    int report[2] = {-1, -1}, err[2] = {-1, -1};
    if (pipe(report) != 0) return;
    if (!terminal && pipe(err) != 0) {
      close(report[0]);
      close(report[1]);
      return;
    }
    m_pid = terminal ? forkpty(&m_out, nullptr, nullptr, nullptr) : fork();
    if (m_pid == 0) {
      close(report[0]);
      if (!terminal) {
        setsid();
        dup2(err[1], STDERR_FILENO);
        close(err[0]);
        close(err[1]);
      }
      const std::string answer = body();
      for (size_t done = 0; done < answer.size();) {
        ssize_t n = write(report[1], answer.data() + done, answer.size() - done);
        if (n <= 0) break;
        done += static_cast<size_t>(n);
      }
      _exit(0);  // not exit(): nothing of the test's own (buffers, atexit handlers) runs twice
    }
    close(report[1]);
    if (!terminal) close(err[1]);
    if (m_pid < 0) {
      close(report[0]);
      if (!terminal) close(err[0]);
      m_out = -1;
      return;
    }
    m_report = report[0];
    if (!terminal) m_out = err[0];
  }
  ~Child() {
    if (m_pid > 0 && !m_reaped) {
      kill(m_pid, SIGKILL);
      waitpid(m_pid, nullptr, 0);
    }
    if (m_out >= 0) close(m_out);
    if (m_report >= 0) close(m_report);
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  bool started() const { return m_pid > 0; }

  // Reads what the child writes until `text` appears after what earlier waits consumed; false
  // after 60 s (far beyond a question's few milliseconds, even on a loaded machine).
  bool wait_for(const std::string& text) {
    const auto deadline = TestClock::now() + 60s;
    while (true) {
      if (auto at = m_seen.find(text, m_consumed); at != std::string::npos) {
        m_consumed = at + text.size();
        return true;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - TestClock::now()).count();
      if (left <= 0) return false;
      pollfd p{m_out, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left)) <= 0) continue;
      char buf[4096];
      ssize_t n = read(m_out, buf, sizeof buf);
      if (n <= 0) return m_seen.find(text, m_consumed) != std::string::npos;
      m_seen.append(buf, static_cast<size_t>(n));
    }
  }

  // Until the terminal's echo is off, as its mode reads from this side (what the child turned off).
  bool wait_echo_off() {
    const auto deadline = TestClock::now() + 60s;
    while (true) {
      termios mode{};
      if (tcgetattr(m_out, &mode) != 0) return false;
      if ((mode.c_lflag & ECHO) == 0) return true;
      if (TestClock::now() > deadline) return false;
      pollfd p{m_out, POLLIN, 0};
      if (poll(&p, 1, 10) > 0) {  // a state poll: what it reads is kept for wait_for
        char buf[4096];
        ssize_t n = read(m_out, buf, sizeof buf);
        if (n > 0) m_seen.append(buf, static_cast<size_t>(n));
      }
    }
  }

  // Keys typed at the terminal.
  void type(const std::string& keys) { ASSERT_EQ(write(m_out, keys.data(), keys.size()), static_cast<ssize_t>(keys.size())); }

  // Waits for the child to end (killed after 60 s): what body returned. Everything it wrote on
  // the terminal or stderr is in output() then.
  std::string finish() {
    const auto deadline = TestClock::now() + 60s;
    std::string answer;
    bool ended = read_until_closed(m_out, m_seen, deadline) && read_until_closed(m_report, answer, deadline);
    if (!ended) kill(m_pid, SIGKILL);
    int status = 0;
    waitpid(m_pid, &status, 0);
    m_reaped = true;
    if (!ended || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return "(the child did not end by itself; it answered: " + answer + ")";
    return answer;
  }

  const std::string& output() const { return m_seen; }

 private:
  pid_t m_pid = -1;
  bool m_reaped = false;
  int m_out = -1;     // the pseudo-terminal's other side, or the pipe of the child's stderr
  int m_report = -1;  // the pipe of body's answer
  std::string m_seen;
  size_t m_consumed = 0;
};

// A sensitive action's question, asked once: "allowed" or "denied".
std::string ask_once(const json& req, std::chrono::seconds timeout = 30s) {
  std::atomic<bool> cancelled{false};
  TerminalConfirmer confirmer(timeout, cancelled);
  return confirmer.ask(req) ? "allowed" : "denied";
}

// An answer as the child reports it: "=text", or "-" for none.
std::string shown(const std::optional<std::string>& answer) { return answer ? "=" + *answer : std::string("-"); }

TEST(PrintValue, AStringIsPrintedAsItIsAndAnythingElseAsJson) {
  EXPECT_EQ(printed(json("Ada \"Lovelace\"\nline two"), false), "Ada \"Lovelace\"\nline two\n");
  EXPECT_EQ(printed(json("Ada \"Lovelace\"\nline two"), true), "\"Ada \\\"Lovelace\\\"\\nline two\"\n");
  EXPECT_EQ(printed(json(42), false), "42\n");
  const json v = {{"name", "Ada"}, {"tags", {1, 2}}};
  EXPECT_EQ(printed(v, false), "{\n  \"name\": \"Ada\",\n  \"tags\": [\n    1,\n    2\n  ]\n}\n") << "indented for a person";
  EXPECT_EQ(printed(v, true), "{\"name\":\"Ada\",\"tags\":[1,2]}\n") << "one line with --json";
}

TEST(PrintValue, BytesThatAreNotUtf8AreReplacedInJsonAndKeptInText) {
  const json v = std::string("caf\xE9");
  EXPECT_EQ(printed(v, true), "\"caf\xEF\xBF\xBD\"\n") << "U+FFFD: the JSON line stays valid";
  EXPECT_EQ(printed(v, false), "caf\xE9\n");
}

TEST(PrintValue, NoValueIsNullInJsonAndNothingOtherwise) {
  const json none(json::value_t::discarded);
  EXPECT_EQ(printed(none, true), "null\n");
  EXPECT_EQ(printed(none, false), "");
}

TEST(EchoOff, OnAPipeOrNoDescriptorItDoesNothing) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  {
    EchoOff off(p[1]);
    EXPECT_FALSE(off.active());
  }
  ASSERT_EQ(fcntl(p[0], F_SETFL, O_NONBLOCK), 0);
  char c = 0;
  ssize_t n = read(p[0], &c, 1);
  int err = errno;
  EXPECT_EQ(n, -1) << "no line was ended: nothing is written to what is not a terminal";
  EXPECT_EQ(err, EAGAIN);
  close(p[0]);
  close(p[1]);
  EchoOff none(-1);
  EXPECT_FALSE(none.active());
}

TEST(EchoOff, OnATerminalEchoIsOffForItsLifetimeAndTheLineIsEndedAfter) {
  int master = -1, slave = -1;
  if (openpty(&master, &slave, nullptr, nullptr, nullptr) != 0) GTEST_SKIP() << "no pseudo-terminal here";
  termios before{};
  ASSERT_EQ(tcgetattr(slave, &before), 0);
  ASSERT_NE(before.c_lflag & ECHO, 0u);
  {
    EchoOff off(slave);
    EXPECT_TRUE(off.active());
    termios during{};
    ASSERT_EQ(tcgetattr(slave, &during), 0);
    EXPECT_EQ(during.c_lflag & ECHO, 0u);
    EXPECT_NE(during.c_lflag & ICANON, 0u) << "canonical mode stays: the line discipline still handles backspace and Enter";
  }
  termios after{};
  ASSERT_EQ(tcgetattr(slave, &after), 0);
  EXPECT_NE(after.c_lflag & ECHO, 0u) << "echo is back";
  // The Enter the user pressed was not echoed: a newline ends the line, read on the other side.
  std::string seen;
  const auto deadline = TestClock::now() + 60s;
  while (seen.find('\n') == std::string::npos && TestClock::now() < deadline) {
    pollfd p{master, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    char buf[64];
    ssize_t n = read(master, buf, sizeof buf);
    if (n <= 0) break;
    seen.append(buf, static_cast<size_t>(n));
  }
  std::erase(seen, '\r');  // the terminal's output processing (ONLCR) sends "\r\n"
  EXPECT_EQ(seen, "\n");
  close(master);
  close(slave);
}

// What a child with no terminal shows on stderr when asked `req` once (a child that did not start
// or did not deny fails the test).
std::string denied_without_terminal(const json& req) {
  Child child(false, [&] { return ask_once(req); });
  EXPECT_TRUE(child.started());
  if (!child.started()) return "";
  EXPECT_EQ(child.finish(), "denied");
  return child.output();
}

TEST(TerminalConfirmer, WithNoTerminalTheQuestionGoesToStderrAndIsDenied) {
  const json req = {{"action", "click"},  {"element", "Delete account"},      {"selector", "#delete"}, {"url", "https://example.com/settings"},
                    {"reason", "it deletes your data"}, {"context", "Account of Ada Lovelace"}};
  EXPECT_EQ(denied_without_terminal(req),
            "\n⚠ The agent wants to click Delete account on https://example.com/settings\n"
            "  in: Account of Ada Lovelace\n"
            "  because it deletes your data. Allow? [y/N] (no answer in 30 s = no) \n"
            "  (no terminal to ask: denied)\n");
}

TEST(TerminalConfirmer, WhatTheRequestLeavesOutIsSaidPlainly) {
  // No element named (an empty one counts as none): the selector; no action: "act on"; no reason:
  // "it looks sensitive".
  EXPECT_EQ(denied_without_terminal({{"element", ""}, {"selector", "#buy"}, {"url", "https://shop.example/cart"}}),
            "\n⚠ The agent wants to act on #buy on https://shop.example/cart\n"
            "  because it looks sensitive. Allow? [y/N] (no answer in 30 s = no) \n"
            "  (no terminal to ask: denied)\n");
}

TEST(TerminalConfirmer, ARequestGoingOutIsAskedAsTheSafetyGates) {
  EXPECT_EQ(denied_without_terminal({{"action", "fetch"}, {"request", "POST https://collector.example/c"}, {"reason", "a value you typed goes to another site"}}),
            "\n⚠ Safety gate: the agent's fetch wants to go out:\n"
            "  POST https://collector.example/c\n"
            "  a value you typed goes to another site. Allow? [y/N] (no answer in 30 s = no) \n"
            "  (no terminal to ask: denied)\n");
}

TEST(TerminalConfirmer, TheRowAnElementBelongsToIsOneLineOfAtMost160Bytes) {
  // The row's text comes from the page: its line breaks cannot start a line of the question.
  const std::string forged =
      denied_without_terminal({{"action", "click"}, {"selector", "#remove"}, {"url", "https://example.com/list"}, {"context", "Row 3\n  because the page says so"}});
  EXPECT_TRUE(has(forged, "\n  in: Row 3   because the page says so\n  because it looks sensitive. Allow?")) << forged;
  EXPECT_EQ(count_of(forged, "\n  because"), 1u) << forged;

  const std::string long_row =
      denied_without_terminal({{"action", "click"}, {"selector", "#remove"}, {"url", "https://example.com/list"}, {"context", std::string(500, 'x')}});
  EXPECT_TRUE(has(long_row, "\n  in: " + std::string(160, 'x') + "…\n  because it looks sensitive.")) << long_row;
}

TEST(TerminalConfirmer, WithNoTerminalTheModelsQuestionHasNoAnswer) {
  Child child(false, [] {
    std::atomic<bool> cancelled{false};
    TerminalConfirmer confirmer(30s, cancelled);
    // Only the choices that are text are offered.
    std::string got = shown(confirmer.ask_text({{"question", "Which size?"}, {"choices", {"Small", 3, "Medium", nullptr, "Large"}}}, 45s));
    got += shown(confirmer.ask_text({{"question", "Your PIN?"}, {"secret", true}, {"site", "bank.example"}, {"choices", "1234"}}, 45s));
    return got;
  });
  ASSERT_TRUE(child.started());
  EXPECT_EQ(child.finish(), "--");
  EXPECT_EQ(child.output(),
            "\n? The agent asks: Which size?\n"
            "  1) Small\n"
            "  2) Medium\n"
            "  3) Large\n"
            "  Answer with a number or the text (no answer in 45 s = none): \n"
            "  (no terminal to ask: no answer)\n"
            "\n? The agent asks: Your PIN?\n"
            "  (typed without echo; the agent gets a handle for bank.example, never the value)\n"
            "  Answer (no answer in 45 s = none): \n"
            "  (no terminal to ask: no answer)\n");
}

TEST(TerminalConfirmer, OnATerminalAnAnswerStartingWithYAllowsAndAnythingElseDenies) {
  const json req = {{"action", "click"}, {"selector", "#pay"}, {"url", "https://shop.example/checkout"}, {"reason", "it pays"}};
  // "a" is not "always" where there is no site question and no place to remember it.
  const std::vector<std::string> typed = {"y", "Yes please", "", "n", "sure", "a"};
  Child child(true, [&] {
    std::atomic<bool> cancelled{false};
    TerminalConfirmer confirmer(30s, cancelled);
    std::string got;
    for (size_t i = 0; i < typed.size(); ++i) got += confirmer.ask(req) ? "1" : "0";
    return got;
  });
  if (!child.started()) GTEST_SKIP() << "no pseudo-terminal here";
  for (size_t i = 0; i < typed.size(); ++i) {
    ASSERT_TRUE(child.wait_for("because it pays. Allow? [y/N] (no answer in 30 s = no) ")) << child.output();
    child.type(typed[i] + "\n");
  }
  EXPECT_EQ(child.finish(), "110000");
  EXPECT_EQ(count_of(child.output(), "  → allowed"), 2u) << child.output();
  EXPECT_EQ(count_of(child.output(), "  → denied"), 4u) << child.output();
}

TEST(TerminalConfirmer, ASiteQuestionCanBeAllowedForGoodOnlyWhereItCanBeRemembered) {
  const json req = {{"action", "use-tab"}, {"site", "example.com"}, {"function", "click"}, {"tab", "t3"}, {"title", "Bank"}, {"url", "https://example.com/"}};
  Child child(true, [&] {
    std::atomic<bool> cancelled{false};
    TerminalConfirmer remembering(30s, cancelled), plain(30s, cancelled);
    std::string remembered;
    remembering.remember = [&](const std::string& site) { remembered += site + ";"; };
    std::string got = remembering.ask(req) ? "1" : "0";
    got += plain.ask(req) ? "1" : "0";
    return got + " " + remembered;
  });
  if (!child.started()) GTEST_SKIP() << "no pseudo-terminal here";
  ASSERT_TRUE(child.wait_for("⚠ The agent wants to act (click) on your tab t3 “Bank”")) << child.output();
  ASSERT_TRUE(child.wait_for("It did not open this tab and was not given it. Allow? [y/N/a = always for example.com] (no answer in 30 s = no) "))
      << child.output();
  child.type("A\n");
  ASSERT_TRUE(child.wait_for("  → allowed, always for example.com")) << child.output();
  // Nowhere to remember it: yes or no only, and "a" is neither.
  ASSERT_TRUE(child.wait_for("It did not open this tab and was not given it. Allow? [y/N] (no answer in 30 s = no) ")) << child.output();
  child.type("a\n");
  EXPECT_EQ(child.finish(), "10 example.com;");
  EXPECT_TRUE(has(child.output(), "  → denied")) << child.output();
}

TEST(TerminalConfirmer, ACancelledRunIsDeniedWithoutReadingAnAnswer) {
  const json req = {{"action", "click"}, {"selector", "#send"}, {"url", "https://mail.example/compose"}};
  Child child(true, [&] {
    // The answers are typed before the questions are asked: there to be read, were the run not cancelled.
    pollfd typed{STDIN_FILENO, POLLIN, 0};
    if (poll(&typed, 1, 60000) != 1) return std::string("(nothing was typed)");
    std::atomic<bool> cancelled{true};
    TerminalConfirmer confirmer(30s, cancelled);
    std::string got = confirmer.ask(req) ? "1" : "0";
    return got + shown(confirmer.ask_text({{"question", "Which one?"}}, 30s));
  });
  if (!child.started()) GTEST_SKIP() << "no pseudo-terminal here";
  child.type("y\nthe first\n");
  EXPECT_EQ(child.finish(), "0-");
  EXPECT_TRUE(has(child.output(), "  → no answer: denied")) << child.output();
  EXPECT_EQ(count_of(child.output(), "  → no answer"), 2u) << child.output();
}

TEST(TerminalConfirmer, NoAnswerInTimeIsADenial) {
  Child child(true, [] { return ask_once({{"action", "click"}, {"selector", "#send"}, {"url", "https://mail.example/compose"}}, 1s); });
  if (!child.started()) GTEST_SKIP() << "no pseudo-terminal here";
  ASSERT_TRUE(child.wait_for("Allow? [y/N] (no answer in 1 s = no) ")) << child.output();
  EXPECT_EQ(child.finish(), "denied");
  EXPECT_TRUE(has(child.output(), "  → no answer: denied")) << child.output();
}

TEST(TerminalConfirmer, AnAnswersNumberPicksItsChoiceAndAnythingElseIsTheText) {
  const json q = {{"question", "Which size?"}, {"choices", {"Small", "Medium", "Large"}}};
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"2", "Medium"}, {"3", "Large"}, {"Large", "Large"},
      {"0", "0"},      {"4", "4"},     {"-1", "-1"},       {"2nd", "2nd"},
      {"99999999999999999999", "99999999999999999999"},  // past a long's range: not a choice
      {"", ""},                                          // Enter alone is an answer, an empty one
  };
  Child child(true, [&] {
    std::atomic<bool> cancelled{false};
    TerminalConfirmer confirmer(30s, cancelled);
    std::string got;
    for (size_t i = 0; i < cases.size(); ++i) got += shown(confirmer.ask_text(q, 30s)) + "\n";
    return got;
  });
  if (!child.started()) GTEST_SKIP() << "no pseudo-terminal here";
  std::string want;
  for (const auto& [typed, answer] : cases) {
    ASSERT_TRUE(child.wait_for("Answer with a number or the text (no answer in 30 s = none): ")) << child.output();
    child.type(typed + "\n");
    want += "=" + answer + "\n";
  }
  EXPECT_EQ(child.finish(), want);
  EXPECT_TRUE(has(child.output(), "? The agent asks: Which size?")) << child.output();
  EXPECT_TRUE(has(child.output(), "  2) Medium")) << child.output();
  EXPECT_EQ(count_of(child.output(), "  → answered"), cases.size()) << child.output();
}

TEST(TerminalConfirmer, ASecretAnswerIsTypedWithoutEchoAndEchoComesBackAfter) {
  Child child(true, [] {
    std::atomic<bool> cancelled{false};
    TerminalConfirmer confirmer(30s, cancelled);
    auto answer = confirmer.ask_text({{"question", "Your PIN?"}, {"secret", true}, {"site", "bank.example"}}, 30s);
    termios mode{};
    bool echo = tcgetattr(STDIN_FILENO, &mode) == 0 && (mode.c_lflag & ECHO) != 0;
    return shown(answer) + (echo ? " echo" : " no echo");
  });
  if (!child.started()) GTEST_SKIP() << "no pseudo-terminal here";
  ASSERT_TRUE(child.wait_for("  (typed without echo; the agent gets a handle for bank.example, never the value)")) << child.output();
  ASSERT_TRUE(child.wait_for("  Answer (no answer in 30 s = none): ")) << child.output();
  ASSERT_TRUE(child.wait_echo_off()) << child.output();
  child.type("4711\n");
  EXPECT_EQ(child.finish(), "=4711 echo");
  EXPECT_FALSE(has(child.output(), "4711")) << "the terminal never showed it: " << child.output();
}

}  // namespace
}  // namespace ouro::cli
