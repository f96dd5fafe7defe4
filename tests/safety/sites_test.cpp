// Where a run may go: site patterns, and the scheme and address rules that hold in every mode.
#include "safety/sites.h"

#include <gtest/gtest.h>

namespace ouro::safety {
namespace {

Url url(const std::string& s) {
  auto u = parse_url(s);
  EXPECT_TRUE(u) << s << ": " << (u ? "" : u.error().message);
  return u ? *u : Url{};
}

TEST(Sites, ParsesWhatBrowsersSend) {
  Url u = url("HTTPS://News.Example.COM.:8443/a?b#c");
  EXPECT_EQ(u.scheme, "https");
  EXPECT_EQ(u.host, "news.example.com");
  EXPECT_EQ(u.port, 8443);
  EXPECT_EQ(url("http://[::1]/").host, "::1");
  EXPECT_EQ(url("https://x.org").port, 443);
  EXPECT_FALSE(parse_url("not a url"));
  EXPECT_FALSE(parse_url("http:///nohost"));
  // A port past 65535 is no port at all, not its low 16 bits (99999 would be 34463): refused, and
  // a site pattern written with one is refused rather than allowing another port.
  EXPECT_EQ(url("http://127.0.0.1:65535/").port, 65535);
  EXPECT_FALSE(parse_url("http://127.0.0.1:99999/"));
  EXPECT_FALSE(parse_url("http://127.0.0.1:0/"));
  SiteList l;
  EXPECT_FALSE(l.add("http://127.0.0.1:99999"));
  EXPECT_FALSE(l.matches(url("http://127.0.0.1:34463/")));
}

TEST(Sites, TheSiteOfAHost) {
  EXPECT_EQ(site_of_host("a.b.example.com"), "example.com");
  EXPECT_EQ(site_of_host("news.bbc.co.uk"), "bbc.co.uk");
  EXPECT_EQ(site_of_host("example.com"), "example.com");
  EXPECT_EQ(site_of_host("127.0.0.1"), "127.0.0.1");
  EXPECT_EQ(site_of_host("localhost"), "localhost");
}

TEST(Sites, PatternsMatchHostsAndPorts) {
  SiteList l;
  ASSERT_TRUE(l.add("example.com"));
  ASSERT_TRUE(l.add("*.shop.org"));
  ASSERT_TRUE(l.add("127.0.0.1:8080"));
  EXPECT_TRUE(l.matches(url("https://example.com/x")));
  EXPECT_TRUE(l.matches(url("https://www.example.com/x")));
  EXPECT_FALSE(l.matches(url("https://api.example.com/x")));
  EXPECT_FALSE(l.matches(url("https://example.com.evil.net/")));
  EXPECT_FALSE(l.matches(url("https://notexample.com/")));
  EXPECT_TRUE(l.matches(url("https://shop.org/")));
  EXPECT_TRUE(l.matches(url("https://a.b.shop.org/")));
  EXPECT_TRUE(l.matches(url("http://127.0.0.1:8080/p")));
  EXPECT_FALSE(l.matches(url("http://127.0.0.1:9090/p")));
  for (const char* bad : {"", "*.", "exa mple.com", "a.com/path", "a.com:port", "*"}) EXPECT_FALSE(l.add(bad)) << bad;

  SiteList task;
  task.add_site_of(url("https://mail.example.com/inbox"));
  task.add_site_of(url("http://127.0.0.1:4000/"));
  EXPECT_TRUE(task.matches(url("https://static.example.com/app.js"))) << "a task's site includes its sub-domains";
  EXPECT_FALSE(task.matches(url("https://collector.evil.net/")));
  EXPECT_TRUE(task.matches(url("http://127.0.0.1:4000/api")));
  EXPECT_FALSE(task.matches(url("http://127.0.0.1:4001/api"))) << "a loopback fixture is that port only";
}

// An empty port is the default one in a URL, and an error in a pattern — never every port.
TEST(Sites, AnEmptyPortIsNeverEveryPort) {
  EXPECT_EQ(url("http://example.com:/x").port, 80);
  SiteList l;
  EXPECT_FALSE(l.add("http://127.0.0.1:"));
  EXPECT_FALSE(l.add("http://127.0.0.1:/"));
  EXPECT_FALSE(l.add("127.0.0.1:"));
  ASSERT_TRUE(l.add("http://127.0.0.1:8765/"));
  EXPECT_TRUE(l.matches(url("http://127.0.0.1:8765/a")));
  EXPECT_FALSE(l.matches(url("http://127.0.0.1:8766/a"))) << "a URL's written port is kept";
  EXPECT_EQ(l.patterns(), std::vector<std::string>{"127.0.0.1:8765"});
}

TEST(Sites, InternalAddressesAndPrivilegedSchemesNeedNaming) {
  SiteList none;
  for (const char* refused : {"file:///etc/passwd", "chrome://settings", "chrome-extension://abc/x", "devtools://devtools/x",
                              "view-source:https://a.com", "javascript:alert(1)", "http://169.254.169.254/latest/meta-data/",
                              "http://127.0.0.1:8080/", "http://localhost/", "http://10.1.2.3/", "http://192.168.1.1/", "http://172.20.0.1/",
                              "http://printer.local/", "http://db.internal/", "http://[::1]/", "http://[fe80::1]/", "http://intranet/"}) {
    Verdict v = check_scheme_and_address(url(refused), none);
    EXPECT_FALSE(v.allowed) << refused;
    EXPECT_FALSE(v.reason.empty());
  }
  for (const char* fine : {"https://example.com/", "about:blank", "data:text/html,hi", "http://8.8.8.8/", "http://172.32.0.1/"})
    EXPECT_TRUE(check_scheme_and_address(url(fine), none).allowed) << fine;
  SiteList named;
  named.add_site_of(url("http://127.0.0.1:8080/"));
  EXPECT_TRUE(check_scheme_and_address(url("http://127.0.0.1:8080/page"), named).allowed) << "a fixture named by the task works";
  EXPECT_FALSE(check_scheme_and_address(url("http://127.0.0.1:9999/"), named).allowed);
  EXPECT_FALSE(check_scheme_and_address(url("javascript:void(0)"), named).allowed);
}

}  // namespace
}  // namespace ouro::safety
