// Reading the settings file: a missing file is empty settings; an unreadable one is an error; one that is empty, malformed, too
// deep, not a JSON object, or a directory is InvalidArgument naming the file; an object is read
// with its members in the order written.
#include "base/settings_file.h"
#include "../support/scoped_temp_dir.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace ouro {
namespace {

using TempDir = ouro::testing::ScopedTempDir;

// The read failed as InvalidArgument, saying which file.
void expect_refused(const std::string& path, const std::string& why) {
  auto s = read_settings_file(path);
  ASSERT_FALSE(s) << why << ": read as " << s->data.dump();
  EXPECT_EQ(s.error().code, Code::InvalidArgument) << why;
  EXPECT_NE(s.error().message.find(path), std::string::npos) << why << ": " << s.error().message;
}

TEST(SettingsFile, AMissingFileIsEmptySettings) {
  TempDir dir;
  const std::string path = dir.path + "/config.json";
  auto s = read_settings_file(path);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_TRUE(s->data.is_object());
  EXPECT_TRUE(s->data.empty());
  EXPECT_EQ(s->path, path);
  EXPECT_NE(s->where().find(path), std::string::npos) << s->where();
  EXPECT_FALSE(std::filesystem::exists(path)) << "reading never creates the file";
}

// The sites a run may reach, its mode and its secrets come from this file: one that is there but
// cannot be read stops the command, never reads as a file without settings.
TEST(SettingsFile, AFileThatIsThereButCannotBeReadIsAnError) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads any file";
  TempDir dir;
  const std::string path = dir.write("config.json", R"({"allowed_domains": ["bank.example"]})");
  std::filesystem::permissions(path, std::filesystem::perms::none);
  auto s = read_settings_file(path);
  ASSERT_FALSE(s) << "read as " << s->data.dump();
  EXPECT_EQ(s.error().code, Code::FailedPrecondition);
  EXPECT_NE(s.error().message.find(path), std::string::npos) << s.error().message;
  const std::string in_locked = dir.path + "/locked";
  std::filesystem::create_directory(in_locked);
  std::filesystem::permissions(in_locked, std::filesystem::perms::none);
  auto behind = read_settings_file(in_locked + "/config.json");
  EXPECT_FALSE(behind) << "a file whose folder cannot be looked in may be there";
  std::filesystem::permissions(in_locked, std::filesystem::perms::owner_all);
}

TEST(SettingsFile, AnEmptyFileIsRefused) {
  TempDir dir;
  expect_refused(dir.write("config.json", ""), "an empty file");
  expect_refused(dir.write("blank.json", "  \n\t\n"), "a file of blanks");
}

TEST(SettingsFile, MalformedJsonIsRefusedNamingTheFile) {
  TempDir dir;
  expect_refused(dir.write("comma.json", R"({"provider": "anthropic",})"), "a trailing comma");
  expect_refused(dir.write("cut.json", R"({"provider": "anthr)"), "a file cut short");
  expect_refused(dir.write("two.json", R"({"a": 1} {"b": 2})"), "two objects");
  expect_refused(dir.write("comment.json", "// my settings\n{\"a\": 1}"), "a comment");
}

TEST(SettingsFile, JsonThatIsNotAnObjectIsRefused) {
  TempDir dir;
  for (const char* text : {"[]", "[{\"provider\": \"anthropic\"}]", "42", "\"anthropic\"", "null", "true"})
    expect_refused(dir.write("config.json", text), text);
}

TEST(SettingsFile, NestingDeeperThanTheLimitIsRefused) {
  TempDir dir;
  std::string deep = "{\"a\": " + std::string(kMaxJsonDepth + 10, '[') + std::string(kMaxJsonDepth + 10, ']') + "}";
  expect_refused(dir.write("deep.json", deep), "nesting past the limit");
}

TEST(SettingsFile, ADirectoryWhereTheFileShouldBeIsRefused) {
  TempDir dir;
  const std::string path = dir.path + "/config.json";
  ASSERT_TRUE(std::filesystem::create_directory(path));
  expect_refused(path, "a directory");
}

TEST(SettingsFile, AnObjectIsReadWithItsMembersInTheOrderWritten) {
  TempDir dir;
  const std::string path = dir.write("config.json", R"({"provider": "anthropic", "mode": "careful",
      "allowed_domains": ["a.example", "*.b.example"], "secrets": {"bank": {"value": "x", "domains": ["bank.example"]}}})");
  auto s = read_settings_file(path);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->path, path);
  std::vector<std::string> keys;
  for (const auto& member : s->data.items()) keys.push_back(member.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"provider", "mode", "allowed_domains", "secrets"}));
  EXPECT_EQ(s->data["mode"], "careful");
  EXPECT_EQ(s->data["allowed_domains"].size(), 2u);
  EXPECT_EQ(s->data["secrets"]["bank"]["domains"][0], "bank.example");
}

TEST(SettingsFile, ALinkToTheFileIsReadThroughIt) {
  TempDir dir;
  const std::string real = dir.write("dotfiles-config.json", R"({"model": "claude"})");
  const std::string link = dir.path + "/config.json";
  ASSERT_EQ(::symlink(real.c_str(), link.c_str()), 0);
  auto s = read_settings_file(link);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->path, link);
  EXPECT_EQ(s->data["model"], "claude");
}

}  // namespace
}  // namespace ouro
