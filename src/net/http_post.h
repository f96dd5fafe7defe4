// One HTTP POST with libcurl, for the few callers that send a request and wait for its answer on
// their own thread (a webhook, an embeddings endpoint): http or https only, no redirects, no
// signals, a deadline on the whole exchange, the answer's size bounded.
#pragma once

#include "base/error.h"

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace ouro::net {

struct PostOptions {
  std::vector<std::string> headers;  // "Name: value"; Content-Type: application/json unless one is given here
  std::chrono::milliseconds timeout{10000};
  size_t max_answer_bytes = 1 << 20;
  // Past max_answer_bytes: true keeps the head and reads on; false gives up (ResourceExhausted).
  bool truncate = false;
  // Asked while the request runs: true gives up at once (DeadlineExceeded).
  std::function<bool()> abort;
  const char* user_agent = "ouro";
};

struct PostAnswer {
  long status = 0;
  std::string body;
};

// The answer of any status; errors: DeadlineExceeded (the timeout, or abort), ResourceExhausted
// (an answer over the bound), Unavailable (libcurl's reason: refused, reset, TLS, …).
Result<PostAnswer> post(const std::string& url, const std::string& body, const PostOptions& options);

}  // namespace ouro::net
