#include "cli/mcp.h"

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

}  // namespace ouro::cli
