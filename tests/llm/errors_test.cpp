// What went wrong with a provider call, named (llm/errors.h): the kind a non-2xx answer is given
// from its status and message, the kind an error carries, and the models an endpoint lists, read
// from a loopback server. Each kind as a whole call meets it is in provider_test.cpp.
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

std::string ok_json(const std::string& body) {
  return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
}

HttpCall call_to(const std::string& url) {
  HttpCall c;
  c.url = url;
  c.headers = {"x-api-key: sk-test-123456", "Content-Type: application/json", "Accept: text/event-stream", "anthropic-version: 2023-06-01"};
  c.body = R"({"model":"m"})";
  return c;
}

constexpr auto kWait = std::chrono::milliseconds(5000);

TEST(ClassifyHttp, TheStatusAloneNamesTheKind) {
  EXPECT_EQ(classify_http(401, ""), error_kind::kBadKey);
  EXPECT_EQ(classify_http(403, ""), error_kind::kBadKey);
  EXPECT_EQ(classify_http(404, ""), error_kind::kUnknownModel) << "a wrong base URL or model: the list tells which";
  EXPECT_EQ(classify_http(413, ""), error_kind::kContextOverflow);
  EXPECT_EQ(classify_http(429, ""), error_kind::kRateLimited);
  EXPECT_EQ(classify_http(529, ""), error_kind::kOverloaded);
  for (int status : {500, 502, 503, 504}) EXPECT_EQ(classify_http(status, ""), error_kind::kServerError) << status;
  for (int status : {400, 409, 422}) EXPECT_EQ(classify_http(status, ""), error_kind::kRejected) << status;
}

TEST(ClassifyHttp, TheMessageNamesTheKindInAnyCase) {
  EXPECT_EQ(classify_http(400, "This model's MAXIMUM CONTEXT length is 8192 tokens"), error_kind::kContextOverflow);
  EXPECT_EQ(classify_http(400, "prompt is too long: 210000 tokens > 200000 maximum"), error_kind::kContextOverflow);
  EXPECT_EQ(classify_http(400, "Context_Length_Exceeded"), error_kind::kContextOverflow);
  EXPECT_EQ(classify_http(400, "Model_Not_Found"), error_kind::kUnknownModel);
  EXPECT_EQ(classify_http(400, "The model `gpt-9` does not exist"), error_kind::kUnknownModel);
  EXPECT_EQ(classify_http(404, "no route for this model"), error_kind::kUnknownModel);
  EXPECT_EQ(classify_http(503, "Overloaded"), error_kind::kOverloaded) << "named by its words, not only by 529";
  EXPECT_EQ(classify_http(400, "tool choice requires --enable-auto-tool-choice"), error_kind::kToolsRefused);
  EXPECT_EQ(classify_http(400, "max_tokens: too large"), error_kind::kRejected);
  // A key refused is a key refused, whatever else the message says about models.
  EXPECT_EQ(classify_http(401, "invalid key for model x"), error_kind::kBadKey);
}

// A provider that refuses a request because the prompt and max_tokens together are over the
// model's window says "input length and `max_tokens` exceed context limit": a context overflow.
TEST(ClassifyHttp, APromptOverTheContextLimitIsAContextOverflow) {
  EXPECT_EQ(classify_http(400, "input length and `max_tokens` exceed context limit: 199000 + 8192 > 200000, "
                               "decrease input length or `max_tokens` and try again"),
            error_kind::kContextOverflow);
}

TEST(KindOf, OnlyATextKindInAnObjectNamesOne) {
  Error e;
  EXPECT_EQ(kind_of(e), "") << "no details";
  e.details = nlohmann::ordered_json{{"kind", "timeout"}, {"status", 0}};
  EXPECT_EQ(kind_of(e), "timeout");
  e.details = nlohmann::ordered_json::array({"kind", "timeout"});
  EXPECT_EQ(kind_of(e), "");
  e.details = nlohmann::ordered_json{{"kind", 5}};
  EXPECT_EQ(kind_of(e), "");
  e.details = nlohmann::ordered_json{{"status", 401}};
  EXPECT_EQ(kind_of(e), "");
  e.details = "bad-key";
  EXPECT_EQ(kind_of(e), "");
}

TEST(ListModels, AnEndpointThatIsNotAChatOrMessagesUrlIsNotAsked) {
  RawServer s;
  EXPECT_TRUE(list_models(call_to(s.url() + "/v1/completions"), kWait).empty());
  EXPECT_TRUE(list_models(call_to(s.url() + "/v1/models"), kWait).empty());
  EXPECT_TRUE(s.requests().empty());
}

TEST(ListModels, TheListBesideTheEndpointIsAskedWithTheKeyButNotTheBodysHeaders) {
  RawServer s;
  s.push({Step::write(ok_json(R"({"data":[{"id":"claude-a"},{"name":"claude-b"},"claude-c",{"id":5},{},null],"models":[{"name":"claude-d"}]})"))});
  s.push({Step::write(ok_json(R"({"data":[{"id":"gpt-4o"}]})"))});
  EXPECT_EQ(list_models(call_to(s.url() + "/v1/messages"), kWait), (std::vector<std::string>{"claude-a", "claude-b", "claude-c", "claude-d"}));
  EXPECT_EQ(list_models(call_to(s.url() + "/v1/chat/completions"), kWait), (std::vector<std::string>{"gpt-4o"}));
  auto requests = s.requests();
  ASSERT_EQ(requests.size(), 2u);
  for (const auto& r : requests) {
    EXPECT_EQ(r.rfind("GET /v1/models ", 0), 0u) << r;
    EXPECT_TRUE(has(r, "x-api-key: sk-test-123456")) << r;
    EXPECT_TRUE(has(r, "anthropic-version: 2023-06-01")) << r;
    EXPECT_FALSE(has(r, "text/event-stream")) << r;
    EXPECT_FALSE(has(r, "application/json")) << r;
  }
}

TEST(ListModels, AtMostMaxAndNoAbsurdlyLongIds) {
  RawServer s;
  json many = json::array();
  many.push_back(json{{"id", std::string(300, 'x')}});
  for (int i = 0; i < 30; ++i) many.push_back(json{{"id", "m" + std::to_string(i)}});
  const std::string body = json{{"data", many}}.dump();
  s.push({Step::write(ok_json(body))});
  s.push({Step::write(ok_json(body))});
  auto twenty = list_models(call_to(s.url() + "/v1/messages"), kWait);
  ASSERT_EQ(twenty.size(), 20u);
  EXPECT_EQ(twenty.front(), "m0") << "an id of 300 characters is no model name";
  EXPECT_EQ(twenty.back(), "m19");
  EXPECT_EQ(list_models(call_to(s.url() + "/v1/messages"), kWait, 3), (std::vector<std::string>{"m0", "m1", "m2"}));
}

TEST(ListModels, AnAnswerThatIsNotAnOkJsonObjectIsNoList) {
  RawServer s;
  s.push({Step::write(RawServer::error_response(404, R"({"data":[{"id":"hidden"}]})"))});
  s.push({Step::write(ok_json("not json at all"))});
  s.push({Step::write(ok_json(R"(["gpt-4o"])"))});
  s.push({Step::write(ok_json(R"({"data":"gpt-4o"})"))});
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(list_models(call_to(s.url() + "/v1/chat/completions"), kWait).empty()) << "answer " << i;
  EXPECT_EQ(s.requests().size(), 4u);
}

}  // namespace
}  // namespace ouro::llm
