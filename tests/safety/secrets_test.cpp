// Secrets stay secret: what code does to a value it read back from a page (encodings, case,
// reversal, separators) is found and masked, in time linear in the text, and a secret's sites are
// origins with the scheme and port as written.
#include "safety/secrets.h"
#include "safety/redact.h"

#include <gtest/gtest.h>

#include <chrono>

namespace ouro::safety {
namespace {

constexpr const char* kValue = "hunter2-correct-horse";

SecretStore store_with(const std::string& value = kValue) {
  SecretStore s;
  EXPECT_TRUE(s.add("bank_pw", value, {"bank.example.com"}));
  return s;
}

// The leak must be gone and the marker there, with the text around it kept.
void expect_masked(const SecretStore& s, const std::string& leak, const std::string& what) {
  std::string text = "before " + leak + " after";
  std::string out = s.scrub_text(text);
  EXPECT_EQ(out, "before [SECRET:bank_pw] after") << what << ": " << leak;
}

TEST(SecretScrub, TheValueInAnyCaseAndReversed) {
  SecretStore s = store_with();
  expect_masked(s, "hunter2-correct-horse", "as it is");
  expect_masked(s, "HUNTER2-CORRECT-HORSE", "toUpperCase");
  expect_masked(s, "HuNtEr2-CoRrEcT-hOrSe", "any case");
  expect_masked(s, "esroh-tcerroc-2retnuh", "reversed");
  expect_masked(s, "ESROH-TCERROC-2RETNUH", "reversed, upper case");
}

TEST(SecretScrub, Base64InEveryAlphabetAndAtEveryOffset) {
  SecretStore s = store_with("pass>word?~~hunter");  // bytes whose base64 differs between the alphabets
  auto masked_somewhere = [&](const std::string& leak, const std::string& what) {
    std::string out = s.scrub_text("x " + leak + " y");
    EXPECT_NE(out.find("[SECRET:bank_pw]"), std::string::npos) << what << ": " << out;
    // Left: the groups that also encode what surrounds the value (the prefix, and at most two of
    // the value's bytes at each end), never the run of whole groups between.
    EXPECT_LE(out.size(), std::string("x [SECRET:bank_pw] y").size() + 12) << what << ": " << out;
  };
  expect_masked(s, "cGFzcz53b3JkP35+aHVudGVy", "btoa");
  expect_masked(s, "cGFzcz53b3JkP35-aHVudGVy", "url-safe");
  SecretStore odd = store_with("hunter2-correct-horse!");  // 22 bytes: padded
  expect_masked(odd, "aHVudGVyMi1jb3JyZWN0LWhvcnNlIQ==", "with padding");
  expect_masked(odd, "aHVudGVyMi1jb3JyZWN0LWhvcnNlIQ", "without padding");
  expect_masked(odd, "AHVUDGVYMI1JB3JYZWN0LWHVCNNLIQ==", "upper-cased base64");
  // btoa('user:' + value), btoa('a' + value), btoa('ab' + value): the value sits at each offset mod 3.
  masked_somewhere("dXNlcjpwYXNzPndvcmQ/fn5odW50ZXI=", "after 'user:'");
  masked_somewhere("YXBhc3M+d29yZD9+fmh1bnRlcg==", "after 'a'");
  masked_somewhere("YWJwYXNzPndvcmQ/fn5odW50ZXI=", "after 'ab'");
  masked_somewhere("cGFzcz53b3JkP35%2BaHVudGVy", "btoa then encodeURIComponent");
}

TEST(SecretScrub, HexPercentFormJsonAndHtml) {
  SecretStore s = store_with("p@ss word/\"é<1>");
  expect_masked(s, "7040737320776f72642f22c3a93c313e", "hex, lower");
  expect_masked(s, "7040737320776F72642F22C3A93C313E", "hex, upper");
  expect_masked(s, "p%40ss%20word%2F%22%C3%A9%3C1%3E", "encodeURIComponent");
  expect_masked(s, "p@ss%20word/%22%C3%A9%3C1%3E", "encodeURI");
  expect_masked(s, "p%40ss+word%2F%22%C3%A9%3C1%3E", "form-encoded");
  expect_masked(s, "p%40ss%20word%2f%22%c3%a9%3c1%3e", "percent, lower-case hex");
  expect_masked(s, "p@ss word/\\\"é<1>", "JSON.stringify");
  expect_masked(s, "p@ss word/\\\"\\u00e9<1>", "JSON with \\u escapes");
  expect_masked(s, "p@ss word/&quot;é&lt;1&gt;", "HTML-escaped");
  expect_masked(s, "&#112;&#64;&#115;&#115;&#32;&#119;&#111;&#114;&#100;&#47;&#34;&#233;&#60;&#49;&#62;", "decimal references");
  expect_masked(s, "&#x70;&#x40;&#x73;&#x73;&#x20;&#x77;&#x6f;&#x72;&#x64;&#x2f;&#x22;&#xe9;&#x3c;&#x31;&#x3e;", "hex references");
}

TEST(SecretScrub, CharacterCodesAndSeparators) {
  SecretStore s = store_with("hunter22");
  expect_masked(s, "104,117,110,116,101,114,50,50", "charCodes joined by ','");
  expect_masked(s, "104, 117, 110, 116, 101, 114, 50, 50", "', '");
  expect_masked(s, "104 117 110 116 101 114 50 50", "' '");
  expect_masked(s, "104;117;110;116;101;114;50;50", "';'");
  expect_masked(s, "104-117-110-116-101-114-50-50", "'-'");
  expect_masked(s, "68 75 6e 74 65 72 32 32", "hex codes");
  expect_masked(s, "0x68,0x75,0x6e,0x74,0x65,0x72,0x32,0x32", "0x codes");
  expect_masked(s, "h-u-n-t-e-r-2-2", "characters with '-'");
  expect_masked(s, "h u n t e r 2 2", "with ' '");
  expect_masked(s, "H.U.N.T.E.R.2.2", "upper case with '.'");
  expect_masked(s, "h, u, n, t, e, r, 2, 2", "with ', '");
  // A number that merely contains the codes, or other numbers, stay as they are.
  EXPECT_EQ(s.scrub_text("1104,117,110,116,101,114,50,509"), "1104,117,110,116,101,114,50,509");
  EXPECT_EQ(s.scrub_text("104,117,110,116"), "104,117,110,116") << "a part of the value is not the value";
}

TEST(SecretScrub, ArraysThatSpellTheValueOut) {
  SecretStore s = store_with("hunter22");
  json codes = {1, 104, 117, 110, 116, 101, 114, 50, 50, 7};
  s.scrub(codes);
  EXPECT_EQ(codes, json({1, "[SECRET:bank_pw]", 7})) << "one marker, not the value's length";
  json chars = {"h", "u", "n", "t", "e", "r", "2", "2"};
  s.scrub(chars);
  EXPECT_EQ(chars, json({"[SECRET:bank_pw]"}));
  json nested = {{"HUNTER22", {{"v", "aHVudGVyMjI="}}}};
  s.scrub(nested);
  EXPECT_EQ(nested.dump(), R"({"[SECRET:bank_pw]":{"v":"[SECRET:bank_pw]"}})");
  json ordinary = {1, 2, 3, "a", "b"};
  s.scrub(ordinary);
  EXPECT_EQ(ordinary, json({1, 2, 3, "a", "b"}));
}

TEST(SecretScrub, OrdinaryTextIsLeftAlone) {
  SecretStore s = store_with();
  std::string text = "The hunter went to the correct horse race; h-u-n-t; 104,117; aHVudA==";
  EXPECT_EQ(s.scrub_text(text), text);
}

// Values under 4 bytes are refused as configured secrets and, given as an answer (a 3-digit code),
// typed but not looked for in text: they could not be told apart from ordinary text.
TEST(SecretScrub, ShortValuesAreNotLookedFor) {
  SecretStore s;
  EXPECT_FALSE(s.add("pin", "123", {"bank.example.com"}));
  ASSERT_TRUE(s.add_answer("code", "481", {}));
  EXPECT_EQ(s.scrub_text("order 481 of 4812"), "order 481 of 4812");
  ASSERT_TRUE(s.add_answer("otp", "4815", {}));
  EXPECT_EQ(s.scrub_text("otp 4815, 5184"), "otp [SECRET:otp], [SECRET:otp]");
}

TEST(SecretScrub, MegabytesInLinearTime) {
  SecretStore s;
  ASSERT_TRUE(s.add("a", kValue, {"bank.example.com"}));
  ASSERT_TRUE(s.add("b", "Another-Secret-Value-123", {"shop.example.com"}));
  ASSERT_TRUE(s.add("c", "4815162342", {"mail.example.com"}));
  // A page of text and of digits (the worst case for the character-code scan), 4 MB, with a
  // leak at the end.
  std::string text;
  while (text.size() < 2'000'000) text += "Lorem ipsum h u n t dolor 104,117,110, sit amet ";
  while (text.size() < 4'000'000) text += "104 117 110 116 101 114 4 8 1 5 ";
  text += "aHVudGVyMi1jb3JyZWN0LWhvcnNl";
  auto t0 = std::chrono::steady_clock::now();
  std::string out = s.scrub_text(text);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(out.substr(out.size() - 10), "[SECRET:a]") << out.substr(out.size() - 40);
  EXPECT_LT(ms, 3000) << "4 MB took " << ms << " ms";
}

TEST(SecretSites, SchemeAndPortAsWritten) {
  auto url = [](const char* u) { return parse_url(u).value(); };
  SecretStore s;
  ASSERT_TRUE(s.add("pw", kValue, {"bank.example.com"}));
  ASSERT_TRUE(s.add("local", kValue, {"http://127.0.0.1:8765"}));
  ASSERT_TRUE(s.add("loop", kValue, {"127.0.0.1:9000"}));
  const SiteList pw = s.find("pw")->sites, local = s.find("local")->sites, loop = s.find("loop")->sites;
  EXPECT_TRUE(pw.matches(url("https://bank.example.com/login")));
  EXPECT_FALSE(pw.matches(url("https://bank.example.com:8080/login"))) << "another port";
  EXPECT_FALSE(pw.matches(url("http://bank.example.com/login"))) << "no scheme written: https only";
  EXPECT_FALSE(pw.matches(url("https://evil.bank.example.com/")));
  EXPECT_TRUE(local.matches(url("http://127.0.0.1:8765/form")));
  EXPECT_FALSE(local.matches(url("https://127.0.0.1:8765/form")));
  EXPECT_FALSE(local.matches(url("http://127.0.0.1:8766/form")));
  EXPECT_FALSE(local.matches(url("http://127.0.0.1/form")));
  EXPECT_TRUE(loop.matches(url("http://127.0.0.1:9000/"))) << "loopback without a scheme: http as well";
  EXPECT_FALSE(loop.matches(url("http://127.0.0.1:9001/")));
  EXPECT_EQ(pw.patterns(), std::vector<std::string>{"https://bank.example.com"});
  EXPECT_FALSE(s.add("bad", kValue, {"http://bank.example.com:"})) << "an empty port";
}

// A record redacted value by value stays JSON: the value after "password=" ends at an escaped
// quote, a member named like a secret, a bearer token in a key.
TEST(RedactJson, WhatIsMaskedLeavesJson) {
  json event = {{"token", "Mine: password=x\"y and more"}, {"password", "hunter2\\\"q"}, {"pin", 1234}, {"Bearer abcdefghijklmnop", "k"},
                {"nested", {{"api_key", 99}, {"list", {"authorization: Basic dXNlcjpwYXNz", "plain"}}}}};
  json out = redact_json(event);
  std::string line = out.dump();
  ASSERT_TRUE(parse_json(line)) << line;
  EXPECT_EQ(line.find("x\\\"y"), std::string::npos) << line;
  EXPECT_EQ(line.find("hunter2"), std::string::npos) << line;
  EXPECT_EQ(line.find("abcdefghijklmnop"), std::string::npos) << line;
  EXPECT_EQ(line.find("dXNlcjpwYXNz"), std::string::npos) << line;
  EXPECT_EQ(out["pin"], 1234) << "a number under an ordinary name is kept";
  EXPECT_EQ(out["nested"]["api_key"], "[REDACTED]");
  EXPECT_EQ(out["nested"]["list"][1], "plain");
}

}  // namespace
}  // namespace ouro::safety
