// Chrome's "Preload pages" setting in a browser ouro attaches to (browser/prediction.cpp): held
// off while ouro holds it, read back as the settings page reads it, put back as it was; when it
// is off already, put back to the value a note gives; and put back only over ouro's own "off".
#include "remote_chromium.h"
#include "basics.h"

#include "browser/browser.h"
#include "browser/egress_control.h"
#include "net/io.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>

namespace ouro::testing {
namespace {

// A Chromium as the user's own (a profile of its own) and the network thread ouro reaches it on.
class Prediction : public ::testing::Test {
 protected:
  RemoteChromium chrome{temp_dir() + "/chrome"};
  std::shared_ptr<net::IoThread> io = net::IoThread::start();

  std::unique_ptr<browser::Browser> attach() {
    browser::BrowserOptions o;
    o.connect_url = chrome.ws_url();
    auto b = browser::Browser::start(*io, o);
    EXPECT_TRUE(b) << b.error().message;
    return b ? std::move(*b) : nullptr;
  }
  // The setting now, as the settings page reads it (-1: it could not be read).
  static int setting(browser::Browser& b) {
    auto v = b.egress().network_prediction();
    EXPECT_TRUE(v) << v.error().message;
    return v ? *v : -1;
  }
  static int hold(browser::Browser& b, std::optional<int> restore_to = std::nullopt) {
    auto r = b.egress().hold_network_prediction(restore_to);
    EXPECT_TRUE(r) << r.error().message;
    return r ? *r : -1;
  }
};

TEST_F(Prediction, HeldOffWhileHeldAndPutBackAsItWas) {
  ASSERT_GT(chrome.port, 0);
  auto b = attach();
  ASSERT_TRUE(b);
  int before = setting(*b);
  ASSERT_GE(before, 0);
  ASSERT_NE(before, browser::EgressControl::kPredictionOff) << "a fresh profile preloads";

  EXPECT_EQ(hold(*b), before) << "what will be put back is what the user had";
  EXPECT_EQ(setting(*b), browser::EgressControl::kPredictionOff);
  EXPECT_EQ(hold(*b), before) << "held twice, the user's value is still the one to put back";

  ASSERT_TRUE(b->egress().restore_network_prediction());
  EXPECT_EQ(setting(*b), before);
}

TEST_F(Prediction, OffAlreadyItGoesBackToTheNotedValueAndOnlyOverOuroOwnOff) {
  ASSERT_GT(chrome.port, 0);
  auto first = attach();
  ASSERT_TRUE(first);
  ASSERT_GE(hold(*first), 0);

  // A second ouro finds it off, with a note of the value the user had (here 3, "extended").
  auto second = attach();
  ASSERT_TRUE(second);
  EXPECT_EQ(hold(*second, 3), 3) << "the noted value is the one to put back";
  ASSERT_TRUE(second->egress().restore_network_prediction());
  EXPECT_EQ(setting(*second), 3);
  // The first puts back only over its own "off": a value set meanwhile is kept.
  ASSERT_TRUE(first->egress().restore_network_prediction());
  EXPECT_EQ(setting(*first), 3);
}

}  // namespace
}  // namespace ouro::testing
