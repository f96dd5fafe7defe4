// The safety part of the settings file (safety/settings.h): a file that is not there is no
// settings, a file that is wrong is an error naming the field, and a secret's value is never
// repeated in an error. The gate's use of these settings is in gate_test.cpp.
#include "safety/settings.h"

#include "../support/scoped_temp_dir.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ouro::safety {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(SafetySettings, AFileThatIsNotThereIsEmptySettings) {
  testing::ScopedTempDir dir;
  auto s = load_safety_settings(dir.path + "/no-such-config.json");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_TRUE(s->allowed_domains.empty());
  EXPECT_FALSE(s->mode.has_value());
  EXPECT_TRUE(s->permissions.empty());
  EXPECT_EQ(s->secrets, nullptr);
}

TEST(SafetySettings, AFileIsReadWhole) {
  testing::ScopedTempDir dir;
  std::string path = dir.write("config.json", R"({
    "allowed_domains": ["example.com", "*.example.org", "127.0.0.1:8080"],
    "mode": "careful",
    "permissions": {"setCookie": "deny", "getCookies": "ask"},
    "secrets": {"bank_password": {"value": "hunter2-correct", "domains": ["bank.example.com"]}},
    "model": "claude-sonnet-4-20250514",
    "hooks": {}
  })");
  auto s = load_safety_settings(path);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->allowed_domains, (std::vector<std::string>{"example.com", "*.example.org", "127.0.0.1:8080"})) << "in the order written";
  ASSERT_TRUE(s->mode.has_value());
  EXPECT_EQ(*s->mode, GateMode::Careful);
  EXPECT_EQ(s->permissions.size(), 2u);
  EXPECT_EQ(s->permissions.at("setCookie"), "deny");
  EXPECT_EQ(s->permissions.at("getCookies"), "ask");
  ASSERT_NE(s->secrets, nullptr);
  auto secret = s->secrets->find("bank_password");
  ASSERT_TRUE(secret.has_value());
  EXPECT_EQ(secret->value, "hunter2-correct");
}

TEST(SafetySettings, AFileThatDoesNotParseIsAnErrorNamingIt) {
  testing::ScopedTempDir dir;
  std::string path = dir.write("config.json", "{\"mode\": \"careful\",");
  auto s = load_safety_settings(path);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, Code::InvalidArgument);
  EXPECT_TRUE(has(s.error().message, path)) << s.error().message;
  std::string list = dir.write("list.json", "[\"example.com\"]");
  auto l = load_safety_settings(list);
  ASSERT_FALSE(l);
  EXPECT_EQ(l.error().code, Code::InvalidArgument);
  EXPECT_TRUE(has(l.error().message, "not a JSON object")) << l.error().message;
}

TEST(SafetySettings, EachWrongShapeIsAnErrorNamingItsField) {
  struct Case {
    json file;
    const char* field;
  };
  const Case cases[] = {
      {json::array(), "not a JSON object"},
      {json{{"allowed_domains", "example.com"}}, "allowed_domains"},
      {json{{"allowed_domains", {"example.com", 3}}}, "allowed_domains"},
      {json{{"allowed_domains", {"exa mple.com"}}}, "allowed_domains"},
      {json{{"allowed_domains", {""}}}, "allowed_domains"},
      {json{{"mode", 1}}, "mode"},
      {json{{"mode", "Careful"}}, "careful"},
      {json{{"permissions", {"setCookie"}}}, "permissions"},
      {json{{"permissions", {{"setCookie", false}}}}, "permissions.setCookie"},
      {json{{"secrets", {"pw"}}}, "secrets"},
      {json{{"secrets", {{"pw", {{"domains", {"bank.example.com"}}}}}}}, "secrets.pw"},
      {json{{"secrets", {{"pw", {{"value", 12345678}, {"domains", {"bank.example.com"}}}}}}}, "secrets.pw"},
      {json{{"secrets", {{"pw", {{"value", "hunter2-correct"}}}}}}, "secrets.pw"},
      {json{{"secrets", {{"pw", {{"value", "hunter2-correct"}, {"domains", "bank.example.com"}}}}}}, "secrets.pw.domains"},
  };
  for (const auto& c : cases) {
    auto s = safety_settings_from(c.file, "the settings file /x/config.json");
    ASSERT_FALSE(s) << c.file.dump();
    EXPECT_EQ(s.error().code, Code::InvalidArgument) << c.file.dump();
    EXPECT_TRUE(has(s.error().message, c.field)) << c.file.dump() << " -> " << s.error().message;
    EXPECT_TRUE(has(s.error().message, "/x/config.json")) << "the error says which file: " << s.error().message;
  }
}

// What SecretStore refuses (a short value, no site, a bad name, a bad site) is the file's error,
// and the value itself is never in it: errors are shown and logged.
TEST(SafetySettings, ASecretTheStoreRefusesIsAnErrorThatNeverShowsItsValue) {
  const std::string value = "Zq9-short";
  for (const json& entry : {json{{"pw", {{"value", "Zq9"}, {"domains", {"bank.example.com"}}}}},
                            json{{"pw", {{"value", value}, {"domains", json::array()}}}},
                            json{{"bad name!", {{"value", value}, {"domains", {"bank.example.com"}}}}},
                            json{{"pw", {{"value", value}, {"domains", {"http://["}}}}}}) {
    auto s = safety_settings_from(json{{"secrets", entry}}, "settings");
    ASSERT_FALSE(s) << entry.dump();
    EXPECT_EQ(s.error().code, Code::InvalidArgument) << entry.dump();
    EXPECT_TRUE(has(s.error().message, "secrets.")) << s.error().message;
    EXPECT_FALSE(has(s.error().message, "Zq9")) << s.error().message;
  }
}

TEST(SafetySettings, AnEmptyObjectAndEmptySectionsAreNoSettings) {
  auto empty = safety_settings_from(json::object(), "settings");
  ASSERT_TRUE(empty) << empty.error().message;
  EXPECT_FALSE(empty->mode.has_value());
  EXPECT_EQ(empty->secrets, nullptr);
  auto sections = safety_settings_from(json{{"allowed_domains", json::array()}, {"permissions", json::object()}, {"secrets", json::object()}}, "settings");
  ASSERT_TRUE(sections) << sections.error().message;
  EXPECT_TRUE(sections->allowed_domains.empty());
  EXPECT_TRUE(sections->permissions.empty());
  ASSERT_NE(sections->secrets, nullptr) << "a secrets section, even empty, gives a store";
  EXPECT_TRUE(sections->secrets->empty());
}

}  // namespace
}  // namespace ouro::safety
