// The flags every command shares, without a browser: what the command line refuses (a mode, a
// password on it, a timeout out of range, a folder that is not there), workspaces and their
// names, which --browser combinations a command takes, the settings file's path, and the
// session options the flags become.
#include "cli/flags.h"
#include "../support/scoped_env.h"
#include "../support/scoped_temp_dir.h"

#include "safety/settings.h"

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace ouro::cli {
namespace {

namespace fs = std::filesystem;

using ouro::testing::ScopedEnv;
using TempDir = ouro::testing::ScopedTempDir;

// Parses words as a command with the shared flags and one positional task.
struct Command {
  CLI::App app{"ouro run"};
  CommonFlags flags;
  std::vector<std::string> task;
  Command() {
    add_common(&app, flags);
    app.add_option("task", task);
  }
  void parse(std::vector<std::string> words) {
    words.insert(words.begin(), "ouro");
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    app.parse(static_cast<int>(argv.size()), argv.data());
  }
};

TEST(CommonFlags, WhatTheCommandLineRefuses) {
  ScopedEnv database("OURO_DATABASE", nullptr);
  EXPECT_THROW(Command().parse({"--mode", "reckless"}), CLI::ParseError);
  EXPECT_THROW(Command().parse({"--timeout", "0"}), CLI::ParseError);
  EXPECT_THROW(Command().parse({"--memory", "9000"}), CLI::ParseError);
  EXPECT_THROW(Command().parse({"--upload-dir", "/nonexistent/ouro-uploads"}), CLI::ParseError);
  EXPECT_THROW(Command().parse({"--database", "postgresql://ada:hunter2@db.example/ouro"}), CLI::ParseError);
  EXPECT_TRUE(std::getenv("OURO_DATABASE") == nullptr) << "a refused database is not passed on";
}

TEST(CommonFlags, RepeatableFlagsTakeOneValueEachAndLandInTheSharedGroup) {
  ScopedEnv database("OURO_DATABASE", nullptr);
  TempDir dir;
  Command c;
  c.parse({"--url", "http://a.example/", "--url", "http://b.example/", "--upload-dir", dir.path, "--mode", "autonomous",
           "--database", "postgresql://ada@db.example/ouro", "find", "prices"});
  EXPECT_EQ(c.flags.urls, (std::vector<std::string>{"http://a.example/", "http://b.example/"}));
  EXPECT_EQ(c.task, (std::vector<std::string>{"find", "prices"})) << "the task is not swallowed by --url";
  EXPECT_EQ(c.flags.upload_dirs, std::vector<std::string>{dir.path});
  EXPECT_EQ(c.flags.mode, "autonomous");
  ASSERT_TRUE(std::getenv("OURO_DATABASE") != nullptr);
  EXPECT_STREQ(std::getenv("OURO_DATABASE"), "postgresql://ada@db.example/ouro");
  EXPECT_EQ(c.app.get_option("--url")->get_group(), "Shared options");
}

TEST(Workspace, ANameOutsideTheRuleIsRefusedAndNothingIsMade) {
  ScopedEnv env("OURO_WORKSPACE", nullptr);
  TempDir dir;
  for (std::string name : std::vector<std::string>{"../up", "a b", "x/y", ".", std::string(65, 'w'), "caf\xC3\xA9"}) {
    auto r = workspace_data_dir(dir.path, name);
    ASSERT_FALSE(r) << name;
    EXPECT_EQ(r.error().code, Code::InvalidArgument) << name;
  }
  EXPECT_FALSE(fs::exists(dir.path + "/workspaces"));
}

TEST(Workspace, ADataDirectoryThatIsAFileCannotHoldOne) {
  ScopedEnv env("OURO_WORKSPACE", nullptr);
  TempDir dir;
  const std::string file = dir.path + "/data";
  std::ofstream(file) << "not a directory";
  std::string name = "team";
  auto r = workspace_data_dir(file, name);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::FailedPrecondition);
}

TEST(Workspace, AWorkspaceIsAPrivateFolderInTheDataDirectory) {
  ScopedEnv env("OURO_WORKSPACE", nullptr);
  TempDir dir;
  std::string none;
  auto same = workspace_data_dir(dir.path + "/data", none);
  ASSERT_TRUE(same);
  EXPECT_EQ(*same, dir.path + "/data") << "no workspace: the data directory as it was";
  EXPECT_FALSE(fs::exists(dir.path + "/data"));
  std::string name(64, 'w');
  auto r = workspace_data_dir(dir.path + "/data", name);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r, dir.path + "/data/workspaces/" + name);
  ASSERT_TRUE(fs::is_directory(*r));
  for (const std::string& d : {dir.path + "/data/workspaces", *r}) {
    struct stat st {};
    ASSERT_EQ(::stat(d.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u) << d;
  }
}

TEST(Workspace, TheEnvironmentNamesOneWhenTheFlagDoesNot) {
  ScopedEnv env("OURO_WORKSPACE", "from-env");
  TempDir dir;
  ScopedEnv data("OURO_DATA_DIR", dir.path.c_str());
  CommonFlags f;  // no --data-dir: the default, here $OURO_DATA_DIR
  ASSERT_TRUE(enter_workspace(f));
  EXPECT_EQ(f.workspace, "from-env");
  EXPECT_EQ(f.data_dir, dir.path + "/workspaces/from-env");
  EXPECT_EQ(f.base_data_dir, dir.path) << "API keys stay in the data directory the workspace is in";
  std::string flag = "from-flag";
  auto r = workspace_data_dir(dir.path, flag);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, dir.path + "/workspaces/from-flag");
}

TEST(TakeBrowsers, OnlyServeTakesSeveralBrowsersAPoolFileOrTheExtension) {
  auto refused = [](CommonFlags f, bool serve) {
    auto r = take_browsers(f, serve);
    return !r && r.error().code == Code::InvalidArgument;
  };
  CommonFlags two;
  two.browsers = {"ws://127.0.0.1:9222/devtools/browser/a", "ws://127.0.0.1:9223/devtools/browser/b"};
  EXPECT_TRUE(refused(two, false));
  CommonFlags pool_file;
  pool_file.browser_pool = "/tmp/pool.json";
  EXPECT_TRUE(refused(pool_file, false));
  CommonFlags extension;
  extension.browsers = {"extension"};
  EXPECT_TRUE(refused(extension, false));
  CommonFlags with_auto = two;
  with_auto.browsers.push_back("auto");
  EXPECT_TRUE(refused(with_auto, true)) << "auto is never part of a pool";
  CommonFlags with_profile = two;
  with_profile.profile = "/tmp/profile";
  EXPECT_TRUE(refused(with_profile, true)) << "a pool's browsers keep their own profiles";
  // What each takes.
  CommonFlags one;
  one.browsers = {"ws://127.0.0.1:9222/devtools/browser/a"};
  ASSERT_TRUE(take_browsers(one, false));
  EXPECT_EQ(one.browser_ws, "ws://127.0.0.1:9222/devtools/browser/a");
  ASSERT_TRUE(take_browsers(two, true));
  EXPECT_EQ(two.browser_ws, "") << "a pool has no one browser";
}

TEST(ConfigPath, TheFlagThenOuroConfigThenXdgConfigHome) {
  ScopedEnv config("OURO_CONFIG", nullptr);
  ScopedEnv xdg("XDG_CONFIG_HOME", "/tmp/ouro-flags-xdg");
  CommonFlags f;
  EXPECT_EQ(config_path_of(f), "/tmp/ouro-flags-xdg/ouroboros/config.json");
  ScopedEnv named("OURO_CONFIG", "/tmp/ouro-flags-env.json");
  EXPECT_EQ(config_path_of(f), "/tmp/ouro-flags-env.json");
  f.config_path = "/tmp/ouro-flags-flag.json";
  EXPECT_EQ(config_path_of(f), "/tmp/ouro-flags-flag.json");
}

TEST(SessionOptions, WhatTheFlagsCannotBecome) {
  safety::SafetySettings settings;
  CommonFlags dir_without_auto;
  dir_without_auto.browser_dir = "/tmp/some-profile";
  auto r = session_options(dir_without_auto, nullptr, false, {}, &settings);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::InvalidArgument);

  ScopedEnv secret("OURO_SECRET_BANK", nullptr);
  CommonFlags with_secret;
  with_secret.secrets = {"bank@bank.example"};
  auto no_value = session_options(with_secret, nullptr, false, {}, &settings);
  ASSERT_FALSE(no_value);
  EXPECT_EQ(no_value.error().code, Code::InvalidArgument);
  EXPECT_NE(no_value.error().message.find("OURO_SECRET_BANK"), std::string::npos) << no_value.error().message;

  safety::SafetySettings unknown;
  unknown.permissions = {{"noSuchCapability", "deny"}};
  auto bad = session_options(CommonFlags{}, nullptr, false, {}, &unknown);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, Code::InvalidArgument);
}

TEST(SessionOptions, TheFlagsBecomeTheSessionsOptions) {
  ScopedEnv secret("OURO_SECRET_BANK", "correct horse");
  safety::SafetySettings settings;
  CommonFlags f;
  f.data_dir = "/tmp/ouro-flags-data";
  f.timeout_s = 2.5;
  f.memory_mb = 256;
  f.action_timeout_ms = 1500;
  f.headed = true;
  f.profile = "/tmp/ouro-flags-profile";
  f.browser_ws = "ws://127.0.0.1:9222/devtools/browser/a";
  f.secrets = {"bank@bank.example"};
  auto o = session_options(f, nullptr, false, {}, &settings);
  ASSERT_TRUE(o) << o.error().message;
  EXPECT_EQ(o->db_path, "/tmp/ouro-flags-data/ouro.db");
  EXPECT_EQ(o->repl.timeout.count(), 2500);
  EXPECT_EQ(o->repl.memory_mb, 256u);
  EXPECT_EQ(o->limits.action_timeout.count(), 1500);
  EXPECT_TRUE(o->browser.launch.headed);
  EXPECT_EQ(o->browser.launch.user_data_dir, "/tmp/ouro-flags-profile");
  EXPECT_EQ(o->browser.connect_url, "ws://127.0.0.1:9222/devtools/browser/a");
  ASSERT_TRUE(o->secrets != nullptr);
  EXPECT_EQ(o->secrets->names(), std::vector<std::string>{"bank"});
  EXPECT_TRUE(o->gate == nullptr) << "ungated: no egress policy";
  auto gated = session_options(f, nullptr, true, "read https://news.example/today", &settings);
  ASSERT_TRUE(gated) << gated.error().message;
  EXPECT_TRUE(gated->gate != nullptr);
}

}  // namespace
}  // namespace ouro::cli
