// Implementations of the host capabilities, one function per capability (internal to actions).
#pragma once

#include "host/context.h"
#include "actions/registry.h"
#include "base/json.h"
#include "perception/reads.h"

namespace ouro::actions::impl {

using host::Context;

#define OURO_CAP(name) Result<json> name(Context& ctx, const json& args)
// Tabs
OURO_CAP(open_tab); OURO_CAP(close_tab); OURO_CAP(navigate); OURO_CAP(switch_tab); OURO_CAP(wait_for_load);
// DOM introspection
OURO_CAP(exec_in_tab); OURO_CAP(get_dom); OURO_CAP(get_text); OURO_CAP(get_links); OURO_CAP(get_inputs);
OURO_CAP(query_selector); OURO_CAP(query_selector_all); OURO_CAP(get_accessibility_tree); OURO_CAP(screenshot);
// Actions
OURO_CAP(click); OURO_CAP(type); OURO_CAP(fill); OURO_CAP(scroll); OURO_CAP(key_press); OURO_CAP(hover); OURO_CAP(select);
OURO_CAP(handle_dialog); OURO_CAP(dismiss_overlays);
// Session and storage
OURO_CAP(get_cookies); OURO_CAP(set_cookie); OURO_CAP(get_local_storage); OURO_CAP(get_session_storage); OURO_CAP(clear_storage);
// Network, console
OURO_CAP(get_recent_requests); OURO_CAP(get_response_body); OURO_CAP(intercept_requests);
OURO_CAP(get_console_log); OURO_CAP(get_errors);
// Page affordances (affordances.cpp)
OURO_CAP(snapshot); OURO_CAP(details); OURO_CAP(find_elements); OURO_CAP(extract);
// How this host reads pages (perception/reads.h): its browser, its exec timeout.
perception::Reader reader(const Context& ctx);
// Reads through the page engine's function `fn` (Browser::call) with `args`, in the frame the
// selector addresses, failing clearly when the selector matched nothing (perception::read).
Result<json> read_helper(Context& ctx, const std::string& tab, const char* fn, json args, const std::string& what, const std::string& selector);
// What a tool-calling model reads of a page (observe.cpp)
OURO_CAP(observe); OURO_CAP(read_text);
// The run's goals (goals.cpp): addGoal, updateGoal, listGoals through the run's hook.
OURO_CAP(add_goal); OURO_CAP(update_goal); OURO_CAP(list_goals);
// Page tools, WebMCP (page_tools.cpp)
OURO_CAP(page_tools); OURO_CAP(call_page_tool);
// Files (files.cpp)
OURO_CAP(get_downloads); OURO_CAP(wait_for_download); OURO_CAP(upload);
// Utilities
OURO_CAP(store); OURO_CAP(retrieve);
// Memory across tasks (memory.cpp)
OURO_CAP(remember); OURO_CAP(recall); OURO_CAP(forget);
// Schedules a run leaves (schedules.cpp)
OURO_CAP(add_schedule); OURO_CAP(change_schedule); OURO_CAP(remove_schedule); OURO_CAP(list_schedules);
// Asking the user, answered by the run's channel (actions/ask.cpp)
OURO_CAP(ask_user);
// Recursive model calls, answered by the agent running the REPL
OURO_CAP(llm_query); OURO_CAP(llm_batch);
// Internal: the REPL's answer for a request paused for an interceptRequests handler.
OURO_CAP(resolve_intercept);
// The act() of the command language (act.cpp): commands or a plain sentence, run step by step.
OURO_CAP(act);
// Skills over the snapshot (skills.cpp)
OURO_CAP(login); OURO_CAP(search); OURO_CAP(fill_form); OURO_CAP(paginate); OURO_CAP(navigate_by_menu);
// Beam search for a page where a goal holds (explore.cpp)
OURO_CAP(explore);
#undef OURO_CAP

// A capability's permission level in this context (settings, the run's options): auto passes,
// deny is an error, ask asks through the run's confirmation channel. Host checks it for every
// call; act() for each capability a command uses.
Result<void> permit(Context& ctx, const Capability& cap, const json& args);
// A capability called from another one (act, the skills): its permission, then its implementation.
Result<json> call_capability(Context& ctx, const char* name, json args);

// A request paused by the Fetch domain (network thread): hands it to the matching handler.
void on_request_paused(Context& ctx, const std::string& tab, const json& params);

// remember()/recall() over a database (null: none open), arguments as the registry checked them;
// owner is the host's ("run r…" makes the entry the run's). Exposed for unit tests.
// `sources`: the sites the text came from (docs/design/provenance.md), kept with the entry.
// ctx (may be null): the embeddings to rank with, and the run that hears memory_stored events.
Result<json> memory_remember(store::Database* db, const std::string& owner, const json& args, std::vector<std::string> sources = {},
                             const Context* ctx = nullptr);
Result<json> memory_recall(store::Database* db, const json& args, const Context* ctx = nullptr);

// Shared by the implementations.
std::string arg_string(const json& args, size_t i);
// What the run hands to a record that outlives it (the key-value store, memory): the run's
// secrets and their encodings become "[SECRET:name]" (safety/secrets.h), then the redactor's
// patterns (safety/redact.h) apply — as in every other record of the run.
json scrubbed_for_storage(const host::Context& ctx, const json& value);
// A value read back from the store or memory, masked for every run's secrets (their digests)
// and this run's.
json scrubbed_on_reading(const host::Context& ctx, json value);
}  // namespace ouro::actions::impl
