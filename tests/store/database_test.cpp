#include "store/database.h"

#include "browser_env.h"

#include <sys/stat.h>

namespace ouro::store {
namespace {

TEST(Database, KeyValueRoundTripAndReplace) {
  auto db = Database::open(":memory:");
  ASSERT_TRUE(db) << db.error().message;
  ASSERT_TRUE((*db)->kv_set("a", "{\"x\":1}"));
  ASSERT_TRUE((*db)->kv_set("b", "[1,2]"));
  ASSERT_TRUE((*db)->kv_set("a", "2"));
  EXPECT_EQ(*(*db)->kv_get("a").value(), "2");
  EXPECT_FALSE((*db)->kv_get("missing").value().has_value());
  EXPECT_EQ((*db)->kv_keys().value(), (std::vector<std::string>{"a", "b"}));
}

TEST(Database, FileIsPrivateAndSurvivesReopening) {
  std::string path = testing::temp_dir() + "/nested/ouro.db";
  {
    auto db = Database::open(path);
    ASSERT_TRUE(db) << db.error().message;
    ASSERT_TRUE((*db)->kv_set("k", "\"v\""));
  }
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto db = Database::open(path);
  EXPECT_EQ(*(*db)->kv_get("k").value(), "\"v\"");
}

TEST(Database, UnwritableLocationSaysWhatToDo) {
  auto db = Database::open("/proc/ouro-cannot-be-here/ouro.db");
  ASSERT_FALSE(db);
  EXPECT_NE(db.error().message.find("OURO_DATA_DIR"), std::string::npos) << db.error().message;
}

}  // namespace
}  // namespace ouro::store
