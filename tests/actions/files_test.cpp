// Uploads into a page's file input take files only from the allowed folders: the session's
// downloads folder and the folders the user gave.
#include "browser_env.h"

#include <filesystem>
#include <fstream>

namespace ouro::testing {
namespace {

namespace fs = std::filesystem;

// The page reads the chosen files asynchronously (File.text()): wait for what it shows.
const std::string kChosen =
    "let shown = ''; for (let i = 0; i < 250 && !(shown = await getText(activeTab, '#chosen')); i++) await sleep(20); shown";

TEST(Uploads, TakeFilesFromTheAllowedFoldersOnly) {
  // A downloaded file goes back up by its name; a file outside the folders is refused.
  json r = ok("const t = await openTab('{{/files}}'); await click(t, '#report'); const d = await waitForDownload();"
              "await upload(t, '#file', d.name); " + kChosen);
  EXPECT_NE(r.get<std::string>().find(":25:id,amount"), std::string::npos) << r;
  std::string outside = temp_dir() + "/secret.txt";
  std::ofstream(outside) << "private";
  std::string err = fails("await upload(activeTab, '#file', '" + outside + "')");
  EXPECT_NE(err.find("outside the folders"), std::string::npos) << err;
  err = fails("await upload(activeTab, '#file', '../../etc/passwd')");
  EXPECT_TRUE(err.find("outside the folders") != std::string::npos || err.find("no file") != std::string::npos) << err;
  err = fails("await upload(activeTab, '#text', (await getDownloads())[0].name)");
  EXPECT_NE(err.find("not a file input"), std::string::npos) << err;
}

TEST(Uploads, AFolderGivenByTheUserIsUsable) {
  std::string dir = temp_dir();
  std::ofstream(dir + "/a.txt") << "alpha";
  std::ofstream(dir + "/b.txt") << "beta";
  fs::create_symlink("/etc/hostname", dir + "/link");
  auto o = test_options();
  o.upload_dirs = {dir};
  auto s = session::Session::attach(shared_session().runtime(), o);
  ASSERT_TRUE(s) << s.error().message;
  json r = ok(with_urls("const t = await openTab('{{/files}}'); await upload(t, '#many', ['a.txt', '" + dir +
                        "/b.txt']); " + kChosen),
              s->get());
  EXPECT_EQ(r, "a.txt:5:alpha|b.txt:4:beta");
  std::string err = fails("await upload(activeTab, '#file', ['a.txt', 'b.txt'])", s->get());
  EXPECT_NE(err.find("takes one file"), std::string::npos) << err;
  err = fails("await upload(activeTab, '#file', 'link')", s->get());
  EXPECT_NE(err.find("outside the folders"), std::string::npos) << "a link out of the folder is outside it: " << err;
}

}  // namespace
}  // namespace ouro::testing
