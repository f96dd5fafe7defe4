// Clipping never leaves half a UTF-8 character, whichever mark and unit the caller asks for.
#include "base/text.h"
#include "base/ascii.h"

#include <gtest/gtest.h>

namespace ouro {
namespace {

bool valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

// Protocol words (schemes, header names) compared without their case, and only as ASCII.
TEST(Ascii, PrefixesAndWordsIgnoreCaseAndNothingElse) {
  EXPECT_TRUE(starts_with_nocase("DATA:text/html,<p>", "data:"));
  EXPECT_TRUE(starts_with_nocase("Content-Type: text/plain", "content-type:"));
  EXPECT_FALSE(starts_with_nocase("dat", "data:")) << "shorter than the prefix";
  EXPECT_FALSE(starts_with_nocase("xdata:", "data:"));
  EXPECT_TRUE(equals_nocase("HTTPS", "https"));
  EXPECT_FALSE(equals_nocase("https2", "https"));
  EXPECT_FALSE(equals_nocase("\xc4\xb0ttps", "https")) << "no Unicode case folding";
}

TEST(ClipHead, KeepsShortTextAndMarksWhatItCuts) {
  EXPECT_EQ(clip_head("hello", 10), "hello");
  EXPECT_EQ(clip_head("hello", 5), "hello");
  EXPECT_EQ(clip_head("hello world", 5), "hello…");
  EXPECT_EQ(clip_head("hello world", 5, ClipMark::None), "hello");
  EXPECT_EQ(clip_head(std::string(25, 'a'), 10, ClipMark::Count), std::string(10, 'a') + "…[+15 chars]");
  // "é" is two bytes: the cut goes before it, and the count is in characters.
  EXPECT_EQ(clip_head("aé" + std::string(10, 'b'), 2, ClipMark::Count), "a…[+11 chars]");
}

TEST(ClipHead, CountsCharactersWhenAsked) {
  EXPECT_EQ(clip_head("ééé", 2, ClipMark::None, ClipUnit::Chars), "éé");
  EXPECT_EQ(clip_head("ééé", 3, ClipMark::None, ClipUnit::Chars), "ééé");
  EXPECT_EQ(clip_head("ééé", 2, ClipMark::None, ClipUnit::Bytes), "é");
}

TEST(ClipHead, NeverCutsInsideACharacterAtAnyLength) {
  const std::string text = "a€b😀cé漢字 \xF0\x9F\x8E\x89 end";
  for (size_t max = 0; max <= text.size() + 1; ++max)
    for (auto mark : {ClipMark::None, ClipMark::Ellipsis, ClipMark::Count}) {
      std::string out = clip_head(text, max, mark);
      EXPECT_TRUE(valid_utf8(out)) << "max " << max;
      if (mark == ClipMark::None) {
        EXPECT_LE(out.size(), max);
      }
    }
}

TEST(ClipText, KeepsHeadAndTailAtBoundaries) {
  std::string text;
  for (int i = 0; i < 300; ++i) text += "é";
  for (size_t max : {10u, 63u, 64u, 100u, 301u}) {
    std::string out = clip_text(text, max);
    EXPECT_TRUE(valid_utf8(out)) << max;
  }
  EXPECT_NE(clip_text(std::string(500, 'x'), 200).find("chars cut]…"), std::string::npos);
}

TEST(ClipLine, FoldsLineBreaksAndClips) {
  EXPECT_EQ(clip_line("a\nb\tc", 10), "a b c");
  EXPECT_EQ(clip_line("one\ntwo three", 7), "one two…");
  EXPECT_EQ(clip_line("ab€", 3), "ab…");
}

TEST(WithCommas, GroupsThousands) {
  EXPECT_EQ(with_commas(0), "0");
  EXPECT_EQ(with_commas(999), "999");
  EXPECT_EQ(with_commas(2847), "2,847");
  EXPECT_EQ(with_commas(1234567), "1,234,567");
}

}  // namespace
}  // namespace ouro
