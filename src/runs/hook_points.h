// Where a run asks the settings file's deciding hooks (hooks/hooks.h, docs/guides/hooks.md):
// before each host call (before_tool_call), around every request to the model (before_outbound,
// transform_response) and, in the lifecycle, as a task or message arrives and as the session
// starts and ends. Each decision a hook made is a `hook` event of the run:
// {point, decision: allow|deny|modify, by?, reason?, hooks: [{hook, decision | error, reason?, ms}]}.
#pragma once

#include "base/json.h"
#include "hooks/hooks.h"
#include "llm/provider.h"

#include <functional>
#include <memory>
#include <string>

namespace ouro::runs {

// Records one event of the run (the lifecycle's event log).
using RecordEvent = std::function<void(const std::string& type, const json& data)>;

// Asks the point's hooks about `data`; records the decision when a hook took part. Deny is
// PermissionDenied with the hook's reason, saying which hook; otherwise the data to go on with.
Result<json> ask_hooks(hooks::Pipeline& hooks, hooks::Point point, const std::string& run_id, const json& data, const RecordEvent& record,
                       const std::string& what);

// before_tool_call for one host call: {name, args} to the hooks; the arguments to go on with (a
// modify must answer data.args as an array).
Result<json> decide_tool_call(hooks::Pipeline& hooks, const std::string& run_id, const RecordEvent& record, const std::string& function,
                              const json& args);

// The run's model behind its before_outbound hooks (each request: {purpose, model, system,
// messages: [{role, content}]}, of which a modify may change system and the messages' content)
// and its transform_response hooks (each reply: {purpose, model, text}; a modify changes the text
// the run parses — what was streamed to the screen stays as the model wrote it).
std::unique_ptr<llm::Provider> hooked_provider(std::unique_ptr<llm::Provider> inner, std::shared_ptr<hooks::Pipeline> hooks, std::string run_id,
                                               RecordEvent record);

}  // namespace ouro::runs
