// The action cache through act(), on real pages: the same command on the next page of the same
// kind resolves from what was kept (ids and classes differ per page, a decoy of similar name sits
// beside the target); a kept resolution that no longer fits — the button was reworded — is
// dropped and the target bound afresh; targets named by position are never kept.
#include "browser_env.h"

namespace ouro::testing {
namespace {

std::string how(const json& r) { return r["steps"][0]["target"].is_object() ? get_str(r["steps"][0]["target"], "how") : ""; }

TEST(ActionCache, TheSameKindOfPageResolvesFromTheCacheAndAChangedOneIsBoundAfresh) {
  auto act_on = [](const std::string& path) {
    ok("var t = await openTab('{{" + path + "}}')");
    json r = ok("await act(t, 'click the Add to cart button')");
    json clicked = ok("await execInTab(t, '__clicked')");
    ok("await closeTab(t)");
    return std::pair{r, clicked};
  };
  auto [r1, c1] = act_on("/cache/shop/1");
  ASSERT_TRUE(r1["ok"].get<bool>()) << r1.dump();
  EXPECT_EQ(how(r1).find("kept"), std::string::npos) << "the first time it is ranked: " << r1.dump();
  EXPECT_EQ(c1, json::array({"Add to cart"}));

  auto [r2, c2] = act_on("/cache/shop/2");
  ASSERT_TRUE(r2["ok"].get<bool>()) << r2.dump();
  EXPECT_NE(how(r2).find("kept (action cache)"), std::string::npos) << r2.dump();
  EXPECT_EQ(c2, json::array({"Add to cart"}));

  // The decoy takes the target's old place and id: the kept resolution still names the target.
  auto [r3, c3] = act_on("/cache/shop/3?v=swapped");
  ASSERT_TRUE(r3["ok"].get<bool>()) << r3.dump();
  EXPECT_EQ(c3, json::array({"Add to cart"})) << r3.dump();

  // Reworded: what was kept finds nothing, so it is dropped and the binder finds "Add to basket".
  auto [r4, c4] = act_on("/cache/shop/4?v=reworded");
  ASSERT_TRUE(r4["ok"].get<bool>()) << r4.dump();
  EXPECT_EQ(how(r4).find("kept"), std::string::npos) << r4.dump();
  EXPECT_EQ(c4, json::array({"Add to basket"}));
  auto [r5, c5] = act_on("/cache/shop/5?v=reworded");
  EXPECT_NE(how(r5).find("kept (action cache)"), std::string::npos) << "the new resolution was kept: " << r5.dump();
  EXPECT_EQ(c5, json::array({"Add to basket"}));
  // And back: the kept "Add to basket" is not on the page; never the wishlist.
  auto [r6, c6] = act_on("/cache/shop/6");
  ASSERT_TRUE(r6["ok"].get<bool>()) << r6.dump();
  EXPECT_EQ(c6, json::array({"Add to cart"}));
}

TEST(ActionCache, TargetsNamedByPositionAreNeverKept) {
  for (int i = 0; i < 2; ++i) {
    ok("var t = await openTab('{{/cache/shop/" + std::to_string(10 + i) + "}}')");
    json r = ok("await act(t, 'click the second button')");
    ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
    EXPECT_EQ(how(r).find("kept"), std::string::npos) << r.dump();
    EXPECT_EQ(ok("await execInTab(t, '__clicked')"), json::array({"Add to cart"}));
    ok("await closeTab(t)");
  }
}

}  // namespace
}  // namespace ouro::testing
