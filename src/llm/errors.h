// What went wrong with a provider call, named: each failure a person can act on has a
// kind in the error's details ({"kind": …}), which the run's events and the terminal show next to
// a message that says what to do.
#pragma once

#include "base/json.h"

#include <chrono>
#include <string>
#include <vector>

namespace ouro::llm {

struct HttpCall;

namespace error_kind {
inline constexpr const char* kNoKey = "no-key";                    // the service needs a key and none is configured
inline constexpr const char* kBadKey = "bad-key";                  // 401/403: the key was refused
inline constexpr const char* kUnknownModel = "unknown-model";      // the endpoint does not serve that model
inline constexpr const char* kContextOverflow = "context-overflow";  // the prompt is over the model's window
inline constexpr const char* kRateLimited = "rate-limited";        // 429 after the retries
inline constexpr const char* kOverloaded = "overloaded";           // 529 / overloaded_error after the retries
inline constexpr const char* kServerError = "server-error";        // 5xx after the retries
inline constexpr const char* kStreamDropped = "stream-dropped";    // the answer stopped mid-way, every attempt
inline constexpr const char* kTimeout = "timeout";                 // silence past the deadline, every attempt
inline constexpr const char* kConnection = "connection";           // no connection, every attempt
inline constexpr const char* kToolsRefused = "tools-refused";      // a 4xx about the tool definitions (no tool calling there)
inline constexpr const char* kRejected = "rejected";               // another 4xx: the request itself
}  // namespace error_kind

// The kind of a non-2xx answer from its status and message.
std::string classify_http(int status, const std::string& message);
// The kind an error carries ("" when none).
std::string kind_of(const Error& e);
// The models the endpoint lists (GET …/models with the call's headers), at most `max`; empty
// when it has no such list or does not answer in time.
std::vector<std::string> list_models(const HttpCall& call, std::chrono::milliseconds timeout, size_t max = 20);

}  // namespace ouro::llm
