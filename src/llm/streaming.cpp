#include "llm/streaming.h"
#include "base/steady_clock.h"
#include "llm/errors.h"

#include "base/log.h"

#include <curl/curl.h>

#include <ctime>
#include <mutex>
#include <random>
#include <thread>

namespace ouro::llm {

using Clock = ouro::SteadyClock;

namespace {

struct Attempt {
  long status = 0;
  std::string retry_after;
  std::string error_body;
  CURLcode curl = CURLE_OK;
  std::string curl_error;
  bool aborted_by_decoder = false;
  Error decoder_error;
};

struct Transfer {
  Attempt* attempt;
  SseParser parser;
  StreamDecoder* decoder;
  Response* response;
  const std::function<void(const Delta&)>* on_delta;
  const CancelToken* cancel;
  std::chrono::milliseconds silence_limit;
  Clock::time_point last_data = Clock::now();
  bool silent = false;
};

size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  t->last_data = Clock::now();
  std::string_view line(data, size * n);
  if (line.rfind("HTTP/", 0) == 0) {
    auto sp = line.find(' ');
    if (sp != std::string_view::npos) t->attempt->status = std::strtol(line.data() + sp + 1, nullptr, 10);
    t->attempt->retry_after.clear();
  } else if (line.size() > 12 && strncasecmp(line.data(), "retry-after:", 12) == 0) {
    std::string v(line.substr(12));
    while (!v.empty() && (v.back() == '\r' || v.back() == '\n' || v.back() == ' ')) v.pop_back();
    while (!v.empty() && v.front() == ' ') v.erase(0, 1);
    t->attempt->retry_after = v;
  }
  return size * n;
}

size_t on_body(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  t->last_data = Clock::now();
  size_t len = size * n;
  if (t->attempt->status < 200 || t->attempt->status >= 300) {
    if (t->attempt->error_body.size() < 65536) t->attempt->error_body.append(data, len);
    return len;
  }
  bool failed = false;
  t->parser.feed(std::string_view(data, len), [&](SseEvent&& ev) {
    if (failed) return;
    auto r = t->decoder->on_event(ev, *t->response, *t->on_delta);
    if (!r) {
      failed = true;
      t->attempt->aborted_by_decoder = true;
      t->attempt->decoder_error = r.error();
    }
  });
  return failed ? 0 : len;  // 0 aborts the transfer
}

// libcurl calls this at least once a second, so cancellation and silence take effect within one.
// (CURLOPT_LOW_SPEED_TIME averages over several seconds: too loose for a silence deadline.)
int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(user);
  if (t->cancel->cancelled()) return 1;
  if (Clock::now() - t->last_data > t->silence_limit) {
    t->silent = true;
    return 1;
  }
  return 0;
}

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// The provider's own words from an error body, when it has them.
std::string error_message(const std::string& body) {
  auto j = parse_json(body);
  if (j && j->is_object()) {
    if (j->contains("error")) {
      const json& e = (*j)["error"];
      if (e.is_object() && e.contains("message") && e["message"].is_string()) return e["message"];
      if (e.is_string()) return e;
    }
    if (j->contains("message") && (*j)["message"].is_string()) return (*j)["message"];
  }
  std::string s = body.substr(0, 300);
  return s.empty() ? "(no body)" : s;
}

bool sleep_unless_cancelled(std::chrono::milliseconds d, const CancelToken& cancel) {
  auto until = Clock::now() + d;
  while (Clock::now() < until) {
    if (cancel.cancelled()) return false;
    std::this_thread::sleep_for(std::min<Clock::duration>(std::chrono::milliseconds(20), until - Clock::now()));
  }
  return !cancel.cancelled();
}

}  // namespace

std::optional<std::chrono::milliseconds> parse_retry_after(const std::string& value) {
  if (value.empty()) return std::nullopt;
  char* end = nullptr;
  double secs = std::strtod(value.c_str(), &end);
  // Any number of digits is valid (RFC 9110 §10.2.3): past a billion seconds it is that long,
  // never an overflowed (negative) wait; the caller caps it anyway.
  if (end && *end == '\0' && secs >= 0) return std::chrono::milliseconds(static_cast<int64_t>(std::min(secs, 1e9) * 1000));
  struct tm tm {};
  if (strptime(value.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm)) {
    time_t when = timegm(&tm);
    double diff = static_cast<double>(when) - wall_seconds();
    return std::chrono::milliseconds(static_cast<int64_t>(std::max(0.0, diff) * 1000));
  }
  return std::nullopt;
}

std::chrono::milliseconds backoff_delay(int attempt, const CallLimits& limits) {
  static thread_local std::mt19937 rng{std::random_device{}()};
  double base = static_cast<double>(limits.backoff_base.count()) * std::pow(2.0, attempt - 1);
  base = std::min(base, static_cast<double>(limits.backoff_cap.count()));
  std::uniform_real_distribution<double> jitter(0.5, 1.5);
  return std::chrono::milliseconds(static_cast<int64_t>(base * jitter(rng)));
}

namespace {

// A failure retrying will not fix, named: a refused key, an unknown model (with the models the
// endpoint lists), a prompt over the context window, or another rejected request.
tl::unexpected<Error> not_retried(const HttpCall& call, int status, const std::string& msg) {
  std::string kind = classify_http(status, msg);
  nlohmann::ordered_json details = {{"kind", kind}, {"status", status}};
  if (kind == error_kind::kBadKey)
    return make_error(Code::Unauthenticated, fmt::format("the provider refused the API key (HTTP {}: {}); {}", status, msg, call.key_hint), details);
  if (kind == error_kind::kContextOverflow)
    return make_error(Code::OutOfRange, fmt::format("the prompt is longer than the model's context window (HTTP {}: {})", status, msg), details);
  if (kind == error_kind::kUnknownModel) {
    std::string model = parse_json(call.body, "request").map([](const json& b) { return get_str(b, "model"); }).value_or("");
    auto models = list_models(call, std::chrono::seconds(5));
    std::string listed;
    for (const auto& m : models) listed += (listed.empty() ? "" : ", ") + m;
    details["models"] = models;
    return make_error(Code::NotFound,
                      fmt::format("the provider does not know model '{}' (HTTP {}: {}); {}", model, status, msg,
                                  listed.empty() ? "check --model and --base-url" : "it lists: " + listed + " — pass one with --model"),
                      details);
  }
  return make_error(Code::InvalidArgument, fmt::format("the provider rejected the request (HTTP {}): {}", status, msg), details);
}

}  // namespace

Result<Response> stream_with_retries(const HttpCall& call, StreamDecoder& decoder, const CallLimits& limits,
                                     const CancelToken& cancel, const std::function<void(const Delta&)>& on_delta) {
  global_init();
  std::string last_problem;
  std::string last_kind = error_kind::kServerError;
  for (int attempt_no = 1; attempt_no <= limits.max_attempts; ++attempt_no) {
    if (cancel.cancelled()) return make_error(Code::Cancelled, "cancelled");
    Attempt a;
    Response response;
    decoder.reset();
    Transfer t{&a, SseParser{}, &decoder, &response, &on_delta, &cancel, limits.silence_timeout};
    CURL* curl = curl_easy_init();
    if (!curl) return make_error(Code::Internal, "libcurl could not start a transfer");
    curl_slist* headers = nullptr;
    for (const auto& h : call.headers) headers = curl_slist_append(headers, h.c_str());
    char errbuf[CURL_ERROR_SIZE] = {0};
    curl_easy_setopt(curl, CURLOPT_URL, call.url.c_str());
    curl_easy_setopt(curl, CURLOPT_POST, 1L);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, call.body.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(call.body.size()));
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &t);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &t);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(limits.connect_timeout.count()));
    curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
    a.curl = curl_easy_perform(curl);
    a.curl_error = errbuf[0] ? errbuf : curl_easy_strerror(a.curl);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);

    if (cancel.cancelled()) return make_error(Code::Cancelled, "cancelled");
    bool retryable = false;
    if (a.aborted_by_decoder) {
      // The provider reported an error inside the stream (e.g. "overloaded_error"), or sent garbage.
      if (a.decoder_error.code != Code::Unavailable && a.decoder_error.code != Code::ResourceExhausted)
        return not_retried(call, 400, a.decoder_error.message);
      retryable = true;
      last_problem = a.decoder_error.message;
      last_kind = a.decoder_error.code == Code::ResourceExhausted ? error_kind::kRateLimited
                  : kind_of(a.decoder_error) == error_kind::kOverloaded ? error_kind::kOverloaded
                                                                                      : error_kind::kServerError;
    } else if (t.silent) {
      retryable = true;
      last_problem = fmt::format("no data from the provider for {} ms", limits.silence_timeout.count());
      last_kind = error_kind::kTimeout;
    } else if (a.curl != CURLE_OK && (a.status == 0 || (a.status >= 200 && a.status < 300))) {
      retryable = true;
      bool timed_out = a.curl == CURLE_OPERATION_TIMEDOUT;
      last_problem = timed_out ? "no data from the provider for too long (" + a.curl_error + ")" : "connection problem: " + a.curl_error;
      // A connection that broke after the answer began is a dropped stream, not a failed connect.
      last_kind = timed_out ? error_kind::kTimeout : a.status != 0 ? error_kind::kStreamDropped : error_kind::kConnection;
    } else if (a.status >= 200 && a.status < 300) {
      if (decoder.complete()) {
        response.attempts = attempt_no;
        return response;
      }
      retryable = true;
      last_problem = "the stream ended before the answer was complete";
      last_kind = error_kind::kStreamDropped;
    } else {
      std::string msg = error_message(a.error_body);
      int s = static_cast<int>(a.status);
      if (s == 429 || s == 408 || s == 409 || s == 529 || s >= 500) {
        retryable = true;
        last_problem = "HTTP " + std::to_string(s) + ": " + msg;
        last_kind = classify_http(s, msg);
      } else {
        return not_retried(call, s, msg);
      }
    }
    if (!retryable || attempt_no == limits.max_attempts) break;
    auto delay = backoff_delay(attempt_no, limits);
    if (auto ra = parse_retry_after(a.retry_after)) delay = std::min(*ra, limits.retry_after_cap);
    spdlog::info("llm: attempt {} failed ({}); retrying in {} ms", attempt_no, redact(last_problem), delay.count());
    on_delta(Delta{Delta::Kind::Restart, ""});
    if (!sleep_unless_cancelled(delay, cancel)) return make_error(Code::Cancelled, "cancelled");
  }
  const char* advice = last_kind == error_kind::kRateLimited ? "the provider's rate limit: wait, or lower the run's parallel sub-calls"
                       : last_kind == error_kind::kOverloaded ? "the provider is overloaded: try again later or use another model"
                       : last_kind == error_kind::kConnection ? "check the network and the provider's base URL"
                                                               : "try again; if it persists, check the provider's status";
  return make_error(last_kind == error_kind::kRateLimited ? Code::ResourceExhausted : Code::Unavailable,
                    fmt::format("the provider call failed after {} attempts ({}): {}; {}", limits.max_attempts, last_kind, last_problem, advice),
                    {{"kind", last_kind}});
}

}  // namespace ouro::llm
