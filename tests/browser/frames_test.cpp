// Which frame a selector addresses (browser/frames.h): a ref issued inside a cross-origin frame
// carries that frame's prefix ("f2e12"), and only a selector that begins with such a ref, whole,
// runs in that frame. Everything else — a plain ref, a CSS selector, a word that only looks like
// a ref — runs in the top document, so a page's text can never route a call into a frame.
#include "browser/frames.h"

#include <gtest/gtest.h>

#include <string>

namespace ouro::browser {
namespace {

TEST(FrameOf, ARefIssuedInAFrameNamesItsFrame) {
  EXPECT_EQ(Frames::frame_of("f2e12"), "f2");
  EXPECT_EQ(Frames::frame_of("f31e7"), "f31");
  EXPECT_EQ(Frames::frame_of("  f3e1"), "f3");
  EXPECT_EQ(Frames::frame_of("f2e12 >> text=Buy"), "f2");
  EXPECT_EQ(Frames::frame_of("f2e12>>text=Buy"), "f2");
}

TEST(FrameOf, EverythingElseRunsInTheTopDocument) {
  for (const char* top : {"", "   ", "e12", "button", "#f2e12", "text=f2e12", "fe1", "f2e", "f2", "fxe1", "f2e1x", "f2e1-", "F2e1", "f-1e2"})
    EXPECT_EQ(Frames::frame_of(top), "") << "'" << top << "'";
}

TEST(FrameOf, APrefixIsShortAndItsRefIsWhole) {
  // Frame numbers are issued one by one in a tab: six digits is more than a tab ever enters, and
  // a longer run of digits is a page's word, not a ref of ouro's.
  EXPECT_EQ(Frames::frame_of("f123456e1"), "f123456");
  EXPECT_EQ(Frames::frame_of("f1234567e1"), "");
  EXPECT_EQ(Frames::frame_of(std::string("f2e") + std::string(10000, '9')), "f2");
  EXPECT_EQ(Frames::frame_of(std::string(100000, 'f')), "");
}

}  // namespace
}  // namespace ouro::browser
