// Which model answers and with what key (llm/settings.h), from the parts providers_test.cpp and
// models_test.cpp leave: where the settings file is looked for, the file chosen by $OURO_CONFIG or
// --config and read from disk, a file that does not parse, the model parameters a file or the
// environment gives, and the shapes of a settings file that are not what they should be.
#include "llm/settings.h"

#include "../support/no_model_env.h"
#include "../support/scoped_env.h"
#include "../support/scoped_temp_dir.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ouro::llm {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// No provider, model or key from this machine (no_model_env.h).
class LlmSettings : public ::testing::Test {
 private:
  testing::NoModelEnv m_no_model;
};

TEST_F(LlmSettings, TheSettingsFileIsUnderXdgConfigHomeElseHomeElseTmp) {
  {
    testing::ScopedEnv xdg("XDG_CONFIG_HOME", "/srv/conf");
    testing::ScopedEnv home("HOME", "/home/ann");
    EXPECT_EQ(default_config_path(), "/srv/conf/ouroboros/config.json");
  }
  {
    testing::ScopedEnv xdg("XDG_CONFIG_HOME", "");
    testing::ScopedEnv home("HOME", "/home/ann");
    EXPECT_EQ(default_config_path(), "/home/ann/.config/ouroboros/config.json") << "an empty XDG_CONFIG_HOME is none";
  }
  {
    testing::ScopedEnv xdg("XDG_CONFIG_HOME", nullptr);
    testing::ScopedEnv home("HOME", nullptr);
    EXPECT_EQ(default_config_path(), "/tmp/.config/ouroboros/config.json");
  }
}

TEST_F(LlmSettings, TheFileNamedByOuroConfigIsReadAndConfigOverridesIt) {
  testing::ScopedTempDir dir;
  std::string by_env = dir.write("env.json", R"({"provider": "ollama", "model": "model-from-env-file"})");
  std::string by_flag = dir.write("flag.json", R"({"provider": "ollama", "model": "model-from-flag-file"})");
  testing::ScopedEnv config("OURO_CONFIG", by_env.c_str());
  SettingsFlags f;
  auto s = resolve_settings(f);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->model, "model-from-env-file");
  EXPECT_EQ(s->source, "the settings file");
  f.config_path = by_flag;
  s = resolve_settings(f);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->model, "model-from-flag-file");
  // Contents the face already read win over any file.
  f.file = json{{"provider", "ollama"}, {"model", "model-given"}};
  s = resolve_settings(f);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->model, "model-given");
}

TEST_F(LlmSettings, ASettingsFileThatDoesNotParseIsAnErrorNamingIt) {
  testing::ScopedTempDir dir;
  std::string path = dir.write("config.json", "{\"provider\": \"ollama\",,}");
  SettingsFlags f;
  f.config_path = path;
  auto s = resolve_settings(f);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, Code::InvalidArgument);
  EXPECT_TRUE(has(s.error().message, path)) << s.error().message;
}

TEST_F(LlmSettings, ModelParametersFromTheFileAreCheckedAndNamed) {
  SettingsFlags f;
  f.provider = "ollama";
  f.file = json{{"max_tokens", 2048}, {"temperature", 0.25}, {"thinking", false}};
  auto s = resolve_settings(f);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->params.max_tokens, 2048);
  EXPECT_EQ(s->params.temperature, 0.25);
  EXPECT_EQ(s->params.thinking, 0) << "false turns thinking off";
  f.file = json{{"max_tokens", -1}};
  auto bad = resolve_settings(f);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, Code::InvalidArgument);
  EXPECT_TRUE(has(bad.error().message, "max_tokens")) << bad.error().message;
  f.file = json{{"temperature", "warm"}};
  EXPECT_FALSE(resolve_settings(f));
}

TEST_F(LlmSettings, AParameterFromTheEnvironmentMustBeANumber) {
  SettingsFlags f;
  f.provider = "ollama";
  f.file = json::object();
  {
    testing::ScopedEnv env("OURO_MAX_TOKENS", "[4096]");
    auto s = resolve_settings(f);
    ASSERT_FALSE(s);
    EXPECT_TRUE(has(s.error().message, "OURO_MAX_TOKENS")) << s.error().message;
  }
  {
    testing::ScopedEnv env("OURO_MAX_TOKENS", "4096");
    auto s = resolve_settings(f);
    ASSERT_TRUE(s) << s.error().message;
    EXPECT_EQ(s->params.max_tokens, 4096);
  }
  {
    testing::ScopedEnv env("OURO_MAX_TOKENS", "2.5");
    EXPECT_FALSE(resolve_settings(f)) << "a number of tokens is whole";
  }
}

TEST_F(LlmSettings, EntriesOfTheWrongTypeInTheFileChooseNothing) {
  SettingsFlags f;
  f.file = json{{"provider", 42}, {"model", json::array({"m"})}};
  auto none = resolve_settings(f);
  ASSERT_FALSE(none) << "a provider that is not text is no provider";
  EXPECT_EQ(none.error().code, Code::FailedPrecondition);
  f.provider = "ollama";
  auto s = resolve_settings(f);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->model, "llama3.1") << "a model that is not text leaves the provider's own";
}

// A key of the wrong type in a hand-edited settings file ({"api_keys": {"groq": 123}}) is no
// key, never an exception (errors are values, base/error.h).
TEST_F(LlmSettings, AKeyOfTheWrongTypeInTheFileIsNoKeyAndNoException) {
  SettingsFlags f;
  f.provider = "groq";
  f.file = json{{"api_keys", {{"groq", 123}}}};
  try {
    auto s = resolve_settings(f);
    if (s) {
      EXPECT_TRUE(s->spec.api_key.empty());
    }
  } catch (const std::exception& e) {
    ADD_FAILURE() << "resolve_settings threw: " << e.what();
  }
}

TEST_F(LlmSettings, ThePublicViewNamesTheChoiceAndNeverTheKey) {
  SettingsFlags f;
  f.provider = "openrouter";
  f.api_key = "sk-or-secret-1234567890";
  f.file = json::object();
  auto s = resolve_settings(f);
  ASSERT_TRUE(s) << s.error().message;
  json pub = s->to_public_json();
  EXPECT_EQ(pub["provider"], "openrouter");
  EXPECT_EQ(pub["base_url"], "https://openrouter.ai/api/v1");
  EXPECT_EQ(pub["model"], "anthropic/claude-sonnet-4");
  EXPECT_EQ(pub["sub_model"], "anthropic/claude-haiku-4.5");
  EXPECT_EQ(pub["api_key_set"], true);
  EXPECT_EQ(pub["source"], "--provider");
  EXPECT_FALSE(has(pub.dump(), "sk-or-secret")) << pub.dump();
}

}  // namespace
}  // namespace ouro::llm
