// Finding the user's own browser for `--browser auto` (browser/discovery.h): a DevToolsActivePort
// file in a user-data-dir, its port and its browser target's path checked before ouro connects.
#include "browser/discovery.h"
#include "../support/scoped_env.h"
#include "../support/scoped_temp_dir.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <thread>
#include <vector>

namespace ouro::browser {
namespace {

using ouro::testing::ScopedEnv;
using ouro::testing::ScopedTempDir;

TEST(Discovery, TheFirstDirectoryWithAValidFileIsTheOneAttachedTo) {
  ScopedTempDir a, b, c;
  b.write("DevToolsActivePort", "9222\n/devtools/browser/1b2c-3d4e\n");
  c.write("DevToolsActivePort", "9333\n/devtools/browser/other\n");
  auto url = find_devtools_url({a.path, b.path, c.path});
  ASSERT_TRUE(url) << url.error().message;
  EXPECT_EQ(*url, "ws://127.0.0.1:9222/devtools/browser/1b2c-3d4e");
}

TEST(Discovery, NoneFoundSaysWhereItLookedAndHowToStartOne) {
  ScopedTempDir a;
  auto url = find_devtools_url({a.path, a.path + "/missing"});
  ASSERT_FALSE(url);
  EXPECT_EQ(url.error().code, Code::NotFound);
  EXPECT_NE(url.error().message.find(a.path + "/missing"), std::string::npos) << url.error().message;
  EXPECT_NE(url.error().message.find("--remote-debugging-port"), std::string::npos);
  auto none = find_devtools_url({});
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("no directory"), std::string::npos);
}

TEST(Discovery, AFileThatIsNotAPortAndABrowserPathIsPassedOver) {
  // What a stale, damaged or planted file may hold: each is skipped, never turned into a URL.
  const char* bad[] = {
      "",                                                   // empty
      "9222\n",                                             // no path line
      "0\n/devtools/browser/x\n",                           // port 0
      "65536\n/devtools/browser/x\n",                       // over the range
      "-1\n/devtools/browser/x\n",                          // a sign
      "92 22\n/devtools/browser/x\n",                       // a space
      "9222\n/devtools/page/x\n",                           // not the browser target
      "9222\n/devtools/browser/x?y=@evil.example\n",        // query text
      "9222\n/devtools/browser/../../x\n",                  // dots
      "9222\n/devtools/browser/x\r\n",                      // a carriage return
      "9222@evil.example\n/devtools/browser/x\n",           // a host smuggled into the port
  };
  for (const char* text : bad) {
    ScopedTempDir d;
    d.write("DevToolsActivePort", text);
    auto url = find_devtools_url({d.path});
    EXPECT_FALSE(url) << "accepted: " << ::testing::PrintToString(std::string(text)) << " as " << *url;
  }
  ScopedTempDir longer;
  longer.write("DevToolsActivePort", "9222\n/devtools/browser/" + std::string(300, 'a') + "\n");
  EXPECT_FALSE(find_devtools_url({longer.path}));
}

TEST(Discovery, AHugeFileOrAPipeInItsPlaceNeitherBloatsNorHangs) {
  // A megabytes-long first line must not be read whole; a FIFO named DevToolsActivePort must not
  // block `--browser auto` waiting for a writer that never comes.
  ScopedTempDir huge, pipe, dir_instead;
  huge.write("DevToolsActivePort", std::string(16 << 20, '9'));
  ASSERT_EQ(::mkfifo((pipe.path + "/DevToolsActivePort").c_str(), 0600), 0);
  std::filesystem::create_directory(dir_instead.path + "/DevToolsActivePort");
  // On a thread of its own, left behind if it blocks, so that a failure reports instead of hanging.
  auto found = std::make_shared<std::promise<Result<std::string>>>();
  auto looking = found->get_future();
  std::thread([found, dirs = std::vector<std::string>{huge.path, pipe.path, dir_instead.path}] {
    found->set_value(find_devtools_url(dirs));
  }).detach();
  ASSERT_EQ(looking.wait_for(std::chrono::seconds(20)), std::future_status::ready) << "a FIFO blocked the search";
  auto url = looking.get();
  ASSERT_FALSE(url);
  EXPECT_EQ(url.error().code, Code::NotFound);
}

TEST(Discovery, TheUsualDirectoriesFollowXdgConfigHomeElseHome) {
  {
    ScopedEnv xdg("XDG_CONFIG_HOME", "/x/config");
    auto dirs = usual_browser_dirs();
    ASSERT_FALSE(dirs.empty());
    for (const auto& d : dirs) EXPECT_EQ(d.rfind("/x/config/", 0), 0u) << d;
    EXPECT_NE(std::find(dirs.begin(), dirs.end(), "/x/config/chromium"), dirs.end());
    EXPECT_NE(std::find(dirs.begin(), dirs.end(), "/x/config/google-chrome"), dirs.end());
  }
  {
    ScopedEnv xdg("XDG_CONFIG_HOME", nullptr);
    ScopedEnv home("HOME", "/home/someone");
    auto dirs = usual_browser_dirs();
    ASSERT_FALSE(dirs.empty());
    EXPECT_EQ(dirs.front().rfind("/home/someone/.config/", 0), 0u) << dirs.front();
  }
  {
    ScopedEnv xdg("XDG_CONFIG_HOME", "");
    ScopedEnv home("HOME", nullptr);
    EXPECT_TRUE(usual_browser_dirs().empty()) << "nowhere to look is no directory, not the current one";
  }
}

}  // namespace
}  // namespace ouro::browser
