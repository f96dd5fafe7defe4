// `ouro mcp`: the MCP server's tools over one session (a browser context, its host and its REPL,
// kept for the connection), and the stdio loop that carries the protocol (protocol.h).
//
// Tools: browser_exec (REPL code; the value's metadata summary and a bounded preview, state kept
// between calls), and from the capability registry — their descriptions and JSON Schemas are the
// registry's — browser_snapshot (`snapshot`), browser_act (`act`), browser_screenshot
// (`screenshot`, as image content) and browser_tabs (`tabs`); browser_task (a whole run,
// agent::Run, in a session of its own), always listed: its model is the configured one (an API
// key), else the client's own through MCP sampling when the client offers it, else the call is a
// tool error saying how to get one. Every call goes through
// the session's host: the registry's argument checks, the permissions and, when the session has
// one, the egress gate. Nothing here writes to stdout but the protocol.
#pragma once

#include "base/json.h"
#include "llm/settings.h"
#include "mcp/protocol.h"
#include "runs/lifecycle.h"
#include "session/session.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ouro::mcp {

struct TaskSupport {
  // What a task's run starts from (runs/lifecycle.h): the face's model flags, the settings file's
  // safety settings and hooks, the base options of its session (the gate is the run's own).
  // browser_task fills in the database, the event log and the source (the connection's browser).
  std::function<Result<runs::Setup>()> setup;
  // Why no model resolved (said in browser_task's error when the client cannot sample either).
  std::string no_model_reason;
  int max_iterations = 25;
};

class BrowserTools final : public Tools {
 public:
  // `session` is the connection's (null only in tests: then list() and argument errors alone
  // work); `task` runs browser_task (none: browser_task answers an error). Confirmations the gate or
  // a sensitive action would ask for are denied (an MCP client has no channel for them here).
  static Result<std::unique_ptr<BrowserTools>> create(std::unique_ptr<session::Session> session, std::optional<TaskSupport> task);
  ~BrowserTools() override;

  json list() override;
  json call(const std::string& name, const json& arguments, CallContext& ctx) override;
  // A browser_task cut short from here on is interrupted (resumable), not cancelled.
  void ending() override;

 private:
  BrowserTools() = default;
  struct Parts;
  std::unique_ptr<Parts> m;
};

// Reads messages from `in_fd` until end of file and writes answers to `out_fd`, one line each
// (one write in flight: a mutex). Returns when the input ends; calls still running are cancelled
// and waited for (10 s, then for their own deadlines).
void serve_stdio(Tools& tools, const Protocol::Info& info, int in_fd, int out_fd);

}  // namespace ouro::mcp
