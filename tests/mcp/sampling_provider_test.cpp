// The client's model as a provider (MCP sampling): the request's params, the answer's text, and
// a provider driven through a fake call that plays the client.
#include "mcp/sampling_provider.h"

#include <gtest/gtest.h>

namespace ouro::mcp {
namespace {

using namespace std::chrono_literals;

class FakeClient : public CallContext {
 public:
  void progress(double, std::optional<double>, const std::string&) override {}
  bool cancelled() const override { return false; }
  void on_cancel(std::function<void()>) override {}
  json client_capabilities() const override { return {{"sampling", json::object()}}; }
  Result<json> request(const std::string& method, const json& params, std::chrono::milliseconds timeout, std::function<bool()>) override {
    asked.push_back({{"method", method}, {"params", params}, {"timeout_ms", timeout.count()}});
    return answer;
  }
  std::vector<json> asked;
  Result<json> answer = json{{"role", "assistant"}, {"content", {{"type", "text"}, {"text", "```repl\nsetFinal(1)\n```"}}}, {"model", "claude-x"}, {"stopReason", "endTurn"}};
};

TEST(McpSampling, ParamsCarryTheSystemPromptMessagesTokensAndHints) {
  llm::Request req;
  req.model = "claude-sonnet-4-5";
  req.system = "You are ouro.";
  req.messages = {{"user", "look", {{"image/png", "AAAA"}}}, {"assistant", "ok", {}}};
  req.params.max_tokens = 1234;
  req.params.temperature = 0.2;
  auto p = sampling_params(req, 4096);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ((*p)["systemPrompt"], "You are ouro.");
  EXPECT_EQ((*p)["maxTokens"], 1234);
  EXPECT_EQ((*p)["temperature"], 0.2);
  EXPECT_EQ((*p)["includeContext"], "none");
  ASSERT_EQ((*p)["messages"].size(), 3u) << "the image is a message of its own before its text";
  EXPECT_EQ((*p)["messages"][0]["content"], (json{{"type", "image"}, {"data", "AAAA"}, {"mimeType", "image/png"}}));
  EXPECT_EQ((*p)["messages"][1]["content"], (json{{"type", "text"}, {"text", "look"}}));
  EXPECT_EQ((*p)["messages"][2]["role"], "assistant");
  EXPECT_EQ((*p)["modelPreferences"]["hints"][0]["name"], "claude-sonnet-4-5");
  EXPECT_GT((*p)["modelPreferences"]["intelligencePriority"].get<double>(), (*p)["modelPreferences"]["speedPriority"].get<double>());
  req.purpose = llm::Purpose::Sub;
  req.model.clear();
  req.params = {};
  auto sub = sampling_params(req, 4096);
  ASSERT_TRUE(sub);
  EXPECT_EQ((*sub)["maxTokens"], 4096);
  EXPECT_FALSE((*sub)["modelPreferences"].contains("hints"));
  EXPECT_GT((*sub)["modelPreferences"]["speedPriority"].get<double>(), (*sub)["modelPreferences"]["intelligencePriority"].get<double>());
  req.tools = {{"click", "", json::object()}};
  EXPECT_EQ(sampling_params(req, 4096).error().code, Code::Unimplemented);
}

TEST(McpSampling, AnswersAreReadWhateverTheClientSends) {
  auto one = sampling_response({{"content", {{"type", "text"}, {"text", "hi"}}}, {"model", "m"}, {"stopReason", "maxTokens"}}, 100);
  ASSERT_TRUE(one);
  EXPECT_EQ(one->text, "hi");
  EXPECT_EQ(one->model, "m");
  EXPECT_EQ(one->stop_reason, "max_tokens");
  auto blocks = sampling_response({{"content", json::array({{{"type", "text"}, {"text", "a"}}, {{"type", "tool_use"}}, {{"type", "text"}, {"text", "b"}}})}}, 100);
  ASSERT_TRUE(blocks);
  EXPECT_EQ(blocks->text, "ab");
  // Hostile or useless answers are errors that say what came.
  EXPECT_FALSE(sampling_response(json::array(), 100));
  EXPECT_FALSE(sampling_response(json{{"content", nullptr}}, 100));
  EXPECT_FALSE(sampling_response(json::object(), 100));
  auto image = sampling_response({{"content", {{"type", "image"}, {"data", "x"}}}}, 100);
  ASSERT_FALSE(image);
  EXPECT_NE(image.error().message.find("image"), std::string::npos);
  EXPECT_FALSE(sampling_response({{"content", {{"type", "text"}, {"text", 5}}}}, 100));
  // Bounded: a huge answer is cut at whole characters, with a warning.
  std::string big;
  for (int i = 0; i < 100; ++i) big += "é";
  auto cut = sampling_response({{"content", {{"type", "text"}, {"text", big}}}, {"model", std::string(10000, 'm')}}, 51);
  ASSERT_TRUE(cut);
  EXPECT_EQ(cut->text.size(), 50u);
  EXPECT_EQ(cut->warnings.size(), 1u);
  EXPECT_LE(cut->model.size(), 210u);
}

TEST(McpSampling, TheProviderAsksTheClientAndStreamsItsAnswerOnce) {
  FakeClient client;
  SamplingProvider provider(client, SamplingProvider::Options{});
  llm::Request req;
  req.system = "sys";
  req.messages = {{"user", "task", {}}};
  std::string streamed;
  llm::CancelToken cancel;
  auto r = provider.complete(req, [&](const llm::Delta& d) { streamed += d.text; }, cancel);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->text, "```repl\nsetFinal(1)\n```");
  EXPECT_EQ(streamed, r->text);
  EXPECT_EQ(r->model, "claude-x");
  EXPECT_TRUE(r->usage.estimated);
  EXPECT_FALSE(r->cost_known);
  ASSERT_EQ(client.asked.size(), 1u);
  EXPECT_EQ(client.asked[0]["method"], "sampling/createMessage");
  EXPECT_EQ(client.asked[0]["params"]["systemPrompt"], "sys");
  client.answer = make_error(Code::DeadlineExceeded, "the client did not answer");
  EXPECT_EQ(provider.complete(req, [](const llm::Delta&) {}, cancel).error().code, Code::DeadlineExceeded);
  cancel.cancel();
  EXPECT_EQ(provider.complete(req, [](const llm::Delta&) {}, cancel).error().code, Code::Cancelled);
  EXPECT_EQ(client.asked.size(), 2u) << "a cancelled run asks nothing";
}

TEST(McpSampling, OnlyAnObjectCapabilityOffersSampling) {
  EXPECT_TRUE(offers_sampling({{"sampling", json::object()}}));
  EXPECT_FALSE(offers_sampling(json::object()));
  EXPECT_FALSE(offers_sampling({{"sampling", true}}));
  EXPECT_FALSE(offers_sampling(nullptr));
}

}  // namespace
}  // namespace ouro::mcp
