#include "cli/mcp.h"

#include "base/settings_file.h"

#include "hooks/hooks.h"
#include "llm/settings.h"
#include "runs/lifecycle.h"
#include "safety/settings.h"
#include "store/database.h"

#include <iostream>

#include "actions/host.h"

#include <spdlog/spdlog.h>

#include <csignal>
#include <fcntl.h>
#include <unistd.h>

namespace ouro::cli {

namespace {

// As `ouro exec` with --allow-domain/--mode, but with no one at a terminal to ask: what the gate
// or a sensitive action would ask about is refused, and the refusal is the tool's error.
void refuse_confirmations(session::Session& s) {
  auto hooks = std::make_shared<host::Context::Hooks>();
  hooks->confirm = [](const json& req) {
    spdlog::warn("mcp: refused (no one to confirm it over MCP): {} {}", get_str(req, "action"), get_str(req, "url", get_str(req, "request")));
    return false;
  };
  hooks->on_gate = [](const json& d) {
    if (get_str(d, "decision") == "deny") spdlog::warn("mcp: gate refused {} {} — {}", get_str(d, "method"), get_str(d, "url"), get_str(d, "reason"));
  };
  s.host().context().set_hooks(std::move(hooks));
}

mcp::Protocol::Info server_info() {
  mcp::Protocol::Info info;
  info.version = "0.1.0";
  info.instructions =
      "ouro is a browser you drive with JavaScript. Page data stays in the REPL: browser_exec returns summaries, so keep values in "
      "variables and read parts. browser_snapshot lists what can be done on a page with refs (e12) that every selector accepts; "
      "browser_act runs plain commands ('click the Sign in button').";
  return info;
}

}  // namespace

std::unique_ptr<mcp::HttpEndpoint> make_mcp_http(std::shared_ptr<session::Runtime> runtime,
                                                 std::function<Result<session::SessionOptions>()> session_options,
                                                 std::function<mcp::TaskSupport()> task) {
  auto factory = [runtime, session_options, task]() -> Result<std::unique_ptr<mcp::Tools>> {
    auto options = TRY(session_options());
    options.isolated = true;  // each MCP session's cookies and storage are its own
    auto s = TRY(session::Session::attach(runtime, std::move(options)));
    refuse_confirmations(*s);
    return std::unique_ptr<mcp::Tools>(TRY(mcp::BrowserTools::create(std::move(s), task())));
  };
  return std::make_unique<mcp::HttpEndpoint>(std::move(factory), server_info(), mcp::HttpEndpoint::Options{});
}

Result<int> cmd_mcp(McpSetup setup) {
  // stdio transport: "The server MUST NOT write anything to its stdout that is not a valid MCP
  // message." The protocol gets a private copy of stdout (not inherited by Chromium or the REPL
  // worker), and fd 1 becomes stderr for everyone else.
  int out = fcntl(1, F_DUPFD_CLOEXEC, 3);
  if (out < 0) return errorf(Code::Internal, "mcp: cannot duplicate standard output: {}", std::strerror(errno));
  if (dup2(2, 1) < 0) return errorf(Code::Internal, "mcp: cannot redirect standard output: {}", std::strerror(errno));
  std::signal(SIGPIPE, SIG_IGN);  // a client that went away is a failed write, not a killed server

  bool gated = static_cast<bool>(setup.session.gate);
  auto s = TRY(session::Session::start(std::move(setup.session)));
  if (gated) refuse_confirmations(*s);
  TRY(s->open_urls(setup.urls));
  auto tools = TRY(mcp::BrowserTools::create(std::move(s), std::move(setup.task)));
  mcp::Protocol::Info info = server_info();
  spdlog::info("mcp: serving on stdio");
  mcp::serve_stdio(*tools, info, 0, out);
  close(out);
  return 0;
}

// What MCP's browser_task runs start from: these flags' session limits, the settings file (its
// safety settings and hooks, read when a task starts) and the model the flags resolve, if any.
mcp::TaskSupport task_support(const CommonFlags& flags, const llm::SettingsFlags& sf) {
  mcp::TaskSupport task;
  task.setup = [flags, sf]() -> Result<runs::Setup> {
    runs::Setup setup;
    // The settings file, read once for the task: its safety settings, its hooks and its model.
    const SettingsFile settings_file = TRY(read_settings_file(config_path_of(flags)));
    setup.file = TRY(safety::safety_settings_from(settings_file.data, settings_file.where()));
    setup.hooks = hooks::Pipeline::create(TRY(hooks::hooks_config_from(settings_file.data, settings_file.where())));
    CommonFlags f = flags;
    setup.base = TRY(session_options(f, {}, false, {}, &setup.file));
    // The flags' --allow-domain and --mode hold for every task (a task's options add to them).
    setup.file.allowed_domains.insert(setup.file.allowed_domains.end(), flags.allow_domains.begin(), flags.allow_domains.end());
    if (!flags.mode.empty()) setup.file.mode = TRY(safety::parse_gate_mode(flags.mode));
    setup.model_flags = sf;
    setup.model_flags.file = settings_file.data;
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

}  // namespace ouro::cli
