// Choosing a model provider: make_provider by kind (keys, local servers, scripts, unknown kinds),
// resolve_settings from flags, environment and the settings file (named providers and their
// defaults, base URLs, where the key comes from), prices and token estimates, the first-run
// catalog of providers, and the connection test (scripted, or a server on 127.0.0.1; never a
// hosted API).
#include "llm/errors.h"
#include "llm/provider.h"
#include "llm/settings.h"
#include "llm/setup.h"

#include "basics.h"
#include "no_model_env.h"
#include "raw_server.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <utility>

namespace ouro::llm {
namespace {

using testing::RawServer;
using testing::Step;

// No provider, model or key from this machine (no_model_env.h).
class CleanEnvironment : public ::testing::Test {
 protected:
  void SetUp() override { m_chunks.emplace("OURO_SCRIPT_CHUNK_DELAY_US", "0"); }

  // Flags with an empty settings file (none is read).
  static SettingsFlags flags(const std::string& provider = "") {
    SettingsFlags f;
    if (!provider.empty()) f.provider = provider;
    f.file = json::object();
    return f;
  }

 private:
  testing::NoModelEnv m_no_model;
  std::optional<testing::ScopedEnv> m_chunks;
};

using ProviderSettings = CleanEnvironment;
using ProviderCatalog = CleanEnvironment;
using ConnectionTest = CleanEnvironment;

std::string write_script(const std::string& lines) {
  std::string path = testing::temp_dir() + "/script.jsonl";
  std::ofstream(path) << lines;
  return path;
}

const std::vector<std::string> kNamed = {"anthropic", "openai", "openrouter", "groq", "nvidia", "together",
                                         "deepseek", "ollama", "lmstudio", "vllm", "llamacpp"};

// make_provider.

TEST(ProviderChoice, AnUnknownKindIsRefusedWithTheKnownOnes) {
  for (const char* kind : {"gemini", ""}) {
    auto p = make_provider(ProviderSpec{kind, "", "sk-x", "", {}});
    ASSERT_FALSE(p) << kind;
    EXPECT_EQ(p.error().code, Code::InvalidArgument);
    EXPECT_NE(p.error().message.find("unknown provider '" + std::string(kind) + "'"), std::string::npos) << p.error().message;
    for (const char* known : {"anthropic", "openai", "script"}) EXPECT_NE(p.error().message.find(known), std::string::npos) << p.error().message;
  }
}

TEST(ProviderChoice, AnthropicNeedsAKey) {
  auto none = make_provider(ProviderSpec{"anthropic", "", "", "", {}});
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, Code::Unauthenticated);
  EXPECT_NE(none.error().message.find("ANTHROPIC_API_KEY"), std::string::npos) << none.error().message;
  // Even a local base URL: the Messages API always takes a key.
  EXPECT_FALSE(make_provider(ProviderSpec{"anthropic", "http://127.0.0.1:9/", "", "", {}}));
  auto p = make_provider(ProviderSpec{"anthropic", "", "sk-ant-test", "", {}});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ((*p)->name(), "anthropic");
  EXPECT_TRUE((*p)->position().is_null()) << "a model has no place in a script";
}

TEST(ProviderChoice, AnOpenAICompatibleServerNeedsAKeyUnlessItIsLocal) {
  for (const char* hosted : {"", "https://api.groq.com/openai/v1", "http://192.168.1.20:8000/v1"}) {
    auto p = make_provider(ProviderSpec{"openai", hosted, "", "", {}});
    ASSERT_FALSE(p) << hosted;
    EXPECT_EQ(p.error().code, Code::Unauthenticated) << hosted;
    EXPECT_NE(p.error().message.find("OURO_API_KEY"), std::string::npos) << "read for every provider: " << p.error().message;
    EXPECT_NE(p.error().message.find("a server on this machine"), std::string::npos) << p.error().message;
  }
  for (const char* local : {"http://localhost:11434/v1", "http://127.0.0.1:8080/v1"}) {
    auto p = make_provider(ProviderSpec{"openai", local, "", "", {}});
    ASSERT_TRUE(p) << local << ": " << p.error().message;
    EXPECT_EQ((*p)->name(), "openai");
  }
  EXPECT_TRUE(make_provider(ProviderSpec{"openai", "https://api.groq.com/openai/v1", "gsk-test", "", {}}));
}

TEST(ProviderChoice, AScriptIsReadWhenTheProviderIsMade) {
  auto missing = make_provider(ProviderSpec{"script", "", "", testing::temp_dir() + "/missing.jsonl", {}});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, Code::NotFound);
  auto empty_path = make_provider(ProviderSpec{"script", "", "", "", {}});
  ASSERT_FALSE(empty_path);
  EXPECT_EQ(empty_path.error().code, Code::NotFound);
  auto p = make_provider(ProviderSpec{"script", "", "", write_script("{\"text\": \"hi\"}\n"), {}});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ((*p)->name(), "script");
}

// resolve_settings.

TEST_F(ProviderSettings, AScriptNeedsNoKeyAndIsItsOwnModel) {
  auto s = resolve_settings(flags("script:/runs/demo.jsonl"));
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->spec.kind, "script");
  EXPECT_EQ(s->spec.script_path, "/runs/demo.jsonl");
  EXPECT_EQ(s->model, "scripted");
  EXPECT_EQ(s->sub_model, "scripted");
  EXPECT_EQ(s->source, "--provider");
  EXPECT_TRUE(s->spec.api_key.empty());
}

TEST_F(ProviderSettings, ABaseUrlIsAnOpenAICompatibleServerThatNeedsAModelName) {
  auto bare = resolve_settings(flags("http://127.0.0.1:9/v1"));
  ASSERT_FALSE(bare);
  EXPECT_EQ(bare.error().code, Code::InvalidArgument);
  EXPECT_NE(bare.error().message.find("--model"), std::string::npos) << bare.error().message;
  auto f = flags("https://models.example.org/v1");
  f.model = "qwen3";
  auto s = resolve_settings(f);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->spec.kind, "openai");
  EXPECT_EQ(s->spec.base_url, "https://models.example.org/v1");
  EXPECT_EQ(s->model, "qwen3");
  EXPECT_EQ(s->sub_model, "qwen3") << "the sub-model is the model when none is named";
  // Its key is an OpenAI-style one.
  ::setenv("OPENAI_API_KEY", "sk-compatible", 1);
  EXPECT_EQ(resolve_settings(f)->spec.api_key, "sk-compatible");
}

TEST_F(ProviderSettings, EachNamedProviderHasItsServiceModelsAndKeyVariable) {
  std::vector<std::string> names;
  for (const auto& p : presets()) names.push_back(p.name);
  EXPECT_EQ(names, kNamed);
  for (const auto& p : presets()) {
    const bool hosted = *p.key_env != '\0';
    if (hosted) ::setenv(p.key_env, ("key-for-" + std::string(p.name)).c_str(), 1);
    auto s = resolve_settings(flags(p.name));
    if (hosted) ::unsetenv(p.key_env);
    ASSERT_TRUE(s) << p.name << ": " << s.error().message;
    EXPECT_EQ(s->spec.kind, p.kind) << p.name;
    EXPECT_EQ(s->spec.base_url, p.base_url) << p.name;
    EXPECT_EQ(s->model, p.model) << p.name;
    EXPECT_EQ(s->sub_model, p.sub_model) << p.name;
    EXPECT_EQ(s->spec.api_key, hosted ? "key-for-" + std::string(p.name) : "") << p.name;
    // What was chosen can be made without a network call.
    EXPECT_TRUE(make_provider(s->spec)) << p.name;
  }
  // The local ones are on this machine.
  for (const char* local : {"ollama", "lmstudio", "vllm", "llamacpp"})
    EXPECT_EQ(resolve_settings(flags(local))->spec.base_url.rfind("http://127.0.0.1:", 0), 0u) << local;
}

TEST_F(ProviderSettings, AnUnknownNameListsEveryProviderOuroKnows) {
  auto s = resolve_settings(flags("gemini"));
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, Code::InvalidArgument);
  EXPECT_NE(s.error().message.find("unknown provider 'gemini'"), std::string::npos) << s.error().message;
  for (const auto& p : presets()) EXPECT_NE(s.error().message.find(p.name), std::string::npos) << p.name << " is not offered";
  EXPECT_NE(s.error().message.find("script:FILE"), std::string::npos);
}

TEST_F(ProviderSettings, WithoutAnyProviderTheErrorSaysEveryWayToChooseOne) {
  auto s = resolve_settings(flags(""));
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, Code::FailedPrecondition);
  for (const char* way : {"ouro auth set", "ANTHROPIC_API_KEY", "--provider", "script:FILE"})
    EXPECT_NE(s.error().message.find(way), std::string::npos) << way << ": " << s.error().message;
  for (const auto& p : presets()) EXPECT_NE(s.error().message.find(p.name), std::string::npos) << p.name << " is not offered";
}

TEST_F(ProviderSettings, TheProviderComesFromTheFlagThenTheEnvironmentThenTheFileThenAKey) {
  ::setenv("OPENAI_API_KEY", "sk-openai", 1);
  auto s = resolve_settings(flags());
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->provider, "openai");
  EXPECT_EQ(s->source, "OPENAI_API_KEY");
  EXPECT_EQ(s->spec.api_key, "sk-openai");
  ::setenv("ANTHROPIC_API_KEY", "sk-ant", 1);
  s = resolve_settings(flags());
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->provider, "anthropic") << "Anthropic's key is looked for first";
  EXPECT_EQ(s->source, "ANTHROPIC_API_KEY");
  auto with_file = flags();
  with_file.file = json{{"provider", "deepseek"}};
  s = resolve_settings(with_file);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->provider, "deepseek");
  EXPECT_EQ(s->source, "the settings file");
  ::setenv("OURO_PROVIDER", "groq", 1);
  s = resolve_settings(with_file);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->provider, "groq");
  EXPECT_EQ(s->source, "OURO_PROVIDER");
  with_file.provider = "ollama";
  s = resolve_settings(with_file);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->provider, "ollama");
  EXPECT_EQ(s->source, "--provider");
  // An empty flag or file entry is no choice.
  with_file.provider = "";
  with_file.file = json{{"provider", ""}};
  ::unsetenv("OURO_PROVIDER");
  EXPECT_EQ(resolve_settings(with_file)->provider, "anthropic");
}

TEST_F(ProviderSettings, AStoredKeyChoosesTheFirstHostedProviderItIsFor) {
  // Keys `ouro auth set` kept in the secrets file, in the order they were stored: a local server
  // needs none and a name ouro does not know is no provider.
  std::string secrets = testing::temp_dir() + "/secrets.json";
  std::ofstream(secrets) << R"({"api_keys": {"mystery": "m-key", "lmstudio": "l-key", "groq": "gsk-stored", "openai": "sk-stored"}})";
  auto f = flags();
  f.secrets_path = secrets;
  auto s = resolve_settings(f);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->provider, "groq");
  EXPECT_EQ(s->source, "the key stored for groq");
  EXPECT_EQ(s->spec.api_key, "gsk-stored");
  EXPECT_EQ(s->model, "llama-3.3-70b-versatile");
  // A key in the environment is chosen before any stored one.
  ::setenv("OPENAI_API_KEY", "sk-env", 1);
  s = resolve_settings(f);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->provider, "openai");
  EXPECT_EQ(s->spec.api_key, "sk-env");
}

TEST_F(ProviderSettings, TheKeyComesFromTheFlagThenOuroApiKeyThenTheProvidersVariableThenTheFile) {
  auto f = flags("groq");
  f.file = json{{"api_keys", {{"groq", "from-file-map"}, {"openai", "not-this-one"}}}};
  EXPECT_EQ(resolve_settings(f)->spec.api_key, "from-file-map");
  f.file = json{{"api_key", "from-file"}, {"api_keys", {{"groq", "from-file-map"}}}};
  EXPECT_EQ(resolve_settings(f)->spec.api_key, "from-file");
  ::setenv("GROQ_API_KEY", "from-groq-variable", 1);
  EXPECT_EQ(resolve_settings(f)->spec.api_key, "from-groq-variable");
  // Another provider's variable is not this provider's key.
  ::unsetenv("GROQ_API_KEY");
  ::setenv("OPENAI_API_KEY", "openai-key", 1);
  EXPECT_EQ(resolve_settings(f)->spec.api_key, "from-file");
  ::setenv("OURO_API_KEY", "from-ouro-variable", 1);
  EXPECT_EQ(resolve_settings(f)->spec.api_key, "from-ouro-variable");
  f.api_key = "from-flag";
  auto s = resolve_settings(f);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->spec.api_key, "from-flag");
  // The key is never shown.
  EXPECT_EQ(s->to_public_json().dump().find("from-flag"), std::string::npos);
  EXPECT_EQ(s->to_public_json()["api_key_set"], true);
}

TEST_F(ProviderSettings, BaseUrlAndModelsFromTheFlagThenTheEnvironmentThenTheFile) {
  auto f = flags("openai");
  f.api_key = "sk-test";
  f.file = json{{"base_url", "https://file.example/v1"}, {"model", "model-from-file"}};
  auto s = resolve_settings(f);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->spec.base_url, "https://file.example/v1");
  EXPECT_EQ(s->model, "model-from-file");
  EXPECT_EQ(s->sub_model, "gpt-4.1-mini") << "the named provider's sub-model stays until one is given";
  ::setenv("OURO_BASE_URL", "https://env.example/v1", 1);
  ::setenv("OURO_SUB_MODEL", "sub-from-env", 1);
  s = resolve_settings(f);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->spec.base_url, "https://env.example/v1");
  EXPECT_EQ(s->sub_model, "sub-from-env");
  f.base_url = "http://127.0.0.1:4000/v1";
  EXPECT_EQ(resolve_settings(f)->spec.base_url, "http://127.0.0.1:4000/v1");
}

TEST_F(ProviderSettings, ASettingsFileThatIsNotAnObjectIsRefused) {
  auto f = flags("openai");
  f.file = json::array({"provider", "openai"});
  auto s = resolve_settings(f);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, Code::InvalidArgument);
  EXPECT_NE(s.error().message.find("not a JSON object"), std::string::npos) << s.error().message;
}

// Prices and estimates.

Usage usage(int64_t in, int64_t out, int64_t cache_read = 0, int64_t cache_write = 0) {
  Usage u;
  u.input_tokens = in;
  u.output_tokens = out;
  u.cache_read_tokens = cache_read;
  u.cache_write_tokens = cache_write;
  return u;
}

TEST(Cost, AModelWithoutAPriceHasNone) {
  EXPECT_FALSE(cost_of("some-local-model", usage(1000, 100)).has_value());
  EXPECT_FALSE(cost_without_cache("some-local-model", usage(1000, 100, 500)).has_value());
  EXPECT_FALSE(cost_of("", usage(1, 1)).has_value());
}

TEST(Cost, TheVendorPartOfAModelIdDoesNotChangeItsPrice) {
  auto direct = cost_of("claude-sonnet-4-20250514", usage(1000, 100));
  auto routed = cost_of("anthropic/claude-sonnet-4-20250514", usage(1000, 100));
  ASSERT_TRUE(direct.has_value());
  ASSERT_TRUE(routed.has_value());
  EXPECT_DOUBLE_EQ(*direct, *routed);
  EXPECT_NEAR(*direct, (1000 * 3 + 100 * 15) / 1e6, 1e-12);
}

TEST(Cost, CachedTokensCountedBeyondTheInputNeverMakeANegativePrice) {
  // A provider's counts that do not add up (more read from the cache than the prompt held).
  auto c = cost_of("claude-sonnet-4-20250514", usage(100, 0, 300));
  ASSERT_TRUE(c.has_value());
  EXPECT_GE(*c, 0.0);
  EXPECT_NEAR(*c, 300 * 0.3 / 1e6, 1e-12);
  // Priced as if nothing were cached, a prompt mostly read from the cache costs more.
  auto u = usage(4000, 200, 3000, 500);
  EXPECT_GT(*cost_without_cache("claude-sonnet-4-20250514", u), *cost_of("claude-sonnet-4-20250514", u));
}

TEST(Cost, TokensAreEstimatedAsFourBytesEachRoundedUp) {
  EXPECT_EQ(estimate_tokens(""), 0);
  EXPECT_EQ(estimate_tokens("a"), 1);
  EXPECT_EQ(estimate_tokens("abcd"), 1);
  EXPECT_EQ(estimate_tokens("abcde"), 2);
  EXPECT_EQ(estimate_tokens("🌍"), 1) << "bytes, not characters";
  EXPECT_EQ(estimate_tokens(std::string(4001, 'x')), 1001);
}

TEST(UsageTotals, AddingSumsEveryCountAndKeepsAnEstimate) {
  Usage total = usage(10, 5, 3, 1);
  Usage more = usage(20, 7, 4, 2);
  more.estimated = true;
  total.add(more);
  EXPECT_EQ(total.input_tokens, 30);
  EXPECT_EQ(total.output_tokens, 12);
  EXPECT_EQ(total.cache_read_tokens, 7);
  EXPECT_EQ(total.cache_write_tokens, 3);
  EXPECT_TRUE(total.estimated);
  total.add(usage(1, 1));
  EXPECT_TRUE(total.estimated) << "one estimate makes the total an estimate";
  EXPECT_EQ(total.to_json(), json::parse(R"({"input_tokens": 31, "output_tokens": 13, "estimated": true,
                                             "cache_read_tokens": 7, "cache_write_tokens": 3})"));
}

// The first-run catalog.

TEST_F(ProviderCatalog, ListsEveryNamedProviderWithItsDefaults) {
  json c = provider_catalog(std::chrono::milliseconds(100));
  ASSERT_TRUE(c.is_array());
  ASSERT_EQ(c.size(), presets().size());
  for (size_t i = 0; i < c.size(); ++i) {
    const Preset& p = presets()[i];
    const json& e = c[i];
    EXPECT_EQ(e["name"], p.name);
    EXPECT_EQ(e["kind"], p.kind);
    EXPECT_EQ(e["base_url"], p.base_url);
    EXPECT_EQ(e["model"], p.model);
    EXPECT_EQ(e["sub_model"], p.sub_model);
    const bool local = !*p.key_env;
    EXPECT_EQ(e["local"], local) << p.name;
    if (local) {
      // Probed on this machine: reachable exactly when it listed models.
      EXPECT_FALSE(e.contains("key_env")) << p.name;
      ASSERT_TRUE(e.contains("reachable") && e["reachable"].is_boolean()) << e.dump();
      EXPECT_EQ(e["reachable"].get<bool>(), e.contains("models")) << e.dump();
    } else {
      EXPECT_EQ(e["key_env"], p.key_env);
      EXPECT_EQ(e["key_set"], false) << p.name << ": every key variable is unset";
      EXPECT_FALSE(e.contains("reachable")) << "a hosted service is not probed";
    }
  }
}

TEST_F(ProviderCatalog, SaysWhichHostedProvidersHaveTheirKeySet) {
  ::setenv("GROQ_API_KEY", "gsk-test", 1);
  ::setenv("DEEPSEEK_API_KEY", "", 1);
  json c = provider_catalog(std::chrono::milliseconds(100));
  for (const auto& e : c) {
    if (e["local"].get<bool>()) continue;
    EXPECT_EQ(e["key_set"], e["name"] == "groq") << e.dump();
  }
  EXPECT_EQ(c.dump().find("gsk-test"), std::string::npos) << "a key is never shown";
}

// The connection test.

Settings scripted_settings(const std::string& lines) {
  Settings s;
  s.provider = "script:run.jsonl";
  s.model = "scripted";
  s.spec = ProviderSpec{"script", "", "", write_script(lines), {}};
  return s;
}

TEST_F(ConnectionTest, AModelThatAnswersIsOk) {
  json out = test_connection(scripted_settings("{\"text\": \"OK\"}\n"));
  EXPECT_EQ(out["ok"], true) << out.dump();
  EXPECT_EQ(out["reply"], "OK");
  EXPECT_EQ(out["provider"], "script:run.jsonl");
  EXPECT_EQ(out["model"], "scripted");
  ASSERT_TRUE(out["ms"].is_number()) << out.dump();
  EXPECT_GE(out["ms"].get<double>(), 0.0);
}

TEST_F(ConnectionTest, ALongReplyIsCut) {
  json out = test_connection(scripted_settings(json{{"text", std::string(500, 'x')}}.dump() + "\n"));
  ASSERT_EQ(out["ok"], true) << out.dump();
  EXPECT_EQ(out["reply"].get<std::string>(), std::string(200, 'x'));
}

TEST_F(ConnectionTest, AFailureIsNamedByItsKind) {
  json named = test_connection(scripted_settings("{\"error\": \"prompt too long\", \"kind\": \"context-overflow\"}\n"));
  EXPECT_EQ(named["ok"], false) << named.dump();
  EXPECT_EQ(named["kind"], "context-overflow");
  EXPECT_EQ(named["error"], "prompt too long");
  EXPECT_FALSE(named.contains("reply"));
  json unnamed = test_connection(scripted_settings("{\"error\": \"it broke\"}\n"));
  EXPECT_EQ(unnamed["ok"], false);
  EXPECT_EQ(unnamed["kind"], "error");
}

TEST_F(ConnectionTest, AProviderThatCannotBeMadeIsASetupProblem) {
  Settings missing = scripted_settings("");
  missing.spec.script_path = testing::temp_dir() + "/gone.jsonl";
  json a = test_connection(missing);
  EXPECT_EQ(a["ok"], false);
  EXPECT_EQ(a["kind"], "setup");
  EXPECT_NE(a["error"].get<std::string>().find("gone.jsonl"), std::string::npos) << a.dump();
  Settings keyless;
  keyless.provider = "anthropic";
  keyless.model = "claude-sonnet-4-20250514";
  keyless.spec = ProviderSpec{"anthropic", "", "", "", {}};
  json b = test_connection(keyless);
  EXPECT_EQ(b["ok"], false);
  EXPECT_EQ(b["kind"], "no-key") << "none given is not one refused: " << b.dump();
  Settings unknown = keyless;
  unknown.spec.kind = "gemini";
  EXPECT_EQ(test_connection(unknown)["kind"], "setup");
}

Settings local_server(const RawServer& s, const std::string& model) {
  Settings out;
  out.provider = s.url() + "/v1";
  out.model = model;
  out.spec = ProviderSpec{"openai", s.url() + "/v1", "sk-test-secret-987", "", {}};
  return out;
}

TEST_F(ConnectionTest, AsksForOneShortAnswerOnce) {
  RawServer s;
  s.push({Step::write(RawServer::sse_head()),
          Step::write("data: {\"choices\":[{\"delta\":{\"content\":\"OK\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")});
  json out = test_connection(local_server(s, "gpt-4o"));
  EXPECT_EQ(out["ok"], true) << out.dump();
  EXPECT_EQ(out["reply"], "OK");
  ASSERT_EQ(s.requests().size(), 1u);
  const std::string req = s.requests()[0];
  json body = json::parse(req.substr(req.find("\r\n\r\n") + 4));
  EXPECT_EQ(body["max_tokens"], 16) << body.dump();
  EXPECT_EQ(body["messages"].back()["content"], "Reply with the word OK.");
}

TEST_F(ConnectionTest, AServerErrorIsNotRetried) {
  RawServer s;
  s.push({Step::write(RawServer::error_response(500, R"({"error":{"message":"maintenance"}})"))});
  s.push({Step::write(RawServer::error_response(500, R"({"error":{"message":"maintenance"}})"))});
  json out = test_connection(local_server(s, "gpt-4o"));
  EXPECT_EQ(out["ok"], false);
  EXPECT_EQ(out["kind"], "server-error") << out.dump();
  EXPECT_EQ(s.requests().size(), 1u) << "the test answers at once, without the run's retries";
}

TEST_F(ConnectionTest, ARefusedKeyIsNamedAndNotShown) {
  RawServer s;
  s.push({Step::write(RawServer::error_response(401, R"({"error":{"message":"Incorrect API key provided"}})"))});
  json out = test_connection(local_server(s, "gpt-4o"));
  EXPECT_EQ(out["ok"], false);
  EXPECT_EQ(out["kind"], "bad-key") << out.dump();
  EXPECT_EQ(out.dump().find("sk-test-secret-987"), std::string::npos);
}

TEST_F(ConnectionTest, AnUnknownModelComesWithTheModelsTheServerLists) {
  RawServer s;
  s.push({Step::write(RawServer::error_response(404, R"({"error":{"message":"The model `gpt-9` does not exist"}})"))});
  std::string list = RawServer::error_response(200, R"({"data":[{"id":"gpt-4o"},{"id":"o3"}]})");
  s.push({Step::write(list.replace(list.find(" Status"), 7, " OK"))});
  json out = test_connection(local_server(s, "gpt-9"));
  EXPECT_EQ(out["ok"], false);
  EXPECT_EQ(out["kind"], "unknown-model") << out.dump();
  EXPECT_EQ(out["models"], json::array({"gpt-4o", "o3"})) << out.dump();
}

// Which services need a key before a run may use them: Anthropic always, an OpenAI-compatible one
// unless it is on this machine — judged by the URL's host, not by text that merely mentions one.
TEST(ProviderKeys, AHostedServiceNeedsAKeyAndALocalServerNone) {
  auto needs = [](const std::string& kind, const std::string& base_url) {
    ProviderSpec s;
    s.kind = kind;
    s.base_url = base_url;
    auto r = check_key(s);
    if (!r) {
      EXPECT_EQ(r.error().code, Code::Unauthenticated) << kind << " " << base_url;
    }
    return !r;
  };
  EXPECT_TRUE(needs("anthropic", ""));
  EXPECT_TRUE(needs("anthropic", "http://127.0.0.1:9"));
  EXPECT_TRUE(needs("openai", ""));
  EXPECT_TRUE(needs("openai", "https://openrouter.ai/api/v1"));
  EXPECT_FALSE(needs("openai", "http://127.0.0.1:11434/v1"));
  EXPECT_FALSE(needs("openai", "http://127.0.0.2:8080/v1")) << "all of 127/8 is this machine";
  EXPECT_FALSE(needs("openai", "http://localhost:1234/v1"));
  EXPECT_FALSE(needs("openai", "http://[::1]:8000/v1"));
  EXPECT_FALSE(needs("openai", "http://[::ffff:127.0.0.1]:8000/v1"));
  EXPECT_FALSE(needs("openai", "http://LOCALHOST:1234/v1")) << "a host name has no case";
  EXPECT_FALSE(needs("openai", "http://localhost.:1234/v1")) << "nor does its final dot change it";
  EXPECT_TRUE(needs("openai", "http://[::ffff:10.0.0.1]:8000/v1"));
  EXPECT_TRUE(needs("openai", "http://localhost.attacker.example/v1"));
  EXPECT_TRUE(needs("openai", "https://llm.example/v1?via=://127.0.0.1"));
  EXPECT_TRUE(needs("openai", "https://127.0.0.1@llm.example/v1"));
  EXPECT_TRUE(needs("openai", "not a url"));
  EXPECT_FALSE(needs("script", ""));
  ProviderSpec keyed;
  keyed.kind = "anthropic";
  keyed.api_key = "sk-ant-x";
  EXPECT_TRUE(check_key(keyed));
  auto made = make_provider(ProviderSpec{"anthropic", "", "", "", {}});
  ASSERT_FALSE(made);
  EXPECT_NE(made.error().message.find("ANTHROPIC_API_KEY"), std::string::npos) << made.error().message;
}

}  // namespace
}  // namespace ouro::llm
