// The site a permission for one of the user's tabs is remembered under (egress/holds.h site_key):
// the host, with the port only when it is not the scheme's own, so that "always" for a page covers
// that site, and neither another site nor the same host on another port.
#include "egress/holds.h"

#include "safety/sites.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ouro::egress {
namespace {

std::string key_of(const std::string& url) {
  auto u = safety::parse_url(url);
  EXPECT_TRUE(u) << url;
  return u ? site_key(*u) : "";
}

bool covers(const std::string& key, const std::string& url) {
  safety::SiteList sites;
  EXPECT_TRUE(sites.add(key)) << "not a site pattern: " << key;
  auto u = safety::parse_url(url);
  return u && sites.matches(*u);
}

TEST(SiteKey, AUrlWithoutAPortOfItsOwnGivesItsHostAlone) {
  safety::Url no_port{"custom", "host.example", 0};
  EXPECT_EQ(site_key(no_port), "host.example");
  EXPECT_EQ(key_of("https://Bank.EXAMPLE/login?next=/"), "bank.example") << "a host is the same site in any case";
}

TEST(SiteKey, TheSchemesOwnPortIsLeftOut) {
  EXPECT_EQ(key_of("https://bank.example/"), "bank.example");
  EXPECT_EQ(key_of("https://bank.example:443/x"), "bank.example");
  EXPECT_EQ(key_of("http://bank.example:80/x"), "bank.example");
}

TEST(SiteKey, AnyOtherPortIsPartOfTheSite) {
  EXPECT_EQ(key_of("http://127.0.0.1:8080/"), "127.0.0.1:8080");
  EXPECT_EQ(key_of("https://bank.example:8443/"), "bank.example:8443");
  // The other scheme's default port is not this scheme's.
  EXPECT_EQ(key_of("http://bank.example:443/"), "bank.example:443");
  EXPECT_EQ(key_of("https://bank.example:80/"), "bank.example:80");
  EXPECT_EQ(key_of("http://localhost:3000/app"), "localhost:3000");
}

TEST(SiteKey, TheKeyIsASitePatternThatCoversThePageAndNoOtherSite) {
  std::string plain = key_of("https://shop.example/cart");
  EXPECT_TRUE(covers(plain, "https://shop.example/checkout"));
  EXPECT_FALSE(covers(plain, "https://evil.example/"));
  EXPECT_FALSE(covers(plain, "https://shop.example.evil.example/")) << "a longer host that starts with the site";
  EXPECT_FALSE(covers(plain, "https://evilshop.example/"));

  std::string with_port = key_of("http://127.0.0.1:8080/admin");
  EXPECT_TRUE(covers(with_port, "http://127.0.0.1:8080/other"));
  EXPECT_FALSE(covers(with_port, "http://127.0.0.1:9090/")) << "the same host on another port is another site";
  EXPECT_FALSE(covers(with_port, "http://127.0.0.2:8080/"));
}

// An IPv6 address is bracketed before its port, so that the pattern is read back as that address
// on that port — not as another address whose last group happens to be the port number.
TEST(SiteKey, AnIPv6SiteIsThatAddressOnThatPort) {
  std::string key = key_of("http://[2001:db8::1]:8443/admin");
  EXPECT_EQ(key, "[2001:db8::1]:8443");
  EXPECT_TRUE(covers(key, "http://[2001:db8::1]:8443/other"));
  EXPECT_FALSE(covers(key, "http://[2001:db8::1:8443]/")) << "another address";
  EXPECT_FALSE(covers(key, "http://[2001:db8::1]:9443/")) << "another port";
  std::string bare = key_of("https://[2001:db8::2]/");
  EXPECT_EQ(bare, "2001:db8::2");
  EXPECT_TRUE(covers(bare, "https://[2001:db8::2]/x"));
  EXPECT_FALSE(covers(bare, "https://[2001:db8::3]/"));

  safety::SiteList sites;
  EXPECT_FALSE(sites.add("[2001:db8::1")) << "an unclosed bracket";
  EXPECT_FALSE(sites.add("[example.com]:80")) << "brackets hold an IPv6 address only";
  EXPECT_FALSE(sites.add("[2001:db8::1]:0"));
  EXPECT_FALSE(sites.add("[2001:db8::1]x"));
  ASSERT_TRUE(sites.add("[2001:db8::1]:8443"));
  EXPECT_EQ(sites.patterns(), std::vector<std::string>{"[2001:db8::1]:8443"}) << "a pattern reads back as it was written";
}

}  // namespace
}  // namespace ouro::egress
