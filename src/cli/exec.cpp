// exec, do and repl: code and commands run at once on a browser, without a model — a snippet and
// its value, the command language's steps, an interactive REPL whose state persists between inputs.
#include "cli/exec.h"

#include "cli/line_editor.h"
#include "cli/terminal.h"

#include "actions/host.h"
#include "actions/registry.h"
#include "base/log.h"
#include "base/text.h"
#include "jsrt/summary.h"
#include "session/session.h"
#include "store/database.h"

#include <fcntl.h>
#include <poll.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace ouro::cli {

namespace {

std::string read_all_stdin() {
  std::stringstream ss;
  ss << std::cin.rdbuf();
  return ss.str();
}

using jsrt::error_text;

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

}  // namespace

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

namespace {

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

}  // namespace

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
    if (editor && editor->interrupted()) {
      // Ctrl-C at a prompt drops what was typed, a continued statement's earlier lines too.
      if (buffer.empty() && line.empty()) std::cerr << "(Ctrl-D or .exit to leave)\n";
      buffer.clear();
      continue;
    }
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

}  // namespace ouro::cli
