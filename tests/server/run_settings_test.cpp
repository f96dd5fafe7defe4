// The model settings the Command Center edits (server/runs.h: RunManager::settings,
// update_settings, test_connection), on a runtime with a database only: what is refused stores
// nothing, what is saved is shown, the API key is kept per provider and only ever shown masked,
// and a connection test that cannot start says why as an answer.
#include "server/runs.h"

#include "base/json.h"
#include "session/session.h"
#include "store/database.h"
#include "../support/no_model_env.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <sys/stat.h>

namespace ouro::server {
namespace {

// What the model settings read besides the database, cleared for each test and put back after:
// no session bus (so no keyring: keys go to the data directory's file), no settings file, no
// provider or key from the environment.
class QuietEnvironment {
 public:
  QuietEnvironment() : m_config("OURO_CONFIG", "/nonexistent/ouro-run-settings-test.json") {}

 private:
  testing::NoModelEnv m_no_model;
  testing::ScopedEnv m_config;
};

std::string make_temp_dir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "ouro-run-settings-XXXXXX").string();
  return ::mkdtemp(pattern.data()) ? pattern : std::string();
}

class RunSettingsTest : public ::testing::Test {
 protected:
  QuietEnvironment quiet;
  std::string data_dir = make_temp_dir();
  std::shared_ptr<session::Runtime> runtime = [] {
    auto r = std::make_shared<session::Runtime>();
    r->db = *store::Database::open(":memory:");
    return r;
  }();
  std::unique_ptr<RunManager> runs = std::make_unique<RunManager>(runtime, config());

  RunManager::Config config() const {
    RunManager::Config c;
    c.data_dir = data_dir;
    return c;
  }
  void SetUp() override { ASSERT_FALSE(data_dir.empty()); }
  void TearDown() override {
    runs.reset();
    std::filesystem::remove_all(data_dir);
  }
  json shown() {
    auto s = runs->settings();
    EXPECT_TRUE(s) << s.error().message;
    return s ? *s : json::object();
  }
};

TEST_F(RunSettingsTest, SettingsThatAreNotAnObjectOrNotKnownAreRefusedAndNothingIsStored) {
  for (const json& body : {json::array(), json("model=x"), json(nullptr), json(3)}) {
    auto r = runs->update_settings(body);
    ASSERT_FALSE(r) << body.dump();
    EXPECT_EQ(r.error().code, Code::InvalidArgument);
  }
  auto unknown = runs->update_settings({{"model", "m1"}, {"colour", 1}});
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, Code::InvalidArgument);
  EXPECT_NE(unknown.error().message.find("colour"), std::string::npos) << unknown.error().message;
  EXPECT_TRUE(shown()["model"].is_null()) << "a body with one bad setting stores none of it";
}

TEST_F(RunSettingsTest, ValuesOfTheWrongTypeOrOutOfRangeAreRefused) {
  const json bad[] = {{{"max_iterations", 0}},   {{"max_iterations", 501}},        {{"max_iterations", -1}},
                      {{"max_iterations", 2.5}}, {{"max_iterations", "lots"}},     {{"max_iterations", true}},
                      {{"max_iterations", 4294967297LL}}, {{"api_key", 12}},       {{"provider", 5}},
                      {{"model", json::array()}}, {{"temperature", 3}},            {{"max_tokens", 0}},
                      {{"thinking", "lots"}},     {{"allowed_sites", "example.com"}}, {{"allowed_sites", {"not a site/"}}}};
  for (const json& body : bad) {
    auto r = runs->update_settings(body);
    ASSERT_FALSE(r) << body.dump();
    EXPECT_EQ(r.error().code, Code::InvalidArgument) << body.dump();
  }
  json s = shown();
  EXPECT_EQ(s["max_iterations"], 25);
  EXPECT_EQ(s["allowed_sites"], json::array());
}

TEST_F(RunSettingsTest, WhatIsSavedIsShownAndNullTakesItBack) {
  json fresh = shown();
  for (const char* k : {"provider", "model", "sub_model", "base_url", "api_key", "workspace"}) EXPECT_TRUE(fresh[k].is_null()) << k;
  EXPECT_EQ(fresh["max_iterations"], 25);
  EXPECT_EQ(fresh["default_context"], "clean");
  EXPECT_EQ(fresh["key_store"], "file");
  EXPECT_EQ(fresh["configured"], false) << "nothing configured anywhere";
  EXPECT_TRUE(fresh["configured_error"].is_string());

  auto saved = runs->update_settings({{"model", "m1"}, {"max_iterations", 500}, {"max_tokens", 8000}, {"temperature", 0.3}, {"thinking", 4000},
                                      {"allowed_sites", {"example.com", "127.0.0.1:8080"}}});
  ASSERT_TRUE(saved) << saved.error().message;
  EXPECT_EQ((*saved)["model"], "m1");
  EXPECT_EQ((*saved)["max_iterations"], 500);
  EXPECT_EQ((*saved)["max_tokens"], 8000);
  EXPECT_EQ((*saved)["thinking"], 4000);
  EXPECT_EQ((*saved)["allowed_sites"], json::array({"example.com", "127.0.0.1:8080"}));

  // A later change keeps what it does not name; null takes a value back.
  ASSERT_TRUE(runs->update_settings({{"max_iterations", 1}, {"thinking", nullptr}, {"model", nullptr}}));
  json s = shown();
  EXPECT_EQ(s["max_iterations"], 1);
  EXPECT_FALSE(s.contains("thinking"));
  EXPECT_TRUE(s["model"].is_null());
  EXPECT_EQ(s["max_tokens"], 8000);
  EXPECT_EQ(s["allowed_sites"].size(), 2u);
}

TEST_F(RunSettingsTest, TheKeyIsOnlyEverShownMaskedAndKeptPrivate) {
  const std::string key = "sk-test-0123456789abcdefWXYZ";
  auto saved = runs->update_settings({{"api_key", key}});
  ASSERT_TRUE(saved) << saved.error().message;
  ASSERT_TRUE((*saved)["api_key"].is_string());
  EXPECT_EQ(dump_json(*saved).find("0123456789"), std::string::npos) << dump_json(*saved);
  EXPECT_EQ(dump_json(shown()).find("0123456789"), std::string::npos);
  struct stat st {};
  ASSERT_EQ(::stat((data_dir + "/secrets.json").c_str(), &st), 0) << "no keyring: the key is kept in the data directory's file";
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  // A short key shows nothing of itself.
  auto short_key = runs->update_settings({{"api_key", "k3y-42"}});
  ASSERT_TRUE(short_key);
  ASSERT_TRUE((*short_key)["api_key"].is_string());
  EXPECT_EQ((*short_key)["api_key"].get<std::string>().find("k3y"), std::string::npos);
  EXPECT_EQ((*short_key)["api_key"].get<std::string>().find("42"), std::string::npos);
  auto twelve = runs->update_settings({{"api_key", "abcdefgh1234"}});
  ASSERT_TRUE(twelve);
  EXPECT_EQ((*twelve)["api_key"], "••••") << "a key under 20 characters shows nothing of itself";

  // null or an empty key forgets it.
  for (const json& none : {json(nullptr), json("")}) {
    ASSERT_TRUE(runs->update_settings({{"api_key", key}}));
    auto forgot = runs->update_settings({{"api_key", none}});
    ASSERT_TRUE(forgot) << forgot.error().message;
    EXPECT_TRUE((*forgot)["api_key"].is_null()) << none.dump();
  }
}

TEST_F(RunSettingsTest, AKeyIsKeptForTheProviderItWasGivenFor) {
  ASSERT_TRUE(runs->update_settings({{"provider", "openrouter"}, {"api_key", "sk-or-v1-0123456789abcdef"}}));
  EXPECT_TRUE(shown()["api_key"].is_string());
  ASSERT_TRUE(runs->update_settings({{"provider", "groq"}}));
  EXPECT_TRUE(shown()["api_key"].is_null()) << "another provider has no key yet";
  ASSERT_TRUE(runs->update_settings({{"provider", "openrouter"}}));
  EXPECT_TRUE(shown()["api_key"].is_string()) << "back to the provider the key is for";
}

TEST_F(RunSettingsTest, AKeyAnOlderOuroLeftInTheSecretsFileIsFoundAndMasked) {
  std::ofstream(data_dir + "/secrets.json") << R"({"api_key": "sk-legacy-0123456789abcd"})";
  json s = shown();
  ASSERT_TRUE(s["api_key"].is_string());
  EXPECT_EQ(dump_json(s).find("0123456789"), std::string::npos);
}

TEST_F(RunSettingsTest, AConnectionTestThatCannotStartSaysWhyAsAnAnswer) {
  auto not_object = runs->test_connection(json::array());
  ASSERT_FALSE(not_object);
  EXPECT_EQ(not_object.error().code, Code::InvalidArgument);
  // Nothing chosen anywhere (a provider that is not a string counts as none): no model.
  for (const json& body : {json::object(), json{{"provider", 7}}, json{{"provider", ""}}}) {
    auto r = runs->test_connection(body);
    ASSERT_TRUE(r) << body.dump() << ": " << r.error().message;
    EXPECT_EQ((*r)["ok"], false);
    EXPECT_EQ((*r)["kind"], "no-model") << r->dump();
  }
  auto unknown = runs->test_connection({{"provider", "no-such-provider"}});
  ASSERT_TRUE(unknown);
  EXPECT_EQ((*unknown)["ok"], false);
  EXPECT_NE((*unknown)["kind"], "no-model");
  EXPECT_NE((*unknown)["error"].get<std::string>().find("no-such-provider"), std::string::npos) << unknown->dump();
  // The same provider saved: the settings say a run could not start, and why.
  ASSERT_TRUE(runs->update_settings({{"provider", "no-such-provider"}}));
  json s = shown();
  EXPECT_EQ(s["configured"], false);
  EXPECT_NE(s["configured_error"].get<std::string>().find("no-such-provider"), std::string::npos) << s.dump();
}

// A hosted provider chosen without its key: the settings say no run could start and why, a
// connection test answers so without reaching the service, and with the key saved it is configured.
TEST_F(RunSettingsTest, AHostedProviderWithoutItsKeyIsNotConfiguredAndSaysWhereTheKeyGoes) {
  ASSERT_TRUE(runs->update_settings({{"provider", "anthropic"}}));
  json s = shown();
  EXPECT_EQ(s["configured"], false) << s.dump();
  EXPECT_NE(get_str(s, "configured_error").find("anthropic needs an API key and none is configured: in Settings"), std::string::npos) << s.dump();
  auto tested = runs->test_connection({{"provider", "anthropic"}});
  ASSERT_TRUE(tested) << tested.error().message;
  EXPECT_EQ((*tested)["ok"], false);
  EXPECT_EQ((*tested)["kind"], "no-key") << tested->dump();
  // A key typed into the test itself is the one tried (here at a port where nothing listens).
  auto typed = runs->test_connection({{"provider", "anthropic"}, {"base_url", "http://127.0.0.1:1"}, {"api_key", "sk-ant-TYPED-1234"}});
  ASSERT_TRUE(typed) << typed.error().message;
  EXPECT_EQ((*typed)["ok"], false);
  EXPECT_EQ((*typed)["kind"], "connection") << typed->dump();
  EXPECT_EQ(typed->dump().find("TYPED"), std::string::npos) << "the key is never shown";
  // A local server needs none.
  ASSERT_TRUE(runs->update_settings({{"provider", "ollama"}}));
  EXPECT_EQ(shown()["configured"], true) << shown().dump();
  // The key saved, the hosted provider is configured (and the key is never shown whole).
  ASSERT_TRUE(runs->update_settings({{"provider", "anthropic"}, {"api_key", "sk-ant-SAVEDKEY-4242"}}));
  json after = shown();
  EXPECT_EQ(after["configured"], true) << after.dump();
  EXPECT_EQ(after.dump().find("SAVEDKEY"), std::string::npos);
}

}  // namespace
}  // namespace ouro::server
