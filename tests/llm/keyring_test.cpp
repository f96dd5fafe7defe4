// API keys where no session bus is (llm/keyring.h; docs/design/known-limits.md: "else to
// `<data dir>/secrets.json` (created 0600, replaced whole by rename)"): the keyring not tried,
// and saying why; the file — one key per provider, only the user's to read, a removed key gone
// from it and the file gone with the last, what else it holds kept, a damaged one read as
// holding no key — and the providers with a key listed in the order their keys were added. The
// keyring itself (a Secret Service on a session bus) is not reached here.
#include "llm/keyring.h"

#include "scoped_env.h"
#include "scoped_temp_dir.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace ouro::llm {
namespace {

using ouro::testing::ScopedEnv;
using ouro::testing::ScopedTempDir;

using ouro::testing::read_file;

unsigned mode_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return 0;
  return st.st_mode & 0777;
}

// No session bus, so nothing here reaches this machine's keyring; the file in a fresh directory.
class KeyFile : public ::testing::Test {
 protected:
  ScopedEnv no_bus{"DBUS_SESSION_BUS_ADDRESS", nullptr};
  ScopedTempDir dir;
  const std::string path = dir.path + "/secrets.json";
};

TEST_F(KeyFile, WithoutASessionBusNoKeyringIsTriedAndTheErrorSaysWhy) {
  EXPECT_FALSE(keyring_available());
  auto stored = keyring_store("anthropic", "sk-ant-test");
  ASSERT_FALSE(stored);
  EXPECT_EQ(stored.error().code, Code::Unavailable);
  EXPECT_EQ(stored.error().message, "no session bus (DBUS_SESSION_BUS_ADDRESS is unset), so no keyring");
  EXPECT_EQ(keyring_lookup("anthropic"), std::nullopt);
  auto cleared = keyring_clear("anthropic");
  ASSERT_FALSE(cleared);
  EXPECT_EQ(cleared.error().code, Code::Unavailable);
  EXPECT_EQ(cleared.error().message, "no session bus, so no keyring");
  // An empty address is no bus either.
  ScopedEnv empty("DBUS_SESSION_BUS_ADDRESS", "");
  EXPECT_FALSE(keyring_available());
  auto again = keyring_store("openai", "sk-oa-test");
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, Code::Unavailable);
}

TEST_F(KeyFile, KeysAreKeptPerProviderInAFileOnlyTheUserCanRead) {
  ASSERT_TRUE(key_file_store(path, "anthropic", "sk-ant-1"));
  ASSERT_TRUE(key_file_store(path, "openai", "sk-oa-1"));
  EXPECT_EQ(key_file_lookup(path, "anthropic"), "sk-ant-1");
  EXPECT_EQ(key_file_lookup(path, "openai"), "sk-oa-1");
  EXPECT_EQ(key_file_lookup(path, "groq"), std::nullopt);
  EXPECT_EQ(mode_of(path), 0600u);
  // A new key for a provider replaces its old one, in its place.
  ASSERT_TRUE(key_file_store(path, "anthropic", "sk-ant-2"));
  EXPECT_EQ(read_file(path), R"({"api_keys":{"anthropic":"sk-ant-2","openai":"sk-oa-1"}})");
}

TEST_F(KeyFile, AFileOthersCouldReadIsReplacedByOneOnlyTheUserCan) {
  dir.write("secrets.json", R"({"api_keys":{"openai":"sk-old"}})");
  ASSERT_EQ(::chmod(path.c_str(), 0644), 0);
  ASSERT_TRUE(key_file_store(path, "openai", "sk-new"));
  EXPECT_EQ(mode_of(path), 0600u);
  EXPECT_EQ(key_file_lookup(path, "openai"), "sk-new");
}

TEST_F(KeyFile, AnEmptyKeyRemovesItAndTheLastKeyTakesTheFileWithIt) {
  ASSERT_TRUE(key_file_store(path, "anthropic", "sk-ant"));
  ASSERT_TRUE(key_file_store(path, "openai", "sk-oa"));
  ASSERT_TRUE(key_file_store(path, "anthropic", ""));
  EXPECT_EQ(key_file_lookup(path, "anthropic"), std::nullopt);
  EXPECT_EQ(key_file_lookup(path, "openai"), "sk-oa");
  ASSERT_TRUE(key_file_store(path, "openai", ""));
  EXPECT_FALSE(std::filesystem::exists(path)) << "no key left: no file";
  // Removing a key from no file is no error, and makes none.
  ASSERT_TRUE(key_file_store(path, "openai", ""));
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST_F(KeyFile, WhatElseTheFileHoldsIsKept) {
  // An older file's single key (server/run_settings.cpp still reads "api_key").
  dir.write("secrets.json", R"({"api_key":"sk-legacy"})");
  ASSERT_TRUE(key_file_store(path, "openai", ""));
  EXPECT_EQ(read_file(path), R"({"api_key":"sk-legacy","api_keys":{}})") << "the older key stays, and so does the file";
  ASSERT_TRUE(key_file_store(path, "openai", "sk-oa"));
  EXPECT_EQ(read_file(path), R"({"api_key":"sk-legacy","api_keys":{"openai":"sk-oa"}})");
  // Other members stay where they were.
  dir.write("secrets.json", R"({"note":"kept"})");
  ASSERT_TRUE(key_file_store(path, "openai", "sk-oa"));
  EXPECT_EQ(read_file(path), R"({"note":"kept","api_keys":{"openai":"sk-oa"}})");
}

TEST_F(KeyFile, ADamagedFileIsNotWrittenOverAndItsKeysAreKept) {
  // Storing a key over a file ouro cannot read would lose the keys in it: refused, the file as it was.
  for (const std::string& damaged : std::vector<std::string>{"{\"api_keys\":{\"anthropic\":\"sk-ant-keep\"", "[\"sk-ant-keep\"]",
                                                             R"({"api_keys":["sk-ant-keep"]})", "\xff\xfe{"}) {
    dir.write("secrets.json", damaged);
    auto r = key_file_store(path, "openai", "sk-oa");
    ASSERT_FALSE(r) << damaged;
    EXPECT_EQ(r.error().code, Code::FailedPrecondition) << damaged;
    EXPECT_NE(r.error().message.find("does not write over it"), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().message.find("sk-ant-keep"), std::string::npos) << "the error shows nothing the file holds";
    EXPECT_EQ(read_file(path), damaged);
    EXPECT_FALSE(key_file_store(path, "openai", "")) << "removing a key does not write over it either";
    EXPECT_EQ(read_file(path), damaged);
  }
  // An empty file holds nothing to lose.
  dir.write("secrets.json", "");
  ASSERT_TRUE(key_file_store(path, "openai", "sk-oa"));
  EXPECT_EQ(key_file_lookup(path, "openai"), "sk-oa");
}

TEST_F(KeyFile, ADamagedFileHoldsNoKey) {
  for (const std::string& damaged : std::vector<std::string>{"not json {", "[\"sk-oa\"]", R"({"api_keys":["sk-oa"]})",
                                                             R"({"api_keys":{"openai":42}})", "\xff\xfe{", ""}) {
    dir.write("secrets.json", damaged);
    EXPECT_EQ(key_file_lookup(path, "openai"), std::nullopt) << damaged;
  }
}

TEST_F(KeyFile, AFileWhereNoneCanBeMadeIsAnError) {
  const std::string nowhere = dir.path + "/missing/secrets.json";
  auto r = key_file_store(nowhere, "openai", "sk-oa");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::Internal);
  EXPECT_EQ(r.error().message.rfind("cannot create " + nowhere + ".tmp-", 0), 0u) << r.error().message;
  EXPECT_EQ(key_file_lookup(nowhere, "openai"), std::nullopt);
  EXPECT_FALSE(std::filesystem::exists(dir.path + "/missing"));
}

TEST_F(KeyFile, TheProvidersWithAKeyAreListedInTheOrderTheirKeysWereAdded) {
  EXPECT_TRUE(stored_key_providers("").empty());
  EXPECT_TRUE(stored_key_providers(path).empty()) << "no file yet";
  ASSERT_TRUE(key_file_store(path, "openai", "sk-oa"));
  ASSERT_TRUE(key_file_store(path, "anthropic", "sk-ant"));
  ASSERT_TRUE(key_file_store(path, "groq", "sk-gq"));
  ASSERT_TRUE(key_file_store(path, "openai", "sk-oa-2"));  // replaced: it keeps its place
  EXPECT_EQ(stored_key_providers(path), (std::vector<std::string>{"openai", "anthropic", "groq"}));
  // Written by hand: an empty key, or one that is not text, is no key.
  dir.write("secrets.json", R"({"api_keys":{"mistral":"","openai":"sk-oa","x":5,"anthropic":"sk-ant"}})");
  EXPECT_EQ(stored_key_providers(path), (std::vector<std::string>{"openai", "anthropic"}));
}

}  // namespace
}  // namespace ouro::llm
