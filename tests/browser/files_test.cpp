// Downloads land in the session's own folder under safe names and are listed with their state.
#include "browser_env.h"

#include <filesystem>
#include <fstream>

namespace ouro::testing {
namespace {

namespace fs = std::filesystem;

// The page reads the chosen files asynchronously (File.text()): wait for what it shows.
const std::string kChosen =
    "let shown = ''; for (let i = 0; i < 250 && !(shown = await getText(activeTab, '#chosen')); i++) await sleep(20); shown";

TEST(Downloads, LandInTheSessionsFolderUnderTheirNames) {
  json d = ok("const t = await openTab('{{/files}}'); await click(t, '#report'); await waitForDownload()");
  EXPECT_EQ(get_str(d, "state"), "completed") << d.dump();
  EXPECT_EQ(get_str(d, "name"), "report.csv");
  EXPECT_EQ(get_int(d, "size"), 25);
  std::string path = get_str(d, "path");
  ASSERT_FALSE(path.empty()) << d.dump();
  std::ifstream in(path);
  std::string body((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(body, "id,amount\n1,12.50\n2,7.25\n");
  // Listed, with the tab that started it; a second download of the same name does not overwrite.
  json again = ok("await click(activeTab, '#report'); await waitForDownload()");
  EXPECT_EQ(get_str(again, "name"), "report (1).csv");
  EXPECT_EQ(fs::path(get_str(again, "path")).parent_path(), fs::path(path).parent_path());
  json list = ok("await getDownloads()");
  ASSERT_GE(list.size(), 2u);
  EXPECT_FALSE(get_str(list.back(), "tabId").empty());
}

TEST(Downloads, AHostileNameStaysInsideTheFolder) {
  json d = ok("const t = await openTab('{{/files}}'); await click(t, '#evil'); await waitForDownload()");
  std::string path = get_str(d, "path");
  ASSERT_FALSE(path.empty()) << d.dump();
  EXPECT_EQ(get_str(d, "name").find('/'), std::string::npos) << d.dump();
  EXPECT_TRUE(fs::exists(path));
  json first = ok("(await getDownloads())[0]");
  EXPECT_EQ(fs::path(path).parent_path(), fs::path(get_str(first, "path")).parent_path()) << "the file left the downloads folder";
}

TEST(Downloads, WaitingWithNothingStartedIsAClearError) {
  std::string err = fails("await waitForDownload({ timeout: 300 })");
  EXPECT_NE(err.find("no download started"), std::string::npos) << err;
}

}  // namespace
}  // namespace ouro::testing
