#include "cli/cli.h"
#include "cli/auth.h"
#include "cli/doctor.h"
#include "cli/mcp.h"
#include "cli/memory.h"
#include "cli/script.h"
#include "scripts/rewrite.h"
#include "scripts/store.h"
#include "cli/schedule.h"

#include "actions/host.h"
#include "actions/registry.h"
#include "agent/run.h"
#include "net/io.h"
#include "browser/discovery.h"
#include "cli/pool.h"
#include "cli/extension.h"
#include "cli/reference.h"
#include "cli/suggest.h"
#include "cli/paths.h"
#include "cli/terminal.h"
#include "cli/line_editor.h"
#include "server/bridge_hub.h"
#include "store/data_dir_lock.h"
#include "session/pool.h"
#include "server/api.h"
#include "server/runs.h"
#include "runs/conversation.h"
#include "runs/lifecycle.h"
#include "runs/resume.h"
#include "runs/sites.h"
#include "server/scheduler.h"
#include "hooks/hooks.h"
#include "safety/secrets.h"
#include "safety/settings.h"
#include "llm/settings.h"
#include "base/log.h"
#include "base/text.h"
#include "jsrt/summary.h"
#include "jsrt/worker.h"
#include "session/session.h"
#include "store/database.h"

#include <CLI/CLI.hpp>
#include <fcntl.h>
#include <poll.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <condition_variable>
#include <fstream>
#include <mutex>
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
  std::vector<std::string> browsers;  // every --browser given (serve: two or more make a pool)
  std::string browser_pool;           // serve --browser-pool FILE
  std::string browser_dir;  // --browser auto: where its DevToolsActivePort is
  std::string data_dir;
  std::string profile;
  double timeout_s = 30;
  size_t memory_mb = 128;
  int action_timeout_ms = 5000;
  bool allow_request_modification = false;
  bool reveal_http_only = false;
  std::vector<std::string> secrets;  // NAME@DOMAIN
  std::vector<std::string> allow_domains;
  std::vector<std::string> upload_dirs;
  std::string mode;                  // careful | autonomous ("" = the settings file's, else careful)
  std::string config_path;           // the settings file ("" = $OURO_CONFIG or the default)
  std::string workspace;             // --workspace NAME ("" = $OURO_WORKSPACE, else none)
  std::string base_data_dir;         // with a workspace: the data directory it is in (API keys stay there)
  std::vector<std::string> chromium_args;  // extra flags for a browser we launch (plain `ouro`: its extension)
};

void add_common(CLI::App* cmd, CommonFlags& f) {
  // Repeatable options take one value each, so a positional after them is not swallowed.
  cmd->add_option("--url", f.urls, "Open URL in a tab before running (repeat for more tabs)")->allow_extra_args(false);
  cmd->add_flag("--headed", f.headed, "Show the browser window (default: headless)");
  cmd->add_option("--browser", f.browsers,
                  "Attach to a running browser instead of launching one: ws://host:port/devtools/browser/…, or auto (the "
                  "DevToolsActivePort of a Chrome/Chromium started with --remote-debugging-port, in --browser-dir or the usual places); "
                  "serve: extension (runs work in your Chrome through ouro's paired extension, `ouro extension`), or repeat it (ws:// or http://host:port) for a pool of browsers")
      ->allow_extra_args(false);
  cmd->add_option("--browser-dir", f.browser_dir, "With --browser auto: the user-data-dir of the browser to attach to");
  cmd->add_option("--data-dir", f.data_dir, "Where ouro keeps its database (default: $OURO_DATA_DIR or ~/.local/share/ouroboros)");
  // The database goes to Database::open through OURO_DATABASE (store/database.h), so every path
  // that opens one sees it. A password there would be readable in the process list: refused.
  cmd->add_option_function<std::string>(
         "--database", [](const std::string& target) { setenv("OURO_DATABASE", target.c_str(), 1); },
         "Keep runs, events, schedules and memory in this database instead of <data dir>/ouro.db: postgresql://user@host/db (the "
         "password from PGPASSWORD, ~/.pgpass or the settings file's database_password) or an SQLite file (default: $OURO_DATABASE, "
         "the settings file's database)")
      ->check(CLI::Validator(
          [](std::string& target) -> std::string {
            if (store::redact_database_url(target) == target) return "";
            return "--database " + store::redact_database_url(target) +
                   ": a password on the command line is visible in the process list; give it in PGPASSWORD, ~/.pgpass or the settings "
                   "file's database_password";
          },
          "URL"));
  cmd->add_option("--workspace", f.workspace,
                  "A workspace of its own: runs, store, memory, schedules, checkpoints and the kept profile in <data dir>/workspaces/NAME "
                  "(default: $OURO_WORKSPACE, else none)");
  cmd->add_option("--profile", f.profile,
                  "Chromium profile directory to use and keep (logins persist); default: a fresh temporary one (plain `ouro`: <data dir>/profile)");
  cmd->add_option("--timeout", f.timeout_s, "Seconds one evaluation may run (default 30)")->check(CLI::Range(0.1, 3600.0));
  cmd->add_option("--memory", f.memory_mb, "Megabytes one evaluation may allocate (default 128)")->check(CLI::Range(16, 8192));
  cmd->add_option("--action-timeout", f.action_timeout_ms, "Milliseconds click/type/… wait for an element (default 5000)")->check(CLI::Range(0, 120000));
  cmd->add_option("--secret", f.secrets,
                  "NAME@SITE[,SITE]: a secret the code uses as secret(\"NAME\") in type()/fill() on those sites only (scheme and port as written; no scheme: https), never seeing it; "
                  "the value comes from $OURO_SECRET_NAME (repeatable)")
      ->allow_extra_args(false);
  cmd->add_flag("--allow-request-modification", f.allow_request_modification,
                "Let interceptRequests handlers block, rewrite or answer requests (default: observe only)");
  cmd->add_flag("--reveal-httponly-cookies", f.reveal_http_only,
                "Let getCookies show the values of HttpOnly cookies (default: redacted; they are the session's keys)");
  cmd->add_option("--allow-domain", f.allow_domains,
                  "A site the run may reach besides those of its URLs: example.com, *.example.com, 127.0.0.1:8080 (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--upload-dir", f.upload_dirs,
                  "A folder upload() may take files from, besides the session's downloads folder (repeatable)")
      ->check(CLI::ExistingDirectory)
      ->allow_extra_args(false);
  cmd->add_option("--mode", f.mode,
                  "careful (default: asks before any write and before leaving the allowed sites) or autonomous (asks nothing; "
                  "still refuses to leave them)")
      ->check(CLI::IsMember({"careful", "autonomous"}));
}

// --workspace NAME, else $OURO_WORKSPACE: `data_dir` (empty: the default) becomes
// <data dir>/workspaces/NAME, made 0700 if need be; with neither, `data_dir` as it was. A name
// outside [A-Za-z0-9_-]{1,64} is InvalidArgument saying the rule.
Result<std::string> workspace_data_dir(const std::string& data_dir, std::string& name) {
  if (name.empty())
    if (const char* env = std::getenv("OURO_WORKSPACE"); env && *env) name = env;
  if (name.empty()) return data_dir;
  bool valid = name.size() <= 64 && std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isalnum(c) || c == '_' || c == '-'; });
  if (!valid)
    return errorf(Code::InvalidArgument, "workspace name \"{}\" is not allowed: use 1 to 64 letters, digits, '_' or '-' (--workspace NAME or $OURO_WORKSPACE)",
                  clip_text(name, 80));
  std::filesystem::path dir = std::filesystem::path(data_dir.empty() ? store::default_data_dir() : data_dir) / "workspaces" / name;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return errorf(Code::FailedPrecondition, "cannot create the workspace directory {}: {}", dir.string(), ec.message());
  // A workspace holds runs, stored values and a browser profile: the user's alone.
  for (const auto& d : {dir.parent_path(), dir}) std::filesystem::permissions(d, std::filesystem::perms::owner_all, std::filesystem::perm_options::replace, ec);
  return dir.string();
}

// --browser is repeatable for `ouro serve` only (a pool); elsewhere one browser.
Result<void> take_browsers(CommonFlags& f, bool serve) {
  if (f.browsers.size() > 1 && !serve) return make_error(Code::InvalidArgument, "--browser is given once here (ouro serve takes several: a pool)");
  if (!serve && !f.browser_pool.empty()) return make_error(Code::InvalidArgument, "--browser-pool goes with ouro serve");
  if (f.browsers.size() == 1 && f.browsers.front() == "extension" && !serve)
    return make_error(Code::InvalidArgument,
                      "--browser extension goes with ouro serve: the extension connects to a running server. Start `ouro serve "
                      "--browser extension` (or plain `ouro serve` and POST /api/runs with options.browser \"extension\")");
  if (f.browsers.size() == 1 && f.browser_pool.empty()) f.browser_ws = f.browsers.front();
  if (cli::wants_pool(f.browsers, f.browser_pool)) {
    for (const auto& b : f.browsers)
      if (b == "auto") return make_error(Code::InvalidArgument, "--browser auto cannot be part of a pool: give ws:// or http:// URLs");
    if (!f.profile.empty()) return make_error(Code::InvalidArgument, "--profile does not go with a browser pool (its browsers keep their own profiles)");
  }
  return {};
}

Result<void> enter_workspace(CommonFlags& f) {
  std::string base = f.data_dir;
  f.data_dir = TRY(workspace_data_dir(f.data_dir, f.workspace));
  if (!f.workspace.empty()) f.base_data_dir = base.empty() ? store::default_data_dir() : base;
  return {};
}

// The settings file the safety settings come from.
std::string config_path_of(const CommonFlags& f) {
  if (!f.config_path.empty()) return f.config_path;
  const char* env = std::getenv("OURO_CONFIG");
  return env && *env ? env : llm::default_config_path();
}

// Options for a session. With `gated`, its context is under the egress gate: allowed sites from
// --url, the task's URLs, --allow-domain and the settings file.
// `preloaded`: the settings file as the caller read it already (a run reads it once).
Result<session::SessionOptions> session_options(const CommonFlags& f, std::function<void(const std::string&)> on_log, bool gated = false,
                                                const std::string& task = {}, const safety::SafetySettings* preloaded = nullptr) {
  session::SessionOptions o;
  auto settings = preloaded ? *preloaded : TRY(safety::load_safety_settings(config_path_of(f)));
  std::shared_ptr<safety::SecretStore> store = settings.secrets;
  if (!f.secrets.empty()) {
    if (!store) store = std::make_shared<safety::SecretStore>();
    for (const auto& s : f.secrets) TRY(safety::add_secret_from_flag(*store, s));
  }
  o.secrets = store;
  o.permissions = TRY(actions::permission_overrides(settings.permissions));
  if (gated) {
    safety::GateConfig gc;
    gc.urls = f.urls;
    gc.allow_domains = settings.allowed_domains;
    gc.allow_domains.insert(gc.allow_domains.end(), f.allow_domains.begin(), f.allow_domains.end());
    gc.task = task;
    gc.mode = f.mode.empty() ? settings.mode.value_or(safety::GateMode::Careful) : TRY(safety::parse_gate_mode(f.mode));
    o.gate = TRY(safety::make_policy(gc));
  }
  o.browser.launch.headed = f.headed;
  o.browser.launch.user_data_dir = f.profile;
  o.browser.launch.extra_args.insert(o.browser.launch.extra_args.end(), f.chromium_args.begin(), f.chromium_args.end());
  o.browser.connect_url = f.browser_ws;
  if (f.browser_ws == "auto")
    o.browser.connect_url = TRY(browser::find_devtools_url(f.browser_dir.empty() ? browser::usual_browser_dirs() : std::vector{f.browser_dir}));
  else if (!f.browser_dir.empty())
    return make_error(Code::InvalidArgument, "--browser-dir goes with --browser auto");
  if (!f.data_dir.empty()) o.db_path = f.data_dir + "/ouro.db";
  o.repl.timeout = std::chrono::milliseconds(static_cast<int64_t>(f.timeout_s * 1000));
  o.repl.memory_mb = f.memory_mb;
  o.limits.action_timeout = std::chrono::milliseconds(f.action_timeout_ms);
  o.limits.allow_request_modification = f.allow_request_modification;
  o.limits.reveal_http_only_cookies = f.reveal_http_only;
  o.upload_dirs = f.upload_dirs;
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

using jsrt::error_text;

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
    auto deadline = std::chrono::steady_clock::now() + timeout;
    std::string answer;
    while (!m_cancelled && std::chrono::steady_clock::now() < deadline) {
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

// Runs one snippet in a fresh session and hands its result to `show`, which says the exit code.
// You at the keyboard: no gate unless you ask for one (then it asks you on the terminal). Under the
// gate the allowed sites are --url, --allow-domain and the settings file's: the code is not a task,
// so URLs written in it are not allowed by being written there.
template <class Show>
Result<int> eval_once(const CommonFlags& flags, const std::string& code, Show show) {
  bool gated = !flags.allow_domains.empty() || !flags.mode.empty();
  // Declared before the session, so they outlive the hooks that use them.
  std::atomic<bool> interrupted{false};
  TerminalConfirmer confirmer(std::chrono::seconds(60), interrupted);
  auto s = TRY(session::Session::start(TRY(session_options(flags, [](const std::string& line) { std::cerr << "log: " << line << "\n"; }, gated))));
  if (gated) {
    auto hooks = std::make_shared<host::Context::Hooks>();
    hooks->confirm = [&confirmer](const json& req) { return confirmer.ask(req); };
    hooks->on_gate = [](const json& d) {
      if (get_str(d, "decision") == "deny")
        std::cerr << "gate: refused " << get_str(d, "method") << " " << get_str(d, "url") << " — " << get_str(d, "reason") << " ("
                  << get_str(d, "by") << ")\n";
    };
    s->host().context().set_hooks(std::move(hooks));
  }
  TRY(s->open_urls(flags.urls));
  jsrt::Repl* repl = &s->repl();
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
  int rc = show(r);
  for (const auto& n : s->host().take_notes()) std::cerr << "note: " << n << "\n";
  return rc;
}

Result<int> cmd_exec(const CommonFlags& flags, std::string code, bool as_json) {
  if (code == "-") code = read_all_stdin();
  if (code.empty()) return make_error(Code::InvalidArgument, "exec needs code: ouro exec 'document.title' or ouro exec - < script.js");
  return eval_once(flags, code, [as_json](const jsrt::EvalResult& r) {
    const json& shown = r.final ? *r.final : r.value;
    print_value(shown, as_json);
    std::cerr << (r.final ? "setFinal " : "") << jsrt::summarize_value(shown) << "\n" << fmt::format("({:.1f} ms)", r.ms) << "\n";
    return 0;
  });
}

// ouro do: the command language (or a plain instruction) on the first tab, no model; a line per step.
Result<int> cmd_do(const CommonFlags& flags, std::string commands, bool as_json, bool dry_run) {
  if (commands == "-") commands = read_all_stdin();
  if (commands.find_first_not_of(" \t\r\n") == std::string::npos)
    return make_error(Code::InvalidArgument, "do needs commands: ouro do --url https://example.com 'click the More information link' (or - for stdin)");
  json opts = {{"dryRun", dry_run}};
  std::string code = "await act(activeTab, " + json(commands).dump() + ", " + opts.dump() + ")";
  return eval_once(flags, code, [as_json](const jsrt::EvalResult& r) {
    const json& v = r.value;
    if (as_json) {
      std::cout << v.dump(2) << "\n";
    } else if (v.is_object()) {
      for (const auto& st : get_array(v, "steps")) {
        std::string status = get_str(st, "status");
        const char* mark = status == "done" ? "✓" : status == "failed" ? "✗" : status == "planned" ? "→" : "·";
        std::cout << mark << " " << get_str(st, "command");
        if (!get_str(st, "did").empty()) std::cout << " — " << get_str(st, "did");
        if (!get_str(st, "note").empty()) std::cout << " (" << get_str(st, "note") << ")";
        if (st.contains("ms")) std::cout << fmt::format("  [{} ms]", st["ms"].get<long>());
        std::cout << "\n";
        if (status == "failed") std::cout << "  " << get_str(st, "error") << "\n";
        if (st.contains("data") && get_str(st, "command").rfind("extract", 0) == 0) std::cout << st["data"].dump(2) << "\n";
      }
      std::cout << get_str(v, "url") << (get_str(v, "title").empty() ? "" : " — " + get_str(v, "title")) << "\n";
    }
    return v.is_object() && get_bool(v, "ok") ? 0 : 1;
  });
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

// What Tab offers in the REPL: the dot commands at the start of a line, env's keys after "env.",
// else the API's names (registry.h), each filtered by what is typed.
std::vector<std::string> repl_completions(jsrt::Repl& repl, const std::string& line, const std::string& word) {
  std::vector<std::string> out;
  auto take = [&](const std::string& candidate) {
    if (candidate.rfind(word, 0) == 0) out.push_back(candidate);
  };
  if (line.size() == word.size() && word.starts_with('.')) {
    for (const char* c : {".help", ".env", ".show ", ".exit"}) take(c);
    return out;
  }
  if (word.starts_with("env.")) {
    if (auto env = repl.env_plain(); env && env->is_object())
      for (const auto& [key, value] : env->items()) take("env." + key);
    return out;
  }
  if (word.find('.') != std::string::npos) return out;
  for (const auto& c : actions::registry())
    if (!c.internal) take(c.name);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Result<int> cmd_repl(const CommonFlags& flags) {
  bool tty = isatty(0) && isatty(2);
  auto s = TRY(session::Session::start(TRY(session_options(flags, [](const std::string& line) { std::cerr << "log: " << line << "\n"; }))));
  TRY(s->open_urls(flags.urls));
  jsrt::Repl* repl = &s->repl();
  std::atomic<bool> busy{false};
  InterruptWatcher watcher([&] {
    if (busy) repl->interrupt();
    else std::cerr << "\n(Ctrl-D or .exit to leave)\n" << std::flush;
  });
  // On a terminal: line editing, history kept across sessions (data dir), Tab completion.
  std::unique_ptr<LineEditor> editor;
  if (tty) {
    std::string dir = flags.data_dir.empty() ? store::default_data_dir() : flags.data_dir;
    std::error_code ec;
    if (!std::filesystem::exists(dir, ec) && std::filesystem::create_directories(dir, ec))
      std::filesystem::permissions(dir, std::filesystem::perms::owner_all, std::filesystem::perm_options::replace, ec);
    editor = std::make_unique<LineEditor>(ec ? std::string() : dir + "/repl_history",
                                          [repl](const std::string& line, const std::string& word) { return repl_completions(*repl, line, word); });
    std::cerr << "ouro REPL — JavaScript with the browser API (`.help` lists it; Tab completes). Tabs: ";
    for (const auto& t : s->browser().tabs()) std::cerr << t.id << " " << t.url << "  ";
    std::cerr << "\nKeep data in env (env.rows = …); `.show EXPR` prints a value whole. Ctrl-C stops a running input; Ctrl-D leaves.\n";
  }
  auto next_line = [&](bool continued) -> std::optional<std::string> {
    if (editor) return editor->read(continued ? "...> " : "ouro> ");
    std::string line;
    if (!std::getline(std::cin, line)) return std::nullopt;
    return line;
  };
  auto evaluate = [&](const std::string& code) -> std::optional<jsrt::EvalResult> {
    busy = true;
    auto r = repl->eval(code);
    busy = false;
    if (!r) {
      std::cerr << "error: " << r.error().message << "\n";
      return std::nullopt;
    }
    if (!r->ok) {
      std::cerr << (r->kind == "interrupted" ? "interrupted" : "error: " + error_text(*r)) << "\n";
      return std::nullopt;
    }
    return std::move(*r);
  };
  std::string buffer;
  while (true) {
    auto read = next_line(!buffer.empty());
    if (!read) break;
    const std::string& line = *read;
    if (buffer.empty() && line == ".exit") break;
    if (buffer.empty() && line == ".help") {
      std::cout << actions::reference_text();
      continue;
    }
    if (buffer.empty() && line == ".env") {
      auto env = repl->env_plain();
      std::cout << (env ? jsrt::summarize_env(*env) : "(unreadable)") << "\n";
      continue;
    }
    // `.show EXPR`: the whole value, for a person, where the summary shows a preview.
    if (buffer.empty() && (line == ".show" || line.starts_with(".show "))) {
      std::string expr = line.size() > 6 ? line.substr(6) : "";
      if (expr.find_first_not_of(" \t") == std::string::npos) {
        std::cerr << "usage: .show EXPR (for example .show env.rows)\n";
        continue;
      }
      if (editor) editor->remember(line);
      if (auto r = evaluate(expr))
        std::cout << (r->value.is_discarded() ? "undefined" : r->value.dump(2, ' ', false, json::error_handler_t::replace)) << "\n" << std::flush;
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
    if (editor) editor->remember(code);
    auto r = evaluate(code);
    if (!r) continue;
    if (r->final) std::cout << "setFinal " << jsrt::summarize_value(*r->final) << "\n";
    std::cout << jsrt::summarize_value(r->value) << fmt::format("  ({:.1f} ms)", r->ms) << "\n" << std::flush;
    for (const auto& n : s->host().take_notes()) std::cout << "note: " << n << "\n";
  }
  return 0;
}

// Renders a run's events in the terminal as they happen: tokens as they stream (reasoning set
// apart), each block's result, sub-calls, page changes, and per-iteration time, tokens and cost.
class TerminalView {
 public:
  explicit TerminalView(bool color) : m_color(color) {}

  void on_event(const agent::Event& e) {
    const json& d = e.data;
    if (e.type == "stream-token") {
      if (d.value("restart", false)) return line(dim("  (connection retried; the answer restarts)"));
      std::string kind = d.value("kind", "text");
      if (kind != m_kind) {
        if (m_mid_line) std::cerr << "\n";
        if (kind == "reasoning") std::cerr << dim("💭 ");
        m_kind = kind;
      }
      std::string tok = d.value("token", "");
      std::cerr << (kind == "reasoning" ? dim(tok) : tok) << std::flush;
      m_mid_line = !tok.empty() && tok.back() != '\n';
      return;
    }
    if (e.type == "iteration-start") {
      m_kind.clear();
      return line(bold(fmt::format("\n▶ Iteration {}", d.value("iteration", 0))) + dim(fmt::format("  (prompt ≈{} tokens)", d.value("promptTokens", 0))));
    }
    if (e.type == "code-generated" && d.value("strategy", "") == "tool") return line(dim("  ▷ ") + first_line(d.value("code", ""), 160));
    if (e.type == "loop-detected") return line(red("  ⛔ loop detected: ") + d.value("reason", ""));
    if (e.type == "reflection") {
      const json& r = d["reflection"];
      std::string issues;
      for (const auto& i : r.value("issues", json::array())) issues += "; " + i.get<std::string>();
      return line(yellow(fmt::format("  ↺ reflection after step {}: efficiency {}{}", r.value("step", 0), r.value("efficiency", ""), issues)));
    }
    if (e.type == "code-generated") {
      const std::string code = d.value("code", "");
      return line(dim(fmt::format("  ▷ running block {} ({} lines)", d.value("blockIndex", 0) + 1, std::count(code.begin(), code.end(), '\n') + 1)));
    }
    if (e.type == "code-result") {
      const json& m = d["metadata"];
      std::string summary = m.value("summary", m.value("error", ""));
      bool ok = m.value("ok", false);
      return line((ok ? green("  ✓ ") : red("  ✗ ")) + indent_rest(summary, "    "));
    }
    if (e.type == "log") return line(cyan("  log: ") + d.value("message", ""));
    if (e.type == "sub-llm-start") return line(dim(fmt::format("  ↳ sub-call #{}: {}", d.value("index", 0) + 1, first_line(d.value("prompt", ""), 90))));
    if (e.type == "sub-llm-complete") {
      const json& m = d["resultMeta"];
      if (m.contains("error")) return line(red(fmt::format("  ↳ sub-call #{} failed: {}", d.value("index", 0) + 1, m.value("error", ""))));
      return line(dim(fmt::format("  ↳ sub-call #{} done: {} chars in {:.1f} s", d.value("index", 0) + 1, m.value("chars", 0), m.value("ms", 0.0) / 1000)));
    }
    if (e.type == "page-changes") {
      for (const auto& c : d["changes"])
        line(yellow(fmt::format("  ⚠ {} {}: {}", c.value("tabId", ""), c.value("field", ""), c["new"].is_string() ? c["new"].get<std::string>() : std::string("—"))));
      return;
    }
    if (e.type == "error") {
      std::string kind = d.value("kind", "");
      if (d.value("retrying", false)) return line(yellow("  " + kind + ": ") + d.value("note", ""));
      return line(red(kind.empty() ? "  error: " : "  error (" + kind + "): ") + d.value("error", ""));
    }
    if (e.type == "confirmation-res")
      return line(d.value("approved", false) ? green("  ✓ the sensitive action was allowed") : yellow("  ✗ the sensitive action was denied"));
    if (e.type == "iteration-end") {
      const json& u = d["usage"];
      return line(dim(fmt::format("  [{:.1f} s · model {:.1f} s · browser/REPL {:.1f} s · engine {:.1f} ms · {} in{} / {} out tokens{}{}]",
                                  d.value("ms", 0.0) / 1000, d.value("modelMs", 0.0) / 1000, d.value("execMs", 0.0) / 1000, d.value("engineMs", 0.0),
                                  u.value("input_tokens", 0), cached(u), u.value("output_tokens", 0), u.value("estimated", false) ? " (estimated)" : "",
                                  d["cost"].is_number() ? fmt::format(" · ${:.4f}", d["cost"].get<double>()) : "")));
    }
    if (e.type == "complete") {
      auto action_cache_note = [](const json& c) -> std::string {
        if (!c.contains("actionCache") || !c["actionCache"].is_object()) return "";
        const json& a = c["actionCache"];
        return fmt::format(" · action cache {}/{} hits", a.value("hits", 0), a.value("hits", 0) + a.value("misses", 0));
      };
      const json& u = d["usage"];
      std::string status = d.value("cancelled", false) ? "cancelled" : d.value("partial", false) ? "stopped with partial results" : "done";
      line(bold(fmt::format("\n■ {} after {} iteration{}", status, d.value("iterations", 0), d.value("iterations", 0) == 1 ? "" : "s")) +
           dim(fmt::format(" · {} in{} / {} out tokens{}", u.value("input_tokens", 0), cached(u), u.value("output_tokens", 0),
                           d["cost"].is_number() ? fmt::format(" · ${:.4f}", d["cost"].get<double>()) : " · cost unknown") +
                           action_cache_note(d)));
    }
  }

 private:
  void line(const std::string& text) {
    if (m_mid_line) std::cerr << "\n";
    m_mid_line = false;
    std::cerr << text << "\n" << std::flush;
  }
  std::string wrap(const char* code, const std::string& s) const { return m_color ? std::string("\033[") + code + "m" + s + "\033[0m" : s; }
  std::string dim(const std::string& s) const { return wrap("2", s); }
  // " (3,000 cached)" when the provider's prompt cache answered part of the input.
  static std::string cached(const json& u) {
    int64_t n = u.value("cache_read_tokens", int64_t(0));
    return n > 0 ? fmt::format(" ({} cached)", n) : "";
  }
  std::string bold(const std::string& s) const { return wrap("1", s); }
  std::string red(const std::string& s) const { return wrap("31", s); }
  std::string green(const std::string& s) const { return wrap("32", s); }
  std::string yellow(const std::string& s) const { return wrap("33", s); }
  std::string cyan(const std::string& s) const { return wrap("36", s); }
  static std::string first_line(const std::string& s, size_t n) { return clip_head(std::string_view(s).substr(0, s.find('\n')), n); }
  static std::string indent_rest(const std::string& s, const std::string& pad) {
    std::string out;
    for (char c : s) {
      out += c;
      if (c == '\n') out += pad;
    }
    return out;
  }
  bool m_color;
  bool m_mid_line = false;
  std::string m_kind;
};

struct RunFlags {
  std::string task;
  int confirm_timeout_s = 60;
  llm::SettingsFlags settings;
  int max_iterations = 25;
  bool as_json = false;
  std::string trace;
  std::string context;  // mine | clean | "" (mine with a kept profile or an attached browser)
  int ask_timeout_s = 300;
  std::string continue_id;  // --continue: a run to carry on as its next turn
  std::string resume_id;    // --resume: an interrupted run to go on with from its checkpoint
  std::string agent = "rlm";  // rlm | tools
  bool no_remember = false;   // --no-remember: this run's task and answer are not remembered
  std::string save_script;    // --save-script NAME: a run that finishes is kept as script NAME
  bool max_iterations_given = false;  // --max-iterations was given (else a resumed run keeps its own)
  // `ouro replay`: the script's steps answer the loop instead of a model.
  std::shared_ptr<scripts::ReplayProvider> replay;
  double recorded_ms = 0;     // how long the replayed script's recorded run took (0: unknown)
};

// `ouro run`: the flags become a run's spec (the same options, checks and messages as the API's),
// runs/lifecycle.h carries the run, and the terminal shows its events and asks its questions.
Result<int> cmd_run(const CommonFlags& flags, RunFlags rf) {
  if (rf.task.find_first_not_of(" \t\n") == std::string::npos && rf.resume_id.empty())
    return make_error(Code::InvalidArgument, "run needs a task: ouro run \"Summarize the unread emails in my inbox\" --url https://mail.example.com");
  if (!rf.resume_id.empty() && !rf.continue_id.empty())
    return make_error(Code::InvalidArgument, "--resume and --continue are for different runs: resume an interrupted one, or continue a finished one");
  llm::SettingsFlags sf = rf.settings;
  // Keys `ouro auth set` kept in the file when there was no keyring.
  sf.secrets_path = (!flags.base_data_dir.empty() ? flags.base_data_dir : flags.data_dir.empty() ? store::default_data_dir() : flags.data_dir) + "/secrets.json";
  CommonFlags with_config = flags;
  if (rf.settings.config_path) with_config.config_path = *rf.settings.config_path;
  const std::string db_path = (flags.data_dir.empty() ? store::default_data_dir() : flags.data_dir) + "/ouro.db";
  if (!rf.resume_id.empty())
    // A run of a server that is up is that server's to resume (it may be running it now).
    if (auto pid = store::DataDirLock::holder(std::filesystem::path(db_path).parent_path().string()))
      return errorf(Code::FailedPrecondition,
                    "run {} is in the data directory of the ouro serve that is up ({}); resume it there: the Command Center's "
                    "Resume, or POST /api/runs/{}/resume",
                    rf.resume_id, *pid > 0 ? "pid " + std::to_string(*pid) : "its process id is not recorded", rf.resume_id);
  auto db = TRY(store::Database::open(db_path));

  // The flags as a run's options: checked by the same rules, kept with the run for a follow-up or
  // a resume.
  json options = json::object();
  std::vector<std::string> urls = flags.urls;
  std::string task = rf.task;
  store::Database::RunRow row;
  runs::Origin origin;
  std::vector<agent::Turn> earlier;
  int64_t last_seq = 0;
  if (!rf.continue_id.empty() || !rf.resume_id.empty()) {
    // --continue: the conversation as the database keeps it (a run of the Command Center's, or an
    // earlier `ouro run`): its env and its turns. --resume: an interrupted run from its checkpoint
    // (one `ouro run` was doing when it was killed is still "running": nothing marked it).
    if (!rf.continue_id.empty()) {
      auto prior = TRY(runs::load_conversation(*db, rf.continue_id));
      row = prior.row;
      earlier = prior.turns;
      origin.continued = true;
      origin.env = prior.env;
      last_seq = prior.last_seq;
    } else {
      auto point = TRY(runs::load_resume_point(*db, rf.resume_id, {"interrupted", "running", "queued"}));
      row = point.row;
      task = point.state.task;
      // The resumed turn's run reports the whole run's usage (the checkpoint's and what follows);
      // the finished turns' records stay.
      row.usage_json = runs::usage_for_resume(row.usage_json);
      row.cost = point.state.cost_known ? std::optional<double>(0) : std::nullopt;
      row.iterations = point.state.last_iteration - point.state.turn_iterations;
      last_seq = point.last_seq;
      origin.resume = std::move(point);
    }
    // The run's own options and start pages, with what these flags add.
    json stored = parse_json(row.options).value_or(json::object());
    if (stored.is_object()) {
      if (stored.contains("urls") && stored["urls"].is_array())
        for (const auto& u : stored["urls"])
          if (u.is_string() && std::find(urls.begin(), urls.end(), u.get<std::string>()) == urls.end()) urls.insert(urls.begin(), u.get<std::string>());
      stored.erase("urls");
      options = stored;
    }
  }
  if (!rf.context.empty()) options["context"] = rf.context;
  else if (!options.contains("context") && (!flags.profile.empty() || !flags.browser_ws.empty())) options["context"] = "mine";
  if (!flags.allow_domains.empty()) {
    json sites = options.contains("allowed_domains") && options["allowed_domains"].is_array() ? options["allowed_domains"] : json::array();
    for (const auto& d : flags.allow_domains) sites.push_back(d);
    options["allowed_domains"] = sites;
  }
  if (!flags.mode.empty()) options["mode"] = flags.mode;
  if (rf.max_iterations_given || !options.contains("max_iterations")) options["max_iterations"] = rf.max_iterations;
  if (rf.agent != "rlm") options["agent"] = rf.agent;
  if (rf.no_remember) options["remember"] = false;
  if (rf.replay) {
    // The values too: a resume goes on with them (the task, kept with the run, carries them as well).
    options["script"] = {{"name", rf.replay->script().name}, {"version", rf.replay->script().version}, {"vars", rf.replay->vars()}};
    // A model takes over where a step cannot heal when one is given (--provider).
    if (rf.settings.provider) options["script"]["fallback"] = true;
  }
  runs::RunSpec spec = TRY(runs::make_spec(task.empty() ? row.task : task, urls, options));
  if (!origin.resume && rf.continue_id.empty()) {
    row.id = runs::new_run_id();
    row.task = rf.task;
    row.created_at = runs::EventLog::now_ms();
  }
  row.options = dump_json(spec.stored_options());

  std::unique_ptr<std::ofstream> trace;
  if (!rf.trace.empty()) {
    trace = std::make_unique<std::ofstream>(rf.trace, std::ios::trunc);
    if (!*trace) return errorf(Code::InvalidArgument, "cannot write the trace file {}", rf.trace);
  }
  // The settings file, read once for the run: its safety settings and its hooks.
  const std::string config = config_path_of(with_config);
  auto file = TRY(safety::load_safety_settings(config));
  auto hook_pipeline = hooks::Pipeline::create(TRY(hooks::load_hooks_config(config)));
  auto log = std::make_shared<runs::EventLog>(*db, row.id, last_seq, hook_pipeline);
  runs::Setup setup;
  setup.hooks = hook_pipeline;
  setup.db = db.get();
  setup.log = log;
  setup.base = TRY(session_options(with_config, {}, false, {}, &file));
  setup.file = std::move(file);
  setup.model_flags = sf;
  setup.default_context = "";  // the default context of the browser this run launches or attaches to
  setup.default_max_iterations = rf.max_iterations;
  setup.source = [](session::SessionOptions so) { return session::Session::start(std::move(so)); };
  row.state = "running";
  if (auto kept = origin.resume || !rf.continue_id.empty() ? db->update_run(row) : db->insert_run(row); !kept)
    return errorf(Code::Unavailable, "the run cannot be kept: {}", kept.error().message);
  if (!rf.continue_id.empty() && !log->append("user-message", {{"text", rf.task}, {"turn", earlier.size() + 1}}, row.created_at))
    return errorf(Code::Unavailable, "the run's events could not be stored: {}", log->store_error());
  auto started = runs::Lifecycle::start(spec, std::move(setup), std::move(origin), row.id);
  if (!started) {
    // Kept as the API keeps a run that could not start: failed, saying why.
    row.state = "failed";
    row.error = started.error().message;
    row.partial = true;
    row.final_json = dump_json(json{{"partial", true}, {"message", "The run could not start: " + row.error}});
    row.updated_at = runs::EventLog::now_ms();
    (void)log->append("error", {{"error", row.error}}, row.updated_at);
    if (auto kept = db->update_run(row); !kept) spdlog::warn("the run's failure is not kept: {}", kept.error().message);
    return tl::make_unexpected(started.error());
  }
  std::unique_ptr<runs::Lifecycle> life = std::move(*started);

  std::atomic<bool> cancelled{false};
  TerminalConfirmer confirmer(std::chrono::seconds(rf.confirm_timeout_s), cancelled);
  store::Database* kept_db = db.get();
  confirmer.remember = [kept_db](const std::string& site) { runs::remember_site(*kept_db, site); };
  runs::Asker asker;
  asker.confirm = [&](const json& req) { return confirmer.ask(req); };
  asker.ask_user = [&](const json& q) { return confirmer.ask_text(q, std::chrono::seconds(rf.ask_timeout_s)); };
  asker.confirm_timeout = std::chrono::seconds(rf.confirm_timeout_s);
  asker.ask_timeout = std::chrono::seconds(rf.ask_timeout_s);
  TerminalView view(isatty(2));
  log->set_sink([](const runs::StoredEvent& e) {
    // A replay that healed steps, or that a model took over from: a new version of its script.
    if (e.type == "script-saved")
      std::cerr << fmt::format("saved {} v{} from v{} (see the change: ouro script show {} --diff)\n", get_str(e.data, "name"),
                               get_int(e.data, "version"), get_int(e.data, "based_on"), get_str(e.data, "name"));
  });
  std::mutex trace_mutex;
  log->on_store_failure([&](const std::string&) { life->cancel(); });
  std::cerr << fmt::format("ouro {} · {}\n", life->replay() ? "replay" : "run", life->banner());
  InterruptWatcher watcher([&] {
    std::cerr << "\n(cancelling…)\n";
    cancelled = true;
    life->cancel();
  });
  const std::string turn_task = spec.task;
  agent::RunResult r = life->turn(turn_task, earlier, row.iterations + 1, asker, {}, [&](const agent::Event& e) {
    view.on_event(e);
    if (!trace) return;
    std::lock_guard lock(trace_mutex);
    *trace << redact(dump_json(e.to_json())) << "\n" << std::flush;
  });
  const std::string state = life->finish_turn(row, turn_task, r);
  std::cerr << fmt::format("run {} · follow up with: ouro run --continue {} \"…\"\n", row.id, row.id);
  if (scripts::ReplayProvider* replay = life->replay()) {
    double ms = row.updated_at - row.created_at;
    std::cerr << fmt::format("replayed in {:.1f} s{} · path {}{}\n", ms / 1000,
                             rf.recorded_ms > 0 ? fmt::format(" (the recorded run took {:.1f} s)", rf.recorded_ms / 1000) : "",
                             replay->path(), replay->heals() ? fmt::format(" · {} target(s) healed", replay->heals()) : "");
  }
  // --save-script NAME: a run that delivered its final is kept as a script (its proposed parameters).
  if (!rf.save_script.empty()) {
    auto script = state == "done" ? scripts::from_run(*db, row.id, rf.save_script)
                                  : Result<scripts::Script>(make_error(Code::FailedPrecondition, "the run did not finish with its final"));
    auto saved = script ? scripts::save(*db, std::move(*script)) : Result<scripts::Script>(tl::make_unexpected(script.error()));
    if (saved) std::cerr << fmt::format("saved as script {} v{} ({} steps); replay: ouro replay {}\n", saved->name, saved->version, saved->steps.size(), saved->name);
    else std::cerr << "not saved as a script: " << saved.error().message << "\n";
  }
  // As on every face: a run whose events could not be stored stops and fails (its record would
  // be missing steps, and a resume could not rebuild it).
  if (std::string why = log->store_error(); !why.empty()) return errorf(Code::Unavailable, "run {}: the run's events could not be stored: {}", row.id, why);
  if (rf.as_json) {
    // The run's id and state with the result: what History, --continue and the API know it by.
    json out = r.to_json();
    out["runId"] = row.id;
    out["state"] = state;
    std::cout << dump_json(out) << "\n";
  } else {
    print_value(r.final, false);
  }
  if (r.cancelled) return 130;
  return r.partial ? 1 : 0;
}

// What MCP's browser_task runs start from: these flags' session limits, the settings file (its
// safety settings and hooks, read when a task starts) and the model the flags resolve, if any.
mcp::TaskSupport task_support(const CommonFlags& flags, const llm::SettingsFlags& sf) {
  mcp::TaskSupport task;
  task.setup = [flags, sf]() -> Result<runs::Setup> {
    runs::Setup setup;
    const std::string config = config_path_of(flags);
    setup.file = TRY(safety::load_safety_settings(config));
    setup.hooks = hooks::Pipeline::create(TRY(hooks::load_hooks_config(config)));
    CommonFlags f = flags;
    setup.base = TRY(session_options(f, {}, false, {}, &setup.file));
    // The flags' --allow-domain and --mode hold for every task (a task's options add to them).
    setup.file.allowed_domains.insert(setup.file.allowed_domains.end(), flags.allow_domains.begin(), flags.allow_domains.end());
    if (!flags.mode.empty()) setup.file.mode = TRY(safety::parse_gate_mode(flags.mode));
    setup.model_flags = sf;
    setup.default_context = "clean";
    return setup;
  };
  if (auto settings = llm::resolve_settings(sf); !settings) task.no_model_reason = settings.error().message;
  return task;
}

Result<int> cmd_mcp_flags(const CommonFlags& flags, llm::SettingsFlags sf, int max_iterations) {
  bool gated = !flags.allow_domains.empty() || !flags.mode.empty();
  McpSetup setup;
  CommonFlags with_config = flags;
  if (sf.config_path) with_config.config_path = *sf.config_path;
  setup.session = TRY(session_options(with_config, [](const std::string& line) { std::cerr << "log: " << line << "\n"; }, gated));
  setup.urls = flags.urls;
  sf.secrets_path = (!flags.base_data_dir.empty() ? flags.base_data_dir : flags.data_dir.empty() ? store::default_data_dir() : flags.data_dir) + "/secrets.json";
  mcp::TaskSupport task = task_support(with_config, sf);
  task.max_iterations = max_iterations;
  if (!task.no_model_reason.empty())
    std::cerr << "mcp: no model configured; browser_task will ask the client's model through MCP sampling (" << task.no_model_reason << ")\n";
  setup.task = std::move(task);
  return cmd_mcp(std::move(setup));
}

// `ouro serve`'s line for a turn that starts or ends: "run ID started: TASK" / "run ID done in
// 12.3 s (4 iterations, $0.0123)" / "run ID failed in 2.0 s (1 iteration): ERROR". The task and
// the error are on one line, clipped and redacted. Run threads call it at once: one write each.
void print_turn_line(const server::RunManager::Config::TurnNotice& t) {
  std::string line;
  if (t.started) {
    line = fmt::format("run {} started: {}\n", t.run_id, redact(clip_line(t.task, 100)));
  } else {
    std::string cost = t.cost ? fmt::format(", ${:.4f}", *t.cost) : "";
    line = fmt::format("run {} {} in {:.1f} s ({} iteration{}{}){}\n", t.run_id, t.state, t.seconds, t.iterations, t.iterations == 1 ? "" : "s", cost,
                       t.error.empty() ? "" : ": " + redact(clip_line(t.error, 160)));
  }
  static std::mutex out;
  std::lock_guard lock(out);
  std::cout << line << std::flush;
}

Result<int> cmd_serve(CommonFlags flags, int port, bool open_page, int confirm_timeout_s = 60, const std::string& listen = {}) {
  std::string data_dir = flags.data_dir.empty() ? store::default_data_dir() : flags.data_dir;
  // One server per data directory: a second one would take the first's live runs for interrupted.
  if (std::error_code ec; !std::filesystem::exists(data_dir, ec) && std::filesystem::create_directories(data_dir, ec))
    std::filesystem::permissions(data_dir, std::filesystem::perms::owner_all, std::filesystem::perm_options::replace, ec);
  auto held = TRY(store::DataDirLock::acquire(data_dir));
  // The profile's session keeps the runtime (browser, database) for the server's lifetime; on a
  // browser pool the runtime has the network thread and database only (cli/pool.h).
  std::unique_ptr<session::Session> base;
  std::shared_ptr<session::Runtime> runtime;
  std::optional<ServePool> pool;
  if (wants_pool(flags.browsers, flags.browser_pool)) {
    pool = TRY(start_pool(flags.browsers, flags.browser_pool, data_dir));
    runtime = pool->runtime;
    open_page = false;
  } else if (flags.browser_ws == "extension") {
    // The user's Chrome through the extension is the only browser: no Chromium of ouro's.
    runtime = std::make_shared<session::Runtime>();
    runtime->io = net::IoThread::start();
    runtime->db = TRY(store::Database::open(data_dir + "/ouro.db"));
    runtime->data_dir = data_dir;
    open_page = false;
  } else {
    base = TRY(session::Session::start(TRY(session_options(flags, {}))));
    runtime = base->runtime();
  }
  server::RunManager::Config rc;
  rc.data_dir = flags.base_data_dir.empty() ? data_dir : flags.base_data_dir;  // API keys are not per workspace
  rc.workspace = flags.workspace;
  rc.hooks = hooks::Pipeline::create(TRY(hooks::load_hooks_config(config_path_of(flags))));
  rc.action_timeout = std::chrono::milliseconds(flags.action_timeout_ms);
  rc.confirm_timeout = std::chrono::seconds(confirm_timeout_s);
  rc.config_path = config_path_of(flags);
  // A profile that is kept (plain `ouro`, --profile) or a browser we attached to is the user's:
  // runs work in it unless they ask for a clean session.
  rc.mine_by_default = !flags.profile.empty() || !flags.browser_ws.empty();
  // How many runs this node executes at once (the rest wait queued; with several nodes on
  // PostgreSQL, in the shared queue): OURO_MAX_RUNS, 1 to 256.
  if (const char* m = std::getenv("OURO_MAX_RUNS"); m && *m) {
    char* end = nullptr;
    long n = std::strtol(m, &end, 10);
    if (*end != '\0' || n < 1 || n > 256) return errorf(Code::InvalidArgument, "OURO_MAX_RUNS must be a whole number from 1 to 256, got '{}'", m);
    rc.max_active_runs = static_cast<size_t>(n);
  }
  if (pool) {
    rc.pool = pool->pool;
    rc.mine_by_default = false;
    rc.max_active_runs = std::max<size_t>(rc.max_active_runs, 2 * pool->pool->total_capacity());  // the rest wait queued
  }
  // ouro's Chrome extension, once paired, connects to /api/bridge; runs with options.browser
  // "extension" work in its tab groups.
  auto bridge = std::make_shared<server::BridgeHub>(*runtime->io, std::string(version_string()));
  rc.bridge = bridge;
  if (flags.browser_ws == "extension") {
    rc.default_browser = "extension";
    rc.mine_by_default = true;  // the user's own Chrome
  }
  // One line per turn started and ended, so the terminal that runs the server shows what it does
  // (the details are in the Command Center and GET /api/runs/ID/events).
  rc.on_turn = [](const server::RunManager::Config::TurnNotice& t) { print_turn_line(t); };
  server::RunManager runs(runtime, rc);
  // Daemon mode: saved jobs start runs while the server runs (missed ones by their policy now).
  server::Scheduler::Config sc;
  sc.lock_path = data_dir + "/scheduler.lock";
  server::Scheduler scheduler(*runtime->db, runs, sc);
  // /mcp: the MCP server over Streamable HTTP, gated as `ouro mcp` is (--allow-domain/--mode),
  // browser_task with the model that resolves when a session starts, else the client's (sampling).
  bool mcp_gated = !flags.allow_domains.empty() || !flags.mode.empty();
  auto mcp_http = make_mcp_http(
      runtime, [flags, mcp_gated] { return session_options(flags, {}, mcp_gated); },
      [flags, data_dir] {
        llm::SettingsFlags sf;
        if (!flags.config_path.empty()) sf.config_path = flags.config_path;
        sf.secrets_path = (flags.base_data_dir.empty() ? data_dir : flags.base_data_dir) + "/secrets.json";
        return task_support(flags, sf);
      });
  server::ApiServer::Options api_options;
  api_options.port = static_cast<uint16_t>(port);
  api_options.listen = listen;  // off loopback only with OURO_API_TOKEN (server/api.h)
  if (const char* token = std::getenv("OURO_API_TOKEN"); token && *token) api_options.token = token;
  api_options.scheduler = &scheduler;
  api_options.version = std::string(version_string());
  api_options.bridge = bridge;
  api_options.on_pairing_code = [](const std::string& code) {
    std::cout << "New pairing code for ouro's Chrome extension: " << code << " (valid 10 minutes)\n" << std::flush;
  };
  api_options.mcp = [endpoint = mcp_http.get()](const net::HttpRequest& r, std::function<void(net::HttpResponse)> respond) {
    endpoint->handle(r, std::move(respond));
  };
  auto started = server::ApiServer::start(*runtime->io, runs, runtime, api_options);
  if (!started)
    return make_error(started.error().code, started.error().message + " (is another ouro serving there? pass --port N, or --port 0 for any free port)");
  auto api = std::move(*started);
  scheduler.start();
  std::cout << "Ouroboros Command Center: " << api->url() << "\n"
            << "API: http://127.0.0.1:" << api->port() << "/api (Authorization: Bearer " << api->token() << ")\n"
            << "MCP (Streamable HTTP): http://127.0.0.1:" << api->port() << "/mcp (the same token)\n"
            << "Pairing code for ouro's Chrome extension: " << api->pairing_code() << " (valid 10 minutes; Settings shows the current one)\n"
            << (flags.workspace.empty() ? "" : "Workspace: " + flags.workspace + " (" + data_dir + ")\n")
            << "Ctrl-C stops the server (runs in progress are interrupted; History resumes them).\n"
            << std::flush;
  if (open_page) {
    auto tabs = base->tabs();
    if (!tabs.empty())
      if (auto r = base->browser().navigate(tabs[0].id, api->url()); !r)
        spdlog::warn("cannot open the Command Center in the browser ({}); open the address above", r.error().message);
  }
  std::mutex m;
  std::condition_variable cv;
  bool stop = false;
  InterruptWatcher watcher([&] {
    std::lock_guard lock(m);
    stop = true;
    cv.notify_all();
  });
  std::unique_lock lock(m);
  // A pool's endpoints come and go; the server's own browser, when it has one, ends it.
  auto dead = [&] { return base ? base->browser().dead() : std::nullopt; };
  while (!stop && !dead()) cv.wait_for(lock, std::chrono::milliseconds(500));
  if (auto gone = dead()) std::cerr << "ouro: " << gone->message << "\n";
  std::cerr << "stopping…\n";
  return 0;
}

// Plain `ouro`'s browser: shown when there is a display, a kept profile (sites the user logs into
// stay logged in) and ouro's extension loaded (the side panel beside the page). Nothing of this
// when it attaches to a browser or a pool, which keep their own.
void plain_browser(CommonFlags& f) {
  if (!f.browsers.empty() || !f.browser_pool.empty()) return;
  f.headed = f.headed || std::getenv("DISPLAY") || std::getenv("WAYLAND_DISPLAY");
  std::string data_dir = f.data_dir.empty() ? store::default_data_dir() : f.data_dir;
  if (f.profile.empty()) f.profile = data_dir + "/profile";
  auto extension = write_extension(data_dir + "/extension");
  if (extension) f.chromium_args = load_extension_args(*extension);
  else spdlog::warn("the browser starts without ouro's extension: {}", extension.error().message);
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
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", "ouro " + std::string(version_string()));

  CommonFlags exec_flags;
  std::string code;
  bool as_json = false;
  auto* exec = app.add_subcommand("exec", "Run one JavaScript snippet against the browser and print its result");
  add_common(exec, exec_flags);
  exec->add_flag("--json", as_json, "Print the result as JSON");
  exec->add_option("code", code, "JavaScript (statements, top-level await; the last value or setFinal() is printed), or - for stdin")->required();
  exec->footer("Example: ouro exec --url https://example.com 'await getText(activeTab, \"h1\")'");

  CommonFlags do_flags;
  std::string do_commands;
  bool do_json = false, do_dry = false;
  auto* doc = app.add_subcommand("do", "Run commands or a plain instruction on the page without a model: click, type, select, check, press, …");
  add_common(doc, do_flags);
  doc->add_flag("--json", do_json, "Print act()'s whole result as JSON");
  doc->add_flag("--dry-run", do_dry, "Print the plan without touching the page");
  doc->add_option("commands", do_commands,
                  "Commands, newline- or ;-separated (navigate URL; click TARGET; type \"TEXT\" into TARGET; select \"OPTION\" from TARGET; "
                  "check/uncheck TARGET; press KEY; scroll down|up|to TARGET; wait for TARGET|\"text\"|load; extract FIELDS from TARGET; "
                  "submit), or a plain sentence; - for stdin")
      ->required();
  doc->footer("Examples: ouro do --url https://example.com 'Click the More information link'\n"
              "  OURO_SECRET_PW=… ouro do --url https://example.com/login --secret pw@example.com "
              "'type \"ada\" into Username; type secret:pw into Password; click Sign in'\n"
              "Exit status: 0 when every step did what it said, 1 otherwise (the failing step says why).");

  CommonFlags repl_flags;
  auto* repl = app.add_subcommand("repl", "Interactive REPL with the browser API; state persists between inputs");
  add_common(repl, repl_flags);

  CommonFlags run_flags;
  RunFlags rf;
  auto* runc = app.add_subcommand("run", "Give the agent a task: a model writes code in the REPL until it calls setFinal()");
  add_common(runc, run_flags);
  runc->add_option("task", rf.task, "What to do, in plain words (not with --resume: the run's own task goes on)");
  runc->add_option("--provider", rf.settings.provider,
                   "anthropic | openai | openrouter | groq | nvidia | together | deepseek | ollama | lmstudio | vllm | llamacpp | "
                   "an OpenAI-compatible base URL | script:FILE (default: from ANTHROPIC_API_KEY / OPENAI_API_KEY)");
  runc->add_option("--model", rf.settings.model, "Primary model, for the main loop");
  runc->add_option("--sub-model", rf.settings.sub_model, "Model for llm_query/llm_batch sub-calls (default: the provider's cheaper one)");
  runc->add_option("--base-url", rf.settings.base_url, "Override the provider's API base URL");
  runc->add_option("--max-tokens", rf.settings.max_tokens,
                   "Output tokens per model call (default: the model table's, e.g. 4096 for Claude, 16384 for kimi-k2-thinking; capped "
                   "at the model's maximum)")
      ->check(CLI::Range(1, 1000000));
  runc->add_option("--temperature", rf.settings.temperature, "Sampling temperature 0–2 (default: the model's; not sent to models that refuse it)")
      ->check(CLI::Range(0.0, 2.0));
  runc->add_option("--thinking", rf.settings.thinking,
                   "Extended thinking: a token budget (1024–200000) or off. Claude: thinking with that budget, streamed; OpenAI "
                   "reasoning models: reasoning_effort from it (≤8192 low, ≤32768 medium, more high)");
  runc->add_option("--api-key", rf.settings.api_key, "API key (prefer the environment: ANTHROPIC_API_KEY, OPENAI_API_KEY or OURO_API_KEY)");
  runc->add_option("--config", rf.settings.config_path, "Settings file (default ~/.config/ouroboros/config.json)");
  // Checked with the run's other options (runs/spec.h), in the same words as the API's.
  runc->add_option("--max-iterations", rf.max_iterations, "Iteration cap, 1 to 500; partial results are delivered when it is hit (default 25)");
  runc->add_flag("--json", rf.as_json, "Print {runId, state, final, iterations, partial, usage, cost} as JSON");
  runc->add_option("--trace", rf.trace, "Write every event as a JSON line to this file");
  runc->add_option("--resume", rf.resume_id,
                   "Resume run ID after ouro stopped while it worked (killed, crashed, the machine restarted): env, history, usage "
                   "and tabs from its last checkpoint, going on from the next iteration")
      ->excludes(runc->get_option("task"));
  runc->add_option("--continue", rf.continue_id,
                   "Carry on the conversation of run ID (from the Command Center or an earlier ouro run): its env, and its earlier "
                   "tasks and answers in the prompt; the task is the follow-up");
  runc->add_option("--ask-timeout", rf.ask_timeout_s, "Seconds askUser waits for your answer on the terminal (default 300)")
      ->check(CLI::Range(1, 86400));
  runc->add_option("--context", rf.context,
                   "mine: work in the browser's own tabs and logins (the tab you are on is handed over; other tabs of yours are asked "
                   "about), default with --profile or --browser; clean: an isolated session without them")
      ->check(CLI::IsMember({"mine", "clean"}));
  runc->add_option("--agent", rf.agent,
                   "rlm: the model writes JavaScript in the REPL (default); tools: it calls tools (observe, read, click, type, select, "
                   "press, scroll, navigate, extract, act, ask_user, finish) through native function calling, or a JSON answer")
      ->check(CLI::IsMember({"rlm", "tools"}));
  runc->add_option("--save-script", rf.save_script, "Keep the run, when it delivers its final, as script NAME (ouro replay NAME)");
  runc->add_flag("--no-remember", rf.no_remember,
                 "Do not remember this run's task and answer for later runs (memory across tasks; see ouro memory list)");
  runc->add_option("--confirm-timeout", rf.confirm_timeout_s, "Seconds to wait for your answer about a sensitive action before denying it (default 60)")
      ->check(CLI::Range(1, 3600));
  runc->footer("Example: ouro run \"List the five cheapest items\" --url http://127.0.0.1:8000/shop");

  CommonFlags serve_flags;
  int port = 7777;
  std::string listen;
  bool no_open = false;
  auto* serve = app.add_subcommand("serve", "The Command Center and the runs API on 127.0.0.1 (HTTP + WebSocket)");
  add_common(serve, serve_flags);
  serve->add_option("--port", port, "Port on 127.0.0.1 (default 7777; 0 picks a free one)")->check(CLI::Range(0, 65535));
  serve->add_flag("--no-open", no_open, "Do not open the Command Center in the browser");
  serve->add_option("--listen", listen, "Listen on ADDR[:PORT] instead of 127.0.0.1 (e.g. 0.0.0.0:8765 or [::]:8765 behind a load balancer); "
                    "an address other than loopback needs OURO_API_TOKEN set")
      ->type_name("ADDR[:PORT]");
  serve->add_option("--browser-pool", serve_flags.browser_pool,
                    "A JSON file of browser endpoints for the runs: {\"endpoints\": [{\"url\": \"ws://…|http://host:port\", \"capacity\": 4}, …]} "
                    "(see docs/guides/pools-and-scaling.md)");
  int serve_confirm_timeout = 60;
  serve->add_option("--confirm-timeout", serve_confirm_timeout, "Seconds a sensitive-action question waits for an answer before it counts as deny (default 60)")
      ->check(CLI::Range(1, 3600));

  CommonFlags mcp_flags;
  llm::SettingsFlags mcp_settings;
  int mcp_max_iterations = 25;
  auto* mcpc = app.add_subcommand("mcp", "An MCP server on stdin/stdout for Claude, Cursor, VS Code and other agents: browser_exec, snapshot, act, tabs, screenshot, task");
  add_common(mcpc, mcp_flags);
  mcpc->add_option("--provider", mcp_settings.provider, "The model of browser_task (default: as `ouro run` resolves it; none: the MCP client's own model through sampling)");
  mcpc->add_option("--model", mcp_settings.model, "browser_task's primary model");
  mcpc->add_option("--sub-model", mcp_settings.sub_model, "browser_task's model for llm_query/llm_batch sub-calls");
  mcpc->add_option("--base-url", mcp_settings.base_url, "Override the provider's API base URL");
  mcpc->add_option("--api-key", mcp_settings.api_key, "API key (prefer the environment: ANTHROPIC_API_KEY, OPENAI_API_KEY or OURO_API_KEY)");
  mcpc->add_option("--config", mcp_settings.config_path, "Settings file (default ~/.config/ouroboros/config.json)");
  mcpc->add_option("--max-iterations", mcp_max_iterations, "Iterations of one browser_task (default 25)")->check(CLI::Range(1, 200));

  std::string extension_out, extension_dir_flag;
  auto* extc = app.add_subcommand("extension", "Write ouro's Chrome extension (the side panel and the bridge to your tabs) to a folder, and say how to load it");
  extc->add_option("--out", extension_out, "The folder (default: <data dir>/extension)");
  extc->add_option("--data-dir", extension_dir_flag, "Data directory (default: $OURO_DATA_DIR or ~/.local/share/ouroboros)");
  auto* doctor = app.add_subcommand("doctor", "Check Chromium, the display, the data directory, the profile lock and the model, and say how to fix what fails");
  std::string doctor_dir;
  llm::SettingsFlags doctor_settings;
  doctor->add_option("--data-dir", doctor_dir, "The data directory to check (default: $OURO_DATA_DIR or ~/.local/share/ouroboros)");
  doctor->add_option("--provider", doctor_settings.provider, "The provider to test (default: as `ouro run` resolves it)");
  doctor->add_option("--model", doctor_settings.model, "The model to test");
  doctor->add_option("--base-url", doctor_settings.base_url, "The provider's base URL");
  doctor->add_option("--config", doctor_settings.config_path, "Settings file (default ~/.config/ouroboros/config.json)");

  std::string paths_dir, paths_workspace, paths_config;
  bool paths_json = false;
  auto* pathsc = app.add_subcommand("paths", "Where ouro keeps things: the settings file, the data directory, the database, the profile, the logs");
  pathsc->add_option("--data-dir", paths_dir, "Data directory (default: $OURO_DATA_DIR or ~/.local/share/ouroboros)");
  pathsc->add_option("--workspace", paths_workspace, "A workspace's paths (default: $OURO_WORKSPACE, else none)");
  pathsc->add_option("--config", paths_config, "Settings file (default: $OURO_CONFIG or ~/.config/ouroboros/config.json)");
  pathsc->add_flag("--json", paths_json, "Print them as JSON");

  auto* auth = app.add_subcommand("auth", "API keys: in the OS keyring when one answers on the session bus, else in a 0600 file");
  std::string auth_provider, auth_dir;
  auto* auth_set = auth->add_subcommand("set", "Store the provider's API key, read from standard input");
  auth_set->add_option("provider", auth_provider, "anthropic, openai, openrouter, groq, nvidia, together, deepseek, or a base URL")->required();
  auto* auth_rm = auth->add_subcommand("rm", "Forget the provider's stored API key");
  auth_rm->add_option("provider", auth_provider, "The provider")->required();
  auto* auth_status = auth->add_subcommand("status", "Where keys are kept, and where each provider's key comes from");
  for (auto* sub : {auth_set, auth_rm, auth_status})
    sub->add_option("--data-dir", auth_dir, "Data directory of the file fallback (default: $OURO_DATA_DIR or ~/.local/share/ouroboros)");
  auth->require_subcommand(1);

  std::string mem_workspace, sched_workspace;
  auto* mem = app.add_subcommand("memory", "Memories across tasks (what runs and remember() left): list, search, delete");
  MemoryFlags mf;
  auto* mem_list = mem->add_subcommand("list", "The most recently updated memories");
  auto* mem_search = mem->add_subcommand("search", "Memories that share words with QUERY, best first (BM25)");
  mem_search->add_option("query", mf.query, "The words to look for")->required();
  mem_search->add_option("--tag", mf.tag, "Only memories with this tag");
  auto* mem_rm = mem->add_subcommand("rm", "Delete a memory");
  mem_rm->add_option("id", mf.query, "Its id, as list and search show it (#12 → 12)")->required();
  for (auto* sub : {mem_list, mem_search, mem_rm}) {
    sub->add_option("--data-dir", mf.data_dir, "Where ouro keeps its database (default: $OURO_DATA_DIR or ~/.local/share/ouroboros)");
    sub->add_option("--workspace", mem_workspace, "The workspace whose memories these are (default: $OURO_WORKSPACE, else none)");
    if (sub != mem_rm) {
      sub->add_option("--limit", mf.limit, "How many to show (default 20; search: at most 50)")->check(CLI::Range(1, 1000));
      sub->add_flag("--json", mf.as_json, "Print the entries as JSON");
    }
  }
  mem->require_subcommand(1);

  CommonFlags replay_flags;
  RunFlags replay_rf;
  std::string replay_name;
  int replay_version = 0;
  std::vector<std::string> replay_vars;
  auto* replayc = app.add_subcommand("replay", "Run a saved script without a model: its steps in order, an ordinary run (events, gate, confirmations)");
  add_common(replayc, replay_flags);
  replayc->add_option("name", replay_name, "The script (ouro script list)")->required();
  replayc->add_option("--var", replay_vars, "name=value: a parameter's value for this replay (repeatable; the others keep their defaults)")
      ->allow_extra_args(false);
  replayc->add_option("--version", replay_version, "Which version of the script (default: the latest)")->check(CLI::Range(1, 1000000));
  replayc->add_option("--provider", replay_rf.settings.provider,
                      "A model to take over where a step cannot heal (as ouro run's --provider, script:FILE included); without one the "
                      "replay stops there with the error");
  replayc->add_option("--model", replay_rf.settings.model, "The model that takes over (default: the provider's)");
  replayc->add_option("--sub-model", replay_rf.settings.sub_model, "Its model for llm_query/llm_batch");
  replayc->add_option("--base-url", replay_rf.settings.base_url, "Override the provider's API base URL");
  replayc->add_flag("--json", replay_rf.as_json, "Print {runId, state, final, iterations, partial, usage, cost} as JSON");
  replayc->add_option("--trace", replay_rf.trace, "Write every event as a JSON line to this file");
  replayc->add_option("--config", replay_rf.settings.config_path, "Settings file (default ~/.config/ouroboros/config.json)");
  replayc->add_option("--context", replay_rf.context, "mine or clean, as for ouro run")->check(CLI::IsMember({"mine", "clean"}));
  replayc->add_option("--confirm-timeout", replay_rf.confirm_timeout_s, "Seconds to wait for your answer about a sensitive action before denying it (default 60)")
      ->check(CLI::Range(1, 3600));
  replayc->footer("Example: ouro replay signup --var name=Grace --url http://127.0.0.1:8000/form\n"
                  "Exit status: 0 with the final on stdout, 1 when a step failed (the error names the step) or the run stopped short.");

  ScriptFlags script_flags;
  std::string script_workspace;
  auto* scriptc = add_script_command(app, script_flags);
  for (auto* sub : scriptc->get_subcommands({}))
    sub->add_option("--workspace", script_workspace, "The workspace whose scripts these are (default: $OURO_WORKSPACE, else none)");

  ScheduleFlags sched_flags;
  auto* sched = add_schedule_command(app, sched_flags);
  for (auto* sub : sched->get_subcommands({}))
    sub->add_option("--workspace", sched_workspace, "The workspace whose saved tasks these are (default: $OURO_WORKSPACE, else none)");

  auto* help = app.add_subcommand("help", "Reference documentation");
  bool markdown = false;
  auto* api = help->add_subcommand("api", "Print the REPL API reference (the same text the model is given)");
  api->add_flag("--markdown", markdown, "Markdown, as in docs/reference/api.md");
  help->require_subcommand(1);

  // Hidden: the man page, shell completions and docs/reference/commands.md, from this command line (cli/reference.cpp).
  if (argc == 3 && std::string_view(argv[1]) == "__reference") {
    auto text = cli_reference(app, argv[2], version_string());
    if (!text) return make_error(Code::InvalidArgument, "__reference takes man, bash, zsh, fish or markdown");
    std::cout << *text;
    return 0;
  }

  // `ouro help [COMMAND…]`: a command's help; `ouro help api` is the REPL reference (below).
  if (argc >= 2 && std::string_view(argv[1]) == "help" && (argc == 2 || (std::string_view(argv[2]) != "api" && argv[2][0] != '-'))) {
    auto topic = help_topic(app, std::vector<std::string>(argv + 2, argv + argc));
    (topic.ok ? std::cout : std::cerr) << topic.text << (topic.text.ends_with('\n') ? "" : "\n");
    return topic.ok ? 0 : 2;
  }
  // Plain `ouro` takes serve's options: `ouro --port 8000` is the Command Center on port 8000.
  std::vector<char*> args(argv, argv + argc);
  bool plain = argc == 1;
  if (argc >= 2 && argv[1][0] == '-' && !app.get_option_no_throw(argv[1])) {
    static char serve_word[] = "serve";
    args.insert(args.begin() + 1, serve_word);
    plain = true;
  }
  try {
    app.parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::ParseError& e) {
    if (auto better = explain_parse_error(app, e, static_cast<int>(args.size()), args.data())) {
      std::cerr << *better << "\n";
      return 2;
    }
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }

  // --workspace / $OURO_WORKSPACE: the subcommand's data directory becomes the workspace's.
  for (auto [sub, f] : {std::pair{exec, &exec_flags}, {doc, &do_flags}, {repl, &repl_flags}, {runc, &run_flags}, {serve, &serve_flags}, {mcpc, &mcp_flags}, {replayc, &replay_flags}})
    if (*sub) {
      TRY(take_browsers(*f, sub == serve));
      TRY(enter_workspace(*f));
    }
  if (*mem) mf.data_dir = TRY(workspace_data_dir(mf.data_dir, mem_workspace));
  if (*sched) sched_flags.data_dir = TRY(workspace_data_dir(sched_flags.data_dir, sched_workspace));
  if (*exec) return cmd_exec(exec_flags, code, as_json);
  if (*doc) return cmd_do(do_flags, do_commands, do_json, do_dry);
  if (*repl) return cmd_repl(repl_flags);
  if (*runc) {
    rf.max_iterations_given = runc->get_option("--max-iterations")->count() > 0;
    return cmd_run(run_flags, rf);
  }
  if (*replayc) {
    auto loaded = TRY(load_replay(replay_flags.data_dir, replay_name, replay_version, replay_vars));
    replay_rf.replay = loaded.provider;
    replay_rf.recorded_ms = loaded.recorded_ms;
    replay_rf.task = loaded.provider->task();
    replay_rf.max_iterations = std::min(500, loaded.provider->max_iterations());
    replay_rf.max_iterations_given = true;
    if (replay_flags.urls.empty()) replay_flags.urls = loaded.provider->script().urls;
    return cmd_run(replay_flags, replay_rf);
  }
  if (*scriptc) {
    script_flags.data_dir = TRY(workspace_data_dir(script_flags.data_dir, script_workspace));
    return cmd_script(*scriptc, script_flags);
  }
  if (*mcpc) return cmd_mcp_flags(mcp_flags, mcp_settings, mcp_max_iterations);
  if (*doctor) return cmd_doctor(doctor_dir, doctor_settings);
  if (*pathsc) return cmd_paths(TRY(workspace_data_dir(paths_dir, paths_workspace)), paths_config, paths_json);
  if (*auth) return cmd_auth(*auth_set ? "set" : *auth_rm ? "rm" : "status", auth_provider, auth_dir);
  (void)auth_status;
  if (*mem) {
    mf.action = *mem_search ? "search" : *mem_rm ? "rm" : "list";
    return cmd_memory(mf);
  }
  if (*sched) return cmd_schedule(*sched, sched_flags);
  if (*extc) {
    std::string dir = !extension_out.empty() ? extension_out
                                             : (extension_dir_flag.empty() ? store::default_data_dir() : extension_dir_flag) + "/extension";
    std::cout << extension_instructions(TRY(write_extension(dir)));
    return 0;
  }
  if (*serve) {
    if (plain) plain_browser(serve_flags);
    return cmd_serve(serve_flags, port, !no_open && serve_flags.headed, serve_confirm_timeout, listen);
  }
  if (*api) {
    std::cout << (markdown ? actions::reference_markdown() : actions::reference_text());
    return 0;
  }
  // Plain `ouro`: a real browser with the Command Center in it.
  CommonFlags plain_flags;
  TRY(enter_workspace(plain_flags));
  plain_browser(plain_flags);
  return cmd_serve(plain_flags, 7777, plain_flags.headed);
}

}  // namespace ouro::cli
