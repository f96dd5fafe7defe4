// The Streamable HTTP transport's rules, called directly with requests (the API in front of it,
// token and Origin, is tested through a real `ouro serve` by tests/mcp/client.mjs): sessions
// issued, checked, capped and expired; status codes for what is refused; JSON answers.
#include "mcp/http.h"

#include "base/clock.h"

#include <gtest/gtest.h>

#include <future>
#include <thread>

namespace ouro::mcp {
namespace {

using namespace std::chrono_literals;

class FakeTools : public Tools {
 public:
  json list() override { return json::array({{{"name", "echo"}, {"inputSchema", {{"type", "object"}}}}}); }
  json call(const std::string&, const json& arguments, CallContext&) override { return text_result(arguments.dump()); }
};

struct Endpoint {
  std::atomic<int> made{0};
  HttpEndpoint endpoint;
  explicit Endpoint(HttpEndpoint::Options o = {})
      : endpoint([this]() -> Result<std::unique_ptr<Tools>> {
                   ++made;
                   return std::unique_ptr<Tools>(std::make_unique<FakeTools>());
                 },
                 Protocol::Info{}, o) {}

  net::HttpResponse send(const std::string& method, const std::string& body, std::map<std::string, std::string> headers = {}) {
    net::HttpRequest r;
    r.method = method;
    r.path = r.target = "/mcp";
    r.body = body;
    r.headers = {{"accept", "application/json, text/event-stream"}, {"content-type", "application/json"}};
    for (auto& [k, v] : headers) r.headers[k] = v;
    std::promise<net::HttpResponse> answer;
    endpoint.handle(r, [&answer](net::HttpResponse res) { answer.set_value(std::move(res)); });
    auto f = answer.get_future();
    EXPECT_EQ(f.wait_for(5s), std::future_status::ready);
    return f.get();
  }
  std::string initialize() {
    auto r = send("POST", R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}})");
    EXPECT_EQ(r.status, 200) << r.body;
    for (auto& [k, v] : r.headers)
      if (k == "Mcp-Session-Id") return v;
    ADD_FAILURE() << "no Mcp-Session-Id";
    return "";
  }
};

TEST(McpHttp, SessionsAreIssuedCheckedAndEnded) {
  Endpoint e;
  std::string sid = e.initialize();
  EXPECT_EQ(sid.size(), 32u);
  EXPECT_NE(sid, e.initialize()) << "each initialize is a new session";
  auto r = e.send("POST", R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"a":1}}})", {{"mcp-session-id", sid}});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "application/json") << "an answer with nothing before it is plain JSON";
  EXPECT_NE(r.body.find(R"({\"a\":1})"), std::string::npos) << r.body;
  EXPECT_EQ(e.send("POST", R"({"jsonrpc":"2.0","id":3,"method":"ping"})", {{"mcp-session-id", sid}, {"mcp-protocol-version", "2025-06-18"}}).status, 200);
  EXPECT_EQ(e.send("POST", R"({"jsonrpc":"2.0","id":3,"method":"ping"})", {{"mcp-session-id", sid}, {"mcp-protocol-version", "2025-03-26"}}).status, 400);
  EXPECT_EQ(e.send("POST", R"({"jsonrpc":"2.0","id":4,"method":"ping"})").status, 400) << "no session id";
  EXPECT_EQ(e.send("POST", R"({"jsonrpc":"2.0","id":4,"method":"ping"})", {{"mcp-session-id", "nope"}}).status, 404);
  EXPECT_EQ(e.send("POST", R"({"jsonrpc":"2.0","method":"notifications/initialized"})", {{"mcp-session-id", sid}}).status, 202);
  EXPECT_EQ(e.send("POST", R"({"jsonrpc":"1.0","method":"x"})", {{"mcp-session-id", sid}}).status, 400);
  EXPECT_EQ(e.send("DELETE", "", {{"mcp-session-id", sid}}).status, 204);
  EXPECT_EQ(e.send("POST", R"({"jsonrpc":"2.0","id":5,"method":"ping"})", {{"mcp-session-id", sid}}).status, 404);
  EXPECT_EQ(e.endpoint.sessions(), 1u);
}

TEST(McpHttp, WhatIsNotAMessageIsRefusedWithItsStatus) {
  Endpoint e;
  EXPECT_EQ(e.send("GET", "").status, 405);
  EXPECT_EQ(e.send("PUT", "{}").status, 405);
  EXPECT_EQ(e.send("POST", "{oops").status, 400);
  EXPECT_EQ(e.send("POST", std::string(100000, '[')).status, 400);
  EXPECT_EQ(e.send("POST", "[]").status, 400);
  EXPECT_EQ(e.send("POST", "7").status, 400);
  EXPECT_EQ(e.send("POST", "{}", {{"accept", "text/html"}}).status, 406);
  EXPECT_EQ(e.send("POST", "{}", {{"content-type", "text/plain"}}).status, 415);
  // initialize without its version: answered, but no session kept.
  EXPECT_EQ(e.send("POST", R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})").status, 400);
  EXPECT_EQ(e.endpoint.sessions(), 0u);
}

TEST(McpHttp, SessionsAreCappedAndIdleOnesExpire) {
  ManualClock clock(1.7e12);  // time moves when the test says
  HttpEndpoint::Options o;
  o.max_sessions = 2;
  o.idle_timeout = 5min;
  Endpoint e(o);
  std::string a = e.initialize();
  std::string b = e.initialize();
  auto full = e.send("POST", R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}})");
  EXPECT_EQ(full.status, 503) << "two sessions, both used within the minute";
  EXPECT_EQ(e.endpoint.sessions(), 2u);
  clock.advance(4 * 60 * 1000);
  EXPECT_EQ(e.send("POST", R"({"jsonrpc":"2.0","id":2,"method":"ping"})", {{"mcp-session-id", a}}).status, 200) << "used within its idle time";
  clock.advance(2 * 60 * 1000);  // b idle 6 min, a 2 min
  EXPECT_EQ(e.send("POST", R"({"jsonrpc":"2.0","id":3,"method":"ping"})", {{"mcp-session-id", b}}).status, 404) << "expired";
  EXPECT_EQ(e.endpoint.sessions(), 1u);
  EXPECT_EQ(e.send("POST", R"({"jsonrpc":"2.0","id":4,"method":"ping"})", {{"mcp-session-id", a}}).status, 200) << "the one in use stays";
}

TEST(McpHttp, AtTheCapTheLongestIdleSessionMakesRoomAfterAMinute) {
  ManualClock clock(1.7e12);
  HttpEndpoint::Options o;
  o.max_sessions = 2;
  Endpoint e(o);
  std::string a = e.initialize();
  clock.advance(10 * 1000);
  std::string b = e.initialize();
  clock.advance(55 * 1000);  // a idle 65 s, b 55 s
  std::string c = e.initialize();
  EXPECT_FALSE(c.empty()) << "a, idle over a minute, made room";
  EXPECT_EQ(e.send("POST", R"({"jsonrpc":"2.0","id":2,"method":"ping"})", {{"mcp-session-id", a}}).status, 404);
  EXPECT_EQ(e.send("POST", R"({"jsonrpc":"2.0","id":3,"method":"ping"})", {{"mcp-session-id", b}}).status, 200);
  auto full = e.send("POST", R"({"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-06-18"}})");
  EXPECT_EQ(full.status, 503) << "b and c were used within the minute";
}

}  // namespace
}  // namespace ouro::mcp
