// Secrets are found after normalising the text (safety/spellings.h): width and case, separators
// and filler, repetition, splitting, interleaving, letter and code-point shifts, and encodings
// composed — in work linear in the text, with few false positives on real page text.
#include "safety/redact.h"
#include "safety/secrets.h"
#include "safety/spellings.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace ouro::safety {
namespace {

constexpr const char* kValue = "Hunter2Vault88";

SecretStore store_with(const std::string& value = kValue) {
  SecretStore s;
  EXPECT_TRUE(s.add("vault", value, {"bank.example.com"}));
  return s;
}

// The whole spelled span is gone, the marker there, and the text around it kept.
void expect_masked(const SecretStore& s, const std::string& leak, const std::string& what) {
  std::string out = s.scrub_text("before " + leak + " after");
  EXPECT_EQ(out, "before [SECRET:vault] after") << what << ": " << leak;
}

std::string b64(std::string_view s) {
  static const char* a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < s.size(); i += 3) {
    uint32_t n = (uint8_t(s[i]) << 16) | (uint8_t(s[i + 1]) << 8) | uint8_t(s[i + 2]);
    for (int k = 18; k >= 0; k -= 6) out += a[(n >> k) & 63];
  }
  if (i + 1 == s.size()) out += std::string{a[uint8_t(s[i]) >> 2], a[(uint8_t(s[i]) & 3) << 4], '=', '='};
  if (i + 2 == s.size()) {
    uint32_t n = (uint8_t(s[i]) << 8) | uint8_t(s[i + 1]);
    out += std::string{a[n >> 10], a[(n >> 4) & 63], a[(n & 15) << 2], '='};
  }
  return out;
}
std::string hex(std::string_view s) {
  std::string out;
  for (unsigned char c : s) out += fmt::format("{:02x}", c);
  return out;
}
std::string pct(std::string_view s) {
  std::string out;
  for (unsigned char c : s) out += fmt::format("%{:02X}", c);
  return out;
}

TEST(SecretSpellings, WidthAndCompatibilityForms) {
  SecretStore s = store_with();
  expect_masked(s, "Ｈｕｎｔｅｒ２Ｖａｕｌｔ８８", "fullwidth");
  expect_masked(s, "\U0001D407\U0001D42E\U0001D427\U0001D42D\U0001D41E\U0001D42B\U0001D7D0\U0001D415\U0001D41A\U0001D42E\U0001D425\U0001D42D\U0001D7D6\U0001D7D6", "mathematical bold");
  expect_masked(s, "Hun\u200Bter2\u00ADVault\uFEFF88", "zero-width characters laced in");
}

TEST(SecretSpellings, SeparatorsAndFillerBetweenTheCharacters) {
  SecretStore s = store_with();
  expect_masked(s, "H u n t e r 2 V a u l t 8 8", "spaces");
  expect_masked(s, "H..u..n--t__e//r 2 🙂 V a u l t 8 8", "runs of any separators");
  expect_masked(s, "Hunter2 / Vault / 88", "pieces with punctuation");
  expect_masked(s, "HXuXnXtXeXrX2XVXaXuXlXtX8X8", "one filler letter interleaved");
  expect_masked(s, "Hqquqqnqqtqqeqqrqq2qqVqqaqquqqlqqtqq8qq8", "a filler pair interleaved");
}

TEST(SecretSpellings, RepeatedCharactersAndInterleaving) {
  SecretStore s = store_with("Correct-Horse-Battery");
  std::string out = s.scrub_text("x CCoorrrreecctt--HHoorrssee--BBaatttteerryy y");
  EXPECT_EQ(out, "x [SECRET:vault] y") << "each doubled";
  out = s.scrub_text("x cccooorrreeecccttt hhhooorrrssseee bbbaaattttttttteeerrryyy y");
  EXPECT_EQ(out, "x [SECRET:vault] y") << "each tripled";
  // Interleaved with another text character by character: a stride of the skeleton.
  std::string value = "correcthorsebattery", other = "abcdefghijklmnopqrs", mixed;
  for (size_t i = 0; i < value.size(); ++i) mixed += std::string{value[i], other[i]};
  EXPECT_NE(s.scrub_text("see " + mixed).find("[SECRET:vault]"), std::string::npos) << mixed;
}

TEST(SecretSpellings, TheHalvesApartInTheSameText) {
  SecretStore s = store_with();
  std::string out = s.scrub_text("first part: Hunter2, and much later in the page: Vault88 was the rest");
  EXPECT_EQ(out.find("Hunter2"), std::string::npos) << out;
  EXPECT_EQ(out.find("Vault88"), std::string::npos) << out;
  out = s.scrub_text("reversed order: Vault88 then Hunter2");
  EXPECT_EQ(out.find("Vault88"), std::string::npos) << out;
  // One half alone is not the secret.
  EXPECT_EQ(s.scrub_text("only Hunter2 here"), "only Hunter2 here");
}

TEST(SecretSpellings, LetterAndCodePointShifts) {
  SecretStore s = store_with();
  expect_masked(s, spellings::caesar(kValue, 13), "ROT13");
  for (int k : {1, 3, 7, 25}) expect_masked(s, spellings::caesar(kValue, k), fmt::format("Caesar {}", k));
  expect_masked(s, spellings::rot47(kValue), "ROT47");
  for (int k : {1, 5, 200, 0x1000, -30}) {
    std::string shifted;
    for (char c : std::string(kValue)) {
      char32_t cp = static_cast<char32_t>(c + k);
      // UTF-8 of one code point
      if (cp < 0x80) shifted += static_cast<char>(cp);
      else if (cp < 0x800) shifted += {static_cast<char>(0xC0 | (cp >> 6)), static_cast<char>(0x80 | (cp & 0x3F))};
      else shifted += {static_cast<char>(0xE0 | (cp >> 12)), static_cast<char>(0x80 | ((cp >> 6) & 0x3F)), static_cast<char>(0x80 | (cp & 0x3F))};
    }
    expect_masked(s, shifted, fmt::format("every code point + {}", k));
  }
}

TEST(SecretSpellings, EncodingsComposed) {
  SecretStore s = store_with();
  const std::string v = kValue;
  expect_masked(s, b64(hex(v)), "base64 of hex");
  expect_masked(s, hex(b64(v)), "hex of base64");
  expect_masked(s, pct(b64(v)), "percent of base64");
  expect_masked(s, b64(b64(v)), "base64 twice");
  expect_masked(s, b64(b64(hex(v))), "base64 of base64 of hex");
  expect_masked(s, b64("{\"user\":\"me\",\"pw\":\"" + v + "\"}"), "base64 of a JSON body around it");
  expect_masked(s, b64(spellings::caesar(v, 13)), "base64 of ROT13");
  expect_masked(s, hex("H-u-n-t-e-r-2-V-a-u-l-t-8-8"), "hex of the separated value");
}

// Hostile input stays linear: a run of megabytes of base64 and deeply nested encodings are looked
// through at most kDecodeDepth + 1 times, whatever they hold.
TEST(SecretSpellings, BigAndNestedInputIsBoundedWork) {
  SecretMatcher m = SecretMatcher::build({kValue});
  std::string big(2 << 20, 'A');
  for (size_t i = 0; i < big.size(); i += 7) big[i] = "QUJD+/09"[i % 8];
  SecretMatcher::Work work;
  EXPECT_TRUE(m.find(big, &work).empty());
  EXPECT_LE(work.bytes_scanned, (spellings::kDecodeDepth + 1) * big.size());
  std::string nested = kValue;
  for (int i = 0; nested.size() < (1 << 20); ++i) nested = i % 2 ? b64(nested) : hex(nested);
  SecretMatcher::Work deep;
  m.find(nested, &deep);
  EXPECT_LE(deep.deepest, spellings::kDecodeDepth);
  EXPECT_LE(deep.bytes_scanned, (spellings::kDecodeDepth + 1) * nested.size());
  // Overlapping matches of a value repeated twenty thousand times stay one span, not one per byte.
  std::string repeated;
  for (int i = 0; i < 20000; ++i) repeated += kValue;
  auto found = m.find(repeated);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].end - found[0].begin, repeated.size());
}

// Real pages: nothing on them is masked for secrets that are not on them.
TEST(SecretSpellings, NoFalsePositivesOnRealPageText) {
  SecretStore s;
  ASSERT_TRUE(s.add("a", "Hunter2Vault88", {"bank.example.com"}));
  ASSERT_TRUE(s.add("b", "correct-horse-battery-staple", {"bank.example.com"}));
  ASSERT_TRUE(s.add("c", "sk-live-4f9a2c7e1b", {"bank.example.com"}));
  ASSERT_TRUE(s.add("d", "Passw0rd!2024", {"bank.example.com"}));
  ASSERT_TRUE(s.add("e", "tr0ub4dor&3xyz", {"bank.example.com"}));
  size_t pages = 0, bytes = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(OURO_SOURCE_DIR) + "/tests/pcd_pages")) {
    if (entry.path().extension() != ".html") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    std::string page = text.str();
    std::string out = s.scrub_text(page);
    EXPECT_EQ(out.find("[SECRET:"), std::string::npos) << entry.path() << " masked: " << out.substr(out.find("[SECRET:") > 80 ? out.find("[SECRET:") - 80 : 0, 200);
    ++pages, bytes += page.size();
  }
  EXPECT_GE(pages, 10u);
  EXPECT_GE(bytes, 15000u);
}

}  // namespace
}  // namespace ouro::safety
