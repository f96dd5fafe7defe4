// The host that answers the REPL's calls (actions/host.cpp): arguments of the wrong type are
// named before anything runs, and a call on a tab whose page navigated since the run last looked
// says so, with the page it is on now.
#include "browser_env.h"

namespace ouro::testing {
namespace {

TEST(Navigation, ACallThatOutlivesItsPageSaysThePageNavigated) {
  std::string err = fails(R"(
    const t = await openTab('{{/navigates?ms=800}}');
    await execInTab(t, 'await new Promise(r => setTimeout(r, 3500))'))");
  EXPECT_NE(err.find("[PAGE NAVIGATED]"), std::string::npos) << err;
  EXPECT_NE(err.find(site().url("/b")), std::string::npos) << err;
}

TEST(Navigation, SelectorsOnANavigatedPageGetTheNote) {
  std::string err = fails(R"(
    const t = await openTab('{{/navigates?ms=1500}}');
    await getText(t, 'h1');
    await sleep(2500);
    await getText(t, '#only-on-the-old-page'))");
  EXPECT_NE(err.find("[PAGE NAVIGATED] Tab"), std::string::npos) << err;
  EXPECT_NE(err.find("Update your selectors for the new page"), std::string::npos) << err;
}

TEST(Arguments, WrongTypesAreNamed) {
  std::string err = fails("await click(123, '#go')");
  EXPECT_NE(err.find("click: tabId must be a string, got number 123"), std::string::npos) << err;
  err = fails("await fill(activeTab, 'nope')");
  EXPECT_NE(err.find("fill: formData must be an object whose values are"), std::string::npos) << err;
  err = fails("await fill(activeTab, {'#a': {}})");
  EXPECT_NE(err.find("fill: formData.#a must be"), std::string::npos) << err;
}

}  // namespace
}  // namespace ouro::testing
