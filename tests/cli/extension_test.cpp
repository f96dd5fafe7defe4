// `ouro extension` (cli/extension.h): the folder it writes is one Chrome can load unpacked — its
// manifest parses and names files that are there, the side panel's own references resolve — it
// replaces ouro's files and leaves a person's others alone, and a folder it cannot write is a
// clear error naming where.
#include "cli/extension.h"
#include "../support/scoped_temp_dir.h"

#include "base/json.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

namespace ouro::cli {
using testing::ScopedTempDir;
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Extension, TheFolderItWritesIsOneChromeCanLoad) {
  ScopedTempDir tmp;
  auto written = write_extension(tmp.path + "/ext");
  ASSERT_TRUE(written) << written.error().message;
  fs::path root(*written);
  EXPECT_TRUE(root.is_absolute());
  auto manifest = json::parse(slurp(root / "manifest.json"), nullptr, false);
  ASSERT_FALSE(manifest.is_discarded()) << "manifest.json is not JSON";
  EXPECT_EQ(manifest.value("manifest_version", 0), 3);
  const std::string worker = manifest["background"].value("service_worker", "");
  const std::string panel = manifest["side_panel"].value("default_path", "");
  ASSERT_FALSE(worker.empty());
  ASSERT_FALSE(panel.empty());
  EXPECT_TRUE(fs::is_regular_file(root / worker)) << worker;
  ASSERT_TRUE(fs::is_regular_file(root / panel)) << panel;
  // Every script and style the panel loads from the extension is in the folder (MV3 pages run
  // only the extension's own files: one missing is a blank panel).
  const std::string html = slurp(root / panel);
  std::regex ref(R"re((?:src|href)="([^"]+)")re");
  int local = 0;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), ref); it != std::sregex_iterator(); ++it) {
    std::string target = (*it)[1];
    if (target.rfind("data:", 0) == 0 || target.rfind("http", 0) == 0 || target.rfind("#", 0) == 0) continue;
    ++local;
    EXPECT_TRUE(fs::is_regular_file(root / target)) << panel << " loads " << target << ", which is not in the folder";
  }
  EXPECT_GT(local, 0);
  for (const char* cc : {"command-center/index.html", "command-center/app.js", "command-center/app.css"}) {
    std::error_code ec;
    const auto size = fs::file_size(root / cc, ec);
    EXPECT_TRUE(!ec && size > 0) << cc << ": " << ec.message();
  }
}

TEST(Extension, WritingAgainReplacesOuroFilesAndKeepsTheRest) {
  ScopedTempDir tmp;
  const fs::path root = tmp.path + "/ext";
  ASSERT_TRUE(write_extension(root.string()));
  const std::string manifest = slurp(root / "manifest.json");
  { std::ofstream(root / "manifest.json", std::ios::trunc) << "{ broken"; }
  { std::ofstream(root / "notes.txt") << "mine"; }
  ASSERT_TRUE(write_extension(root.string()));
  EXPECT_EQ(slurp(root / "manifest.json"), manifest);
  EXPECT_EQ(slurp(root / "notes.txt"), "mine");
}

TEST(Extension, AFolderItCannotMakeIsAnErrorNamingIt) {
  ScopedTempDir tmp;
  { std::ofstream(tmp.path + "/file") << "x"; }
  auto written = write_extension(tmp.path + "/file/ext");
  ASSERT_FALSE(written);
  EXPECT_EQ(written.error().code, Code::Internal);
  EXPECT_NE(written.error().message.find(tmp.path + "/file"), std::string::npos) << written.error().message;
}

TEST(Extension, ChromiumLoadsThatFolderAndNoOtherExtension) {
  auto args = load_extension_args("/x/ext");
  EXPECT_EQ(args, (std::vector<std::string>{"--disable-extensions-except=/x/ext", "--load-extension=/x/ext"}));
  auto text = extension_instructions("/x/ext");
  EXPECT_NE(text.find("chrome://extensions"), std::string::npos);
  EXPECT_NE(text.find("Load unpacked → /x/ext"), std::string::npos);
}

}  // namespace
}  // namespace ouro::cli
