// The pages a session may open first (session/start_url.h): http, https, file, data and about URLs
// pass whatever the case of their scheme; a host written without its scheme is refused saying
// which URL to give (http:// for this machine, https:// first for other hosts); javascript: and
// other schemes that are no page are refused saying which URLs a tab opens; a long URL is shown cut.
#include "session/start_url.h"

#include <gtest/gtest.h>

#include <string>

namespace ouro::session {
namespace {

// The refusal's message, failing the test when the URL is accepted or refused with another code.
std::string refusal(const std::string& url) {
  auto r = check_start_url(url);
  EXPECT_FALSE(r) << url << " was accepted";
  if (r) return "";
  EXPECT_EQ(r.error().code, Code::InvalidArgument) << url;
  return r.error().message;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(StartUrl, PagesATabOpensAreAccepted) {
  for (const char* url : {"https://example.com", "http://127.0.0.1:8765/form?x=1#top", "HTTPS://Example.COM/Path", "Http://localhost/",
                          "file:///tmp/page.html", "about:blank", "data:text/html;base64,PGgxPmhpPC9oMT4=", "data:text/plain,hello%20world",
                          "http://[::1]:9000/"}) {
    auto r = check_start_url(url);
    EXPECT_TRUE(r) << url << ": " << (r ? "" : r.error().message);
  }
}

TEST(StartUrl, AnAddressOnThisMachineWithoutItsSchemeSaysToAddHttp) {
  for (const auto& [url, give] : {std::pair<std::string, std::string>{"127.0.0.1:8765", "http://127.0.0.1:8765"},
                                  {"localhost:8765", "http://localhost:8765"},
                                  {"localhost:3000/app", "http://localhost:3000/app"}}) {
    const std::string why = refusal(url);
    EXPECT_TRUE(contains(why, "\"" + url + "\" has no scheme")) << why;
    EXPECT_TRUE(contains(why, "add http://")) << why;
    EXPECT_TRUE(contains(why, "(give " + give + ")")) << why;
    EXPECT_FALSE(contains(why, "https://")) << "a local server is plain http: " << why;
  }
}

TEST(StartUrl, AnotherHostWithoutItsSchemeSuggestsHttpsFirst) {
  for (const auto& [url, give] : {std::pair<std::string, std::string>{"example.com/a", "https://example.com/a"},
                                  {"www.example.com", "https://www.example.com"},
                                  {"example.com:8080", "https://example.com:8080"}}) {
    const std::string why = refusal(url);
    EXPECT_TRUE(contains(why, "has no scheme")) << why;
    EXPECT_TRUE(contains(why, "add https:// or http://")) << why;
    EXPECT_TRUE(contains(why, "(give " + give + ")")) << why;
  }
}

TEST(StartUrl, SchemesThatAreNoPageAreRefusedSayingWhatATabOpens) {
  for (const char* url : {"javascript:alert(1)", "JavaScript:alert(document.cookie)", "javascript://comment%0Aalert(1)", "mailto:someone@example.com",
                          "ftp://example.com/file.txt", "chrome://settings", "ws://127.0.0.1:9222/devtools"}) {
    const std::string why = refusal(url);
    EXPECT_TRUE(contains(why, "is not a page a tab can open")) << why;
    EXPECT_TRUE(contains(why, "http://, https:// or file://")) << why;
    EXPECT_FALSE(contains(why, "has no scheme")) << url << " has a scheme: " << why;
  }
}

TEST(StartUrl, NothingAtAllIsRefused) {
  for (const char* url : {"", "   ", "://example.com"}) {
    const std::string why = refusal(url);
    EXPECT_TRUE(contains(why, "not a page a tab can open")) << "'" << url << "': " << why;
  }
}

TEST(StartUrl, ALongRefusedUrlIsShownCut) {
  const std::string url = "javascript:" + std::string(5000, 'a');
  const std::string why = refusal(url);
  EXPECT_LT(why.size(), 600u) << "the message repeats the whole URL";
  EXPECT_TRUE(contains(why, "chars cut")) << why;
  EXPECT_TRUE(contains(why, "javascript:aaa")) << "its start is still shown: " << why;
}

// A data: URL written with the raw HTML a browser takes ('<', '>', spaces), which the URI grammar
// does not allow, is opened as the browser would.
TEST(StartUrl, ADataUrlWithRawHtmlIsAccepted) {
  for (const char* url : {"data:text/html,<h1>Hi</h1>", "data:text/html,<p>two words</p>"}) {
    auto r = check_start_url(url);
    EXPECT_TRUE(r) << url << ": " << (r ? "" : r.error().message);
  }
}

// "http://" and "https:///path" name no host: refused here, saying so, rather than by the
// browser's "Cannot navigate to invalid URL".
TEST(StartUrl, AnHttpUrlWithoutAHostIsRefused) {
  for (const char* url : {"http://", "https:///path"}) {
    auto r = check_start_url(url);
    ASSERT_FALSE(r) << url;
    EXPECT_NE(r.error().message.find("names no host"), std::string::npos) << r.error().message;
  }
}

}  // namespace
}  // namespace ouro::session
