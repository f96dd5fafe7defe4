// The registry is the one declaration of every capability; these check its faces agree.
#include "actions/registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace ouro::actions {
namespace {

TEST(Registry, CoversTheWholeSeedApi) {
  for (const char* name : {"tabs", "activeTab", "openTab", "closeTab", "navigate", "switchTab", "waitForLoad", "execInTab", "getDOM",
                           "getText", "getLinks", "getInputs", "querySelector", "querySelectorAll", "getAccessibilityTree", "screenshot",
                           "click", "type", "fill", "scroll", "keyPress", "hover", "select", "getCookies", "setCookie", "getLocalStorage",
                           "getSessionStorage", "clearStorage", "getRecentRequests", "getResponseBody", "interceptRequests",
                           "getConsoleLog", "getErrors", "env", "setFinal", "log", "sleep", "store", "retrieve"})
    EXPECT_NE(find(name), nullptr) << name;
  for (const auto& c : registry()) {
    EXPECT_FALSE(c.doc.empty()) << c.name;
    EXPECT_FALSE(c.returns.empty()) << c.name;
    if (c.where == Where::Host) {
      EXPECT_TRUE(c.impl) << c.name;
    }
  }
}

TEST(Registry, ReferenceShowsSignaturesAndReturnTypes) {
  std::string ref = reference_text();
  EXPECT_NE(ref.find("await getLinks(tabId) → Array<{ text: string, href: string }>"), std::string::npos) << ref;
  EXPECT_NE(ref.find("setFinal(value) → void"), std::string::npos);
  EXPECT_NE(ref.find("sleep(ms) → Promise<void>\n    Waits; capped at 10 s."), std::string::npos);
  EXPECT_NE(ref.find("### Browser Actions"), std::string::npos);
}

TEST(Registry, DocsApiMdIsGeneratedFromTheRegistry) {
  std::ifstream in(std::string(OURO_SOURCE_DIR) + "/docs/reference/api.md");
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), reference_markdown()) << "docs/reference/api.md is stale: run `make docs`";
}

TEST(Registry, ArgumentChecksNameTheCall) {
  const Capability* click = find("click");
  EXPECT_TRUE(check_args(*click, json::array({"t1", "#a"})));
  auto r = check_args(*click, json::array({"t1"}));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "click(tabId, selector, options?): selector is missing");
  r = check_args(*click, json::array({"t1", "#a", {}, 4}));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("at most 3"), std::string::npos);
  EXPECT_TRUE(check_args(*find("getCookies"), json::array()));
  EXPECT_TRUE(check_args(*find("getCookies"), json::array({json::object()})));
}

}  // namespace
}  // namespace ouro::actions
