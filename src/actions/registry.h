// The capability registry (docs/design/architecture.md, principle 1): every REPL capability is declared once —
// name, parameters, return shape, one-line description, risk class, where it runs and, for host
// capabilities, its implementation on the browser kernel. The REPL bindings, `ouro help api`, the
// model's API reference and docs/reference/api.md are all generated from this one table.
#pragma once

#include "actions/fit.h"
#include "actions/schema.h"
#include "base/json.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ouro::browser { class Browser; }
namespace ouro::store { class Database; }
namespace ouro::host { struct Context; }

namespace ouro::actions {

enum class Risk { Read, Navigate, Act, Storage, Local };
enum class Where { Host, Worker };
// Tool permissions: auto runs, ask needs the user's yes (through the run's
// confirmation channel; a person at `ouro exec` is the user), deny is an error the model sees.
enum class Permission { Auto, Ask, Deny };  // implemented in ouro (over CDP) or inside the REPL worker

struct Param {
  Param(std::string n, std::string t, bool opt = false) : name(std::move(n)), type(std::move(t)), optional(opt) {}
  std::string name;
  std::string type;  // TypeScript-like, see schema.h: "string", "{ double?: boolean }", "'up'|'down'", "string[]"
  bool optional = false;
  SchemaPtr schema;  // parsed from `type` when the registry is built
};

using Implementation = std::function<Result<json>(host::Context&, const json& args)>;

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
  Permission permission = Permission::Auto;  // the default; settings and runs may override it
  // Tool-calling mode: the tool's name when the capability is one of the model's tools.
  // Its parameters are the capability's, a leading tabId left out (the run's active tab).
  std::string tool = {};
  // Puts the run's data or choices into a page (every Act, and the Read or Storage calls that
  // change what a page holds or does: hover, scroll, setCookie, clearStorage, interceptRequests).
  // From the first such call on, the egress gate holds every tab of the run to its allowed sites
  // (egress/gate.h).
  bool changes_page = false;
  // Parameters whose text the call writes into a page or sends to a site (type's text, fill's
  // values, a navigation's URL, code run in the page): before it acts, each value is traced to the
  // sites whose pages hold it, and one from a site other than where it is written is checked by
  // the run's policy (egress/writes.h).
  std::vector<std::string> writes = {};
  // Where its answer comes from, for tracing values (egress/writes.h): a call on a tab answers
  // with that page's text; these answer otherwise.
  // ByItself: the implementation notes each part with the frame it came from.
  enum class Answers { AsItsTab, OverTheRunsData, TheUsersWords, ByItself };
  Answers answers = Answers::AsItsTab;
};

// Everything the REPL offers, in reference order.
const std::vector<Capability>& registry();
const Capability* find(std::string_view name);
// Names of the host capabilities (the worker binds these to host calls).
std::vector<std::string> host_function_names();

std::string_view permission_name(Permission p);
Result<Permission> parse_permission(std::string_view text);
// {"setCookie": "deny", …} (settings, a run's options) → overrides for host::Context; InvalidArgument
// names an unknown capability or level.
Result<std::map<std::string, int>> permission_overrides(const std::map<std::string, std::string>& levels);

// "click(tabId, selector, options?) → { element: string }"
std::string signature(const Capability& c);
// The API reference as plain text (system prompt, `ouro help api`) or Markdown (docs/reference/api.md).
std::string reference_text();
std::string reference_markdown();

// Checks args against c.params: count, types, nested fields and ranges. A mismatch is an
// InvalidArgument error whose details are {"name": "TypeError"} and whose message names the
// call, the parameter path and what was expected:
// "click: options.double must be a boolean, got number 1".
Result<void> check_args(const Capability& c, const json& args);

// How a capability's result is cut to the cap: arrays by items, trees by pruning, objects by
// fields (from its declared return type).
Shape result_shape(const Capability& c);

// Whether calling this capability on a tab acts on it (and so needs the tab held in a shared
// context: egress/holds.h).
bool acts_on_tab(const Capability& c);

// The parameter's type as the API reference shows it (ranges left out).
std::string display_type(const Param& p);
// JSON Schema of a capability's parameters as one object (tool definitions).
json params_json_schema(const Capability& c);
// The tools of tool-calling mode, in registry order: [{name, description, parameters, capability}].
json tool_definitions();
const Capability* find_tool(std::string_view tool_name);
// A tool call's arguments (an object by parameter name) → the capability's argument list, the
// tab first when it takes one. InvalidArgument names unknown or missing arguments.
Result<json> tool_args(const Capability& c, const json& arguments, const std::string& tab);

}  // namespace ouro::actions
