#include "cli/cli.h"

#include "actions/registry.h"
#include "base/log.h"
#include "jsrt/summary.h"
#include "jsrt/worker.h"
#include "session/session.h"
#include "store/database.h"

#include <CLI/CLI.hpp>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <iostream>
#include <sstream>
#include <thread>

namespace ouro::cli {

namespace {

struct CommonFlags {
  std::vector<std::string> urls;
  bool headed = false;
  std::string browser_ws;
  std::string data_dir;
  double timeout_s = 30;
  size_t memory_mb = 128;
  int action_timeout_ms = 5000;
  bool allow_request_modification = false;
};

void add_common(CLI::App* cmd, CommonFlags& f) {
  cmd->add_option("--url", f.urls, "Open URL in a tab before running (repeat for more tabs)");
  cmd->add_flag("--headed", f.headed, "Show the browser window (default: headless)");
  cmd->add_option("--browser", f.browser_ws, "Attach to a running browser at ws://host:port/devtools/browser/… instead of launching one");
  cmd->add_option("--data-dir", f.data_dir, "Where ouro keeps its database (default: $OURO_DATA_DIR or ~/.local/share/ouroboros)");
  cmd->add_option("--timeout", f.timeout_s, "Seconds one evaluation may run (default 30)")->check(CLI::Range(0.1, 3600.0));
  cmd->add_option("--memory", f.memory_mb, "Megabytes one evaluation may allocate (default 128)")->check(CLI::Range(16, 8192));
  cmd->add_option("--action-timeout", f.action_timeout_ms, "Milliseconds click/type/… wait for an element (default 5000)")->check(CLI::Range(0, 120000));
  cmd->add_flag("--allow-request-modification", f.allow_request_modification,
                "Let interceptRequests handlers block, rewrite or answer requests (default: observe only)");
}

session::SessionOptions session_options(const CommonFlags& f, std::function<void(const std::string&)> on_log) {
  session::SessionOptions o;
  o.browser.launch.headed = f.headed;
  o.browser.connect_url = f.browser_ws;
  if (!f.data_dir.empty()) o.db_path = f.data_dir + "/ouro.db";
  o.repl.timeout = std::chrono::milliseconds(static_cast<int64_t>(f.timeout_s * 1000));
  o.repl.memory_mb = f.memory_mb;
  o.limits.action_timeout = std::chrono::milliseconds(f.action_timeout_ms);
  o.limits.allow_request_modification = f.allow_request_modification;
  o.on_log = std::move(on_log);
  return o;
}

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

std::string read_all_stdin() {
  std::stringstream ss;
  ss << std::cin.rdbuf();
  return ss.str();
}

void print_value(const json& v, bool as_json) {
  if (v.is_discarded()) {
    if (as_json) std::cout << "null\n";
    return;
  }
  if (!as_json && v.is_string()) std::cout << v.get<std::string>() << "\n";
  else std::cout << dump_json(v, as_json ? -1 : 2) << "\n";
}

std::string error_text(const jsrt::EvalResult& r) {
  std::string s = r.error_name.empty() || r.error_message.rfind(r.error_name, 0) == 0 ? r.error_message : r.error_name + ": " + r.error_message;
  if (r.error_line > 0 && r.kind.empty()) s += " (line " + std::to_string(r.error_line) + ")";
  return s;
}

Result<int> cmd_exec(const CommonFlags& flags, std::string code, bool as_json) {
  if (code == "-") code = read_all_stdin();
  if (code.empty()) return make_error(Code::InvalidArgument, "exec needs code: ouro exec 'document.title' or ouro exec - < script.js");
  auto s = TRY(session::Session::start(session_options(flags, [](const std::string& line) { std::cerr << "log: " << line << "\n"; })));
  TRY(s->open_urls(flags.urls));
  jsrt::Repl* repl = &s->repl();
  std::atomic<bool> interrupted{false};
  InterruptWatcher watcher([&] {
    interrupted = true;
    repl->interrupt();
  });
  // Top-level `await` on the tab the user gave is the common case: tabId comes predeclared.
  auto r = TRY(repl->eval(code));
  if (!r.ok) {
    std::cerr << "error: " << error_text(r) << "\n";
    return interrupted ? 130 : 1;
  }
  const json& shown = r.final ? *r.final : r.value;
  print_value(shown, as_json);
  std::cerr << (r.final ? "setFinal " : "") << jsrt::summarize_value(shown) << "\n" << fmt::format("({:.1f} ms)", r.ms) << "\n";
  return 0;
}

// Whether the input so far is an unfinished statement (open brackets, template or trailing '\').
bool incomplete(const std::string& code) {
  int depth = 0;
  char quote = 0;
  for (size_t i = 0; i < code.size(); ++i) {
    char c = code[i];
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
      else if (c == '\n' && quote != '`') quote = 0;
      continue;
    }
    if (c == '/' && i + 1 < code.size() && code[i + 1] == '/') {
      while (i < code.size() && code[i] != '\n') ++i;
      continue;
    }
    if (c == '"' || c == '\'' || c == '`') quote = c;
    else if (c == '(' || c == '[' || c == '{') ++depth;
    else if (c == ')' || c == ']' || c == '}') --depth;
  }
  return depth > 0 || quote == '`' || (!code.empty() && code.back() == '\\');
}

Result<int> cmd_repl(const CommonFlags& flags) {
  bool tty = isatty(0);
  auto s = TRY(session::Session::start(session_options(flags, [](const std::string& line) { std::cerr << "log: " << line << "\n"; })));
  TRY(s->open_urls(flags.urls));
  jsrt::Repl* repl = &s->repl();
  std::atomic<bool> busy{false};
  InterruptWatcher watcher([&] {
    if (busy) repl->interrupt();
    else std::cerr << "\n(Ctrl-D or .exit to leave)\nouro> " << std::flush;
  });
  if (tty) {
    std::cerr << "ouro REPL — JavaScript with the browser API (`.help` lists it). Tabs: ";
    for (const auto& t : s->browser().tabs()) std::cerr << t.id << " " << t.url << "  ";
    std::cerr << "\nKeep data in env (env.rows = …). Ctrl-C stops a running input; Ctrl-D leaves.\n";
  }
  std::string buffer, line;
  while (true) {
    if (tty) std::cerr << (buffer.empty() ? "ouro> " : "...> ") << std::flush;
    if (!std::getline(std::cin, line)) break;
    if (buffer.empty() && line == ".exit") break;
    if (buffer.empty() && line == ".help") {
      std::cout << actions::reference_text();
      continue;
    }
    if (buffer.empty() && line == ".env") {
      auto env = parse_json(repl->env_checkpoint());
      std::cout << (env ? jsrt::summarize_env(*env) : "(unreadable)") << "\n";
      continue;
    }
    buffer += (buffer.empty() ? "" : "\n") + line;
    if (incomplete(buffer)) {
      if (buffer.back() == '\\') buffer.pop_back();
      continue;
    }
    std::string code;
    code.swap(buffer);
    if (code.find_first_not_of(" \t\r\n") == std::string::npos) continue;
    busy = true;
    auto r = repl->eval(code);
    busy = false;
    if (!r) {
      std::cerr << "error: " << r.error().message << "\n";
      continue;
    }
    if (!r->ok) {
      std::cerr << (r->kind == "interrupted" ? "interrupted" : "error: " + error_text(*r)) << "\n";
      continue;
    }
    if (r->final) std::cout << "setFinal " << jsrt::summarize_value(*r->final) << "\n";
    std::cout << jsrt::summarize_value(r->value) << fmt::format("  ({:.1f} ms)", r->ms) << "\n" << std::flush;
  }
  return 0;
}

}  // namespace

Result<int> run(int argc, char** argv) {
  init_logging();
  // The REPL worker is this same binary; it must not parse flags or start anything else.
  if (argc >= 2 && std::string_view(argv[1]) == "__jsrt-worker") {
    int fd = 3;
    bool probe = false;
    for (int i = 2; i < argc; ++i) {
      if (std::string_view(argv[i]) == "--fd" && i + 1 < argc) fd = std::atoi(argv[++i]);
      if (std::string_view(argv[i]) == "--probe") probe = true;
    }
    return jsrt::worker_main(fd, probe);
  }

  CLI::App app{"ouro — a browser you can script, and an agent that scripts it.\n"
               "Drives a real Chromium over the DevTools Protocol; JavaScript runs in a sandboxed REPL."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "ouro 0.1.0");

  CommonFlags exec_flags;
  std::string code;
  bool as_json = false;
  auto* exec = app.add_subcommand("exec", "Run one JavaScript snippet against the browser and print its result");
  add_common(exec, exec_flags);
  exec->add_flag("--json", as_json, "Print the result as JSON");
  exec->add_option("code", code, "JavaScript (statements, top-level await; the last value or setFinal() is printed), or - for stdin")->required();
  exec->footer("Example: ouro exec --url https://example.com 'await getText(activeTab, \"h1\")'");

  CommonFlags repl_flags;
  auto* repl = app.add_subcommand("repl", "Interactive REPL with the browser API; state persists between inputs");
  add_common(repl, repl_flags);

  auto* help = app.add_subcommand("help", "Reference documentation");
  bool markdown = false;
  auto* api = help->add_subcommand("api", "Print the REPL API reference (the same text the model is given)");
  api->add_flag("--markdown", markdown, "Markdown, as in docs/API.md");
  help->require_subcommand(1);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }

  if (*exec) return cmd_exec(exec_flags, code, as_json);
  if (*repl) return cmd_repl(repl_flags);
  if (*api) {
    std::cout << (markdown ? actions::reference_markdown() : actions::reference_text());
    return 0;
  }
  return 0;
}

}  // namespace ouro::cli
