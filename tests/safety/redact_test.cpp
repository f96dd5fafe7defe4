// Redaction of what leaves ouro for a model or the disk (safety/redact.h): which parameter names
// are secret, URL parameters masked wherever a URL stands, request bodies as a question shows them
// (forms, JSON, multipart), JSON records masked value by value, the variants of a secret value and
// the spans the matcher reports. The encodings a secret is found in are in secrets_test.cpp and
// spellings_test.cpp; body previews through the gate in egress/gate_test.cpp.
#include "safety/redact.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace ouro::safety {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

bool listed(const std::vector<std::string>& all, const std::string& one) { return std::find(all.begin(), all.end(), one) != all.end(); }

TEST(Redact, SecretParameterNamesByWordWholeNamePrefixAndSuffix) {
  for (const char* secret : {"access_token", "API_KEY", "X-Api-Key", "sessionid", "client_secret", "Authorization", "oauth_verifier", "jwt",
                             "code", "state", "pin", "pass", "x-auth", "user_key", "auth_type", "key_id", "X-Amz-Signature", "csrf_token"})
    EXPECT_TRUE(is_secret_param_name(secret)) << secret;
  for (const char* plain : {"", "keyword", "author", "page", "monkey", "passenger", "pinned", "codec", "statement", "hashtag", "sort", "q"})
    EXPECT_FALSE(is_secret_param_name(plain)) << plain;
}

TEST(Redact, AUrlParameterIsMaskedUpToWhereTheUrlEnds) {
  EXPECT_EQ(redact_url_params("see https://x.org/cb?token=abc123 and more"), "see https://x.org/cb?token=[REDACTED] and more");
  EXPECT_EQ(redact_url_params("<a href=\"/p?session=s3cr3t\">go</a>"), "<a href=\"/p?session=[REDACTED]\">go</a>");
  EXPECT_EQ(redact_url_params("(see /p?code=XYZ)"), "(see /p?code=[REDACTED])");
  // A nested name as a browser sends it, percent-encoded.
  EXPECT_EQ(redact_url_params("/login?user%5Bpassword%5D=hunter2&x=1"), "/login?user%5Bpassword%5D=[REDACTED]&x=1");
  // A matrix parameter (after ';'): its value goes, whatever follows it.
  std::string matrix = redact_url_params("/p;jsessionid=ABC123XYZ?x=1");
  EXPECT_FALSE(has(matrix, "ABC123XYZ")) << matrix;
  EXPECT_TRUE(has(matrix, "jsessionid=[REDACTED]")) << matrix;
  // Nothing after the name: nothing to mask, and the text stays as it was.
  EXPECT_EQ(redact_url_params("/p?token=&page=2"), "/p?token=&page=2");
  EXPECT_EQ(redact_url_params(""), "");
}

TEST(Redact, AFormBodyKeepsItsShapeAndMasksOnlyTheSecretFields) {
  EXPECT_EQ(redact_request_body("user=ann&password=hunter2&remember=1"), "user=ann&password=[REDACTED]&remember=1");
  // A name spelled with an escape is the name the server reads.
  std::string escaped = redact_request_body("%70assword=hunter2&x=1");
  EXPECT_FALSE(has(escaped, "hunter2")) << escaped;
  EXPECT_TRUE(has(escaped, "x=1")) << escaped;
  // A malformed escape is kept as it is, and the name still reads as a password.
  std::string malformed = redact_request_body("%zzpassword=hunter2");
  EXPECT_FALSE(has(malformed, "hunter2")) << malformed;
  // Nothing but whitespace, or nothing at all: shown as it is.
  EXPECT_EQ(redact_request_body(""), "");
  EXPECT_EQ(redact_request_body("  \r\n"), "  \r\n");
}

TEST(Redact, AJsonBodyIsShownCompactWithSecretMembersMaskedAtAnyDepth) {
  EXPECT_EQ(redact_request_body(R"({"user": "ann", "card": {"pin": "1234", "label": "home"}})"),
            R"({"user":"ann","card":{"pin":"[REDACTED]","label":"home"}})");
  // Sixty levels down is still "any depth".
  std::string deep = std::string(60, '[') + R"({"otp":"493817"})" + std::string(60, ']');
  std::string shown = redact_request_body(deep);
  EXPECT_FALSE(has(shown, "493817")) << shown.substr(0, 200);
  EXPECT_TRUE(has(shown, "[REDACTED]"));
}

// Secret members are masked at any depth the body parses to (parse_json allows 512 levels), also
// where redact() alone does not know the name ("otp", "pin", "code").
TEST(Redact, AJsonSecretNestedDeeperThanSixtyFourLevelsIsStillMasked) {
  std::string deep = std::string(66, '[') + R"({"otp":"493817"})" + std::string(66, ']');
  std::string shown = redact_request_body(deep);
  EXPECT_FALSE(has(shown, "493817")) << shown.substr(0, 300);
}

// Only a body that begins with a boundary line is read as multipart: a form whose value mentions
// "Content-Disposition" is still a form, its secret fields masked.
TEST(Redact, AFormWhoseValueMentionsContentDispositionStillMasksItsSecretFields) {
  std::string shown = redact_request_body("note=see+the+Content-Disposition+header&otp=493817");
  EXPECT_FALSE(has(shown, "493817")) << shown;
  EXPECT_TRUE(has(shown, "note=see+the+Content-Disposition+header")) << shown;
}

// A member whose name makes it secret is masked whole: redact() alone ends a value at the first
// space, and a passphrase has several words.
TEST(RedactJson, APasswordMemberIsMaskedWholeEvenWithSpaces) {
  json out = redact_json(json{{"password", "correct horse battery staple"}, {"note", "kept"}});
  EXPECT_EQ(out["password"], "[REDACTED]") << out.dump();
  EXPECT_FALSE(has(out.dump(), "horse")) << out.dump();
  EXPECT_EQ(out["note"], "kept");
}

TEST(RedactJson, StringsInPlaceHaveTheirUrlParametersMaskedAndKeysNumbersAndPlainTextKept) {
  json v = {{"token", "plain value"}, {"u", "https://h/?api_key=k1&q=shoes"}, {"n", 5}, {"list", {"a=b", "/x?sig=zz", "no url"}}};
  redact_json_strings(v);
  EXPECT_EQ(v["token"], "plain value") << "a member's name is not read here";
  EXPECT_EQ(v["u"], "https://h/?api_key=[REDACTED]&q=shoes");
  EXPECT_EQ(v["n"], 5);
  EXPECT_EQ(v["list"][0], "a=b");
  EXPECT_EQ(v["list"][1], "/x?sig=[REDACTED]");
  EXPECT_EQ(v["list"][2], "no url");
}

TEST(SecretVariants, EveryFormIsCaseFoldedAndHoldsTheValueReversedAndInHex) {
  auto v = secret_variants("Hunter2");
  EXPECT_TRUE(listed(v, "hunter2"));
  EXPECT_TRUE(listed(v, "2retnuh"));
  EXPECT_TRUE(listed(v, "48756e74657232"));
  for (const auto& form : v) {
    EXPECT_GE(form.size(), kMinScrubbedBytes) << form;
    EXPECT_TRUE(std::none_of(form.begin(), form.end(), [](char c) { return c >= 'A' && c <= 'Z'; })) << form;
  }
  // Reversed by character: a two-byte character stays whole.
  EXPECT_TRUE(listed(secret_variants("h\xc3\xa9llo-w"), "w-oll\xc3\xa9h"));
}

TEST(SecretVariants, AValueOfFourKilobytesOrMoreIsLookedForOnlyAsItIs) {
  auto v = secret_variants(std::string(5000, 'K'));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0], std::string(5000, 'k'));
}

TEST(SecretMatcherSpans, EachFindNamesItsValueByIndexAndCoversItExactly) {
  SecretMatcher none = SecretMatcher::build({});
  EXPECT_TRUE(none.empty());
  EXPECT_TRUE(none.find("hunter2-correct-horse").empty());

  SecretMatcher m = SecretMatcher::build({"abc", "hunter2-correct-horse"});
  const std::string text = "x hunter2-correct-horse y";
  auto found = m.find(text);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].secret, 1u) << "the index among the values given, the short one counted";
  EXPECT_EQ(text.substr(found[0].begin, found[0].end - found[0].begin), "hunter2-correct-horse");
  // A value under kMinScrubbedBytes is never looked for.
  EXPECT_TRUE(m.find("abc abc abc").empty());
}

}  // namespace
}  // namespace ouro::safety
