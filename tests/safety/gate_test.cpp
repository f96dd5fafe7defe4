// The gate's rules and the attribution of requests, without a browser.
#include "actions/egress.h"
#include "safety/gate.h"
#include "safety/settings.h"

#include <gtest/gtest.h>

namespace ouro::safety {
namespace {

std::shared_ptr<GatePolicy> policy(GateMode mode = GateMode::Careful, std::vector<std::string> allow = {}) {
  GateConfig c;
  c.urls = {"https://shop.example.com/cart"};
  c.allow_domains = std::move(allow);
  c.task = "Compare with https://news.other.org/prices, then report.";
  c.mode = mode;
  return *make_policy(c);
}

RequestFacts run_request(std::string url, std::string method = "GET", std::string type = "Fetch") {
  RequestFacts f;
  f.url = std::move(url);
  f.method = std::move(method);
  f.resource_type = std::move(type);
  f.run_caused = true;
  return f;
}

TEST(GateRules, ThePagesOwnRequestsGoOut) {
  RequestFacts f;
  f.url = "https://cdn.tracker.net/pixel.gif";
  f.method = "POST";
  EXPECT_EQ(decide(*policy(), f).decision, Decision::Allow);
}

TEST(GateRules, LeavingTheSitesIsAskedInCarefulModeAndRefusedInAutonomous) {
  auto v = decide(*policy(), run_request("https://evil.example.net/steal?t=1"));
  EXPECT_EQ(v.decision, Decision::Ask);
  EXPECT_EQ(v.rule, "outside allowed sites");
  EXPECT_NE(v.reason.find("evil.example.net"), std::string::npos);
  EXPECT_NE(v.reason.find("*.example.com"), std::string::npos) << v.reason;
  EXPECT_EQ(decide(*policy(GateMode::Autonomous), run_request("https://evil.example.net/")).decision, Decision::Deny);
}

TEST(GateRules, TheSitesComeFromUrlsTaskTextAndAllowDomain) {
  auto p = policy(GateMode::Careful, {"*.partner.io"});
  EXPECT_EQ(decide(*p, run_request("https://www.shop.example.com/x")).decision, Decision::Allow);
  EXPECT_EQ(decide(*p, run_request("https://api.example.com/x")).decision, Decision::Allow);  // the site, not the host
  EXPECT_EQ(decide(*p, run_request("https://news.other.org/a")).decision, Decision::Allow);   // named in the task
  EXPECT_EQ(decide(*p, run_request("https://cdn.partner.io/a")).decision, Decision::Allow);
  EXPECT_EQ(decide(*p, run_request("https://example.org/a")).decision, Decision::Ask);
}

TEST(GateRules, WritesOnAllowedSitesAskInCarefulModeOnly) {
  EXPECT_EQ(decide(*policy(), run_request("https://shop.example.com/buy", "POST")).decision, Decision::Ask);
  EXPECT_EQ(decide(*policy(), run_request("https://shop.example.com/search?q=x", "GET", "Document")).decision, Decision::Allow);
  EXPECT_EQ(decide(*policy(GateMode::Autonomous), run_request("https://shop.example.com/buy", "POST")).decision, Decision::Allow);
}

TEST(GateRules, TopLevelNavigationsAreCheckedWhoeverCausedThem) {
  RequestFacts f;
  f.url = "https://phish.example.net/login";
  f.resource_type = "Document";
  f.top_level = true;
  EXPECT_EQ(decide(*policy(), f).decision, Decision::Ask);
}

TEST(GateRules, InternalAddressesAndPrivilegedSchemesAreRefusedInEveryMode) {
  EXPECT_EQ(decide(*policy(), run_request("http://169.254.169.254/latest/meta-data")).decision, Decision::Deny);
  EXPECT_EQ(decide(*policy(), run_request("http://192.168.1.1/admin")).decision, Decision::Deny);
  EXPECT_EQ(decide(*policy(), run_request("file:///etc/passwd", "GET", "Document")).decision, Decision::Deny);
  EXPECT_EQ(decide(*policy(), run_request("data:text/plain,hi")).decision, Decision::Allow);
}

TEST(GateRules, AnApprovedNavigationWidensTheSites) {
  auto p = policy();
  auto url = *parse_url("https://docs.vendor.io/page");
  EXPECT_FALSE(p->allowed(url));
  p->allow_site_of(url);
  EXPECT_TRUE(p->allowed(*parse_url("https://api.vendor.io/x")));
}

TEST(GateRules, BadPatternsAndModesAreClearErrors) {
  GateConfig c;
  c.allow_domains = {"http://["};
  EXPECT_FALSE(make_policy(c));
  EXPECT_FALSE(parse_gate_mode("yolo"));
  auto s = safety_settings_from(json{{"mode", "fast"}}, "the settings file x");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("careful"), std::string::npos);
  auto ok = safety_settings_from(json{{"allowed_domains", {"example.com"}}, {"mode", "autonomous"}, {"permissions", {{"setCookie", "deny"}}},
                                      {"secrets", {{"pw", {{"value", "hunter22"}, {"domains", {"bank.example.com"}}}}}}},
                                 "settings");
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(ok->mode, GateMode::Autonomous);
  ASSERT_TRUE(ok->secrets);
  EXPECT_TRUE(ok->secrets->find("pw").has_value());
}

TEST(GateRules, BodyPreviewsMaskSecretFields) {
  std::string p = actions::body_preview("user=alice&password=hunter2&item=3");
  EXPECT_EQ(p.find("hunter2"), std::string::npos) << p;
  EXPECT_NE(p.find("item=3"), std::string::npos) << p;
}

TEST(Attribution, TaggedCodeFramesAndWorkersAreTheRuns) {
  browser::OutgoingRequest r;
  r.url = "https://x.example/";
  r.resource_type = "Image";
  EXPECT_FALSE(actions::attribute(r).run_caused);
  r.tagged = true;
  EXPECT_TRUE(actions::attribute(r).run_caused);
  r.tagged = false;
  r.from_worker = true;
  EXPECT_TRUE(actions::attribute(r).run_caused);
}

TEST(Attribution, ActionWindowsCountWhatTalksNotThePagesNewDocument) {
  browser::OutgoingRequest r;
  r.url = "https://x.example/api";
  r.resource_type = "XHR";
  r.method = "POST";
  r.activity = "click";
  r.initiator_known = r.has_stack = true;
  EXPECT_TRUE(actions::attribute(r).run_caused);
  r.new_document = true;  // the document the click loaded, calling home by itself
  EXPECT_FALSE(actions::attribute(r).run_caused);
  r.new_document = false;
  r.resource_type = "Image";
  r.method = "GET";
  EXPECT_FALSE(actions::attribute(r).run_caused);  // a lazy image the page loads meanwhile
  // During execInTab: page scripts' own calls are the page's; markup without a stack is the code's.
  r.activity = "execInTab";
  EXPECT_FALSE(actions::attribute(r).run_caused);
  r.has_stack = false;
  EXPECT_TRUE(actions::attribute(r).run_caused);
  r.has_stack = true;
  r.anonymous_code = true;
  EXPECT_TRUE(actions::attribute(r).run_caused);
}

TEST(Attribution, TheBrowsersOwnRequestsDuringCodeAreRefusedNeverAsked) {
  // A saved news page asks for its favicon on another host right after load, while the run's
  // first execInTab runs: no stack, initiator "other". Held to the sites, but no question.
  browser::OutgoingRequest r;
  r.url = "https://static.news-cdn.example/favicon.ico";
  r.resource_type = "Other";
  r.activity = "execInTab";
  r.initiator_known = true;
  r.initiator_type = "other";
  auto f = actions::attribute(r);
  EXPECT_TRUE(f.run_caused);
  EXPECT_TRUE(f.uncertain);
  auto v = decide(*policy(), f);
  EXPECT_EQ(v.decision, Decision::Deny);
  EXPECT_NE(v.reason.find("without asking"), std::string::npos);
  // On an allowed site it simply goes.
  r.url = "https://shop.example.com/favicon.ico";
  EXPECT_EQ(decide(*policy(), actions::attribute(r)).decision, Decision::Allow);
  // A write with no initiator is still the code's, and asked about.
  r.url = "https://evil.example.net/steal";
  r.method = "POST";
  EXPECT_FALSE(actions::attribute(r).uncertain);
  EXPECT_EQ(decide(*policy(), actions::attribute(r)).decision, Decision::Ask);
}

}  // namespace
}  // namespace ouro::safety
