// Who the egress gate says sent a request, and what of its body a question shows (egress/gate.h
// attribute, body_preview), without a browser: the run's code, its frames and workers are the
// run's, the page's own requests are the page's, an approved action is not asked about twice, and
// a body's secret-named fields never reach the preview, however it is cut.
#include "egress/gate.h"

#include "safety/gate.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace ouro::egress {
namespace {

browser::OutgoingRequest request(const std::string& url, const std::string& method = "GET", const std::string& type = "Fetch") {
  browser::OutgoingRequest r;
  r.url = url;
  r.method = method;
  r.resource_type = type;
  return r;
}

// Careful mode, the run's site shop.example.com.
std::shared_ptr<safety::GatePolicy> careful_policy() {
  safety::GateConfig c;
  c.urls = {"https://shop.example.com/"};
  c.mode = safety::GateMode::Careful;
  return *safety::make_policy(c);
}

// The gate's verdict on the request once the run has acted on its pages.
safety::Decision after_acting(const browser::OutgoingRequest& r) {
  safety::RequestFacts f = attribute(r);
  f.after_acted = true;
  return safety::decide(*careful_policy(), f).decision;
}

TEST(BodyPreview, AnEmptyBodyShowsNothing) { EXPECT_EQ(body_preview(""), ""); }

TEST(BodyPreview, SecretNamedFieldsAreMaskedWhereverTheyStandAndHoweverTheyAreSpelled) {
  for (const std::string body : {"password=hunter2", "user=ann&PASSWORD=hunter2", "user[password]=hunter2&x=1", "a=1&access_token=hunter2"}) {
    std::string p = body_preview(body);
    EXPECT_EQ(p.find("hunter2"), std::string::npos) << body << " -> " << p;
    EXPECT_NE(p.find("[REDACTED]"), std::string::npos) << body << " -> " << p;
  }
  EXPECT_NE(body_preview("item=3&qty=2").find("item=3&qty=2"), std::string::npos) << "ordinary fields stay readable";
}

// What a browser actually sends: nested names percent-encoded, ASP.NET's $-joined names, JSON at
// any depth, multipart parts.
TEST(BodyPreview, SecretFieldsAreMaskedInEveryEncodingABrowserSends) {
  const std::string crlf = "\r\n";
  for (const std::string& body :
       {std::string("user%5Bpassword%5D=hunter2&commit=Sign+in"), std::string("ctl00%24Main%24Password=hunter2"), std::string("ctl00$Main$Password=hunter2"),
        std::string("card%5Bpin%5D=hunter2"), std::string(R"({"user":"ann","password":"hunter2"})"),
        std::string(R"({"login":{"credentials":{"otp":"hunter2"}},"items":[{"api_key":"hunter2"}]})"),
        std::string("  [{\"token\": \"hunter2\"}]"),
        "--XyZ" + crlf + "Content-Disposition: form-data; name=\"user\"" + crlf + crlf + "ann" + crlf + "--XyZ" + crlf +
            "Content-Disposition: form-data; name=\"password\"" + crlf + crlf + "hunter2" + crlf + "--XyZ--" + crlf}) {
    std::string p = body_preview(body);
    EXPECT_EQ(p.find("hunter2"), std::string::npos) << body << " -> " << p;
    EXPECT_NE(p.find("[REDACTED]"), std::string::npos) << body << " -> " << p;
  }
  std::string json_body = R"({"query":"shoes","page":2})";
  EXPECT_NE(body_preview(json_body).find("shoes"), std::string::npos) << "ordinary members stay readable";
  std::string part = "--B" + crlf + "Content-Disposition: form-data; name=\"comment\"" + crlf + crlf + "nice shoes" + crlf + "--B--";
  EXPECT_NE(body_preview(part).find("nice shoes"), std::string::npos) << "ordinary parts stay readable";
  EXPECT_NE(body_preview("{not json password=hunter2").find("[REDACTED]"), std::string::npos) << "a body that only looks like JSON is still masked";
}

TEST(BodyPreview, AHugeBodyIsCutShortButNeverShowsTheStartOfASecretAtTheCut) {
  std::string p = body_preview("q=" + std::string(100000, 'x'));
  EXPECT_LE(p.size(), 200 + std::string("…").size());
  // The secret's value starts just before the cut: masked first, so none of it shows.
  std::string body = "note=" + std::string(185, 'x') + "&token=SECRETSECRETSECRET";
  EXPECT_EQ(body_preview(body).find("SEC"), std::string::npos) << body_preview(body);
}

TEST(BodyPreview, ACutNeverSplitsACharacter) {
  std::string e = "\xC3\xA9";  // é, two bytes; after one byte of "a" the 200th byte falls inside one
  std::string body = "a";
  for (int i = 0; i < 300; ++i) body += e;
  std::string p = body_preview(body);
  ASSERT_GT(p.size(), std::string("…").size());
  std::string head = p.substr(0, p.size() - std::string("…").size());
  ASSERT_EQ(head.size() % 2, 1u) << "half a character left at the cut";
  for (size_t i = 1; i < head.size(); i += 2) EXPECT_EQ(head.substr(i, 2), e);
}

TEST(EgressAttribution, WhatTheRunsCodeSendsIsTheRunsEvenWhileAnApprovedActionWorks) {
  auto r = request("https://shop.example.com/cart", "POST", "XHR");
  r.activity = "click";
  r.activity_approved = true;
  EXPECT_TRUE(attribute(r).approved_action);
  EXPECT_EQ(after_acting(r), safety::Decision::Allow) << "the user said yes to this click: its write is not asked about again";
  r.tagged = true;
  safety::RequestFacts f = attribute(r);
  EXPECT_TRUE(f.run_code);
  EXPECT_FALSE(f.approved_action) << "the run's own code never rides on the user's yes";
  EXPECT_EQ(after_acting(r), safety::Decision::Ask);
}

TEST(EgressAttribution, AFrameTheRunMadeIsTheRunsButOnlyItsScriptsAreTheRunsCode) {
  auto r = request("https://shop.example.com/pixel.png", "GET", "Image");
  r.from_run_frame = true;
  EXPECT_TRUE(attribute(r).run_caused);
  EXPECT_FALSE(attribute(r).run_code) << "what its document loads by itself";
  EXPECT_EQ(after_acting(r), safety::Decision::Allow);
  r.has_stack = true;
  EXPECT_TRUE(attribute(r).run_code);
  EXPECT_EQ(after_acting(r), safety::Decision::Ask) << "a script of the run's frame: a write whatever its method";
}

TEST(EgressAttribution, TheNextDocumentsRequestsAreThePagesOwn) {
  auto r = request("https://shop.example.com/app.js", "GET", "Script");
  r.activity = "click";
  r.activity_approved = true;
  r.new_document = true;
  EXPECT_FALSE(attribute(r).run_caused);
  EXPECT_FALSE(attribute(r).approved_action);
  // A link the run's code clicked, seen from the document it opened: no longer the run's code.
  auto link = request("https://shop.example.com/next", "GET", "Document");
  link.navigation_reason = "anchorClick";
  link.activity = "execInTab";
  EXPECT_TRUE(attribute(link).run_code);
  link.new_document = true;
  EXPECT_FALSE(attribute(link).run_code);
}

TEST(EgressAttribution, APagesWorkerIsThePagesEvenWhileTheRunsActionWorks) {
  auto r = request("https://shop.example.com/sync", "POST", "Fetch");
  r.activity = "click";
  r.activity_approved = true;
  r.from_worker = true;
  EXPECT_FALSE(attribute(r).run_caused);
  EXPECT_FALSE(attribute(r).approved_action) << "the user approved the click, not what the page's worker sends";
  EXPECT_EQ(after_acting(r), safety::Decision::Ask);
}

TEST(EgressAttribution, TheFactsOfAWriteAreGatheredFromTheRequest) {
  auto r = request("https://shop.example.com/items/3", "POST", "Document");
  r.main_frame_navigation = true;
  r.navigation_reason = "formSubmissionPost";
  r.post_data = "_method=DELETE&password=hunter2";
  safety::RequestFacts f = attribute(r);
  EXPECT_TRUE(f.top_level);
  EXPECT_TRUE(f.form);
  EXPECT_EQ(f.method_override, "DELETE");
  EXPECT_EQ(f.body_preview.find("hunter2"), std::string::npos) << f.body_preview;
  EXPECT_EQ(f.url, r.url);
  EXPECT_EQ(f.method, "POST");
  // The method a query names counts as well.
  EXPECT_EQ(attribute(request("https://shop.example.com/items/3?_method=delete")).method_override, "DELETE");
  EXPECT_EQ(attribute(request("https://shop.example.com/items/3?page=2")).method_override, "");
}

// What the gate records of a request (egress/gate.h), from the browser's facts.
TEST(BodyPreview, AFormsSecretFieldIsMaskedAndTheRestShown) {
  std::string p = body_preview("user=alice&password=hunter2&item=3");
  EXPECT_EQ(p.find("hunter2"), std::string::npos) << p;
  EXPECT_NE(p.find("item=3"), std::string::npos) << p;
}

TEST(Attribution, WhoSentItIsRecordedAndNeverDecides) {
  browser::OutgoingRequest r;
  r.url = "https://x.example/";
  r.resource_type = "Image";
  EXPECT_FALSE(attribute(r).run_caused);
  EXPECT_EQ(attribute(r).cause, "the page's own scripts");
  r.tagged = true;
  EXPECT_TRUE(attribute(r).run_caused);
  r.tagged = false;
  r.from_worker = true;
  EXPECT_EQ(attribute(r).cause, "a worker in the page");
  // A write sent while an approved action works is not asked twice; from the click's new
  // document it is.
  r.from_worker = false;
  r.activity = "click";
  r.activity_approved = true;
  EXPECT_TRUE(attribute(r).approved_action);
  r.new_document = true;
  EXPECT_FALSE(attribute(r).approved_action);
  // attribute() never says whether the run acted: the gate's state does (egress/gate.cpp).
  EXPECT_FALSE(attribute(r).after_acted);
}

TEST(Attribution, WhatMakesARequestAWriteIsGatheredFromTheBrowsersFacts) {
  browser::OutgoingRequest r;
  r.url = "https://shop.example.com/search?q=x";
  r.resource_type = "Document";
  EXPECT_FALSE(attribute(r).form);
  r.navigation_reason = "formSubmissionGet";
  EXPECT_TRUE(attribute(r).form);
  // A link: the run's click keeps it a read; the run's code clicking it (a.click()) does not.
  r.navigation_reason = "anchorClick";
  r.activity = "click";
  EXPECT_FALSE(attribute(r).run_code);
  r.activity = "execInTab";
  EXPECT_TRUE(attribute(r).run_code);
  // A worker the run's code started; a page's worker is the page's.
  browser::OutgoingRequest w;
  w.url = "https://shop.example.com/api/x";
  w.from_worker = true;
  EXPECT_FALSE(attribute(w).run_code);
  w.from_run_frame = true;
  EXPECT_TRUE(attribute(w).run_code);
  w.headers = {{"Accept", "*/*"}, {"x-http-method-override", "delete"}};
  EXPECT_EQ(attribute(w).method_override, "DELETE");
}

}  // namespace
}  // namespace ouro::egress
