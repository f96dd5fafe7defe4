// `ouro paths`: where ouro keeps what it keeps, for the data directory and settings file given or
// found in the environment; a database's password never shown, what is not there yet said so.
#include "cli/paths.h"
#include "../support/scoped_env.h"

#include "base/json.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

namespace ouro::cli {
namespace {

using ouro::testing::ScopedEnv;

// A fresh directory under /tmp, and the environment pointed into it: the settings file
// <dir>/config.json (not written), no OURO_DATABASE; removed and put back when the test ends.
struct Sandbox {
  std::string path;
  std::optional<ScopedEnv> config, database;
  Sandbox() {
    char pattern[] = "/tmp/ouro-paths-XXXXXX";
    const char* made = ::mkdtemp(pattern);
    EXPECT_NE(made, nullptr);
    if (made) path = made;
    config.emplace("OURO_CONFIG", (path + "/config.json").c_str());
    database.emplace("OURO_DATABASE", nullptr);
  }
  ~Sandbox() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
  void settings(const std::string& text) const { std::ofstream(path + "/config.json") << text; }
};

struct Printed {
  int code = -1;
  std::string out;
};

Printed paths(const std::string& data_dir, const std::string& config, bool as_json) {
  std::ostringstream out;
  std::streambuf* before = std::cout.rdbuf(out.rdbuf());
  int code = cmd_paths(data_dir, config, as_json);
  std::cout.rdbuf(before);
  return {code, out.str()};
}

json paths_json(const std::string& data_dir, const std::string& config = "") {
  Printed p = paths(data_dir, config, true);
  EXPECT_EQ(p.code, 0);
  auto j = parse_json(p.out, "ouro paths --json");
  EXPECT_TRUE(j && j->is_object()) << p.out;
  return j ? *j : json::object();
}

// The line of the text listing that starts with label.
std::string line_of(const std::string& text, const std::string& label) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(label, 0) == 0) return line;
  return "";
}

TEST(Paths, ADatabasePasswordIsNeverShown) {
  Sandbox box;
  box.settings(R"({"database": "postgresql://ada:hunter2@db.example/ouro"})");
  json j = paths_json(box.path + "/data");
  EXPECT_EQ(get_str(j, "database").find("hunter2"), std::string::npos) << j.dump();
  EXPECT_NE(get_str(j, "database").find("db.example"), std::string::npos) << j.dump();
  // A password given beside the URL is not shown either, nor in the listing for people.
  box.settings(R"({"database": "postgresql://ada@db.example/ouro", "database_password": "s3cret-pw"})");
  j = paths_json(box.path + "/data");
  EXPECT_EQ(get_str(j, "database").find("s3cret-pw"), std::string::npos) << j.dump();
  Printed text = paths(box.path + "/data", "", false);
  EXPECT_EQ(text.out.find("s3cret-pw"), std::string::npos) << text.out;
  EXPECT_EQ(line_of(text.out, "database:").find("not there yet"), std::string::npos) << "a server is not a file to look for";
}

TEST(Paths, ASettingsFileWithAWrongDatabaseStillGetsAnAnswer) {
  Sandbox box;
  box.settings(R"({"database": 5})");
  json j = paths_json(box.path + "/data");
  EXPECT_EQ(get_str(j, "database"), box.path + "/data/ouro.db");
  box.settings("{ not json");
  EXPECT_EQ(get_str(paths_json(box.path + "/data"), "database"), box.path + "/data/ouro.db");
}

TEST(Paths, EveryPlaceIsInTheDataDirectoryGiven) {
  Sandbox box;
  const std::string data = box.path + "/data";
  json j = paths_json(data, box.path + "/given.json");
  EXPECT_EQ(get_str(j, "config"), box.path + "/given.json") << "the flag wins over OURO_CONFIG";
  EXPECT_EQ(get_str(j, "dataDir"), data);
  EXPECT_EQ(get_str(j, "database"), data + "/ouro.db");
  EXPECT_EQ(get_str(j, "keys"), data + "/secrets.json");
  EXPECT_EQ(get_str(j, "profile"), data + "/profile");
  EXPECT_EQ(get_str(j, "extension"), data + "/extension");
  EXPECT_EQ(get_str(j, "replHistory"), data + "/repl_history");
  EXPECT_FALSE(get_str(j, "binary").empty());
  EXPECT_FALSE(get_str(j, "logs").empty());
  EXPECT_FALSE(std::filesystem::exists(data)) << "asking where things are creates nothing";
}

TEST(Paths, WithoutFlagsTheEnvironmentSaysWhere) {
  Sandbox box;
  ScopedEnv data_dir("OURO_DATA_DIR", (box.path + "/dd").c_str());
  json j = paths_json("");
  EXPECT_EQ(get_str(j, "dataDir"), box.path + "/dd");
  EXPECT_EQ(get_str(j, "config"), box.path + "/config.json");
  {
    ScopedEnv database("OURO_DATABASE", (box.path + "/elsewhere.db").c_str());
    EXPECT_EQ(get_str(paths_json(""), "database"), box.path + "/elsewhere.db");
  }
  ScopedEnv config("OURO_CONFIG", nullptr);
  ScopedEnv xdg("XDG_CONFIG_HOME", (box.path + "/xdg").c_str());
  EXPECT_EQ(get_str(paths_json(""), "config"), box.path + "/xdg/ouroboros/config.json");
}

TEST(Paths, TheListingSaysWhatIsNotThereYet) {
  Sandbox box;
  const std::string data = box.path + "/data";
  std::filesystem::create_directories(data);
  box.settings("{}");
  Printed p = paths(data, "", false);
  EXPECT_EQ(p.code, 0);
  std::string dir_line = line_of(p.out, "data directory:"), keys_line = line_of(p.out, "API keys");
  ASSERT_FALSE(dir_line.empty()) << p.out;
  ASSERT_FALSE(keys_line.empty()) << p.out;
  EXPECT_NE(dir_line.find(data), std::string::npos) << dir_line;
  EXPECT_EQ(dir_line.find("not there yet"), std::string::npos) << dir_line;
  EXPECT_NE(keys_line.find("not there yet"), std::string::npos) << keys_line;
  EXPECT_EQ(line_of(p.out, "settings file:").find("not there yet"), std::string::npos) << p.out;
  std::ofstream(data + "/secrets.json") << "{}";
  EXPECT_EQ(line_of(paths(data, "", false).out, "API keys").find("not there yet"), std::string::npos);
}

}  // namespace
}  // namespace ouro::cli
