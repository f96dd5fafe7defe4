// The model table: one declaration per model family says what its API accepts — context
// window, default and maximum output tokens, whether temperature/top_p are taken, how reasoning is
// requested and streamed, vision, native tool calling — and what it costs. Every request body is
// built from it (request_body), with the user's overrides (ModelParams: flags, Settings, the runs
// API) checked against it. A model the table does not know gets safe defaults for its wire.
#pragma once

#include "base/json.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ouro::llm {

struct Request;

// How a family thinks out loud.
enum class Reasoning {
  None,
  AnthropicThinking,  // "thinking": {type: enabled, budget_tokens}; thinking_delta events
  OpenAIEffort,       // o-series / gpt-5: max_completion_tokens, reasoning_effort; reasoning not streamed
  ReasoningContent,   // DeepSeek-R / kimi-k2-thinking style: always on, delta.reasoning_content
};

// USD per million tokens.
struct Prices {
  double input = 0, output = 0, cache_write = 0, cache_read = 0;
};

struct ModelFamily {
  std::string prefix;      // model ids that start with this (after an optional "vendor/")
  std::string wire;        // "anthropic" | "openai"
  int context_window = 0;  // tokens
  int default_output = 0, max_output = 0;
  bool temperature = true, top_p = true;          // accepted in the request
  std::optional<double> default_temperature, default_top_p;
  Reasoning reasoning = Reasoning::None;
  int default_thinking = 0;  // AnthropicThinking: budget when not overridden (0 = off)
  bool vision = false, tools = false;
  std::optional<Prices> prices;
  json to_json() const;
};

// The user's overrides for one run (flags, Settings, the runs API); unset = the table's.
struct ModelParams {
  std::optional<int> max_tokens;
  std::optional<double> temperature;
  std::optional<int> thinking;  // budget in tokens; 0 = off
  json to_json() const;
};

// The family of a model id on a wire ("anthropic"/"openai"): the longest matching prefix, else
// the wire's safe default.
ModelFamily model_family(std::string_view model, std::string_view wire);
const std::vector<ModelFamily>& model_families();

// Checks overrides against the limits every family shares; the message names the bad value.
Result<ModelParams> parse_model_params(const json& j, const std::string& where);
// "--thinking 8000" / "off".
Result<int> parse_thinking(const std::string& text);

// The JSON body of a streaming request on the wire, from the table and the request's overrides.
json request_body(std::string_view wire, const Request& req);

}  // namespace ouro::llm
