// The secret's rule (egress/secret_holds.h): once a secret is typed into a document of an origin,
// what of that origin — its tabs, frames, popups, scripts and workers — talks only to the
// secret's sites until the run's gate goes.
#include "egress/secret_holds.h"

#include <gtest/gtest.h>

namespace ouro::egress {
namespace {

safety::Url url(const std::string& text) { return *safety::parse_url(text); }

// Where a secret may go: origins, scheme and port as written (safety/sites.h PatternRule::Origin).
safety::SiteList sites(const std::vector<std::string>& patterns) {
  safety::SiteList out;
  for (const auto& p : patterns) EXPECT_TRUE(out.add(p, safety::PatternRule::Origin)) << p;
  return out;
}

safety::RequestFacts request(const std::string& to, const std::string& type = "Fetch") {
  safety::RequestFacts f;
  f.url = to;
  f.resource_type = type;
  return f;
}

bool refused(SecretHolds& h, const RequestSource& from, const std::string& to, const std::string& type = "Fetch") {
  auto v = h.judge(from, request(to, type));
  return v && v->decision == safety::Decision::Deny;
}

class SecretHoldsTest : public ::testing::Test {
 protected:
  SecretHolds holds;
  // Typed where it may be: its origin is one of its sites.
  void SetUp() override { holds.add("t1", url("https://login.bank.example"), sites({"login.bank.example", "bank.example"})); }
};

TEST_F(SecretHoldsTest, TheTabItWasTypedIntoTalksOnlyToTheSecretsSitesWhereverItGoes) {
  EXPECT_FALSE(refused(holds, {"t1", "https://login.bank.example/", "", ""}, "https://bank.example/api"));
  EXPECT_TRUE(refused(holds, {"t1", "https://login.bank.example/", "", ""}, "https://cdn.shop.example/x?d=1"));
  // Its page moved elsewhere (window.name, an unload beacon): still bound.
  EXPECT_TRUE(refused(holds, {"t1", "https://shop.example/", "", ""}, "https://shop.example/cart"));
  EXPECT_TRUE(holds.binds("t1"));
  auto v = holds.judge({"t1", "", "", ""}, request("https://evil.example/", "Document"));
  ASSERT_TRUE(v);
  EXPECT_NE(v->reason.find("open a new tab"), std::string::npos) << v->reason;
  EXPECT_EQ(v->rule, "secret's sites");
}

// The gate limits a newly bound tab's WebSockets (they cannot be paused): it learns of each tab
// once, when the tab is bound or bound by one more secret, with the sites of every secret on it.
TEST_F(SecretHoldsTest, EachTabIsReportedOnceWhenBoundWithTheSitesOfItsSecrets) {
  EXPECT_EQ(holds.take_newly_bound(), std::vector<std::string>{"t1"});
  EXPECT_TRUE(holds.take_newly_bound().empty());
  (void)holds.judge({"t1", "https://login.bank.example/", "", ""}, request("https://bank.example/api"));
  EXPECT_TRUE(holds.take_newly_bound().empty()) << "bound already";
  (void)holds.judge({"t2", "https://login.bank.example/", "", ""}, request("https://bank.example/api"));
  EXPECT_EQ(holds.take_newly_bound(), std::vector<std::string>{"t2"});
  holds.add("t2", url("https://mail.example"), sites({"mail.example"}));
  EXPECT_EQ(holds.take_newly_bound(), std::vector<std::string>{"t2"}) << "a second secret on it";
  auto binding = holds.sites_binding("t2");
  ASSERT_EQ(binding.size(), 2u);
  EXPECT_TRUE(holds.sites_binding("t9").empty());
}

TEST_F(SecretHoldsTest, EveryTabAndFrameThatShowsTheOriginLaterIsBoundToo) {
  // Another tab, on another site: free.
  EXPECT_FALSE(refused(holds, {"t2", "https://news.example/", "", ""}, "https://cdn.example/a.js"));
  // It shows the origin (its storage holds what the first page kept): bound, and stays bound.
  EXPECT_TRUE(refused(holds, {"t2", "https://login.bank.example/account", "", ""}, "https://cdn.example/x"));
  EXPECT_TRUE(refused(holds, {"t2", "https://news.example/", "", ""}, "https://cdn.example/x"));
  // A frame of the origin loads in a third tab: the tab is bound from its document request on.
  EXPECT_FALSE(refused(holds, {"t3", "https://news.example/", "", ""}, "https://login.bank.example/frame", "Document"));
  EXPECT_TRUE(refused(holds, {"t3", "https://news.example/", "", ""}, "https://news.example/beacon"));
  // Another origin of the same site is not the origin.
  EXPECT_FALSE(refused(holds, {"t4", "https://www.bank.example/", "", ""}, "https://cdn.example/x"));
}

TEST_F(SecretHoldsTest, PopupsScriptsAndWorkersOfTheOriginAreBound) {
  EXPECT_TRUE(refused(holds, {"t5", "about:blank", "", "t1"}, "https://evil.example/?d=secret", "Document"));
  EXPECT_TRUE(holds.binds("t5")) << "a popup of a bound tab stays bound";
  // A worker (or script) of the origin, in no tab we know.
  EXPECT_TRUE(refused(holds, {"", "", "https://login.bank.example/sw.js", ""}, "https://evil.example/"));
  EXPECT_FALSE(refused(holds, {"", "", "https://login.bank.example/sw.js", ""}, "https://bank.example/sync"));
  // data:, blob: and about: carry nothing off the machine.
  EXPECT_FALSE(refused(holds, {"t1", "", "", ""}, "data:text/plain,x"));
  EXPECT_FALSE(refused(holds, {"t1", "", "", ""}, "about:blank", "Document"));
}

TEST(SecretHolds, TwoSecretsLeaveOnlyTheSitesBothAllow) {
  SecretHolds holds;
  holds.add("t1", url("https://login.bank.example"), sites({"bank.example", "auth.example"}));
  holds.add("t1", url("https://login.bank.example"), sites({"auth.example"}));
  EXPECT_TRUE(refused(holds, {"t1", "", "", ""}, "https://bank.example/api"));
  EXPECT_FALSE(refused(holds, {"t1", "", "", ""}, "https://auth.example/token"));
}

TEST_F(SecretHoldsTest, WhatAPictureMayNotShowIsNamed) {
  EXPECT_EQ(holds.shown("t1", ""), std::optional<std::string>("https://login.bank.example"));
  EXPECT_EQ(holds.shown("t9", "https://login.bank.example/x"), std::optional<std::string>("https://login.bank.example"));
  EXPECT_EQ(holds.shown("t9", "https://news.example/"), std::nullopt);
  SecretHolds none;
  EXPECT_EQ(none.shown("t1", "https://login.bank.example/"), std::nullopt);
  EXPECT_FALSE(none.judge({"t1", "https://login.bank.example/", "", ""}, request("https://evil.example/")));
}

TEST(SecretHolds, AFloodOfHoldsStaysBounded) {
  SecretHolds h;
  for (int i = 0; i < 10000; ++i) h.add("t" + std::to_string(i % 50), url("https://o" + std::to_string(i) + ".example"), sites({"o.example"}));
  safety::RequestFacts f;
  f.url = "https://elsewhere.example/";
  EXPECT_TRUE(h.judge({"t7", "", "", ""}, f));
  EXPECT_FALSE(h.judge({"t70", "", "", ""}, f)) << "a tab never bound stays free";
}

}  // namespace
}  // namespace ouro::egress
