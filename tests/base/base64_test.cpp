// RFC 4648's test vectors (§10), both alphabets, and the strict decoder's refusals.
#include "base/base64.h"

#include <gtest/gtest.h>

#include <vector>

namespace ouro {
namespace {

TEST(Base64, EncodesTheRfcVectors) {
  const std::vector<std::pair<std::string, std::string>> vectors = {
      {"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"}, {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : vectors) EXPECT_EQ(base64_encode(plain), encoded) << plain;
}

TEST(Base64, UrlAlphabetHasNoPaddingAndNoPlusOrSlash) {
  EXPECT_EQ(base64_encode("\xfb\xff\xbf", Base64::Standard), "+/+/");
  EXPECT_EQ(base64_encode("\xfb\xff\xbf", Base64::Url), "-_-_");
  EXPECT_EQ(base64_encode("f", Base64::Url), "Zg");
}

TEST(Base64, DecodesBothWays) {
  for (const std::string& s : std::vector<std::string>{"", "f", "fo", "foo", "foob", "fooba", "foobar", std::string("\0\xff\x10", 3)}) {
    EXPECT_EQ(base64_decode(base64_encode(s)), s);
    EXPECT_EQ(base64_decode_strict(base64_encode(s)), s);
  }
  EXPECT_EQ(base64_decode("Zm9v\r\nYmFy"), "foobar") << "the lenient one skips line breaks";
}

TEST(Base64, StrictDecoderRefusesWhatIsNotBase64) {
  // Not a multiple of 4, a line break, padding inside or before the end, three '=', the URL alphabet.
  for (std::string_view bad : {"Zm9", "Zm9v\nYmFy", "Z=9v", "Zg==Zm9v", "Z===", "-_-_"}) EXPECT_FALSE(base64_decode_strict(bad)) << bad;
}

}  // namespace
}  // namespace ouro
