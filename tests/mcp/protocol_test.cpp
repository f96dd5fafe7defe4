// The MCP server's message handling with a fake set of tools: lifecycle, version negotiation,
// tools/list and tools/call, progress, cancellation, JSON-RPC errors and hostile input.
#include "mcp/protocol.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace ouro::mcp {
namespace {

using namespace std::chrono_literals;

class FakeTools : public Tools {
 public:
  json list() override {
    return json::array({{{"name", "echo"}, {"description", "echo"}, {"inputSchema", {{"type", "object"}}}}});
  }
  json call(const std::string& name, const json& arguments, CallContext& ctx) override {
    if (name == "echo") return text_result(arguments.dump());
    if (name == "progress") {
      ctx.progress(1, 3, "one");
      ctx.progress(1, 3, "again");  // not increasing: dropped
      ctx.progress(2, 3, "two");
      return text_result("done");
    }
    if (name == "block") {
      // Waits until cancelled (or released), as a long evaluation would.
      auto woke = std::make_shared<bool>(false);
      ctx.on_cancel([this, woke] {
        std::lock_guard l(mutex);
        *woke = true;
        cv.notify_all();
      });
      std::unique_lock lock(mutex);
      ++started;
      started_cv.notify_all();
      cv.wait_for(lock, 10s, [&] { return *woke || released; });
      bool was_cancelled = *woke;
      lock.unlock();
      ctx.on_cancel({});
      return text_result(was_cancelled ? "cancelled" : "released");
    }
    if (name == "throw") throw std::runtime_error("boom");
    if (name == "ask") {
      // Asks the client (sampling) and answers with what it said.
      auto r = ctx.request("sampling/createMessage", {{"maxTokens", 10}}, std::chrono::milliseconds(get_int(arguments, "timeout_ms", 10000)));
      return r ? text_result(r->dump()) : error_result(std::string(code_name(r.error().code)) + ": " + r.error().message);
    }
    if (name == "caps") return text_result(ctx.client_capabilities().dump());
    return error_result("unknown tool '" + name + "'");
  }
  void release() {
    std::lock_guard l(mutex);
    released = true;
    cv.notify_all();
  }
  void wait_started(int n) {
    std::unique_lock lock(mutex);
    started_cv.wait_for(lock, 10s, [&] { return started >= n; });
  }

  std::mutex mutex;
  std::condition_variable cv, started_cv;
  int started = 0;
  bool released = false;
};

class McpProtocol : public ::testing::Test {
 protected:
  McpProtocol() : protocol(tools, {"ouro", "0.1.0", ""}, [this](const std::string& line) {
                     std::lock_guard lock(mutex);
                     EXPECT_EQ(line.find('\n'), std::string::npos) << "a message must be one line";
                     out.push_back(*parse_json(line));
                   }) {
    request("init", "initialize", {{"protocolVersion", kProtocolVersion}, {"capabilities", {{"sampling", json::object()}}}});
    std::lock_guard lock(mutex);
    out.clear();
  }

  std::vector<json> sent() {
    std::lock_guard lock(mutex);
    return out;
  }
  json last() {
    std::lock_guard lock(mutex);
    return out.empty() ? json() : out.back();
  }
  // The response to request `id`, waiting for it up to 10 s.
  json response_to(const json& id) {
    for (int i = 0; i < 1000; ++i) {
      {
        std::lock_guard lock(mutex);
        for (const auto& m : out)
          if (m.contains("id") && m["id"] == id) return m;
      }
      std::this_thread::sleep_for(10ms);
    }
    return json();
  }
  void request(const json& id, const std::string& method, json params = json::object()) {
    protocol.on_line(json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump());
  }

  FakeTools tools;
  std::mutex mutex;
  std::vector<json> out;
  Protocol protocol;
};

TEST_F(McpProtocol, InitializeAnswersTheClientsRevisionWhenSupportedElseOurs) {
  for (const char* v : {"2025-06-18", "2025-03-26", "2024-11-05"}) {
    request(v, "initialize", {{"protocolVersion", v}, {"capabilities", json::object()}, {"clientInfo", {{"name", "t"}, {"version", "1"}}}});
    json r = last();
    EXPECT_EQ(r["id"], v);
    EXPECT_EQ(r["result"]["protocolVersion"], v);
    EXPECT_TRUE(r["result"]["capabilities"].contains("tools"));
    EXPECT_EQ(r["result"]["serverInfo"]["name"], "ouro");
  }
  request(9, "initialize", {{"protocolVersion", "2099-01-01"}, {"capabilities", json::object()}});
  EXPECT_EQ(last()["result"]["protocolVersion"], kProtocolVersion);
  request(10, "initialize", {{"capabilities", json::object()}});
  EXPECT_EQ(last()["error"]["code"], kInvalidParams);
}

TEST_F(McpProtocol, NotificationsAreNeverAnswered) {
  protocol.on_line(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  protocol.on_line(R"({"jsonrpc":"2.0","method":"notifications/whatever","params":{}})");
  protocol.on_line(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":404}})");
  protocol.on_line(R"({"jsonrpc":"2.0","id":5,"result":{}})");  // a response: this server sent no request
  EXPECT_TRUE(sent().empty());
}

TEST_F(McpProtocol, PingToolsListAndCall) {
  request(1, "ping");
  EXPECT_EQ(last(), (json{{"jsonrpc", "2.0"}, {"id", 1}, {"result", json::object()}}));
  request(2, "tools/list");
  EXPECT_EQ(last()["result"]["tools"][0]["name"], "echo");
  request("c", "tools/call", {{"name", "echo"}, {"arguments", {{"x", 1}}}});
  json r = response_to("c");
  EXPECT_EQ(r["result"]["content"][0]["type"], "text");
  EXPECT_EQ(r["result"]["content"][0]["text"], R"({"x":1})");
  EXPECT_FALSE(r["result"].contains("isError"));
  request("u", "tools/call", {{"name", "nope"}});
  EXPECT_EQ(response_to("u")["result"]["isError"], true);
  request("t", "tools/call", {{"name", "throw"}});
  json thrown = response_to("t");
  EXPECT_EQ(thrown["result"]["isError"], true);
  EXPECT_NE(thrown["result"]["content"][0]["text"].get<std::string>().find("boom"), std::string::npos);
}

TEST_F(McpProtocol, JsonRpcErrors) {
  protocol.on_line("{not json");
  EXPECT_EQ(last()["error"]["code"], kParseError);
  EXPECT_TRUE(last()["id"].is_null());
  protocol.on_line(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])");
  EXPECT_EQ(last()["error"]["code"], kInvalidRequest);
  protocol.on_line(R"({"jsonrpc":"1.0","id":1,"method":"ping"})");
  EXPECT_EQ(last()["error"]["code"], kInvalidRequest);
  EXPECT_EQ(last()["id"], 1);
  protocol.on_line(R"({"jsonrpc":"2.0","id":{"a":1},"method":"ping"})");
  EXPECT_EQ(last()["error"]["code"], kInvalidRequest);
  EXPECT_TRUE(last()["id"].is_null());
  protocol.on_line(R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})");
  EXPECT_EQ(last()["error"]["code"], kInvalidRequest);
  protocol.on_line(R"({"jsonrpc":"2.0","id":2,"method":7})");
  EXPECT_EQ(last()["error"]["code"], kInvalidRequest);
  protocol.on_line(R"({"jsonrpc":"2.0","id":3,"method":"resources/list"})");
  EXPECT_EQ(last()["error"]["code"], kMethodNotFound);
  protocol.on_line(R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":[1]})");
  EXPECT_EQ(last()["error"]["code"], kInvalidParams);
  protocol.on_line(R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":5}})");
  EXPECT_EQ(last()["error"]["code"], kInvalidParams);
  protocol.on_line(R"({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":"x"}})");
  EXPECT_EQ(last()["error"]["code"], kInvalidParams);
  protocol.on_line("42");
  EXPECT_EQ(last()["error"]["code"], kInvalidRequest);
  protocol.on_line(std::string(100000, '[') + std::string(100000, ']'));
  EXPECT_EQ(last()["error"]["code"], kParseError);
  protocol.on_line("\"\xff\xfe\"");
  EXPECT_TRUE(last().contains("error"));
}

TEST_F(McpProtocol, ProgressOnlyWithATokenAndIncreasing) {
  request(1, "tools/call", {{"name", "progress"}});
  response_to(1);
  for (const auto& m : sent()) EXPECT_NE(get_str(m, "method"), "notifications/progress");
  {
    std::lock_guard lock(mutex);
    out.clear();
  }
  request(2, "tools/call", {{"name", "progress"}, {"_meta", {{"progressToken", "tok"}}}});
  response_to(2);
  std::vector<double> seen;
  for (const auto& m : sent())
    if (get_str(m, "method") == "notifications/progress") {
      EXPECT_EQ(m["params"]["progressToken"], "tok");
      EXPECT_EQ(m["params"]["total"], 3);
      seen.push_back(m["params"]["progress"].get<double>());
    }
  EXPECT_EQ(seen, (std::vector<double>{1, 2}));
}

TEST_F(McpProtocol, CancelledCallsRunTheirHookAndAreNotAnswered) {
  request(7, "tools/call", {{"name", "block"}});
  tools.wait_started(1);
  protocol.on_line(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user"}})");
  protocol.drain();
  for (const auto& m : sent()) EXPECT_FALSE(m.contains("id") && m["id"] == 7) << m.dump();
  // The same id may be used again once the call has ended.
  request(7, "tools/call", {{"name", "echo"}});
  EXPECT_EQ(response_to(7)["result"]["content"][0]["text"], "{}");
}

TEST_F(McpProtocol, ADuplicateIdInFlightIsRefused) {
  request("d", "tools/call", {{"name", "block"}});
  tools.wait_started(1);
  request("d", "tools/call", {{"name", "echo"}});
  EXPECT_EQ(last()["error"]["code"], kInvalidRequest);
  tools.release();
  protocol.drain();
}

TEST_F(McpProtocol, TenThousandRequestsAreAllAnsweredAndCallsStayBounded) {
  // More blocking calls than workers and waiting places: the excess is answered "busy" at once.
  const int n = static_cast<int>(Protocol::kWorkers + Protocol::kMaxWaiting + 20);
  for (int i = 0; i < n; ++i) request(i, "tools/call", {{"name", "block"}});
  tools.wait_started(static_cast<int>(Protocol::kWorkers));
  int busy = 0;
  for (const auto& m : sent())
    if (m.contains("result") && get_bool(m["result"], "isError")) ++busy;
  // Workers may not have taken their first calls off the queue when the last ones came.
  EXPECT_GE(busy, 20);
  EXPECT_LE(busy, 20 + static_cast<int>(Protocol::kWorkers));
  // Pings go on being answered while the pool is full.
  for (int i = 0; i < 10000; ++i) request(100000 + i, "ping");
  EXPECT_EQ(last()["id"], 100000 + 9999);
  tools.release();
  protocol.drain();
  int answered = 0;
  for (const auto& m : sent())
    if (m.contains("id") && m["id"].is_number() && m["id"].get<int>() < n) ++answered;
  EXPECT_EQ(answered, n);
}

TEST_F(McpProtocol, DestroyingWithCallsInFlightCancelsThem) {
  auto p = std::make_unique<Protocol>(tools, Protocol::Info{}, [](const std::string&) {});
  p->on_line(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}})");
  p->on_line(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block"}})");
  tools.wait_started(1);
  auto t0 = std::chrono::steady_clock::now();
  p.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
}

TEST(McpProtocolLifecycle, RequestsBeforeInitializeAreRefusedButPing) {
  FakeTools tools;
  std::vector<json> out;
  std::mutex mutex;
  Protocol p(tools, Protocol::Info{}, [&](const std::string& line) {
    std::lock_guard lock(mutex);
    out.push_back(*parse_json(line));
  });
  p.on_line(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
  p.on_line(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo"}})");
  p.on_line(R"({"jsonrpc":"2.0","id":3,"method":"ping"})");
  p.on_line(R"({"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}})");
  EXPECT_EQ(p.protocol_version(), "2025-06-18");
  p.on_line(R"({"jsonrpc":"2.0","id":5,"method":"tools/list"})");
  std::lock_guard lock(mutex);
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0]["error"]["code"], kNotInitialized);
  EXPECT_EQ(out[1]["error"]["code"], kNotInitialized);
  EXPECT_EQ(out[2]["result"], json::object());
  EXPECT_TRUE(out[3].contains("result"));
  EXPECT_TRUE(out[4]["result"].contains("tools"));
}

// The request our tool sent the client, waiting for it up to 10 s.
json wait_for_request(const std::function<std::vector<json>()>& sent, const std::string& method) {
  for (int i = 0; i < 1000; ++i) {
    for (const auto& m : sent())
      if (get_str(m, "method") == method && m.contains("id")) return m;
    std::this_thread::sleep_for(10ms);
  }
  return json();
}

TEST_F(McpProtocol, AToolAsksTheClientAndGetsItsAnswerMatchedById) {
  request(1, "tools/call", {{"name", "caps"}});
  EXPECT_EQ(response_to(1)["result"]["content"][0]["text"], R"({"sampling":{}})");
  request(2, "tools/call", {{"name", "ask"}});
  json asked = wait_for_request([this] { return sent(); }, "sampling/createMessage");
  ASSERT_TRUE(asked.is_object());
  EXPECT_TRUE(asked["id"].is_string());
  EXPECT_EQ(asked["params"]["maxTokens"], 10);
  // Answers to ids nobody waits for are dropped; the right one is delivered.
  protocol.on_line(R"({"jsonrpc":"2.0","id":"ouro-999","result":{"x":1}})");
  protocol.on_line(R"({"jsonrpc":"2.0","id":12345,"result":{"x":1}})");
  protocol.on_line(json{{"jsonrpc", "2.0"}, {"id", asked["id"]}, {"result", {{"content", {{"type", "text"}, {"text", "hi"}}}}}}.dump());
  json r = response_to(2);
  EXPECT_FALSE(r["result"].contains("isError")) << r.dump();
  EXPECT_NE(r["result"]["content"][0]["text"].get<std::string>().find("hi"), std::string::npos);
  // A second answer to the same id changes nothing.
  protocol.on_line(json{{"jsonrpc", "2.0"}, {"id", asked["id"]}, {"result", json::object()}}.dump());
}

TEST_F(McpProtocol, AClientErrorATimeoutAndACancellationEndTheRequest) {
  request(1, "tools/call", {{"name", "ask"}});
  json asked = wait_for_request([this] { return sent(); }, "sampling/createMessage");
  protocol.on_line(json{{"jsonrpc", "2.0"}, {"id", asked["id"]}, {"error", {{"code", -1}, {"message", "User rejected sampling request"}}}}.dump());
  json r = response_to(1);
  EXPECT_EQ(r["result"]["isError"], true);
  EXPECT_NE(r["result"]["content"][0]["text"].get<std::string>().find("User rejected"), std::string::npos) << r.dump();
  {
    std::lock_guard lock(mutex);
    out.clear();
  }
  // No answer: the deadline ends it, and the client is told the request is withdrawn.
  request(2, "tools/call", {{"name", "ask"}, {"arguments", {{"timeout_ms", 200}}}});
  r = response_to(2);
  EXPECT_NE(r["result"]["content"][0]["text"].get<std::string>().find("DeadlineExceeded"), std::string::npos) << r.dump();
  bool withdrawn = false;
  for (const auto& m : sent())
    if (get_str(m, "method") == "notifications/cancelled" && m["params"]["reason"] == "timed out") withdrawn = true;
  EXPECT_TRUE(withdrawn);
  {
    std::lock_guard lock(mutex);
    out.clear();
  }
  // The call is cancelled while it waits: it ends at once and sends no answer.
  request(3, "tools/call", {{"name", "ask"}});
  json third = wait_for_request([this] { return sent(); }, "sampling/createMessage");
  ASSERT_TRUE(third.is_object());
  auto t0 = std::chrono::steady_clock::now();
  protocol.on_line(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}})");
  EXPECT_TRUE(protocol.drain_for(5s));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  for (const auto& m : sent()) EXPECT_FALSE(m.contains("id") && m["id"] == 3) << m.dump();
}

TEST_F(McpProtocol, TheClientLeavingFailsWaitingRequests) {
  request(1, "tools/call", {{"name", "ask"}});
  ASSERT_TRUE(wait_for_request([this] { return sent(); }, "sampling/createMessage").is_object());
  auto t0 = std::chrono::steady_clock::now();
  protocol.cancel_all();
  EXPECT_TRUE(protocol.drain_for(5s));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
}

TEST_F(McpProtocol, RepliesGoWhereTheirMessageCameFrom) {
  // Streamable HTTP answers each POST on its own: a call's request to the client and its answer
  // go to the reply it came with, the answer marked last.
  std::mutex m;
  std::vector<std::pair<json, bool>> got;
  auto reply = [&](const std::string& line, bool last) {
    std::lock_guard lock(m);
    got.push_back({line.empty() ? json() : *parse_json(line), last});
    return true;
  };
  protocol.on_line(R"({"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"ask"}})", reply);
  json asked;
  for (int i = 0; i < 1000 && asked.is_null(); ++i) {
    {
      std::lock_guard lock(m);
      if (!got.empty()) asked = got[0].first;
    }
    std::this_thread::sleep_for(10ms);
  }
  ASSERT_EQ(get_str(asked, "method"), "sampling/createMessage");
  // The client's answer comes on another channel (another POST).
  protocol.on_line(json{{"jsonrpc", "2.0"}, {"id", asked["id"]}, {"result", {{"ok", true}}}}.dump(), [](const std::string&, bool) { return true; });
  protocol.drain();
  std::lock_guard lock(m);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_FALSE(got[0].second);
  EXPECT_TRUE(got[1].second);
  EXPECT_EQ(got[1].first["id"], "x");
  EXPECT_TRUE(sent().empty()) << "nothing went to the default channel";
}

TEST_F(McpProtocol, ARequestThatCannotBeDeliveredFailsAtOnce) {
  protocol.on_line(R"({"jsonrpc":"2.0","id":"y","method":"tools/call","params":{"name":"ask"}})", [](const std::string& line, bool last) {
    return last || line.find("sampling/createMessage") == std::string::npos;  // the client's stream is gone
  });
  auto t0 = std::chrono::steady_clock::now();
  protocol.drain();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
}

TEST(McpLineSplitter, SplitsAtEveryByteAndCutsOverlongLines) {
  std::string input = "{\"a\":1}\r\n\n  \n{\"b\":2}\n" + std::string(50, 'x') + "\n{\"c\":3}\npartial";
  for (size_t cut = 0; cut <= input.size(); ++cut) {
    LineSplitter s(20);
    std::vector<std::string> lines;
    int overlong = 0;
    auto out = [&](LineSplitter::Line l) {
      if (l.overlong) ++overlong;
      else lines.push_back(l.text);
    };
    s.feed(std::string_view(input).substr(0, cut), out);
    s.feed(std::string_view(input).substr(cut), out);
    EXPECT_EQ(lines, (std::vector<std::string>{"{\"a\":1}", "{\"b\":2}", "{\"c\":3}"})) << "cut at " << cut;
    EXPECT_EQ(overlong, 1);
  }
}

TEST(McpLineSplitter, AHugeLineIsNeverHeldWhole) {
  LineSplitter s(kMaxLineBytes);
  int overlong = 0, lines = 0;
  std::string chunk(1 << 20, 'a');
  for (int i = 0; i < 20; ++i)
    s.feed(chunk, [&](LineSplitter::Line l) { l.overlong ? ++overlong : ++lines; });
  s.feed("\n{}\n", [&](LineSplitter::Line l) { l.overlong ? ++overlong : ++lines; });
  EXPECT_EQ(overlong, 1);
  EXPECT_EQ(lines, 1);
}

}  // namespace
}  // namespace ouro::mcp
