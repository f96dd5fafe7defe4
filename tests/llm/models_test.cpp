// The model table: every family's request body against the field names of its provider's
// published API reference, the default parameters, and the overrides.
#include "llm/models.h"
#include "llm/provider.h"
#include "llm/settings.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

namespace ouro::llm {
namespace {

// Anthropic Messages API, "Create a Message" request body.
const std::set<std::string> kAnthropicFields = {"model", "messages", "max_tokens", "system", "temperature", "top_p", "top_k",
                                                "stop_sequences", "stream", "metadata", "thinking", "tools", "tool_choice",
                                                "service_tier", "container", "mcp_servers"};
// OpenAI Chat Completions, "Create chat completion" request body.
const std::set<std::string> kOpenAIFields = {"model", "messages", "max_tokens", "max_completion_tokens", "temperature", "top_p", "n",
                                             "stream", "stream_options", "stop", "presence_penalty", "frequency_penalty", "logit_bias",
                                             "logprobs", "top_logprobs", "user", "seed", "tools", "tool_choice", "parallel_tool_calls",
                                             "response_format", "reasoning_effort", "modalities", "prediction", "store", "metadata",
                                             "service_tier", "audio", "web_search_options", "verbosity"};

Request req(const std::string& model, ModelParams p = {}) { return Request{model, "SYSTEM", {{"user", "hi", {}}}, p, Purpose::Main}; }

void only_published(const json& body, const std::set<std::string>& fields, const std::string& model) {
  for (const auto& [k, v] : body.items()) EXPECT_TRUE(fields.count(k)) << model << ": '" << k << "' is not a field of the API";
}

TEST(ModelTable, EveryFamilysBodyUsesItsProvidersFieldNames) {
  for (const auto& f : model_families()) {
    if (f.wire == "script") continue;
    std::string model = f.prefix + "-test";
    for (std::optional<int> thinking : {std::optional<int>(), std::optional<int>(0), std::optional<int>(8000)}) {
      ModelParams p;
      p.thinking = thinking;
      json b = request_body(f.wire, req(model, p));
      only_published(b, f.wire == "anthropic" ? kAnthropicFields : kOpenAIFields, model);
      EXPECT_EQ(b["stream"], true) << model;
      int out = b.contains("max_tokens") ? b["max_tokens"].get<int>() : b["max_completion_tokens"].get<int>();
      EXPECT_LE(out, f.max_output) << model;
      EXPECT_GE(out, 1) << model;
      if (!f.temperature) {
        EXPECT_FALSE(b.contains("temperature")) << model << " refuses a temperature";
      }
      if (!f.top_p) {
        EXPECT_FALSE(b.contains("top_p")) << model;
      }
      if (f.reasoning == Reasoning::OpenAIEffort) {
        EXPECT_FALSE(b.contains("max_tokens")) << model << " takes max_completion_tokens";
        EXPECT_TRUE(b.contains("max_completion_tokens")) << model;
      }
      if (f.wire == "anthropic" && b.contains("thinking")) {
        EXPECT_EQ(b["thinking"]["type"], "enabled");
        int budget = b["thinking"]["budget_tokens"];
        EXPECT_GE(budget, 1024) << model;
        EXPECT_LT(budget, b["max_tokens"].get<int>()) << model << ": the budget must stay under max_tokens";
        EXPECT_FALSE(b.contains("temperature")) << model << ": thinking takes no temperature";
      }
      EXPECT_EQ(f.wire == "anthropic" && thinking.value_or(0) > 0 && f.reasoning == Reasoning::AnthropicThinking, b.contains("thinking"))
          << model;
    }
  }
}

TEST(ModelTable, SeedDefaultsStay) {
  // Claude Sonnet 4 with 4,096 tokens at temperature 0.
  json b = request_body("anthropic", req("claude-sonnet-4-20250514"));
  EXPECT_EQ(b["max_tokens"], 4096);
  EXPECT_EQ(b["temperature"], 0);
  EXPECT_FALSE(b.contains("thinking"));
  // kimi-k2-thinking via NVIDIA with temperature 1, top_p 0.9, 16,384 tokens.
  b = request_body("openai", req("moonshotai/kimi-k2-thinking"));
  EXPECT_EQ(b["max_tokens"], 16384);
  EXPECT_EQ(b["temperature"], 1);
  EXPECT_EQ(b["top_p"], 0.9);
  EXPECT_EQ(model_family("moonshotai/kimi-k2-thinking", "openai").reasoning, Reasoning::ReasoningContent);
  // An unknown model gets safe defaults.
  b = request_body("openai", req("my-local-llm"));
  EXPECT_EQ(b["max_tokens"], 4096);
  EXPECT_EQ(b["temperature"], 0);
  EXPECT_FALSE(b.contains("reasoning_effort"));
  EXPECT_FALSE(model_family("my-local-llm", "openai").prices.has_value());
}

TEST(ModelTable, OverridesAreAppliedWithinTheModelsLimits) {
  ModelParams p;
  p.max_tokens = 1000000;
  p.temperature = 0.7;
  json b = request_body("anthropic", req("claude-3-5-haiku-20241022", p));
  EXPECT_EQ(b["max_tokens"], 8192) << "capped at the model's maximum";
  EXPECT_EQ(b["temperature"], 0.7);
  // Thinking on Claude: enabled with the budget, max_tokens above it, no temperature.
  p = {};
  p.thinking = 10000;
  b = request_body("anthropic", req("claude-sonnet-4-20250514", p));
  EXPECT_EQ(b["thinking"]["budget_tokens"], 10000);
  EXPECT_GT(b["max_tokens"].get<int>(), 10000);
  EXPECT_FALSE(b.contains("temperature"));
  // OpenAI reasoning models: the effort from the budget, never a temperature.
  p.temperature = 0.2;
  b = request_body("openai", req("o4-mini", p));
  EXPECT_EQ(b["reasoning_effort"], "medium");
  EXPECT_FALSE(b.contains("temperature"));
  EXPECT_EQ(b["max_completion_tokens"], 16384);
  // Claude through an OpenAI-compatible router: its sizes and prices, plain chat parameters.
  auto routed = model_family("anthropic/claude-sonnet-4", "openai");
  EXPECT_EQ(routed.context_window, 200000);
  EXPECT_TRUE(routed.prices.has_value());
  b = request_body("openai", req("anthropic/claude-sonnet-4", p));
  EXPECT_FALSE(b.contains("thinking"));
  EXPECT_EQ(b["max_tokens"], 4096);
}

TEST(ModelTable, ImagesBecomeEachProvidersImageContent) {
  auto img = image_from_data_url("data:image/png;base64,iVBORw0KGgo=");
  ASSERT_TRUE(img) << img.error().message;
  Request r = req("claude-sonnet-4-20250514");
  r.messages[0].images.push_back(*img);
  json a = request_body("anthropic", r);
  const json& ac = a["messages"][0]["content"];
  ASSERT_TRUE(ac.is_array());
  EXPECT_EQ(ac[0], json::parse(R"({"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}})"));
  EXPECT_EQ(ac[1], json::parse(R"({"type":"text","text":"hi"})"));
  r.model = "gpt-4.1";
  json o = request_body("openai", r);
  const json& oc = o["messages"][1]["content"];
  ASSERT_TRUE(oc.is_array());
  EXPECT_EQ(oc[0], json::parse(R"({"type":"text","text":"hi"})"));
  EXPECT_EQ(oc[1], json::parse(R"({"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}})"));
  // What is not an image a provider takes says so.
  for (const char* bad : {"https://x.org/a.png", "data:image/png,rawbytes", "data:image/tiff;base64,AAAA", "data:image/png;base64,@@@"}) {
    auto e = image_from_data_url(bad);
    EXPECT_FALSE(e) << bad;
  }
  EXPECT_TRUE(model_family("gpt-4o", "openai").vision);
  EXPECT_FALSE(model_family("deepseek-chat", "openai").vision);
  EXPECT_FALSE(model_family("my-local-llm", "openai").vision);
}

TEST(ModelTable, TheStablePrefixIsSentAsBlocksWithABreakpointAfterIt) {
  Request r = req("claude-sonnet-4-20250514");
  r.messages[0].content = "HISTORY-1|HISTORY-2|now";
  r.messages[0].cache_blocks = {10, 20};
  json b = request_body("anthropic", r);
  EXPECT_EQ(b["messages"][0]["content"], json::parse(R"([{"type":"text","text":"HISTORY-1|"},
    {"type":"text","text":"HISTORY-2|","cache_control":{"type":"ephemeral"}},{"type":"text","text":"now"}])"));
  EXPECT_EQ(b["system"][0]["cache_control"]["type"], "ephemeral");
  // OpenAI-compatible servers cache repeated prefixes themselves: one plain string.
  r.model = "gpt-4.1";
  EXPECT_EQ(request_body("openai", r)["messages"][1]["content"], "HISTORY-1|HISTORY-2|now");
}

TEST(ModelTable, ParamsAreCheckedWithMessagesThatSayWhatIsAccepted) {
  EXPECT_EQ(*parse_thinking("off"), 0);
  EXPECT_EQ(*parse_thinking("8000"), 8000);
  auto bad = parse_thinking("lots");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("1024"), std::string::npos);
  EXPECT_FALSE(parse_thinking("100"));
  auto p = parse_model_params(json{{"max_tokens", 0}}, "options");
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("options.max_tokens"), std::string::npos);
  EXPECT_FALSE(parse_model_params(json{{"temperature", 3}}, "options"));
  EXPECT_FALSE(parse_model_params(json{{"temperature", "hot"}}, "options"));
  auto ok = parse_model_params(json{{"max_tokens", 2048}, {"temperature", 0.5}, {"thinking", "off"}}, "options");
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(*ok->max_tokens, 2048);
  EXPECT_EQ(*ok->thinking, 0);
}

TEST(ModelTable, SettingsTakeFlagsOverTheEnvironment) {
  ::setenv("OURO_MAX_TOKENS", "3000", 1);
  ::setenv("OURO_THINKING", "off", 1);
  SettingsFlags f;
  f.provider = "ollama";
  f.config_path = "/nonexistent/ouro-config.json";
  f.max_tokens = 5000;
  auto s = resolve_settings(f);
  ::unsetenv("OURO_MAX_TOKENS");
  ::unsetenv("OURO_THINKING");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(*s->params.max_tokens, 5000);
  EXPECT_EQ(*s->params.thinking, 0);
  ::setenv("OURO_TEMPERATURE", "warm", 1);
  auto bad = resolve_settings(f);
  ::unsetenv("OURO_TEMPERATURE");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("OURO_TEMPERATURE"), std::string::npos);
}

}  // namespace
}  // namespace ouro::llm
