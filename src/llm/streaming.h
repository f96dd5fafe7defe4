// One streaming HTTPS call with retries, shared by the HTTP providers: POST with libcurl, feed the
// body to an SSE parser and a provider-specific decoder, retry with exponential backoff and jitter
// on 429, 5xx and dropped connections (honouring Retry-After), never on 400/401/403, and give up
// quickly when cancelled. Deadlines: on connecting and on silence mid-stream.
#pragma once

#include "llm/provider.h"
#include "llm/sse.h"

#include <string>
#include <vector>

namespace ouro::llm {

// Turns one provider's SSE events into deltas and the final response.
class StreamDecoder {
 public:
  virtual ~StreamDecoder() = default;
  virtual void reset() = 0;
  // An event of a successful (2xx) response. Errors abort the attempt (retryable or not).
  virtual Result<void> on_event(const SseEvent& event, Response& out, const std::function<void(const Delta&)>& on_delta) = 0;
  // Whether the stream's terminal event arrived (else the connection dropped mid-answer).
  virtual bool complete() const = 0;
};

struct HttpCall {
  std::string url;
  std::vector<std::string> headers;  // "Name: value"
  std::string body;
  std::string key_hint;  // what to tell the user on 401, e.g. "set ANTHROPIC_API_KEY"
};

Result<Response> stream_with_retries(const HttpCall& call, StreamDecoder& decoder, const CallLimits& limits,
                                     const CancelToken& cancel, const std::function<void(const Delta&)>& on_delta);

// Seconds to wait from a Retry-After header (seconds or HTTP date); nullopt if absent/unparsable.
std::optional<std::chrono::milliseconds> parse_retry_after(const std::string& value);
// The delay before attempt `attempt` (1-based retry count), with ±50 % jitter, capped.
std::chrono::milliseconds backoff_delay(int attempt, const CallLimits& limits);

}  // namespace ouro::llm
