// Providers against a local server that speaks their real streaming protocols.
#include "llm/errors.h"
#include "llm/digest.h"
#include "llm/provider.h"
#include "llm/settings.h"
#include "llm/streaming.h"

#include "raw_server.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <thread>

namespace ouro::llm {
namespace {

using testing::RawServer;
using testing::Step;

std::vector<Step> in_pieces(const std::string& head, const std::string& body, size_t piece, std::chrono::milliseconds pause = {}) {
  std::vector<Step> steps = {Step::write(head)};
  for (size_t i = 0; i < body.size(); i += piece) {
    steps.push_back(Step::write(body.substr(i, piece)));
    if (pause.count()) steps.push_back(Step::sleep(pause));
  }
  return steps;
}

std::string anthropic_event(const std::string& type, const std::string& data) { return "event: " + type + "\ndata: " + data + "\n\n"; }

std::string anthropic_body() {
  return anthropic_event("message_start", R"({"type":"message_start","message":{"id":"m1","model":"claude-sonnet-4-20250514","usage":{"input_tokens":120,"output_tokens":1}}})") +
         anthropic_event("content_block_start", R"({"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}})") +
         anthropic_event("content_block_delta", R"({"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me think…"}})") +
         anthropic_event("ping", R"({"type":"ping"})") +
         anthropic_event("content_block_delta", R"({"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Héllo "}})") +
         anthropic_event("content_block_delta", R"({"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"wörld 💭"}})") +
         anthropic_event("message_delta", R"({"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":42}})") +
         anthropic_event("message_stop", R"({"type":"message_stop"})");
}

std::string openai_body(const std::string& extra = "") {
  return "data: {\"model\":\"gpt-4o\",\"choices\":[{\"delta\":{\"role\":\"assistant\",\"reasoning_content\":\"hmm… \"}}]}\n\n"
         "data: {\"model\":\"gpt-4o\",\"choices\":[{\"delta\":{\"content\":\"Grüße \"}}]}\n\n" + extra +
         "data: {\"model\":\"gpt-4o\",\"choices\":[{\"delta\":{\"content\":\"aus 🌍\"},\"finish_reason\":\"stop\"}]}\n\n"
         "data: {\"model\":\"gpt-4o\",\"choices\":[],\"usage\":{\"prompt_tokens\":200,\"completion_tokens\":10}}\n\n"
         "data: [DONE]\n\n";
}

struct Collected {
  std::string text, reasoning;
  int restarts = 0;
  std::function<void(const Delta&)> fn() {
    return [this](const Delta& d) {
      if (d.kind == Delta::Kind::Restart) {
        ++restarts;
        text.clear();
        reasoning.clear();
      } else {
        (d.kind == Delta::Kind::Text ? text : reasoning) += d.text;
      }
    };
  }
};

CallLimits fast_limits() {
  CallLimits l;
  l.backoff_base = std::chrono::milliseconds(20);
  l.connect_timeout = std::chrono::milliseconds(2000);
  l.silence_timeout = std::chrono::milliseconds(1000);
  return l;
}

std::unique_ptr<Provider> provider(const std::string& kind, const RawServer& s, CallLimits limits = fast_limits()) {
  ProviderSpec spec{kind, kind == "openai" ? s.url() + "/v1" : s.url(), "sk-test-key-123456", "", limits};
  return std::move(*make_provider(spec));
}

Request request(const std::string& model) {
  ModelParams p;
  p.max_tokens = 512;
  return Request{model, "You are terse.", {{"user", "Say hello", {}}}, p, Purpose::Main};
}

TEST(Anthropic, StreamsTextAndThinkingWhereverChunksSplit) {
  for (size_t piece : {1u, 3u, 7u, 64u}) {
    RawServer s;
    s.push(in_pieces(RawServer::sse_head(), anthropic_body(), piece));
    Collected c;
    auto r = provider("anthropic", s)->complete(request("claude-sonnet-4-20250514"), c.fn(), CancelToken{});
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->text, "Héllo wörld 💭") << "piece " << piece;
    EXPECT_EQ(r->reasoning, "Let me think…");
    EXPECT_EQ(c.text, r->text);
    EXPECT_EQ(c.reasoning, r->reasoning);
    EXPECT_EQ(r->usage.input_tokens, 120);
    EXPECT_EQ(r->usage.output_tokens, 42);
    EXPECT_FALSE(r->usage.estimated);
    EXPECT_EQ(r->stop_reason, "end_turn");
    EXPECT_TRUE(r->cost_known);
    EXPECT_NEAR(r->cost_usd, (120 * 3 + 42 * 15) / 1e6, 1e-12);
    // The wire request is the Messages API's.
    std::string req = s.requests().at(0);
    EXPECT_NE(req.find("POST /v1/messages"), std::string::npos);
    EXPECT_NE(req.find("x-api-key: sk-test-key-123456"), std::string::npos);
    EXPECT_NE(req.find("anthropic-version: 2023-06-01"), std::string::npos);
    EXPECT_NE(req.find("\"stream\":true"), std::string::npos);
    // The system prompt as a block with a cache breakpoint after it.
    json body = json::parse(req.substr(req.find("\r\n\r\n") + 4));
    EXPECT_EQ(body["system"], json::parse(R"([{"type":"text","text":"You are terse.","cache_control":{"type":"ephemeral"}}])")) << req;
    EXPECT_EQ(body["max_tokens"], 512);
  }
}

// A provider's stream with its usage replaced by `usage`, answered for `model`.
Result<Response> with_usage(const std::string& kind, std::string body, const std::string& from, const std::string& usage, const std::string& model) {
  RawServer s;
  body.replace(body.find(from), from.size(), usage);
  s.push(in_pieces(RawServer::sse_head(), body, 64));
  Collected c;
  return provider(kind, s)->complete(request(model), c.fn(), CancelToken{});
}

TEST(Anthropic, CacheReadsAndWritesAreCountedAndPriced) {
  auto r = with_usage("anthropic", anthropic_body(), R"("usage":{"input_tokens":120,"output_tokens":1})",
                      R"("usage":{"input_tokens":20,"cache_creation_input_tokens":100,"cache_read_input_tokens":3000,"output_tokens":1})",
                      "claude-sonnet-4-20250514");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->usage.input_tokens, 3120);
  EXPECT_EQ(r->usage.cache_read_tokens, 3000);
  EXPECT_EQ(r->usage.cache_write_tokens, 100);
  // Sonnet 4: $3 input, $3.75 cache write, $0.30 cache read, $15 output per million.
  EXPECT_NEAR(r->cost_usd, (20 * 3 + 100 * 3.75 + 3000 * 0.3 + 42 * 15) / 1e6, 1e-12);
  EXPECT_NEAR(*cost_without_cache(r->model, r->usage), (3120 * 3 + 42 * 15) / 1e6, 1e-12);
  EXPECT_EQ(r->usage.to_json()["cache_read_tokens"], 3000);
}

TEST(OpenAI, CachedPromptTokensAreCounted) {
  auto r = with_usage("openai", openai_body(), R"("usage":{"prompt_tokens":200,"completion_tokens":10})",
                      R"("usage":{"prompt_tokens":2000,"completion_tokens":10,"prompt_tokens_details":{"cached_tokens":1536}})", "gpt-4o");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->usage.input_tokens, 2000);
  EXPECT_EQ(r->usage.cache_read_tokens, 1536);
  EXPECT_NEAR(r->cost_usd, (464 * 2.5 + 1536 * 1.25 + 10 * 10) / 1e6, 1e-12);
}

TEST(OpenAI, StreamsContentReasoningAndUsage) {
  for (size_t piece : {1u, 5u, 1000u}) {
    RawServer s;
    s.push(in_pieces(RawServer::sse_head(), openai_body(), piece));
    Collected c;
    auto r = provider("openai", s)->complete(request("gpt-4o"), c.fn(), CancelToken{});
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->text, "Grüße aus 🌍");
    EXPECT_EQ(r->reasoning, "hmm… ");
    EXPECT_EQ(c.text, r->text);
    EXPECT_EQ(r->usage.input_tokens, 200);
    EXPECT_EQ(r->usage.output_tokens, 10);
    EXPECT_NEAR(r->cost_usd, (200 * 2.5 + 10 * 10) / 1e6, 1e-12);
    std::string req = s.requests().at(0);
    EXPECT_NE(req.find("POST /v1/chat/completions"), std::string::npos);
    EXPECT_NE(req.find("authorization: Bearer sk-test-key-123456"), std::string::npos);
    EXPECT_NE(req.find(R"({"role":"system","content":"You are terse."})"), std::string::npos);
  }
}

Request tool_request(const std::string& model) {
  Request r = request(model);
  r.tools = {{"click", "Clicks an element.", json::parse(R"({"type":"object","properties":{"selector":{"type":"string"}},"required":["selector"]})")},
             {"finish", "Ends the run.", json::parse(R"({"type":"object","properties":{"value":{}}})")}};
  return r;
}

// Native function calling, streamed: Anthropic's tool_use blocks with input_json_delta pieces.
TEST(Anthropic, StreamsToolUseBlocksAndSendsTheTools) {
  std::string body =
      anthropic_event("message_start", R"({"type":"message_start","message":{"id":"m1","model":"claude-sonnet-4-20250514","usage":{"input_tokens":50,"output_tokens":1}}})") +
      anthropic_event("content_block_start", R"({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})") +
      anthropic_event("content_block_delta", R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Clicking."}})") +
      anthropic_event("content_block_stop", R"({"type":"content_block_stop","index":0})") +
      anthropic_event("content_block_start", R"({"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"click","input":{}}})") +
      anthropic_event("content_block_delta", R"({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"sel"}})") +
      anthropic_event("content_block_delta", R"({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"ector\": \"e1ü\"}"}})") +
      anthropic_event("content_block_stop", R"({"type":"content_block_stop","index":1})") +
      anthropic_event("message_delta", R"({"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":12}})") +
      anthropic_event("message_stop", R"({"type":"message_stop"})");
  for (size_t piece : {1u, 7u, 4096u}) {
    RawServer s;
    s.push(in_pieces(RawServer::sse_head(), body, piece));
    Collected c;
    auto r = provider("anthropic", s)->complete(tool_request("claude-sonnet-4-20250514"), c.fn(), CancelToken{});
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->text, "Clicking.");
    ASSERT_EQ(r->tool_calls.size(), 1u) << "piece " << piece;
    EXPECT_EQ(r->tool_calls[0].id, "toolu_1");
    EXPECT_EQ(r->tool_calls[0].name, "click");
    EXPECT_EQ(r->tool_calls[0].arguments, json({{"selector", "e1ü"}}));
    EXPECT_EQ(r->stop_reason, "tool_use");
    std::string req = s.requests().at(0);
    json sent = json::parse(req.substr(req.find("\r\n\r\n") + 4));
    EXPECT_EQ(sent["tools"][0]["name"], "click");
    EXPECT_EQ(sent["tools"][0]["input_schema"]["required"][0], "selector");
    EXPECT_EQ(sent["tool_choice"]["type"], "any");
  }
}

// OpenAI's delta.tool_calls: id and name first, the arguments in pieces, by index; two calls.
TEST(OpenAI, StreamsToolCallsInPiecesAndSendsTheTools) {
  std::string body =
      "data: {\"model\":\"gpt-4o\",\"choices\":[{\"delta\":{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"click\",\"arguments\":\"\"}}]}}]}\n\n"
      "data: {\"model\":\"gpt-4o\",\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"selector\\\":\"}}]}}]}\n\n"
      "data: {\"model\":\"gpt-4o\",\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\" \\\"e7\\\"}\"}}]}}]}\n\n"
      "data: {\"model\":\"gpt-4o\",\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_b\",\"function\":{\"name\":\"finish\",\"arguments\":\"{}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n"
      "data: {\"model\":\"gpt-4o\",\"choices\":[],\"usage\":{\"prompt_tokens\":90,\"completion_tokens\":9}}\n\n"
      "data: [DONE]\n\n";
  for (size_t piece : {1u, 9u, 4096u}) {
    RawServer s;
    s.push(in_pieces(RawServer::sse_head(), body, piece));
    Collected c;
    auto r = provider("openai", s)->complete(tool_request("gpt-4o"), c.fn(), CancelToken{});
    ASSERT_TRUE(r) << r.error().message;
    ASSERT_EQ(r->tool_calls.size(), 2u) << "piece " << piece;
    EXPECT_EQ(r->tool_calls[0].id, "call_a");
    EXPECT_EQ(r->tool_calls[0].name, "click");
    EXPECT_EQ(r->tool_calls[0].arguments, json({{"selector", "e7"}}));
    EXPECT_EQ(r->tool_calls[1].name, "finish");
    EXPECT_EQ(r->tool_calls[1].arguments, json::object());
    EXPECT_EQ(r->stop_reason, "tool_calls");
    std::string req = s.requests().at(0);
    json sent = json::parse(req.substr(req.find("\r\n\r\n") + 4));
    EXPECT_EQ(sent["tools"][0]["type"], "function");
    EXPECT_EQ(sent["tools"][0]["function"]["name"], "click");
    EXPECT_EQ(sent["tool_choice"], "auto");
  }
}

// Arguments that are not JSON stay visible as text, for the run to report; no call has no name.
TEST(OpenAI, BrokenToolArgumentsAreKeptAsText) {
  std::string body =
      "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"click\",\"arguments\":\"{selector: e1\"}}]}}]}\n\n"
      "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":3,\"function\":{\"arguments\":\"{}\"}}]}}]}\n\n"
      "data: [DONE]\n\n";
  RawServer s;
  s.push(in_pieces(RawServer::sse_head(), body, 4096));
  Collected c;
  auto r = provider("openai", s)->complete(tool_request("gpt-4o"), c.fn(), CancelToken{});
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->tool_calls.size(), 1u);
  EXPECT_TRUE(r->tool_calls[0].arguments.is_null());
  EXPECT_EQ(r->tool_calls[0].raw_arguments, "{selector: e1");
}

TEST(Retries, TooManyRequestsHonoursRetryAfter) {
  RawServer s;
  s.push({Step::write(RawServer::error_response(429, R"({"error":{"message":"slow down"}})", "Retry-After: 1\r\n"))});
  s.push(in_pieces(RawServer::sse_head(), openai_body(), 1000));
  Collected c;
  auto t0 = std::chrono::steady_clock::now();
  auto r = provider("openai", s)->complete(request("gpt-4o"), c.fn(), CancelToken{});
  auto took = std::chrono::steady_clock::now() - t0;
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->attempts, 2);
  EXPECT_GE(took, std::chrono::milliseconds(950)) << "waited as Retry-After asked, not the 20 ms backoff";
  EXPECT_EQ(r->text, "Grüße aus 🌍");
}

TEST(Retries, ServerErrorThenSuccess) {
  RawServer s;
  s.push({Step::write(RawServer::error_response(500, R"({"error":{"message":"oops"}})"))});
  s.push({Step::write(RawServer::error_response(529, R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})"))});
  s.push(in_pieces(RawServer::sse_head(), anthropic_body(), 100));
  Collected c;
  auto r = provider("anthropic", s)->complete(request("claude-sonnet-4-20250514"), c.fn(), CancelToken{});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->attempts, 3);
  EXPECT_EQ(c.restarts, 2);
}

// Each failure a person can act on is named (details.kind) and says what to do.
TEST(Errors, EachFailureIsNamedAndSaysWhatToDo) {
  auto fails_with = [](RawServer& s, const std::string& kind_name, const std::string& model = "gpt-4o") {
    auto r = provider("openai", s)->complete(request(model), [](const Delta&) {}, CancelToken{});
    EXPECT_FALSE(r);
    if (r) return Error{};
    EXPECT_EQ(kind_of(r.error()), kind_name) << r.error().message;
    return r.error();
  };
  {  // A refused key.
    RawServer s;
    s.push({Step::write(RawServer::error_response(401, R"({"error":{"message":"Incorrect API key provided"}})"))});
    Error e = fails_with(s, "bad-key");
    EXPECT_NE(e.message.find("OPENAI_API_KEY"), std::string::npos) << e.message;
  }
  {  // An unknown model: the models the endpoint lists are named.
    RawServer s;
    s.push({Step::write(RawServer::error_response(404, R"({"error":{"message":"The model `gpt-9` does not exist","code":"model_not_found"}})"))});
    std::string list = RawServer::error_response(200, R"({"data":[{"id":"gpt-4o"},{"id":"gpt-4.1"},{"id":"o3"}]})");
    s.push({Step::write(list.replace(list.find(" Status"), 7, " OK"))});
    Error e = fails_with(s, "unknown-model", "gpt-9");
    EXPECT_EQ(e.code, Code::NotFound);
    EXPECT_NE(e.message.find("'gpt-9'"), std::string::npos) << e.message;
    EXPECT_NE(e.message.find("gpt-4o, gpt-4.1, o3"), std::string::npos) << e.message;
    ASSERT_EQ(s.requests().size(), 2u);
    EXPECT_NE(s.requests()[1].find("GET /v1/models"), std::string::npos) << s.requests()[1];
  }
  {  // A prompt over the context window.
    RawServer s;
    s.push({Step::write(RawServer::error_response(400, R"({"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.","code":"context_length_exceeded"}})"))});
    Error e = fails_with(s, "context-overflow");
    EXPECT_EQ(e.code, Code::OutOfRange);
  }
  {  // Overloaded on every attempt.
    RawServer s;
    for (int i = 0; i < 4; ++i) s.push({Step::write(RawServer::error_response(529, R"({"error":{"message":"Overloaded"}})"))});
    Error e = fails_with(s, "overloaded");
    EXPECT_NE(e.message.find("4 attempts"), std::string::npos) << e.message;
  }
  {  // Rate limited on every attempt.
    RawServer s;
    for (int i = 0; i < 4; ++i) s.push({Step::write(RawServer::error_response(429, R"({"error":{"message":"slow down"}})"))});
    Error e = fails_with(s, "rate-limited");
    EXPECT_EQ(e.code, Code::ResourceExhausted);
  }
  {  // An endpoint without tool calling: named, so the tool loop can fall back to JSON answers.
    RawServer s;
    s.push({Step::write(RawServer::error_response(400, R"({"error":{"message":"this model does not support tools"}})"))});
    Error e = fails_with(s, "tools-refused");
    EXPECT_EQ(e.code, Code::InvalidArgument);
  }
  {  // The stream cut mid-answer on every attempt: never a half-parsed answer.
    RawServer s;
    std::string body = openai_body();
    for (int i = 0; i < 4; ++i) s.push({Step::write(RawServer::sse_head()), Step::write(body.substr(0, body.size() / 2))});
    fails_with(s, "stream-dropped");
  }
}

// Anthropic's in-stream error event names its type; an overloaded_error is retried and named as such.
TEST(Errors, AnOverloadedErrorInsideTheStreamIsNamedByItsType) {
  RawServer s;
  std::string overloaded = "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"busy\"}}\n\n";
  for (int i = 0; i < 4; ++i) s.push({Step::write(RawServer::sse_head()), Step::write(overloaded)});
  auto r = provider("anthropic", s)->complete(request("claude-sonnet-4-20250514"), [](const Delta&) {}, CancelToken{});
  ASSERT_FALSE(r);
  EXPECT_EQ(kind_of(r.error()), "overloaded") << r.error().message;
}

TEST(Retries, ClientErrorsAreNotRetried) {
  RawServer s;
  s.push({Step::write(RawServer::error_response(400, R"({"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: too large"}})"))});
  s.push(in_pieces(RawServer::sse_head(), anthropic_body(), 100));
  auto r = provider("anthropic", s)->complete(request("claude-sonnet-4-20250514"), [](const Delta&) {}, CancelToken{});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::InvalidArgument);
  EXPECT_NE(r.error().message.find("max_tokens: too large"), std::string::npos) << r.error().message;
  EXPECT_EQ(s.requests().size(), 1u);

  RawServer t;
  t.push({Step::write(RawServer::error_response(401, R"({"error":{"message":"invalid x-api-key"}})"))});
  auto u = provider("anthropic", t)->complete(request("claude-sonnet-4-20250514"), [](const Delta&) {}, CancelToken{});
  ASSERT_FALSE(u);
  EXPECT_EQ(u.error().code, Code::Unauthenticated);
  EXPECT_NE(u.error().message.find("ANTHROPIC_API_KEY"), std::string::npos) << u.error().message;
  EXPECT_EQ(u.error().message.find("sk-test-key"), std::string::npos) << "the key is never echoed";
  EXPECT_EQ(t.requests().size(), 1u);
}

TEST(Streams, AMalformedChunkIsSkippedWithAWarning) {
  RawServer s;
  s.push(in_pieces(RawServer::sse_head(), openai_body("data: {not json at all\n\n"), 9));
  auto r = provider("openai", s)->complete(request("gpt-4o"), [](const Delta&) {}, CancelToken{});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->text, "Grüße aus 🌍");
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_NE(r->warnings[0].find("malformed"), std::string::npos);
}

TEST(Streams, ADroppedConnectionRestartsTheAnswer) {
  RawServer s;
  std::string body = anthropic_body();
  s.push({Step::write(RawServer::sse_head()), Step::write(body.substr(0, body.size() / 2)), Step::close()});
  s.push(in_pieces(RawServer::sse_head(), body, 50));
  Collected c;
  auto r = provider("anthropic", s)->complete(request("claude-sonnet-4-20250514"), c.fn(), CancelToken{});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->attempts, 2);
  EXPECT_EQ(c.restarts, 1);
  EXPECT_EQ(c.text, "Héllo wörld 💭") << "the partial first answer was dropped";
}

TEST(Streams, SilenceMidStreamIsADeadline) {
  RawServer s;
  std::string body = openai_body();
  s.push({Step::write(RawServer::sse_head()), Step::write(body.substr(0, 40)), Step::sleep(std::chrono::milliseconds(3500))});
  s.push(in_pieces(RawServer::sse_head(), body, 1000));
  auto t0 = std::chrono::steady_clock::now();
  auto r = provider("openai", s)->complete(request("gpt-4o"), [](const Delta&) {}, CancelToken{});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->attempts, 2);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(3400)) << "gave up on the silent stream before it resumed";
}

TEST(Streams, CancellationStopsWithinASecond) {
  RawServer s;
  std::string body = anthropic_body();
  s.push(in_pieces(RawServer::sse_head(), body, 20, std::chrono::milliseconds(200)));
  CancelToken cancel;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancel.cancel();
  });
  auto t0 = std::chrono::steady_clock::now();
  auto r = provider("anthropic", s)->complete(request("claude-sonnet-4-20250514"), [](const Delta&) {}, cancel);
  stopper.join();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::Cancelled);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(1400));
}

TEST(Retries, GivesUpAfterTheLastAttemptWithTheReason) {
  RawServer s;
  for (int i = 0; i < 4; ++i) s.push({Step::write(RawServer::error_response(503, R"({"error":{"message":"maintenance"}})"))});
  auto r = provider("openai", s)->complete(request("gpt-4o"), [](const Delta&) {}, CancelToken{});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::Unavailable);
  EXPECT_NE(r.error().message.find("after 4 attempts"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("maintenance"), std::string::npos);
}

TEST(Retries, BackoffGrowsWithJitterAndRetryAfterParses) {
  CallLimits l;
  l.backoff_base = std::chrono::milliseconds(100);
  for (int i = 0; i < 50; ++i) {
    auto d1 = backoff_delay(1, l), d3 = backoff_delay(3, l);
    EXPECT_GE(d1.count(), 50);
    EXPECT_LE(d1.count(), 150);
    EXPECT_GE(d3.count(), 200);
    EXPECT_LE(d3.count(), 600);
  }
  EXPECT_EQ(parse_retry_after("7")->count(), 7000);
  EXPECT_FALSE(parse_retry_after("soon").has_value());
  EXPECT_TRUE(parse_retry_after("Wed, 21 Oct 2099 07:28:00 GMT").has_value());
}

TEST(Usage, EstimatedWhenTheProviderSendsNone) {
  RawServer s;
  s.push(in_pieces(RawServer::sse_head(), "data: {\"choices\":[{\"delta\":{\"content\":\"12345678\"}}]}\n\ndata: [DONE]\n\n", 1000));
  auto r = provider("openai", s)->complete(request("some-local-model"), [](const Delta&) {}, CancelToken{});
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->usage.estimated);
  EXPECT_EQ(r->usage.output_tokens, 2);
  EXPECT_FALSE(r->cost_known) << "no price for an unknown model";
}

TEST(Settings, MissingKeysAndProvidersSayHowToFixThem) {
  unsetenv("ANTHROPIC_API_KEY");
  unsetenv("OPENAI_API_KEY");
  unsetenv("OURO_API_KEY");
  unsetenv("OURO_PROVIDER");
  SettingsFlags none;
  none.config_path = "/nonexistent/config.json";
  auto a = resolve_settings(none);
  ASSERT_FALSE(a);
  EXPECT_NE(a.error().message.find("ANTHROPIC_API_KEY"), std::string::npos) << a.error().message;

  SettingsFlags anth = none;
  anth.provider = "anthropic";
  auto b = resolve_settings(anth);
  ASSERT_TRUE(b);
  auto p = make_provider(b->spec);
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("set ANTHROPIC_API_KEY"), std::string::npos);

  SettingsFlags local = none;
  local.provider = "ollama";
  auto c = resolve_settings(local);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->spec.base_url, "http://127.0.0.1:11434/v1");
  EXPECT_TRUE(make_provider(c->spec)) << "local servers need no key";

  SettingsFlags bad = none;
  bad.provider = "nonsense";
  EXPECT_NE(resolve_settings(bad).error().message.find("unknown provider 'nonsense'"), std::string::npos);
}

TEST(Settings, FlagsThenEnvironmentThenConfigFile) {
  std::string path = "/tmp/ouro-settings-test-" + std::to_string(getpid()) + ".json";
  std::ofstream(path) << R"({"provider": "openrouter", "model": "from-file", "sub_model": "sub-from-file", "api_keys": {"openrouter": "sk-or-file"}})";
  unsetenv("OURO_MODEL");
  unsetenv("OURO_PROVIDER");
  unsetenv("OURO_API_KEY");
  unsetenv("OPENROUTER_API_KEY");
  SettingsFlags f;
  f.config_path = path;
  auto s = resolve_settings(f);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->model, "from-file");
  EXPECT_EQ(s->sub_model, "sub-from-file");
  EXPECT_EQ(s->spec.api_key, "sk-or-file");
  EXPECT_EQ(s->spec.base_url, "https://openrouter.ai/api/v1");
  EXPECT_EQ(s->to_public_json().dump().find("sk-or-file"), std::string::npos);
  setenv("OURO_MODEL", "from-env", 1);
  EXPECT_EQ(resolve_settings(f)->model, "from-env");
  f.model = "from-flag";
  EXPECT_EQ(resolve_settings(f)->model, "from-flag");
  unsetenv("OURO_MODEL");
  std::remove(path.c_str());
}

TEST(Scripted, ReplaysMainAndSubResponsesInOrder) {
  std::string path = "/tmp/ouro-script-test-" + std::to_string(getpid()) + ".jsonl";
  std::ofstream(path) << "{\"text\": \"main one\", \"reasoning\": \"why\"}\n{\"sub\": true, \"text\": \"sub one\"}\n\n{\"text\": \"main two\"}\n";
  auto p = make_provider(ProviderSpec{"script", "", "", path, {}});
  ASSERT_TRUE(p) << p.error().message;
  Collected c;
  Request sub = request("x");
  sub.purpose = Purpose::Sub;
  EXPECT_EQ((*p)->complete(request("x"), c.fn(), CancelToken{})->text, "main one");
  EXPECT_EQ(c.reasoning, "why");
  EXPECT_EQ((*p)->complete(sub, c.fn(), CancelToken{})->text, "sub one");
  EXPECT_EQ((*p)->complete(request("x"), c.fn(), CancelToken{})->text, "main two");
  auto done = (*p)->complete(request("x"), c.fn(), CancelToken{});
  ASSERT_FALSE(done);
  EXPECT_NE(done.error().message.find("no more main responses"), std::string::npos);
  std::ofstream(path) << "{\"text\": \"ok\"}\nnot json\n";
  auto bad = make_provider(ProviderSpec{"script", "", "", path, {}});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("line 2"), std::string::npos) << bad.error().message;
  std::remove(path.c_str());
}

// A recorded run's sub-calls made at once (llm_batch) are answered each by its own recording,
// whatever order they are asked in; recorded usage and cost are reported as they were.
TEST(Scripted, RecordedSubCallsAnswerTheCallThatAskedThem) {
  std::string path = "/tmp/ouro-script-asked-" + std::to_string(getpid()) + ".jsonl";
  Request a = request("m"), b = request("m");
  a.messages[0].content = "summarise page A";
  b.messages[0].content = "summarise page B";
  a.purpose = b.purpose = Purpose::Sub;
  EXPECT_NE(request_digest(a), request_digest(b));
  Request a2 = request("another model");
  a2.messages[0].content = "summarise page A";
  EXPECT_EQ(request_digest(a), request_digest(a2));
  {
    std::ofstream out(path);
    out << json{{"text", "main"}, {"usage", {{"input_tokens", 1234}, {"output_tokens", 56}}}, {"cost_usd", 0.25}}.dump() << "\n";
    out << json{{"sub", true}, {"asked", request_digest(a)}, {"text", "about A"}}.dump() << "\n";
    out << json{{"sub", true}, {"asked", request_digest(b)}, {"text", "about B"}}.dump() << "\n";
  }
  auto p = make_provider(ProviderSpec{"script", "", "", path, {}});
  ASSERT_TRUE(p) << p.error().message;
  Collected c;
  auto main = (*p)->complete(request("x"), c.fn(), CancelToken{});
  ASSERT_TRUE(main);
  EXPECT_EQ(main->usage.input_tokens, 1234);
  EXPECT_EQ(main->usage.output_tokens, 56);
  EXPECT_DOUBLE_EQ(main->cost_usd, 0.25);
  EXPECT_EQ((*p)->complete(b, c.fn(), CancelToken{})->text, "about B");
  EXPECT_EQ((*p)->complete(a, c.fn(), CancelToken{})->text, "about A");
  std::remove(path.c_str());
}

}  // namespace
}  // namespace ouro::llm
