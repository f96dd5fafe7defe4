// `ouro mcp`: the MCP server over stdio (src/mcp/). stdout carries the protocol and nothing else:
// everything else the process or its children would print there goes to stderr.
#pragma once

#include "base/error.h"
#include "cli/flags.h"
#include "llm/settings.h"
#include "mcp/http.h"
#include "mcp/server.h"
#include "session/session.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ouro::cli {

struct McpSetup {
  session::SessionOptions session;  // the connection's session (browser_exec, snapshot, act, …)
  std::vector<std::string> urls;    // opened before the first message is read
  std::optional<mcp::TaskSupport> task;  // browser_task, when a model is configured
};

// Serves until the client closes standard input. Fails when the browser cannot start.
Result<int> cmd_mcp(McpSetup setup);

// /mcp of `ouro serve`: each MCP session gets a session on `runtime` in a browser context of its
// own (options from `session_options`, confirmations refused as in `ouro mcp`) and browser_task
// as `task` makes it (called per session, so a key configured meanwhile is used).
std::unique_ptr<mcp::HttpEndpoint> make_mcp_http(std::shared_ptr<session::Runtime> runtime,
                                                 std::function<Result<session::SessionOptions>()> session_options,
                                                 std::function<mcp::TaskSupport()> task);

// What MCP's browser_task runs start from: these flags' session limits, the settings file (its
// safety settings and hooks, read when a task starts) and the model the flags resolve, if any.
mcp::TaskSupport task_support(const CommonFlags& flags, const llm::SettingsFlags& sf);
// `ouro mcp` from its flags.
Result<int> cmd_mcp_flags(const CommonFlags& flags, llm::SettingsFlags sf, int max_iterations);

}  // namespace ouro::cli
