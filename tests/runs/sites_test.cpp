// The sites the user allowed "always": only real sites are read back, each is kept once and at
// most 500 in all, Settings' Revoke replaces the list only with sites, an "always" answered during
// a turn is undone with that turn, and which confirmation requests are site questions.
#include "runs/sites.h"

#include "basics.h"
#include "store/database.h"
#include "undo/journal.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace ouro::runs {
namespace {

using Sites = std::vector<std::string>;

class RememberedSites : public ::testing::Test {
 protected:
  void SetUp() override { db = std::move(store::Database::open(testing::temp_dir() + "/ouro.db").value()); }
  std::unique_ptr<store::Database> db;
};

TEST_F(RememberedSites, NothingStoredOrADamagedListIsNoSites) {
  EXPECT_TRUE(remembered_sites(*db).empty());
  for (const char* stored : {"[", "{\"shop.example.com\": true}", "\"shop.example.com\"", "null"}) {
    ASSERT_TRUE(db->set_setting("allowed_sites", stored));
    EXPECT_TRUE(remembered_sites(*db).empty()) << stored;
  }
}

TEST_F(RememberedSites, EntriesThatAreNotSitesAreSkipped) {
  json stored = {"shop.example.com", 5, "not a site", "*.docs.example.org", nullptr, "example.com:", "127.0.0.1:8080", ""};
  ASSERT_TRUE(db->set_setting("allowed_sites", dump_json(stored)));
  EXPECT_EQ(remembered_sites(*db), (Sites{"shop.example.com", "*.docs.example.org", "127.0.0.1:8080"}));
}

TEST_F(RememberedSites, ASiteAllowedTwiceIsKeptOnce) {
  remember_site(*db, "shop.example.com");
  remember_site(*db, "mail.example.com");
  remember_site(*db, "shop.example.com");
  EXPECT_EQ(remembered_sites(*db), (Sites{"shop.example.com", "mail.example.com"}));
}

TEST_F(RememberedSites, NoMoreThanFiveHundredAreKept) {
  json full = json::array();
  for (int i = 0; i < 500; ++i) full.push_back("s" + std::to_string(i) + ".example.com");
  ASSERT_TRUE(set_remembered_sites(*db, full));
  json over = full;
  over.push_back("s500.example.com");
  auto refused = set_remembered_sites(*db, over);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, Code::InvalidArgument);
  EXPECT_EQ(remembered_sites(*db).size(), 500u) << "a refused list changes nothing";
  remember_site(*db, "one-more.example.com");
  Sites now = remembered_sites(*db);
  EXPECT_EQ(now.size(), 500u);
  EXPECT_TRUE(std::find(now.begin(), now.end(), "one-more.example.com") == now.end()) << "past the cap an \"always\" is not kept";
}

TEST_F(RememberedSites, RevokeTakesOnlyAListOfSites) {
  ASSERT_TRUE(set_remembered_sites(*db, {"shop.example.com", "mail.example.com"}));
  for (const json& wrong : {json::object(), json("shop.example.com"), json{"shop.example.com", 7}, json{"shop.example.com", "not a site"},
                            json{"http://"}}) {
    auto refused = set_remembered_sites(*db, wrong);
    ASSERT_FALSE(refused) << wrong.dump();
    EXPECT_EQ(refused.error().code, Code::InvalidArgument) << wrong.dump();
  }
  auto named = set_remembered_sites(*db, {"shop.example.com", "not a site"});
  ASSERT_FALSE(named);
  EXPECT_NE(named.error().message.find("not a site"), std::string::npos) << "the entry is named: " << named.error().message;
  EXPECT_EQ(remembered_sites(*db), (Sites{"shop.example.com", "mail.example.com"})) << "nothing refused was kept";

  ASSERT_TRUE(set_remembered_sites(*db, {"mail.example.com"}));
  EXPECT_EQ(remembered_sites(*db), (Sites{"mail.example.com"}));
  ASSERT_TRUE(set_remembered_sites(*db, json::array()));
  EXPECT_TRUE(remembered_sites(*db).empty()) << "revoking every site";
}

TEST_F(RememberedSites, AnAlwaysAnsweredDuringATurnIsUndoneWithIt) {
  // Outside a turn (the terminal's own question): nothing is journaled.
  remember_site(*db, "kept.example.com");
  auto none = undo::latest_conversation(*db, false);
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_EQ(*none, "");

  remember_site(*db, "shop.example.com", "rconvers001", 1);
  EXPECT_EQ(remembered_sites(*db), (Sites{"kept.example.com", "shop.example.com"}));
  auto undone = undo::undo(*db, "rconvers001");
  ASSERT_TRUE(undone) << undone.error().message;
  EXPECT_EQ(remembered_sites(*db), (Sites{"kept.example.com"})) << "that site goes; the one allowed outside the turn stays";
  auto redone = undo::redo(*db, "rconvers001");
  ASSERT_TRUE(redone) << redone.error().message;
  EXPECT_EQ(remembered_sites(*db), (Sites{"kept.example.com", "shop.example.com"}));
}

TEST(SiteQuestion, OnlyAQuestionAboutASiteNamesOne) {
  EXPECT_EQ(site_question(json()), "");
  EXPECT_EQ(site_question(json::array({"use-tab", "mail.example.com"})), "");
  EXPECT_EQ(site_question({{"action", "use-tab"}}), "") << "no site, no site question";
  EXPECT_EQ(site_question({{"action", "use-tab"}, {"site", 5}}), "");
  EXPECT_EQ(site_question({{"action", "click"}, {"site", "shop.example.com"}, {"rule", "sensitive action"}}), "")
      << "a question about an action on a site is not one about the site";

  EXPECT_EQ(site_question({{"action", "use-tab"}, {"site", "mail.example.com"}}), "mail.example.com");
  EXPECT_EQ(site_question({{"action", "navigate"}, {"site", "shop.example.com"}, {"rule", "outside allowed sites"}}), "shop.example.com");
}

}  // namespace
}  // namespace ouro::runs
