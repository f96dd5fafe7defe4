// "Preload pages" held for a session in the user's own Chrome (session/prediction.cpp): the value
// the user had is noted in the data directory while it is held off, so that an ouro killed
// meanwhile leaves a note and the next one puts the user's value back from it; the note goes once
// the value is back; a profile that is not the user's gets no note.
#include "remote_chromium.h"
#include "basics.h"

#include "browser/browser.h"
#include "browser/egress_control.h"
#include "net/io.h"
#include "session/prediction.h"
#include "session/session.h"
#include "store/database.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

namespace ouro::testing {
namespace {

namespace fs = std::filesystem;

std::string read(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

// A runtime as `ouro run --browser auto` makes one: attached to the user's Chrome.
std::shared_ptr<session::Runtime> runtime_on(const RemoteChromium& chrome, const std::shared_ptr<net::IoThread>& io, const std::string& data_dir) {
  browser::BrowserOptions o;
  o.connect_url = chrome.ws_url();
  auto b = browser::Browser::start(*io, o);
  EXPECT_TRUE(b) << b.error().message;
  auto db = store::Database::open(data_dir + "/ouro.db");
  EXPECT_TRUE(db) << db.error().message;
  if (!b || !db) return nullptr;
  return session::make_runtime(io, std::shared_ptr<store::Database>(std::move(*db)), std::move(*b), data_dir);
}

// Another ouro's browser on the same Chrome, holding the setting off (and never told to put it
// back while the test runs): an ouro killed meanwhile, or one that holds it now.
std::unique_ptr<browser::Browser> holding_it_off(const RemoteChromium& chrome, const std::shared_ptr<net::IoThread>& io) {
  browser::BrowserOptions o;
  o.connect_url = chrome.ws_url();
  auto b = browser::Browser::start(*io, o);
  EXPECT_TRUE(b) << b.error().message;
  if (!b) return nullptr;
  auto held = (*b)->egress().hold_network_prediction();
  EXPECT_TRUE(held) << held.error().message;
  return held ? std::move(*b) : nullptr;
}

int setting(session::Runtime& rt) {
  auto v = rt.browser->egress().network_prediction();
  EXPECT_TRUE(v) << v.error().message;
  return v ? *v : -1;
}

TEST(PredictionNote, TheUsersValueIsNotedWhileHeldAndTheNoteGoesWhenItIsBack) {
  std::string dir = temp_dir();
  RemoteChromium chrome(dir + "/chrome");
  ASSERT_GT(chrome.port, 0);
  std::shared_ptr<net::IoThread> io = net::IoThread::start();
  auto rt = runtime_on(chrome, io, dir);
  ASSERT_TRUE(rt);
  int before = setting(*rt);
  ASSERT_NE(before, browser::EgressControl::kPredictionOff);
  ASSERT_TRUE(session::hold_prediction(*rt, true));
  EXPECT_EQ(setting(*rt), browser::EgressControl::kPredictionOff);
  EXPECT_EQ(read(dir + "/network-prediction"), std::to_string(before) + "\n");
  EXPECT_EQ(fs::status(dir + "/network-prediction").permissions() & fs::perms::others_read, fs::perms::none) << "a private file";
  session::restore_prediction(*rt);
  EXPECT_EQ(setting(*rt), before);
  EXPECT_FALSE(fs::exists(dir + "/network-prediction"));
}

TEST(PredictionNote, AfterAKilledOuroTheNextPutsTheNotedValueBack) {
  std::string dir = temp_dir();
  RemoteChromium chrome(dir + "/chrome");
  ASSERT_GT(chrome.port, 0);
  std::shared_ptr<net::IoThread> io = net::IoThread::start();
  // The killed ouro: it turned the setting off (a browser that is never told to put it back
  // stands for it) and left its note of the user's value, 3 ("extended").
  auto killed = holding_it_off(chrome, io);
  ASSERT_TRUE(killed);
  std::ofstream(dir + "/network-prediction") << "3\n";

  auto rt = runtime_on(chrome, io, dir);
  ASSERT_TRUE(rt);
  ASSERT_TRUE(session::hold_prediction(*rt, true));
  EXPECT_EQ(read(dir + "/network-prediction"), "3\n") << "the note stays until the value is back";
  session::restore_prediction(*rt);
  EXPECT_EQ(setting(*rt), 3);
  EXPECT_FALSE(fs::exists(dir + "/network-prediction"));
}

TEST(PredictionNote, AProfileThatIsNotTheUsersNeitherReadsNorLeavesANote) {
  std::string dir = temp_dir();
  RemoteChromium chrome(dir + "/chrome");
  ASSERT_GT(chrome.port, 0);
  std::shared_ptr<net::IoThread> io = net::IoThread::start();
  // Off already (another ouro holds it), and a note there from another profile's ouro: were the
  // note read, its 3 would be put back.
  auto other = holding_it_off(chrome, io);
  ASSERT_TRUE(other);
  std::ofstream(dir + "/network-prediction") << "3\n";
  auto rt = runtime_on(chrome, io, dir);
  ASSERT_TRUE(rt);
  ASSERT_TRUE(session::hold_prediction(*rt, false));
  session::restore_prediction(*rt);
  EXPECT_EQ(setting(*rt), browser::EgressControl::kPredictionOff) << "what this browser found is what it leaves, not the note's value";
  EXPECT_EQ(read(dir + "/network-prediction"), "3\n") << "the note is not this profile's to remove";

  // A fresh browser of its own, not the user's: held and put back, and no note is written.
  std::string clean = temp_dir();
  RemoteChromium fresh(clean + "/chrome");
  ASSERT_GT(fresh.port, 0);
  auto own = runtime_on(fresh, io, clean);
  ASSERT_TRUE(own);
  int before = setting(*own);
  ASSERT_TRUE(session::hold_prediction(*own, false));
  EXPECT_FALSE(fs::exists(clean + "/network-prediction"));
  session::restore_prediction(*own);
  EXPECT_EQ(setting(*own), before);
}

}  // namespace
}  // namespace ouro::testing
