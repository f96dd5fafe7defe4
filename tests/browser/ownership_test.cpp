// Tabs of a context shared with the user (browser/ownership.cpp): one owner per tab, a claim by
// another refused naming the holder; a popup a held tab opens is its owner's from the start; a
// tab let go is open for the next owner; and the Command Center's own pages are hidden from all —
// not listed, not claimable.
#include "browser_env.h"

#include "browser/browser.h"
#include "browser/shared_tabs.h"
#include "net/io.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace ouro::testing {
namespace {

using namespace std::chrono_literals;

// A browser of this suite's own, gone when the suite ends: its profile's context is the shared
// one, and its hidden pages are no other test's.
class Ownership : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_io = net::IoThread::start();
    auto started = browser::Browser::start(*s_io, test_options().browser);
    if (started) s_browser = std::move(*started);
    else s_error = started.error().message;
  }
  static void TearDownTestSuite() {
    s_browser.reset();
    s_io.reset();
  }
  void SetUp() override { ASSERT_TRUE(s_browser) << s_error; }
  static inline std::shared_ptr<net::IoThread> s_io;
  static inline std::unique_ptr<browser::Browser> s_browser;
  static inline std::string s_error;
};

bool listed(browser::Browser& b, const std::string& tab) {
  auto all = b.tabs();
  return std::any_of(all.begin(), all.end(), [&](const auto& t) { return t.id == tab; });
}

TEST_F(Ownership, OneOwnerPerTabAndATabLetGoIsOpenForTheNext) {
  browser::Browser& b = *s_browser;
  auto t = b.open_tab(site().url("/"), 10s);
  ASSERT_TRUE(t) << t.error().message;
  ASSERT_TRUE(b.shared().claim_tab(*t, "run alpha"));
  EXPECT_TRUE(b.shared().claim_tab(*t, "run alpha")) << "claiming one's own tab again is fine";
  EXPECT_EQ(b.shared().tab_owner(*t), "run alpha");
  EXPECT_EQ(b.shared().owned_tabs("run alpha"), std::vector<std::string>{*t});

  auto taken = b.shared().claim_tab(*t, "run beta");
  ASSERT_FALSE(taken);
  EXPECT_EQ(taken.error().code, Code::FailedPrecondition);
  EXPECT_NE(taken.error().message.find("run alpha"), std::string::npos) << taken.error().message;
  EXPECT_TRUE(b.shared().owned_tabs("run beta").empty());

  b.shared().release_tabs("run alpha");
  EXPECT_EQ(b.shared().tab_owner(*t), "");
  EXPECT_TRUE(listed(b, *t)) << "let go, the tab stays open for the user";
  ASSERT_TRUE(b.shared().claim_tab(*t, "run beta"));
  EXPECT_EQ(b.shared().tab_owner(*t), "run beta");
  b.shared().release_tabs("run beta");
  ASSERT_TRUE(b.close_tab(*t));
  auto gone = b.shared().claim_tab(*t, "run gamma");
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().code, Code::NotFound);
}

TEST_F(Ownership, APopupOfAHeldTabIsItsOwnersFromTheStart) {
  browser::Browser& b = *s_browser;
  auto t = b.open_tab(site().url("/popup"), 10s);
  ASSERT_TRUE(t) << t.error().message;
  ASSERT_TRUE(b.shared().claim_tab(*t, "run popups"));
  // The page opens it with a user's gesture, as its button would.
  auto opened = b.send(*t, "Runtime.evaluate", {{"expression", "document.getElementById('open').click(); 1"}, {"userGesture", true}});
  ASSERT_TRUE(opened) << opened.error().message;
  std::vector<std::string> held;
  for (int i = 0; i < 200 && (held = b.shared().owned_tabs("run popups")).size() < 2; ++i) std::this_thread::sleep_for(50ms);
  ASSERT_EQ(held.size(), 2u) << "the popup did not become the owner's";
  std::string popup = held[0] == *t ? held[1] : held[0];
  EXPECT_EQ(b.shared().tab_owner(popup), "run popups");
  auto other = b.shared().claim_tab(popup, "run other");
  EXPECT_FALSE(other) << "the popup is its opener's owner's, not anyone's";
  b.shared().release_tabs("run popups");
  (void)b.close_tab(popup);
  (void)b.close_tab(*t);
}

TEST_F(Ownership, TheCommandCentersPagesAreHiddenFromAll) {
  browser::Browser& b = *s_browser;
  const std::string prefix = site().url("/b?command-center=");
  b.shared().set_hidden_prefixes({prefix});
  auto hidden = b.open_tab(prefix + "1", 10s);
  ASSERT_TRUE(hidden) << hidden.error().message;
  auto visible = b.open_tab(site().url("/"), 10s);
  ASSERT_TRUE(visible) << visible.error().message;
  EXPECT_TRUE(b.shared().hidden(*hidden));
  EXPECT_FALSE(b.shared().hidden(*visible));
  EXPECT_FALSE(listed(b, *hidden)) << "not in the list anyone sees";
  EXPECT_TRUE(listed(b, *visible));
  EXPECT_NE(b.active_tab(), *hidden) << "never the active tab";
  auto claimed = b.shared().claim_tab(*hidden, "run curious");
  ASSERT_FALSE(claimed);
  EXPECT_EQ(claimed.error().code, Code::NotFound);
  b.shared().set_hidden_prefixes({});
  (void)b.close_tab(*visible);
}

}  // namespace
}  // namespace ouro::testing
