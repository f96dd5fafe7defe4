// One streaming call with retries (llm/streaming.h), with a decoder of the test's own against a
// loopback server: what is sent, which answers are retried (and that a retry starts the answer
// over), which end the call at once with the provider's own words, a decoder's errors, no server
// at all, a call cancelled before it starts; and the Retry-After and backoff arithmetic. The
// providers' real protocols over the same path are in provider_test.cpp.
#include "llm/errors.h"
#include "llm/streaming.h"

#include "raw_server.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace ouro::llm {
namespace {

using testing::RawServer;
using testing::Step;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Each event's data is text, "event: done" ends the answer, "event: fail" is an error the
// provider reported inside the stream (of the code and kind the test sets).
class TestDecoder final : public StreamDecoder {
 public:
  void reset() override {
    m_done = false;
    ++resets;
  }
  Result<void> on_event(const SseEvent& event, Response& out, const std::function<void(const Delta&)>& on_delta) override {
    if (event.event == "fail") return make_error(fail_code, event.data, fail_kind.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json{{"kind", fail_kind}});
    if (event.event == "done") {
      m_done = true;
      return {};
    }
    out.text += event.data;
    on_delta(Delta{Delta::Kind::Text, event.data});
    return {};
  }
  bool complete() const override { return m_done; }

  int resets = 0;
  Code fail_code = Code::InvalidArgument;
  std::string fail_kind;

 private:
  bool m_done = false;
};

struct Seen {
  std::string text;
  int restarts = 0;
  std::function<void(const Delta&)> fn() {
    return [this](const Delta& d) {
      if (d.kind == Delta::Kind::Restart) {
        ++restarts;
        text.clear();
      } else {
        text += d.text;
      }
    };
  }
};

CallLimits quick(int attempts) {
  CallLimits l;
  l.max_attempts = attempts;
  l.backoff_base = std::chrono::milliseconds(1);
  l.backoff_cap = std::chrono::milliseconds(5);
  l.connect_timeout = std::chrono::milliseconds(2000);
  l.silence_timeout = std::chrono::milliseconds(5000);
  return l;
}

HttpCall call_to(const std::string& url) {
  HttpCall c;
  c.url = url;
  c.headers = {"X-Test: yes", "Content-Type: application/json"};
  c.body = "{\"q\":\"gr\xc3\xbc\xc3\x9f" "e\"}";
  c.key_hint = "set TEST_API_KEY";
  return c;
}

const std::string kAnswer = "data: Hel\n\ndata: lo\n\nevent: done\ndata: -\n\n";

TEST(StreamWithRetries, ACompleteStreamIsOneAttemptThatSendsTheCallAsGiven) {
  RawServer s;
  s.push({Step::write(RawServer::sse_head()), Step::write(kAnswer)});
  TestDecoder d;
  Seen seen;
  CancelToken cancel;
  const HttpCall call = call_to(s.url() + "/v1/stream");
  auto r = stream_with_retries(call, d, quick(3), cancel, seen.fn());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->text, "Hello");
  EXPECT_EQ(r->attempts, 1);
  EXPECT_EQ(seen.text, "Hello");
  EXPECT_EQ(seen.restarts, 0);
  auto requests = s.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].rfind("POST /v1/stream ", 0), 0u) << requests[0];
  EXPECT_TRUE(has(requests[0], "X-Test: yes")) << requests[0];
  EXPECT_EQ(requests[0].substr(requests[0].size() - call.body.size()), call.body) << "the body byte for byte";
}

// 408, 409, 429 and 5xx are tried again; each new attempt tells the caller to drop what it had.
TEST(StreamWithRetries, ATimeoutOrConflictStatusIsRetriedAndTheRetryStartsTheAnswerOver) {
  RawServer s;
  s.push({Step::write(RawServer::error_response(408, R"({"error":{"message":"request timeout"}})", "Retry-After: 0\r\n"))});
  s.push({Step::write(RawServer::sse_head()), Step::write("data: half an ans\n\n")});
  s.push({Step::write(RawServer::error_response(409, R"({"error":{"message":"conflict"}})", "Retry-After: 0\r\n"))});
  s.push({Step::write(RawServer::sse_head()), Step::write(kAnswer)});
  TestDecoder d;
  Seen seen;
  CancelToken cancel;
  auto r = stream_with_retries(call_to(s.url() + "/v1/stream"), d, quick(4), cancel, seen.fn());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->attempts, 4);
  EXPECT_EQ(r->text, "Hello") << "nothing of the dropped attempt is in the answer";
  EXPECT_EQ(seen.text, "Hello");
  EXPECT_EQ(seen.restarts, 3);
  EXPECT_EQ(d.resets, 4) << "the decoder starts afresh on every attempt";
  EXPECT_EQ(s.requests().size(), 4u);
}

TEST(StreamWithRetries, ARejectedRequestEndsTheCallWithTheProvidersOwnWords) {
  struct Case {
    std::string body;
    std::string said;
  };
  const Case cases[] = {
      {R"({"error":{"message":"max_tokens: too large"}})", "max_tokens: too large"},
      {R"({"error":"temperature must be at most 2"})", "temperature must be at most 2"},
      {R"({"message":"unknown field \"foo\""})", "unknown field \"foo\""},
      {"plain words from a proxy", "plain words from a proxy"},
      {"", "(no body)"},
  };
  for (const auto& c : cases) {
    RawServer s;
    s.push({Step::write(RawServer::error_response(400, c.body))});
    s.push({Step::write(RawServer::sse_head()), Step::write(kAnswer)});
    TestDecoder d;
    CancelToken cancel;
    auto r = stream_with_retries(call_to(s.url() + "/v1/stream"), d, quick(3), cancel, [](const Delta&) {});
    ASSERT_FALSE(r) << c.body;
    EXPECT_EQ(r.error().code, Code::InvalidArgument) << c.body;
    EXPECT_EQ(kind_of(r.error()), error_kind::kRejected) << c.body;
    EXPECT_EQ(r.error().details.value("status", 0), 400) << c.body;
    EXPECT_TRUE(has(r.error().message, c.said)) << r.error().message;
    EXPECT_EQ(s.requests().size(), 1u) << "never retried: " << c.body;
  }
}

TEST(StreamWithRetries, AHugeErrorBodyIsCutInTheMessage) {
  RawServer s;
  s.push({Step::write(RawServer::error_response(400, std::string(200000, 'x')))});
  TestDecoder d;
  CancelToken cancel;
  auto r = stream_with_retries(call_to(s.url() + "/v1/stream"), d, quick(1), cancel, [](const Delta&) {});
  ASSERT_FALSE(r);
  EXPECT_TRUE(has(r.error().message, std::string(300, 'x')));
  EXPECT_FALSE(has(r.error().message, std::string(301, 'x'))) << "at most 300 bytes of the body";
}

TEST(StreamWithRetries, AnErrorInsideTheStreamEndsTheCallOrIsRetriedByItsCode) {
  {  // A request the provider refuses mid-stream: named by its words, not retried.
    RawServer s;
    s.push({Step::write(RawServer::sse_head()), Step::write("event: fail\ndata: this model does not support tools\n\n")});
    TestDecoder d;
    CancelToken cancel;
    auto r = stream_with_retries(call_to(s.url() + "/v1/stream"), d, quick(3), cancel, [](const Delta&) {});
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, Code::InvalidArgument);
    EXPECT_EQ(kind_of(r.error()), error_kind::kToolsRefused) << r.error().message;
    EXPECT_EQ(s.requests().size(), 1u);
  }
  {  // Overloaded on every attempt: retried, then named as overloaded with what to do.
    RawServer s;
    for (int i = 0; i < 2; ++i) s.push({Step::write(RawServer::sse_head()), Step::write("event: fail\ndata: busy right now\n\n")});
    TestDecoder d;
    d.fail_code = Code::Unavailable;
    d.fail_kind = error_kind::kOverloaded;
    CancelToken cancel;
    auto r = stream_with_retries(call_to(s.url() + "/v1/stream"), d, quick(2), cancel, [](const Delta&) {});
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, Code::Unavailable);
    EXPECT_EQ(kind_of(r.error()), error_kind::kOverloaded) << r.error().message;
    EXPECT_TRUE(has(r.error().message, "after 2 attempts")) << r.error().message;
    EXPECT_TRUE(has(r.error().message, "busy right now")) << r.error().message;
    EXPECT_EQ(s.requests().size(), 2u);
  }
}

TEST(StreamWithRetries, AnAnswerThatNeverEndsIsADroppedStreamAfterEveryAttempt) {
  RawServer s;
  for (int i = 0; i < 2; ++i) s.push({Step::write(RawServer::sse_head()), Step::write("data: Hel\n\n")});
  TestDecoder d;
  Seen seen;
  CancelToken cancel;
  auto r = stream_with_retries(call_to(s.url() + "/v1/stream"), d, quick(2), cancel, seen.fn());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::Unavailable);
  EXPECT_EQ(kind_of(r.error()), error_kind::kStreamDropped) << r.error().message;
  EXPECT_EQ(seen.restarts, 1);
}

TEST(StreamWithRetries, NoServerIsAConnectionProblemAfterEveryAttempt) {
  std::string url;
  {
    RawServer gone;
    url = gone.url() + "/v1/stream";
  }
  TestDecoder d;
  Seen seen;
  CancelToken cancel;
  auto r = stream_with_retries(call_to(url), d, quick(2), cancel, seen.fn());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::Unavailable);
  EXPECT_EQ(kind_of(r.error()), error_kind::kConnection) << r.error().message;
  EXPECT_TRUE(has(r.error().message, "check the network")) << r.error().message;
  EXPECT_EQ(seen.restarts, 1);
}

TEST(StreamWithRetries, ACallCancelledBeforeItStartsSendsNothing) {
  RawServer s;
  s.push({Step::write(RawServer::sse_head()), Step::write(kAnswer)});
  TestDecoder d;
  CancelToken cancel;
  cancel.cancel();
  auto r = stream_with_retries(call_to(s.url() + "/v1/stream"), d, quick(3), cancel, [](const Delta&) {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::Cancelled);
  EXPECT_TRUE(s.requests().empty());
}

TEST(RetryAfter, SecondsAndDatesAreReadAndAnythingElseIsNot) {
  EXPECT_EQ(parse_retry_after("0")->count(), 0);
  EXPECT_EQ(parse_retry_after("1.5")->count(), 1500);
  EXPECT_EQ(parse_retry_after("120")->count(), 120000);
  EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT")->count(), 0) << "a date gone by is no wait";
  for (const char* no : {"", "-5", "nan", "5s", "Wed, 21 Oct 2015", "tomorrow"}) EXPECT_FALSE(parse_retry_after(no).has_value()) << no;
}

// Retry-After is delay-seconds, any number of digits (RFC 9110 §10.2.3): a huge one is a long
// wait, never an overflowed negative one that would retry at once.
TEST(RetryAfter, AHugeNumberOfSecondsIsALongWaitNotANegativeOne) {
  auto ra = parse_retry_after("99999999999999999999");
  ASSERT_TRUE(ra.has_value());
  EXPECT_GT(ra->count(), 0);
}

TEST(Backoff, AnyAttemptStaysWithinHalfAndOneAndAHalfTimesTheCap) {
  CallLimits l;
  l.backoff_base = std::chrono::milliseconds(100);
  l.backoff_cap = std::chrono::milliseconds(1000);
  for (int attempt : {5, 40, 10000}) {
    auto d = backoff_delay(attempt, l);
    EXPECT_GE(d.count(), 500) << attempt;
    EXPECT_LE(d.count(), 1500) << attempt;
  }
}

}  // namespace
}  // namespace ouro::llm
