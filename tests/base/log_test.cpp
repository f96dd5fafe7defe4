#include "base/log.h"

#include <gtest/gtest.h>

namespace ouro {
namespace {

TEST(Redact, MasksKeysTokensCookiesAndPasswords) {
  EXPECT_EQ(redact("Authorization: Bearer abcdefghijklmnop"), "Authorization: Bearer [REDACTED]");
  EXPECT_EQ(redact("curl -H 'bearer abcdefghijklmnop'"), "curl -H 'bearer [REDACTED]'");
  EXPECT_EQ(redact("key sk-ant-api03-abcdefghijklmnopqrstuvwxyz in the log"), "key sk-ant-[REDACTED] in the log");
  EXPECT_EQ(redact(R"({"password": "hunter2", "user": "ada"})"), R"({"password": "[REDACTED]", "user": "ada"})");
  EXPECT_EQ(redact("Cookie: session=abc123; theme=dark"), "Cookie: [REDACTED]; theme=dark");
  EXPECT_EQ(redact("x-api-key=zzz"), "x-api-key=[REDACTED]");
  EXPECT_EQ(redact("nothing secret here: sky-blue tokens"), "nothing secret here: sky-blue tokens");
}

TEST(Redact, LongInputsDoNotBlowTheStack) {
  std::string big(2'000'000, 'A');
  EXPECT_EQ(redact(big).size(), big.size());
  std::string bearer = "Bearer " + std::string(500'000, 'x');
  EXPECT_EQ(redact(bearer), "Bearer [REDACTED]");
}

}  // namespace
}  // namespace ouro

#include "base/base64.h"

namespace ouro {
namespace {

TEST(Base64, RoundTripsAndMatchesRfc4648) {
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_decode("Zm9v\nYmFy"), "foobar");
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes.push_back(static_cast<char>(i));
  EXPECT_EQ(base64_decode(base64_encode(bytes)), bytes);
}

}  // namespace
}  // namespace ouro
