// Model providers: one streaming, cancellable call per request. Implementations: Anthropic's
// Messages API, OpenAI-compatible Chat Completions (any base URL), and a scripted provider that
// replays responses from a file. Deltas are delivered as they arrive; the final Response carries
// the whole text, usage and cost.
#pragma once

#include "base/json.h"
#include "llm/models.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ouro::llm {

using namespace std::chrono_literals;

// An image for a vision model, base64 with its media type (image/png, image/jpeg, image/gif,
// image/webp): the provider's image content block.
struct Image {
  std::string media_type;
  std::string data;
};

struct Message {
  std::string role;  // "user" | "assistant"
  std::string content;
  std::vector<Image> images;  // before the text, for sub-calls to vision models
  // Where content's stable blocks end (ascending offsets): the part before the last one is the
  // same from call to call, so Anthropic requests send each block on its own with a cache
  // breakpoint after the last (a later call finds the earlier entry at a block boundary);
  // OpenAI-style servers cache any repeated prefix by themselves.
  std::vector<size_t> cache_blocks = {};
};

// "data:image/png;base64,…" (what screenshot() returns) → an Image; the error names what is wrong.
Result<Image> image_from_data_url(std::string_view url);

enum class Purpose { Main, Sub };

// A function the model may call (native function calling: OpenAI `tools`, Anthropic `tools`).
struct ToolSpec {
  std::string name;
  std::string description;
  json parameters;  // a JSON Schema object
};

// A call the model made: streamed arguments joined and parsed (arguments is null and
// raw_arguments says what came when they are not JSON).
struct ToolCall {
  std::string id;
  std::string name;
  json arguments;
  std::string raw_arguments;
};

struct Request {
  std::string model;
  std::string system;
  std::vector<Message> messages;
  ModelParams params;               // overrides of the model table (llm/models.h)
  Purpose purpose = Purpose::Main;  // the scripted provider answers sub-calls from their own queue
  std::vector<ToolSpec> tools = {};  // empty: a plain completion
};

struct Delta {
  enum class Kind { Text, Reasoning, Restart };  // Restart: a retry begins; drop the partial text
  Kind kind = Kind::Text;
  std::string text;
};

struct Usage {
  int64_t input_tokens = 0;  // all of the prompt, cached parts included
  int64_t output_tokens = 0;
  bool estimated = false;  // the provider reported none: chars / 4
  int64_t cache_read_tokens = 0;   // of input_tokens: read from the provider's prompt cache
  int64_t cache_write_tokens = 0;  // of input_tokens: written to it (Anthropic charges these extra)
  json to_json() const;
  void add(const Usage& u);
};

struct Response {
  std::string text;
  std::string reasoning;
  std::string model;
  std::string stop_reason;
  Usage usage;
  double cost_usd = 0;       // 0 with cost_known false when the model has no price
  bool cost_known = false;
  int attempts = 1;
  std::vector<std::string> warnings;  // e.g. a malformed chunk that was skipped
  std::vector<ToolCall> tool_calls;   // native function calls, in the order they came
};

// Shared between a run and its calls; set() makes every call in flight return Cancelled soon.
class CancelToken {
 public:
  void cancel() { m_cancelled = true; }
  bool cancelled() const { return m_cancelled; }

 private:
  std::atomic<bool> m_cancelled{false};
};

struct CallLimits {
  std::chrono::milliseconds connect_timeout = 15s;
  std::chrono::milliseconds silence_timeout = 60s;  // no byte for this long mid-stream: retry
  int max_attempts = 4;
  std::chrono::milliseconds backoff_base = 500ms;
  std::chrono::milliseconds backoff_cap = 20s;
  std::chrono::milliseconds retry_after_cap = 60s;
};

class Provider {
 public:
  virtual ~Provider() = default;
  // Blocks until the response is complete, failed or cancelled; on_delta runs on the calling
  // thread as tokens arrive. Thread-safe: several calls may run at once (llm_batch).
  virtual Result<Response> complete(const Request& request, const std::function<void(const Delta&)>& on_delta,
                                    const CancelToken& cancel) = 0;
  virtual std::string name() const = 0;
  // Where a provider that replays a script is in it, for a checkpoint, and going back there when
  // a run resumes from one; providers that call a model have no position (null) and ignore seek.
  virtual json position() const { return nullptr; }
  virtual void seek(const json& /*position*/) {}
};

// "anthropic", "openai" (OpenAI-compatible; base_url selects OpenRouter, Groq, Ollama …), "script".
struct ProviderSpec {
  std::string kind;
  std::string base_url;     // default per kind
  std::string api_key;
  std::string script_path;  // kind "script"
  CallLimits limits;
};

// Whether the spec has the key its service needs: Anthropic's always; an OpenAI-compatible one
// unless its base URL is a local server (127.0.0.1, localhost), which needs none. Unauthenticated,
// saying where a key goes, when it is missing. make_provider checks it; a face that takes a run
// now and starts it later checks it first, so that a missing key is the request's error.
Result<void> check_key(const ProviderSpec& spec);
Result<std::unique_ptr<Provider>> make_provider(const ProviderSpec& spec);

// Price in USD of a call, if the model table has the model's prices: uncached input, cache
// writes, cache reads and output each at their own price.
std::optional<double> cost_of(const std::string& model, const Usage& usage);
// The same usage priced as if nothing had been cached (every input token at the input price).
std::optional<double> cost_without_cache(const std::string& model, const Usage& usage);
// chars / 4, the estimate used when a provider reports no usage.
int64_t estimate_tokens(std::string_view text);

}  // namespace ouro::llm
