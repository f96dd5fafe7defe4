// A model provider whose model is the MCP client's own (MCP specification 2025-06-18,
// client/sampling): every completion of a browser_task — the main loop's and llm_query /
// llm_batch sub-calls' — becomes a sampling/createMessage request to the client, sent through the
// tool call that runs the task and answered by the client (which may show it to its user first).
// It needs no API key; the client chooses the model (our model names travel as hints).
#pragma once

#include "llm/provider.h"
#include "mcp/protocol.h"

#include <chrono>

namespace ouro::mcp {

class SamplingProvider final : public llm::Provider {
 public:
  struct Options {
    // Per request: a client may ask its user before it answers.
    std::chrono::milliseconds timeout = std::chrono::minutes(5);
    size_t max_text_bytes = 1u << 20;  // a longer answer is cut there, with a warning
    int default_max_tokens = 4096;     // maxTokens is required; when the run sets none
  };
  // `ctx` is the tool call the task runs in; it outlives the provider. Several complete() calls
  // may run at once (llm_batch); each is its own request to the client.
  SamplingProvider(CallContext& ctx, Options options) : m_ctx(ctx), m_options(options) {}

  // Blocks until the client answers, the deadline passes (DeadlineExceeded), the call or
  // `cancel` is cancelled (Cancelled) or the client goes away (Unavailable). The answer's text is
  // delivered as one delta.
  Result<llm::Response> complete(const llm::Request& request, const std::function<void(const llm::Delta&)>& on_delta,
                                 const llm::CancelToken& cancel) override;
  std::string name() const override { return "mcp-sampling"; }

 private:
  CallContext& m_ctx;
  Options m_options;
};

// Whether a client's initialize capabilities offer sampling.
bool offers_sampling(const json& client_capabilities);

// The sampling/createMessage params for a request: systemPrompt, messages (an image of a message
// is a message of its own before its text: a sampling message holds one content block),
// maxTokens, temperature, modelPreferences (the model as a hint; sub-calls prefer speed and cost,
// the main loop intelligence), includeContext "none". Fails for a request with native tools,
// which sampling in this revision cannot carry. Pure.
Result<json> sampling_params(const llm::Request& request, int default_max_tokens);
// A CreateMessageResult as a Response: its text (a text block, or the text blocks of an array),
// model and stop reason; an answer with no text is an error that names what came. Pure.
Result<llm::Response> sampling_response(const json& result, size_t max_text_bytes);

}  // namespace ouro::mcp
