// `ouro`'s command line (CLI11): every command, each declared once with its flags and what it runs,
// and the one dispatch to it. Most commands live in files of their own (exec.cpp for exec, do and
// repl; run.cpp, serve.cpp, mcp.cpp, …); the few lines of `extension`, `help api` and replay's
// loading of its script are here.
#include "cli/cli.h"
#include "cli/auth.h"
#include "cli/doctor.h"
#include "cli/eval.h"
#include "cli/exec.h"
#include "cli/extension.h"
#include "cli/flags.h"
#include "cli/mcp.h"
#include "cli/memory.h"
#include "cli/paths.h"
#include "cli/reference.h"
#include "cli/run.h"
#include "cli/schedule.h"
#include "cli/script.h"
#include "cli/serve.h"
#include "cli/suggest.h"
#include "cli/undo.h"

#include "actions/registry.h"
#include "base/log.h"
#include "jsrt/worker.h"
#include "llm/settings.h"
#include "store/database.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ouro::cli {

namespace {

// What the command line said beyond a command's own flags.
struct Invocation {
  bool plain = false;  // `ouro` alone, or `ouro --port N`: serve, in a browser shown with the extension
};

// A command: declared on the app with its flags (bound to state the command owns, which its run
// keeps alive), and run once the command line parsed to it.
struct Command {
  CLI::App* app = nullptr;
  CommonFlags* common = nullptr;  // the flags every browser command shares (workspace, --browser), if it takes them
  bool config_sets_env = false;   // its --config names the settings file for the whole process
  std::function<Result<int>(const Invocation&)> run;
};

Command exec_command(CLI::App& app) {
  struct State {
    CommonFlags flags;
    std::string code;
    bool as_json = false;
  };
  auto s = std::make_shared<State>();
  auto* c = app.add_subcommand("exec", "Run one JavaScript snippet against the browser and print its result");
  add_common(c, s->flags);
  c->add_flag("--json", s->as_json, "Print the result as JSON");
  c->add_option("code", s->code, "JavaScript (statements, top-level await; the last value or setFinal() is printed), or - for stdin")->required();
  c->footer("Example: ouro exec --url https://example.com 'await getText(activeTab, \"h1\")'");
  return {c, &s->flags, false, [s](const Invocation&) { return cmd_exec(s->flags, s->code, s->as_json); }};
}

Command do_command(CLI::App& app) {
  struct State {
    CommonFlags flags;
    std::string commands;
    bool as_json = false, dry_run = false;
  };
  auto s = std::make_shared<State>();
  auto* c = app.add_subcommand("do", "Run commands or a plain instruction on the page without a model: click, type, select, check, press, …");
  add_common(c, s->flags);
  c->add_flag("--json", s->as_json, "Print act()'s whole result as JSON");
  c->add_flag("--dry-run", s->dry_run, "Print the plan without touching the page");
  c->add_option("commands", s->commands,
                  "Commands, newline- or ;-separated (navigate URL; click TARGET; type \"TEXT\" into TARGET; select \"OPTION\" from TARGET; "
                  "check/uncheck TARGET; press KEY; scroll down|up|to TARGET; wait for TARGET|\"text\"|load; extract FIELDS from TARGET; "
                  "submit), or a plain sentence; - for stdin")
      ->required();
  c->footer("Examples: ouro do --url https://example.com 'Click the More information link'\n"
              "  OURO_SECRET_PW=… ouro do --url https://example.com/login --secret pw@example.com "
              "'type \"ada\" into Username; type secret:pw into Password; click Sign in'\n"
              "Exit status: 0 when every step did what it said, 1 otherwise (the failing step says why).");
  return {c, &s->flags, false, [s](const Invocation&) { return cmd_do(s->flags, s->commands, s->as_json, s->dry_run); }};
}

Command repl_command(CLI::App& app) {
  auto flags = std::make_shared<CommonFlags>();
  auto* c = app.add_subcommand("repl", "Interactive REPL with the browser API; state persists between inputs");
  add_common(c, *flags);
  return {c, flags.get(), false, [flags](const Invocation&) { return cmd_repl(*flags); }};
}

Command run_command(CLI::App& app) {
  struct State {
    CommonFlags flags;
    RunFlags rf;
  };
  auto s = std::make_shared<State>();
  auto* c = app.add_subcommand("run", "Give the agent a task: a model writes code in the REPL until it calls setFinal()");
  add_common(c, s->flags);
  c->add_option("task", s->rf.task, "What to do, in plain words (not with --resume: the run's own task goes on)");
  c->add_option("--provider", s->rf.settings.provider,
                   "anthropic | openai | openrouter | groq | nvidia | together | deepseek | ollama | lmstudio | vllm | llamacpp | "
                   "an OpenAI-compatible base URL | script:FILE (default: the settings file's, else that of ANTHROPIC_API_KEY / "
                   "OPENAI_API_KEY, else the one whose key `ouro auth set` stored first)");
  c->add_option("--model", s->rf.settings.model, "Primary model, for the main loop");
  c->add_option("--sub-model", s->rf.settings.sub_model, "Model for llm_query/llm_batch sub-calls (default: the provider's cheaper one)");
  c->add_option("--base-url", s->rf.settings.base_url, "Override the provider's API base URL");
  c->add_option("--max-tokens", s->rf.settings.max_tokens,
                   "Output tokens per model call (default: the model table's, e.g. 4096 for Claude, 16384 for kimi-k2-thinking; capped "
                   "at the model's maximum)");
  c->add_option("--temperature", s->rf.settings.temperature, "Sampling temperature 0–2 (default: the model's; not sent to models that refuse it)");
  c->add_option("--thinking", s->rf.settings.thinking,
                   "Extended thinking: a token budget (1024–200000) or off. Claude: thinking with that budget, streamed; OpenAI "
                   "reasoning models: reasoning_effort from it (≤8192 low, ≤32768 medium, more high)");
  c->add_option("--api-key", s->rf.settings.api_key, "API key (prefer the environment: ANTHROPIC_API_KEY, OPENAI_API_KEY or OURO_API_KEY)");
  c->add_option("--config", s->rf.settings.config_path, "Settings file (default ~/.config/ouroboros/config.json)");
  // --max-iterations, --context, --agent and the model parameters are the run's options: checked
  // with the others (runs/spec.h), in the same words as the API's and MCP's.
  c->add_option("--max-iterations", s->rf.max_iterations, "Iteration cap, 1 to 500; partial results are delivered when it is hit (default 25)");
  c->add_flag("--json", s->rf.as_json, "Print {runId, state, final, iterations, partial, usage, cost} as JSON");
  c->add_option("--trace", s->rf.trace, "Write every event as a JSON line to this file");
  c->add_option("--resume", s->rf.resume_id,
                   "Resume run ID after ouro stopped while it worked (killed, crashed, the machine restarted): env, history, usage "
                   "and tabs from its last checkpoint, going on from the next iteration")
      ->excludes(c->get_option("task"));
  c->add_option("--continue", s->rf.continue_id,
                   "Carry on the conversation of run ID (from the Command Center or an earlier ouro run): its env, and its earlier "
                   "tasks and answers in the prompt; the task is the follow-up");
  c->add_option("--ask-timeout", s->rf.ask_timeout_s, "Seconds askUser waits for your answer on the terminal (default 300)")
      ->check(CLI::Range(1, 86400));
  c->add_option("--context", s->rf.context,
                   "mine: work in the browser's own tabs and logins (the tab you are on is handed over; other tabs of yours are asked "
                   "about), default with --profile or --browser; clean: an isolated session without them")
      ->type_name("TEXT:{mine,clean}");
  c->add_option("--agent", s->rf.agent,
                   "rlm: the model writes JavaScript in the REPL (default); tools: it calls tools (observe, read, click, type, select, "
                   "press, scroll, navigate, extract, act, ask_user, finish) through native function calling, or a JSON answer")
      ->type_name("TEXT:{rlm,tools}");
  c->add_option("--save-script", s->rf.save_script, "Keep the run, when it delivers its final, as script NAME (ouro replay NAME)");
  c->add_flag("--no-remember", s->rf.no_remember,
                 "Do not remember this run's task and answer for later runs (memory across tasks; see ouro memory list)");
  c->add_option("--confirm-timeout", s->rf.confirm_timeout_s, "Seconds to wait for your answer about a sensitive action before denying it (default 60)")
      ->check(CLI::Range(1, 3600));
  c->footer("Example: ouro run \"List the five cheapest items\" --url http://127.0.0.1:8000/shop");
  return {c, &s->flags, true, [s, c](const Invocation&) {
            s->rf.max_iterations_given = c->get_option("--max-iterations")->count() > 0;
            return cmd_run(s->flags, s->rf);
          }};
}

Command eval_command(CLI::App& app) {
  struct State {
    CommonFlags flags;
    EvalFlags ef;
  };
  auto s = std::make_shared<State>();
  auto* c = app.add_subcommand("eval", "Run the evaluation suite (sites and tasks served on loopback, checked from the sites' state) against a model; "
                                           "a table, a JSON result and an HTML report");
  add_common(c, s->flags);
  c->get_option("--mode")->description(
      "autonomous (default here: the gate asks nothing it need not) or careful (it asks before writes); nobody answers, so every question is answered no and counted");
  c->add_option("--suite", s->ef.suite, "A suite folder (sites/, tasks/, models/; see --export-suite); default: the suite that ships with ouro");
  c->add_option("--only", s->ef.only, "Only the tasks whose id matches this pattern (shell globs: 'bank-*', '*+inject'); repeatable");
  c->add_option("--variants", s->ef.variants, "all (default), clean (without injections) or injected (only the injected variants)")
      ->type_name("TEXT:{all,clean,injected}");
  c->add_option("--repeat", s->ef.repeats, "Runs of each task (default 1)")->check(CLI::Range(1, 100));
  c->add_option("--concurrency", s->ef.concurrency, "Task runs at once, each with its own Chromium (default 2)")->check(CLI::Range(1, 16));
  c->add_option("--provider", s->ef.settings.provider,
                    "As for ouro run; script:@NAME uses the suite's scripted model NAME (perfect, useless, obedient), script:DIR a folder "
                    "with a script per task (ID.jsonl, else default.jsonl)");
  c->add_option("--model", s->ef.settings.model, "Primary model");
  c->add_option("--sub-model", s->ef.settings.sub_model, "Model for llm_query/llm_batch sub-calls");
  c->add_option("--base-url", s->ef.settings.base_url, "Override the provider's API base URL");
  c->add_option("--api-key", s->ef.settings.api_key, "API key (prefer the environment or ouro auth set)");
  c->add_option("--config", s->ef.settings.config_path, "Settings file (default ~/.config/ouroboros/config.json)");
  c->add_option("--out", s->ef.out, "Where to write result.json and report.html (default: <data dir>/eval/<when>-<model>/); with --compare or --report, the HTML file");
  c->add_option("--record", s->ef.record, "Keep every model exchange in this folder, one file per task run, for --replay");
  c->add_option("--replay", s->ef.replay, "Run the suite with no model, replaying what --record kept: the same result while ouro behaves the same");
  c->add_option("--task-timeout", s->ef.task_timeout_s, "Seconds one task run may take before it is cancelled (default 600)")->check(CLI::Range(5.0, 86400.0));
  c->add_flag("--list", s->ef.list, "List the tasks (with --only and --variants) and exit");
  c->add_option("--export-suite", s->ef.export_suite, "Write the shipped suite to this folder, to read or to start a suite of your own");
  c->add_option("--compare", s->ef.compare, "Compare two results (result.json files): an HTML page side by side (--out, default compare.html)")->expected(2);
  c->add_option("--report", s->ef.report, "Write a result's HTML report again (--out, default report.html beside it)");
  c->add_flag("--json", s->ef.as_json, "Print the summary as JSON instead of the table");
  c->footer("Examples:\n  ouro eval --provider anthropic --repeat 3\n  ouro eval --provider script:@perfect --only 'bank-*'\n"
                "  ouro eval --compare ~/.local/share/ouroboros/eval/A/result.json ~/.local/share/ouroboros/eval/B/result.json");
  return {c, &s->flags, true, [s](const Invocation&) { return cmd_eval(s->flags, std::move(s->ef)); }};
}

Command serve_command(CLI::App& app) {
  struct State {
    CommonFlags flags;
    int port = 7777;
    std::string listen;
    bool no_open = false;
    int confirm_timeout = 60;
  };
  auto s = std::make_shared<State>();
  auto* c = app.add_subcommand("serve", "The Command Center and the runs API on 127.0.0.1 (HTTP + WebSocket)");
  add_common(c, s->flags);
  c->add_option("--port", s->port, "Port on 127.0.0.1 (default 7777; 0 picks a free one)")->check(CLI::Range(0, 65535));
  c->add_flag("--no-open", s->no_open, "Do not open the Command Center in the browser");
  c->add_option("--listen", s->listen, "Listen on ADDR[:PORT] instead of 127.0.0.1 (e.g. 0.0.0.0:8765 or [::]:8765 behind a load balancer); "
                    "an address other than loopback needs OURO_API_TOKEN or OURO_API_TOKEN_FILE set")
      ->type_name("ADDR[:PORT]");
  c->add_option("--browser-pool", s->flags.browser_pool,
                    "A JSON file of browser endpoints for the runs: {\"endpoints\": [{\"url\": \"ws://…|http://host:port\", \"capacity\": 4}, …]} "
                    "(see docs/guides/pools-and-scaling.md)");
  c->add_option("--confirm-timeout", s->confirm_timeout, "Seconds a sensitive-action question waits for an answer before it counts as deny (default 60)")
      ->check(CLI::Range(1, 3600));
  return {c, &s->flags, false, [s](const Invocation& how) {
            if (how.plain) plain_browser(s->flags);
            return cmd_serve(s->flags, s->port, !s->no_open && s->flags.headed, s->confirm_timeout, s->listen);
          }};
}

Command mcp_command(CLI::App& app) {
  struct State {
    CommonFlags flags;
    llm::SettingsFlags settings;
    int max_iterations = 25;
  };
  auto s = std::make_shared<State>();
  auto* c = app.add_subcommand("mcp", "An MCP server on stdin/stdout for Claude, Cursor, VS Code and other agents: browser_exec, snapshot, act, tabs, screenshot, task");
  add_common(c, s->flags);
  c->add_option("--provider", s->settings.provider, "The model of browser_task (default: as `ouro run` resolves it; none: the MCP client's own model through sampling)");
  c->add_option("--model", s->settings.model, "browser_task's primary model");
  c->add_option("--sub-model", s->settings.sub_model, "browser_task's model for llm_query/llm_batch sub-calls");
  c->add_option("--base-url", s->settings.base_url, "Override the provider's API base URL");
  c->add_option("--api-key", s->settings.api_key, "API key (prefer the environment: ANTHROPIC_API_KEY, OPENAI_API_KEY or OURO_API_KEY)");
  c->add_option("--config", s->settings.config_path, "Settings file (default ~/.config/ouroboros/config.json)");
  c->add_option("--max-iterations", s->max_iterations, "Iterations of one browser_task (default 25)")->check(CLI::Range(1, 200));
  return {c, &s->flags, true, [s](const Invocation&) { return cmd_mcp_flags(s->flags, s->settings, s->max_iterations); }};
}

Command extension_command(CLI::App& app) {
  struct State {
    std::string out, data_dir;
  };
  auto s = std::make_shared<State>();
  auto* c = app.add_subcommand("extension", "Write ouro's Chrome extension (the side panel and the bridge to your tabs) to a folder, and say how to load it");
  c->add_option("--out", s->out, "The folder (default: <data dir>/extension)");
  c->add_option("--data-dir", s->data_dir, "Data directory (default: $OURO_DATA_DIR or ~/.local/share/ouroboros)");
  return {c, nullptr, false, [s](const Invocation&) -> Result<int> {
            std::string dir = !s->out.empty() ? s->out : (s->data_dir.empty() ? store::default_data_dir() : s->data_dir) + "/extension";
            std::cout << extension_instructions(TRY(write_extension(dir)));
            return 0;
          }};
}

Command doctor_command(CLI::App& app) {
  struct State {
    std::string data_dir;
    llm::SettingsFlags settings;
  };
  auto s = std::make_shared<State>();
  auto* c = app.add_subcommand("doctor", "Check Chromium, the display, the data directory, the profile lock and the model, and say how to fix what fails");
  c->add_option("--data-dir", s->data_dir, "The data directory to check (default: $OURO_DATA_DIR or ~/.local/share/ouroboros)");
  c->add_option("--provider", s->settings.provider, "The provider to test (default: as `ouro run` resolves it)");
  c->add_option("--model", s->settings.model, "The model to test");
  c->add_option("--base-url", s->settings.base_url, "The provider's base URL");
  c->add_option("--config", s->settings.config_path, "Settings file (default ~/.config/ouroboros/config.json)");
  return {c, nullptr, true, [s](const Invocation&) { return cmd_doctor(s->data_dir, s->settings); }};
}

Command paths_command(CLI::App& app) {
  struct State {
    std::string data_dir, workspace, config;
    bool as_json = false;
  };
  auto s = std::make_shared<State>();
  auto* c = app.add_subcommand("paths", "Where ouro keeps things: the settings file, the data directory, the database, the profile, the logs");
  c->add_option("--data-dir", s->data_dir, "Data directory (default: $OURO_DATA_DIR or ~/.local/share/ouroboros)");
  c->add_option("--workspace", s->workspace, "A workspace's paths (default: $OURO_WORKSPACE, else none)");
  c->add_option("--config", s->config, "Settings file (default: $OURO_CONFIG or ~/.config/ouroboros/config.json)");
  c->add_flag("--json", s->as_json, "Print them as JSON");
  return {c, nullptr, true,
          [s](const Invocation&) -> Result<int> { return cmd_paths(TRY(workspace_data_dir(s->data_dir, s->workspace)), s->config, s->as_json); }};
}

Command auth_command(CLI::App& app) {
  struct State {
    std::string provider, data_dir;
  };
  auto s = std::make_shared<State>();
  auto* auth = app.add_subcommand("auth", "API keys: in the OS keyring when one answers on the session bus, else in a 0600 file");
  auto* auth_set = auth->add_subcommand("set", "Store the provider's API key, read from standard input");
  auth_set->add_option("provider", s->provider, "anthropic, openai, openrouter, groq, nvidia, together, deepseek, or a base URL")->required();
  auto* auth_rm = auth->add_subcommand("rm", "Forget the provider's stored API key");
  auth_rm->add_option("provider", s->provider, "The provider")->required();
  auto* auth_status = auth->add_subcommand("status", "Where keys are kept, and where each provider's key comes from");
  for (auto* sub : {auth_set, auth_rm, auth_status})
    sub->add_option("--data-dir", s->data_dir, "Data directory of the file fallback (default: $OURO_DATA_DIR or ~/.local/share/ouroboros)");
  auth->require_subcommand(1);
  return {auth, nullptr, false,
          [s, auth_set, auth_rm](const Invocation&) { return cmd_auth(*auth_set ? "set" : *auth_rm ? "rm" : "status", s->provider, s->data_dir); }};
}

Command memory_command(CLI::App& app) {
  struct State {
    MemoryFlags mf;
    std::string workspace;
  };
  auto s = std::make_shared<State>();
  auto* mem = app.add_subcommand("memory", "Memories across tasks (what runs and remember() left): list, search, delete");
  auto* mem_list = mem->add_subcommand("list", "The most recently updated memories");
  auto* mem_search = mem->add_subcommand("search", "Memories for QUERY, best first: by meaning and words with embeddings set up, else by words (BM25)");
  mem_search->add_option("query", s->mf.query, "The words to look for")->required();
  mem_search->add_option("--tag", s->mf.tag, "Only memories with this tag");
  auto* mem_rm = mem->add_subcommand("rm", "Delete a memory");
  mem_rm->add_option("id", s->mf.query, "Its id, as list and search show it (#12 → 12)")->required();
  auto* mem_backfill = mem->add_subcommand("backfill", "Give every memory without one its vector (embeddings in the settings file)");
  for (auto* sub : {mem_list, mem_search, mem_rm, mem_backfill}) {
    sub->add_option("--data-dir", s->mf.data_dir, "Where ouro keeps its database (default: $OURO_DATA_DIR or ~/.local/share/ouroboros)");
    sub->add_option("--workspace", s->workspace, "The workspace whose memories these are (default: $OURO_WORKSPACE, else none)");
    if (sub != mem_rm && sub != mem_backfill) {
      sub->add_option("--limit", s->mf.limit, "How many to show (default 20; search: at most 50)")->check(CLI::Range(1, 1000));
      sub->add_flag("--json", s->mf.as_json, "Print the entries as JSON");
    }
  }
  mem->require_subcommand(1);
  return {mem, nullptr, false, [s, mem_search, mem_rm, mem_backfill](const Invocation&) -> Result<int> {
            s->mf.data_dir = TRY(workspace_data_dir(s->mf.data_dir, s->workspace));
            s->mf.action = *mem_search ? "search" : *mem_rm ? "rm" : *mem_backfill ? "backfill" : "list";
            return cmd_memory(s->mf);
          }};
}

// undo and redo: two commands over the same flags.
std::vector<Command> undo_commands(CLI::App& app) {
  struct State {
    UndoFlags flags;
    std::string workspace;
  };
  auto s = std::make_shared<State>();
  auto* undoc = app.add_subcommand("undo", "Revert what a conversation's last turn changed in ouro's own state (memory, store, goals, schedules, scripts)");
  auto* redoc = app.add_subcommand("redo", "Apply again the turn `ouro undo` reverted last");
  for (auto* sub : {undoc, redoc}) {
    sub->add_option("run", s->flags.run_id, "The conversation's run id (default: the one changed most recently)");
    sub->add_flag("--json", s->flags.as_json, "Print what was done as JSON");
    sub->add_option("--data-dir", s->flags.data_dir, "Where ouro keeps its database (default: $OURO_DATA_DIR or ~/.local/share/ouroboros)");
    sub->add_option("--workspace", s->workspace, "The workspace of the conversation (default: $OURO_WORKSPACE, else none)");
  }
  auto run = [s](bool redo) {
    return [s, redo](const Invocation&) -> Result<int> {
      s->flags.data_dir = TRY(workspace_data_dir(s->flags.data_dir, s->workspace));
      s->flags.redo = redo;
      return cmd_undo(s->flags);
    };
  };
  return {{undoc, nullptr, false, run(false)}, {redoc, nullptr, false, run(true)}};
}

Command replay_command(CLI::App& app) {
  struct State {
    CommonFlags flags;
    RunFlags rf;
    std::string name;
    int version = 0;
    std::vector<std::string> vars;
  };
  auto s = std::make_shared<State>();
  auto* c = app.add_subcommand("replay", "Run a saved script without a model: its steps in order, an ordinary run (events, gate, confirmations)");
  add_common(c, s->flags);
  c->add_option("name", s->name, "The script (ouro script list)")->required();
  c->add_option("--var", s->vars, "name=value: a parameter's value for this replay (repeatable; the others keep their defaults)")
      ->allow_extra_args(false);
  c->add_option("--version", s->version, "Which version of the script (default: the latest)")->check(CLI::Range(1, 1000000));
  c->add_option("--provider", s->rf.settings.provider,
                      "A model to take over where a step cannot heal (as ouro run's --provider, script:FILE included); without one the "
                      "replay stops there with the error");
  c->add_option("--model", s->rf.settings.model, "The model that takes over (default: the provider's)");
  c->add_option("--sub-model", s->rf.settings.sub_model, "Its model for llm_query/llm_batch");
  c->add_option("--base-url", s->rf.settings.base_url, "Override the provider's API base URL");
  c->add_flag("--json", s->rf.as_json, "Print {runId, state, final, iterations, partial, usage, cost} as JSON");
  c->add_option("--trace", s->rf.trace, "Write every event as a JSON line to this file");
  c->add_option("--config", s->rf.settings.config_path, "Settings file (default ~/.config/ouroboros/config.json)");
  c->add_option("--context", s->rf.context, "mine or clean, as for ouro run")->type_name("TEXT:{mine,clean}");
  c->add_option("--confirm-timeout", s->rf.confirm_timeout_s, "Seconds to wait for your answer about a sensitive action before denying it (default 60)")
      ->check(CLI::Range(1, 3600));
  c->footer("Example: ouro replay signup --var name=Grace --url http://127.0.0.1:8000/form\n"
                  "Exit status: 0 with the final on stdout, 1 when a step failed (the error names the step) or the run stopped short.");
  return {c, &s->flags, true, [s](const Invocation&) -> Result<int> {
            auto loaded = TRY(load_replay(s->flags.data_dir, s->name, s->version, s->vars));
            s->rf.replay = loaded.provider;
            s->rf.recorded_ms = loaded.recorded_ms;
            s->rf.task = loaded.provider->task();
            s->rf.max_iterations = std::min(500, loaded.provider->max_iterations());
            s->rf.max_iterations_given = true;
            if (s->flags.urls.empty()) s->flags.urls = loaded.provider->script().urls;
            return cmd_run(s->flags, s->rf);
          }};
}

// A command of subcommands over data a workspace keeps apart (script's, schedule's): `declare`
// adds it with its flags, each subcommand takes --workspace (the saved things are `whose`), and
// `run` gets the workspace's data directory.
template <class Flags, class Declare, class Run>
Command workspace_command(CLI::App& app, Declare declare, Run run, const std::string& whose) {
  struct State {
    Flags flags;
    std::string workspace;
  };
  auto s = std::make_shared<State>();
  auto* c = declare(app, s->flags);
  for (auto* sub : c->get_subcommands({}))
    sub->add_option("--workspace", s->workspace, "The workspace whose " + whose + " these are (default: $OURO_WORKSPACE, else none)");
  return {c, nullptr, false, [s, c, run](const Invocation&) -> Result<int> {
            s->flags.data_dir = TRY(workspace_data_dir(s->flags.data_dir, s->workspace));
            return run(*c, s->flags);
          }};
}

Command script_command(CLI::App& app) {
  return workspace_command<ScriptFlags>(app, add_script_command, [](CLI::App& c, ScriptFlags& f) { return cmd_script(c, f); }, "scripts");
}

Command schedule_command(CLI::App& app) {
  return workspace_command<ScheduleFlags>(app, add_schedule_command, [](CLI::App& c, ScheduleFlags& f) { return cmd_schedule(c, f); },
                                          "saved tasks");
}

Command help_command(CLI::App& app) {
  auto markdown = std::make_shared<bool>(false);
  auto* help = app.add_subcommand("help", "Reference documentation");
  auto* api = help->add_subcommand("api", "Print the REPL API reference (the same text the model is given)");
  api->add_flag("--markdown", *markdown, "Markdown, as in docs/reference/api.md");
  help->require_subcommand(1);
  return {help, nullptr, false, [markdown](const Invocation&) -> Result<int> {
            std::cout << (*markdown ? actions::reference_markdown() : actions::reference_text());
            return 0;
          }};
}

// Every command, in the order `ouro --help` lists them.
std::vector<Command> declare_commands(CLI::App& app) {
  std::vector<Command> all = {exec_command(app),  do_command(app),        repl_command(app),   run_command(app),
                              eval_command(app),  serve_command(app),     mcp_command(app),    extension_command(app),
                              doctor_command(app), paths_command(app),    auth_command(app),   memory_command(app)};
  for (auto& c : undo_commands(app)) all.push_back(std::move(c));
  for (auto make : {replay_command, script_command, schedule_command, help_command}) all.push_back(make(app));
  return all;
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

  const std::vector<Command> commands = declare_commands(app);

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
  for (const Command& c : commands)
    if (*c.app && c.config_sets_env)
      if (CLI::Option* o = c.app->get_option_no_throw("--config"); o && o->count() > 0 && !o->as<std::string>().empty())
        ::setenv("OURO_CONFIG", o->as<std::string>().c_str(), 1);
  // --workspace / $OURO_WORKSPACE: the command's data directory becomes the workspace's.
  for (const Command& c : commands)
    if (*c.app && c.common) {
      TRY(take_browsers(*c.common, c.app->get_name() == "serve"));
      TRY(enter_workspace(*c.common));
    }
  for (const Command& c : commands)
    if (*c.app) return c.run(Invocation{plain});
  // Plain `ouro`: a real browser with the Command Center in it.
  CommonFlags plain_flags;
  TRY(enter_workspace(plain_flags));
  plain_browser(plain_flags);
  return cmd_serve(plain_flags, 7777, plain_flags.headed);
}

}  // namespace ouro::cli
