// The capability registry (ARCHITECTURE principle 1): every REPL capability is declared once —
// name, parameters, return shape, one-line description, risk class, where it runs and, for host
// capabilities, its implementation on the browser kernel. The REPL bindings, `ouro help api`, the
// model's API reference and docs/API.md are all generated from this one table.
#pragma once

#include "base/json.h"

#include <functional>
#include <string>
#include <vector>

namespace ouro::browser { class Browser; }
namespace ouro::store { class Database; }

namespace ouro::actions {

enum class Risk { Read, Navigate, Act, Storage, Local };
enum class Where { Host, Worker };  // implemented in ouro (over CDP) or inside the REPL worker

struct Param {
  std::string name;
  std::string type;  // "string" | "number" | "object" | "array" | "any" | "function" | unions "string|object"
  bool optional = false;
};

struct Context;
using Implementation = std::function<Result<json>(Context&, const json& args)>;

struct Capability {
  std::string name;
  std::string group;         // section of the reference, e.g. "Tab Management"
  std::vector<Param> params;
  std::string returns;       // e.g. "Array<{ text: string, href: string }>"
  std::string doc;           // one line
  Risk risk = Risk::Read;
  Where where = Where::Host;
  bool property = false;     // `tabs`, `activeTab`, `env`: read as values, not called
  Implementation impl;       // Host capabilities only
  bool internal = false;     // plumbing between the REPL prelude and ouro: not in the reference
};

// Everything the REPL offers, in reference order.
const std::vector<Capability>& registry();
const Capability* find(std::string_view name);
// Names of the host capabilities (the worker binds these to host calls).
std::vector<std::string> host_function_names();

// "click(tabId, selector, options?) → { element: string }"
std::string signature(const Capability& c);
// The API reference as plain text (system prompt, `ouro help api`) or Markdown (docs/API.md).
std::string reference_text();
std::string reference_markdown();

// Checks args against c.params: count and types. The message names the call and what is wrong.
Result<void> check_args(const Capability& c, const json& args);

}  // namespace ouro::actions
