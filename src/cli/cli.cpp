// `ouro`'s command line: every command and its flags (CLI11), and the commands that run code at
// once (exec, do, repl); the others live in files of their own (run.cpp, serve.cpp, mcp.cpp, …).
#include "cli/cli.h"
#include "cli/extension.h"
#include "cli/flags.h"
#include "cli/paths.h"
#include "cli/run.h"
#include "cli/eval.h"
#include "cli/serve.h"
#include "cli/auth.h"
#include "cli/doctor.h"
#include "cli/mcp.h"
#include "cli/memory.h"
#include "cli/undo.h"
#include "cli/script.h"
#include "scripts/store.h"
#include "cli/schedule.h"

#include "actions/host.h"
#include "actions/registry.h"
#include "net/io.h"
#include "cli/reference.h"
#include "cli/suggest.h"
#include "cli/terminal.h"
#include "cli/line_editor.h"
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
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <csignal>
#include <iostream>
#include <sstream>
#include <thread>

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
  app.name("ouro");  // usage lines say `ouro run …`, not the path it was started by
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
                   "an OpenAI-compatible base URL | script:FILE (default: the settings file's, else that of ANTHROPIC_API_KEY / "
                   "OPENAI_API_KEY, else the one whose key `ouro auth set` stored first)");
  runc->add_option("--model", rf.settings.model, "Primary model, for the main loop");
  runc->add_option("--sub-model", rf.settings.sub_model, "Model for llm_query/llm_batch sub-calls (default: the provider's cheaper one)");
  runc->add_option("--base-url", rf.settings.base_url, "Override the provider's API base URL");
  runc->add_option("--max-tokens", rf.settings.max_tokens,
                   "Output tokens per model call (default: the model table's, e.g. 4096 for Claude, 16384 for kimi-k2-thinking; capped "
                   "at the model's maximum)");
  runc->add_option("--temperature", rf.settings.temperature, "Sampling temperature 0–2 (default: the model's; not sent to models that refuse it)");
  runc->add_option("--thinking", rf.settings.thinking,
                   "Extended thinking: a token budget (1024–200000) or off. Claude: thinking with that budget, streamed; OpenAI "
                   "reasoning models: reasoning_effort from it (≤8192 low, ≤32768 medium, more high)");
  runc->add_option("--api-key", rf.settings.api_key, "API key (prefer the environment: ANTHROPIC_API_KEY, OPENAI_API_KEY or OURO_API_KEY)");
  runc->add_option("--config", rf.settings.config_path, "Settings file (default ~/.config/ouroboros/config.json)");
  // --max-iterations, --context, --agent and the model parameters are the run's options: checked
  // with the others (runs/spec.h), in the same words as the API's and MCP's.
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
      ->type_name("TEXT:{mine,clean}");
  runc->add_option("--agent", rf.agent,
                   "rlm: the model writes JavaScript in the REPL (default); tools: it calls tools (observe, read, click, type, select, "
                   "press, scroll, navigate, extract, act, ask_user, finish) through native function calling, or a JSON answer")
      ->type_name("TEXT:{rlm,tools}");
  runc->add_option("--save-script", rf.save_script, "Keep the run, when it delivers its final, as script NAME (ouro replay NAME)");
  runc->add_flag("--no-remember", rf.no_remember,
                 "Do not remember this run's task and answer for later runs (memory across tasks; see ouro memory list)");
  runc->add_option("--confirm-timeout", rf.confirm_timeout_s, "Seconds to wait for your answer about a sensitive action before denying it (default 60)")
      ->check(CLI::Range(1, 3600));
  runc->footer("Example: ouro run \"List the five cheapest items\" --url http://127.0.0.1:8000/shop");

  CommonFlags eval_flags;
  EvalFlags ef;
  auto* evalc = app.add_subcommand("eval", "Run the evaluation suite (sites and tasks served on loopback, checked from the sites' state) against a model; "
                                           "a table, a JSON result and an HTML report");
  add_common(evalc, eval_flags);
  evalc->get_option("--mode")->description(
      "autonomous (default here: the gate asks nothing it need not) or careful (it asks before writes); nobody answers, so every question is answered no and counted");
  evalc->add_option("--suite", ef.suite, "A suite folder (sites/, tasks/, models/; see --export-suite); default: the suite that ships with ouro");
  evalc->add_option("--only", ef.only, "Only the tasks whose id matches this pattern (shell globs: 'bank-*', '*+inject'); repeatable");
  evalc->add_option("--variants", ef.variants, "all (default), clean (without injections) or injected (only the injected variants)")
      ->type_name("TEXT:{all,clean,injected}");
  evalc->add_option("--repeat", ef.repeats, "Runs of each task (default 1)")->check(CLI::Range(1, 100));
  evalc->add_option("--concurrency", ef.concurrency, "Task runs at once, each with its own Chromium (default 2)")->check(CLI::Range(1, 16));
  evalc->add_option("--provider", ef.settings.provider,
                    "As for ouro run; script:@NAME uses the suite's scripted model NAME (perfect, useless, obedient), script:DIR a folder "
                    "with a script per task (ID.jsonl, else default.jsonl)");
  evalc->add_option("--model", ef.settings.model, "Primary model");
  evalc->add_option("--sub-model", ef.settings.sub_model, "Model for llm_query/llm_batch sub-calls");
  evalc->add_option("--base-url", ef.settings.base_url, "Override the provider's API base URL");
  evalc->add_option("--api-key", ef.settings.api_key, "API key (prefer the environment or ouro auth set)");
  evalc->add_option("--config", ef.settings.config_path, "Settings file (default ~/.config/ouroboros/config.json)");
  evalc->add_option("--out", ef.out, "Where to write result.json and report.html (default: <data dir>/eval/<when>-<model>/); with --compare or --report, the HTML file");
  evalc->add_option("--record", ef.record, "Keep every model exchange in this folder, one file per task run, for --replay");
  evalc->add_option("--replay", ef.replay, "Run the suite with no model, replaying what --record kept: the same result while ouro behaves the same");
  evalc->add_option("--task-timeout", ef.task_timeout_s, "Seconds one task run may take before it is cancelled (default 600)")->check(CLI::Range(5.0, 86400.0));
  evalc->add_flag("--list", ef.list, "List the tasks (with --only and --variants) and exit");
  evalc->add_option("--export-suite", ef.export_suite, "Write the shipped suite to this folder, to read or to start a suite of your own");
  evalc->add_option("--compare", ef.compare, "Compare two results (result.json files): an HTML page side by side (--out, default compare.html)")->expected(2);
  evalc->add_option("--report", ef.report, "Write a result's HTML report again (--out, default report.html beside it)");
  evalc->add_flag("--json", ef.as_json, "Print the summary as JSON instead of the table");
  evalc->footer("Examples:\n  ouro eval --provider anthropic --repeat 3\n  ouro eval --provider script:@perfect --only 'bank-*'\n"
                "  ouro eval --compare ~/.local/share/ouroboros/eval/A/result.json ~/.local/share/ouroboros/eval/B/result.json");

  CommonFlags serve_flags;
  int port = 7777;
  std::string listen;
  bool no_open = false;
  auto* serve = app.add_subcommand("serve", "The Command Center and the runs API on 127.0.0.1 (HTTP + WebSocket)");
  add_common(serve, serve_flags);
  serve->add_option("--port", port, "Port on 127.0.0.1 (default 7777; 0 picks a free one)")->check(CLI::Range(0, 65535));
  serve->add_flag("--no-open", no_open, "Do not open the Command Center in the browser");
  serve->add_option("--listen", listen, "Listen on ADDR[:PORT] instead of 127.0.0.1 (e.g. 0.0.0.0:8765 or [::]:8765 behind a load balancer); "
                    "an address other than loopback needs OURO_API_TOKEN or OURO_API_TOKEN_FILE set")
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
  auto* mem_search = mem->add_subcommand("search", "Memories for QUERY, best first: by meaning and words with embeddings set up, else by words (BM25)");
  mem_search->add_option("query", mf.query, "The words to look for")->required();
  mem_search->add_option("--tag", mf.tag, "Only memories with this tag");
  auto* mem_rm = mem->add_subcommand("rm", "Delete a memory");
  mem_rm->add_option("id", mf.query, "Its id, as list and search show it (#12 → 12)")->required();
  auto* mem_backfill = mem->add_subcommand("backfill", "Give every memory without one its vector (embeddings in the settings file)");
  for (auto* sub : {mem_list, mem_search, mem_rm, mem_backfill}) {
    sub->add_option("--data-dir", mf.data_dir, "Where ouro keeps its database (default: $OURO_DATA_DIR or ~/.local/share/ouroboros)");
    sub->add_option("--workspace", mem_workspace, "The workspace whose memories these are (default: $OURO_WORKSPACE, else none)");
    if (sub != mem_rm && sub != mem_backfill) {
      sub->add_option("--limit", mf.limit, "How many to show (default 20; search: at most 50)")->check(CLI::Range(1, 1000));
      sub->add_flag("--json", mf.as_json, "Print the entries as JSON");
    }
  }
  mem->require_subcommand(1);

  UndoFlags undo_flags;
  std::string undo_workspace;
  auto* undoc = app.add_subcommand("undo", "Revert what a conversation's last turn changed in ouro's own state (memory, store, goals, schedules, scripts)");
  auto* redoc = app.add_subcommand("redo", "Apply again the turn `ouro undo` reverted last");
  for (auto* sub : {undoc, redoc}) {
    sub->add_option("run", undo_flags.run_id, "The conversation's run id (default: the one changed most recently)");
    sub->add_flag("--json", undo_flags.as_json, "Print what was done as JSON");
    sub->add_option("--data-dir", undo_flags.data_dir, "Where ouro keeps its database (default: $OURO_DATA_DIR or ~/.local/share/ouroboros)");
    sub->add_option("--workspace", undo_workspace, "The workspace of the conversation (default: $OURO_WORKSPACE, else none)");
  }

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
  replayc->add_option("--context", replay_rf.context, "mine or clean, as for ouro run")->type_name("TEXT:{mine,clean}");
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

  // --config names the settings file for everything this process reads there — the database
  // included (store::configured_database) —, as $OURO_CONFIG does. No thread runs yet.
  for (CLI::App* sub : {runc, evalc, mcpc, doctor, pathsc, replayc})
    if (*sub)
      if (CLI::Option* o = sub->get_option_no_throw("--config"); o && o->count() > 0 && !o->as<std::string>().empty())
        ::setenv("OURO_CONFIG", o->as<std::string>().c_str(), 1);

  // --workspace / $OURO_WORKSPACE: the subcommand's data directory becomes the workspace's.
  for (auto [sub, f] : {std::pair{exec, &exec_flags}, {doc, &do_flags}, {repl, &repl_flags}, {runc, &run_flags}, {evalc, &eval_flags}, {serve, &serve_flags}, {mcpc, &mcp_flags}, {replayc, &replay_flags}})
    if (*sub) {
      TRY(take_browsers(*f, sub == serve));
      TRY(enter_workspace(*f));
    }
  if (*mem) mf.data_dir = TRY(workspace_data_dir(mf.data_dir, mem_workspace));
  if (*undoc || *redoc) undo_flags.data_dir = TRY(workspace_data_dir(undo_flags.data_dir, undo_workspace));
  if (*sched) sched_flags.data_dir = TRY(workspace_data_dir(sched_flags.data_dir, sched_workspace));
  if (*exec) return cmd_exec(exec_flags, code, as_json);
  if (*doc) return cmd_do(do_flags, do_commands, do_json, do_dry);
  if (*repl) return cmd_repl(repl_flags);
  if (*runc) {
    rf.max_iterations_given = runc->get_option("--max-iterations")->count() > 0;
    return cmd_run(run_flags, rf);
  }
  if (*evalc) return cmd_eval(eval_flags, std::move(ef));
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
    mf.action = *mem_search ? "search" : *mem_rm ? "rm" : *mem_backfill ? "backfill" : "list";
    return cmd_memory(mf);
  }
  if (*sched) return cmd_schedule(*sched, sched_flags);
  if (*undoc || *redoc) {
    undo_flags.redo = static_cast<bool>(*redoc);
    return cmd_undo(undo_flags);
  }
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
