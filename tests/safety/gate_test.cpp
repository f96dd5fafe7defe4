// The gate's rules and the attribution of requests, without a browser.
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

// A request a held tab sends after the run acted on its pages (whoever sent it).
RequestFacts run_request(std::string url, std::string method = "GET", std::string type = "Fetch") {
  RequestFacts f;
  f.url = std::move(url);
  f.method = std::move(method);
  f.resource_type = std::move(type);
  f.after_acted = true;
  return f;
}

TEST(GateRules, BeforeTheRunActsThePagesOwnRequestsGoOut) {
  RequestFacts f;
  f.url = "https://cdn.tracker.net/pixel.gif";
  f.method = "POST";
  EXPECT_EQ(decide(*policy(), f).decision, Decision::Allow);
}

TEST(GateRules, AfterTheRunActsNothingLeavesTheSitesWhoeverSendsIt) {
  // The page's own scripts, a worker, a handler attribute: the same refusal, and no question.
  for (std::string cause : {"", "the page's own scripts", "a worker in the page", "the run's code (execInTab)"})
    for (GateMode mode : {GateMode::Careful, GateMode::Autonomous})
      for (std::string type : {"Image", "Fetch", "Script", "Stylesheet", "Ping", "Other"}) {
        RequestFacts f = run_request("https://evil.example.net/steal?t=1", "GET", type);
        f.cause = cause;
        auto v = decide(*policy(mode), f);
        EXPECT_EQ(v.decision, Decision::Deny) << cause << " " << type;
        EXPECT_EQ(v.rule, "outside allowed sites");
        EXPECT_NE(v.reason.find("evil.example.net"), std::string::npos);
        EXPECT_NE(v.reason.find("*.example.com"), std::string::npos) << v.reason;
      }
}

TEST(GateRules, LeavingTheSitesByNavigationIsAskedInCarefulModeAndRefusedInAutonomous) {
  RequestFacts f = run_request("https://evil.example.net/steal?t=1", "GET", "Document");
  f.top_level = true;
  EXPECT_EQ(decide(*policy(), f).decision, Decision::Ask);
  EXPECT_EQ(decide(*policy(GateMode::Autonomous), f).decision, Decision::Deny);
  f.after_acted = false;  // before the run acted, too: a page that sends the user elsewhere
  EXPECT_EQ(decide(*policy(), f).decision, Decision::Ask);
}

TEST(GateRules, TheSitesComeFromUrlsTaskTextAndAllowDomain) {
  auto p = policy(GateMode::Careful, {"*.partner.io"});
  EXPECT_EQ(decide(*p, run_request("https://www.shop.example.com/x")).decision, Decision::Allow);
  EXPECT_EQ(decide(*p, run_request("https://api.example.com/x")).decision, Decision::Allow);  // the site, not the host
  EXPECT_EQ(decide(*p, run_request("https://news.other.org/a")).decision, Decision::Allow);   // named in the task
  EXPECT_EQ(decide(*p, run_request("https://cdn.partner.io/a")).decision, Decision::Allow);
  EXPECT_EQ(decide(*p, run_request("https://example.org/a")).decision, Decision::Deny);
}

// A start page written as a data: URL with raw HTML (as a browser takes it) names no site: the
// run starts, and nothing is allowed because of it.
TEST(GateRules, ADataUrlStartPageNamesNoSite) {
  GateConfig c;
  c.urls = {"data:text/html,<h1>Hi there</h1><a href='https://shop.example.com/'>shop</a>", "https://shop.example.com/"};
  auto p = make_policy(c);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(decide(**p, run_request("https://shop.example.com/x")).decision, Decision::Allow);
  EXPECT_EQ(decide(**p, run_request("https://example.org/a")).decision, Decision::Deny);
  c.urls = {"https://exa mple.com/<x>"};
  EXPECT_FALSE(make_policy(c)) << "a web URL the grammar refuses is still refused";
}

TEST(GateRules, WritesOnAllowedSitesAskInCarefulModeOnlyAfterTheRunActed) {
  EXPECT_EQ(decide(*policy(), run_request("https://shop.example.com/buy", "POST")).decision, Decision::Ask);
  RequestFacts approved = run_request("https://shop.example.com/buy", "POST");
  approved.approved_action = true;  // sent by the click the user said yes to
  EXPECT_EQ(decide(*policy(), approved).decision, Decision::Allow);
  RequestFacts before = run_request("https://shop.example.com/log", "POST", "Ping");
  before.after_acted = false;  // the page's own bookkeeping before the run did anything
  EXPECT_EQ(decide(*policy(), before).decision, Decision::Allow);
  EXPECT_EQ(decide(*policy(), run_request("https://shop.example.com/search?q=x", "GET", "Document")).decision, Decision::Allow);
  EXPECT_EQ(decide(*policy(GateMode::Autonomous), run_request("https://shop.example.com/buy", "POST")).decision, Decision::Allow);
}

// A write is judged by what it does: the run's own code, a form, a method named by an override.
TEST(GateRules, WritesAreJudgedByWhatTheyDoNotOnlyByMethod) {
  struct Case {
    std::string name, rule;
    RequestFacts facts;
  };
  std::vector<Case> writes;
  RequestFacts code = run_request("https://shop.example.com/api/delete?id=3", "GET");
  code.run_code = true;
  writes.push_back({"the run's code", "the run's code", code});
  RequestFacts form = run_request("https://shop.example.com/transfer?to=mallory&amount=500", "GET", "Document");
  form.form = true;
  form.top_level = true;
  writes.push_back({"a GET form", "form submission", form});
  RequestFacts overridden = run_request("https://shop.example.com/api/item/3", "GET");
  overridden.method_override = "DELETE";
  writes.push_back({"an override", "method override", overridden});
  for (auto& c : writes) {
    auto v = decide(*policy(), c.facts);
    EXPECT_EQ(v.decision, Decision::Ask) << c.name;
    EXPECT_EQ(v.rule, c.rule) << c.name;
    // The question says what and where.
    EXPECT_NE(v.reason.find("GET https://shop.example.com/"), std::string::npos) << v.reason;
    EXPECT_EQ(decide(*policy(GateMode::Autonomous), c.facts).decision, Decision::Allow) << c.name;
    c.facts.approved_action = true;
    EXPECT_EQ(decide(*policy(), c.facts).decision, Decision::Allow) << c.name;
    c.facts.approved_action = false;
    c.facts.after_acted = false;
    EXPECT_EQ(decide(*policy(), c.facts).decision, Decision::Allow) << c.name;
  }
  // A GET search form reads like a link: its fields are search terms and paging only; one more
  // field of any other kind (an id, an amount) makes it a write again.
  for (const char* search : {"https://shop.example.com/search?q=red+shoes", "https://shop.example.com/s?Query=x&page=2&sort=price"}) {
    RequestFacts f = run_request(search, "GET", "Document");
    f.form = f.top_level = true;
    EXPECT_EQ(decide(*policy(), f).decision, Decision::Allow) << search;
  }
  for (const char* write : {"https://shop.example.com/search?q=x&delete=3", "https://shop.example.com/go", "https://shop.example.com/search?q=x&id=1"}) {
    RequestFacts f = run_request(write, "GET", "Document");
    f.form = f.top_level = true;
    EXPECT_EQ(decide(*policy(), f).decision, Decision::Ask) << write;
  }
  RequestFacts post_search = run_request("https://shop.example.com/search?q=x", "POST", "Document");
  post_search.form = post_search.top_level = true;
  EXPECT_EQ(decide(*policy(), post_search).decision, Decision::Ask) << "a POST form is a write by its method";
  // An override naming a read does not make a POST one; a page's own GET and a clicked link are reads.
  RequestFacts post = run_request("https://shop.example.com/buy", "POST");
  post.method_override = "GET";
  EXPECT_EQ(decide(*policy(), post).decision, Decision::Ask);
  RequestFacts read = run_request("https://shop.example.com/api/items", "GET");
  read.method_override = "GET";
  EXPECT_EQ(decide(*policy(), read).decision, Decision::Allow);
}

TEST(GateRules, MethodOverridesAreReadFromHeadersQueriesAndBodies) {
  EXPECT_EQ(method_override({{"x-http-method-override", " delete "}}, "https://a.example/x", ""), "DELETE");
  EXPECT_EQ(method_override({{"X-HTTP-Method", "PUT"}}, "https://a.example/x", ""), "PUT");
  EXPECT_EQ(method_override({{"X-METHOD-OVERRIDE", "patch"}}, "https://a.example/x", ""), "PATCH");
  EXPECT_EQ(method_override({{"X-Other", "DELETE"}}, "https://a.example/x", ""), "");
  EXPECT_EQ(method_override({}, "https://a.example/x?a=1&%5Fmethod=delete", ""), "DELETE");
  EXPECT_EQ(method_override({}, "https://a.example/x?_METHOD=put#frag", ""), "PUT");
  EXPECT_EQ(method_override({}, "https://a.example/x", "a=%zz&_method=DELETE"), "DELETE");
  EXPECT_EQ(method_override({}, "https://a.example/x", "--b\r\nContent-Disposition: form-data; name=\"_method\"\r\n\r\nput\r\n--b--"), "PUT");
  EXPECT_EQ(method_override({}, "not a url at all %%%", "x=1"), "");
  EXPECT_TRUE(is_method_override_header("x-http-METHOD-override"));
  EXPECT_FALSE(is_method_override_header("x-http-method-overrides"));
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

TEST(GateRules, OnlyTheUrlsTheUserGaveCarryNothingOfTheRuns) {
  auto p = policy();
  EXPECT_TRUE(p->given("https://shop.example.com/cart"));
  EXPECT_TRUE(p->given("HTTPS://Shop.Example.com:443/c%61rt"));  // RFC 3986 §6.2.2: case, default port, percent-encoding
  // Anything else the run composes is its own: a fragment, another query, a parameter appended,
  // another path, dot segments.
  EXPECT_FALSE(p->given("https://shop.example.com/cart#top"));
  EXPECT_FALSE(p->given("https://shop.example.com/cart#"));
  EXPECT_FALSE(p->given("https://shop.example.com/cart?"));
  EXPECT_FALSE(p->given("https://shop.example.com/Cart"));
  EXPECT_FALSE(p->given("https://shop.example.com/x/../cart"));
  EXPECT_FALSE(p->given("https://shop.example.com:8443/cart"));
  p->add_given_url("http://site.example/a?x=1&y=%2f");
  EXPECT_TRUE(p->given("http://SITE.example:80/a?x=1&y=%2F"));
  EXPECT_FALSE(p->given("http://site.example/a?x=1&y=%2F&leak=hunter2"));
  EXPECT_FALSE(p->given("http://site.example/a?x=1&y=%2F#hunter2"));
  EXPECT_FALSE(p->given("http://site.example/a?y=%2F&x=1"));
  EXPECT_FALSE(p->given("http://site.example/b"));
  p->add_given_url("https://de.wikipedia.org/wiki/K\xC3\xB6ln");
  EXPECT_TRUE(p->given("https://de.wikipedia.org/wiki/K%c3%b6ln"));  // as the tab shows it
  EXPECT_TRUE(p->given("https://news.other.org/prices"));      // written in the task
  EXPECT_FALSE(p->given("https://shop.example.com/cart?q=hunter2"));
  EXPECT_FALSE(p->given("https://shop.example.com/"));
  p->add_given_url("http://127.0.0.1:8080");
  EXPECT_TRUE(p->given("http://127.0.0.1:8080/"));
}

}  // namespace
}  // namespace ouro::safety
