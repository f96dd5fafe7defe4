// The extensions' sockets as the hub takes them (server/bridge_hub.h), over real WebSockets on
// 127.0.0.1: an extension of another protocol version is closed saying which to use, a second
// socket of one pairing replaces the first, a runs' link goes to the pairing asked for or else to
// the newest extension, with none connected the wait ends with how to load and pair one, and one
// not heard from for a minute (on the one clock, which the test moves) is let go.
#include "server/bridge_hub.h"

#include "base/clock.h"
#include "base/json.h"
#include "cdp/bridge.h"
#include "net/http_server.h"
#include "net/io.h"
#include "raw_client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

namespace ouro::server {
namespace {

using namespace std::chrono_literals;
using testing::RawClient;

// A client's text frame (RFC 6455 §5.2: masked; a zero key leaves the payload as it is).
std::string text_frame(const std::string& payload) {
  std::string f(1, static_cast<char>(0x81));
  if (payload.size() < 126) {
    f += static_cast<char>(0x80 | payload.size());
  } else {
    f += static_cast<char>(0x80 | 126);
    f += static_cast<char>((payload.size() >> 8) & 0xff);
    f += static_cast<char>(payload.size() & 0xff);
  }
  f += std::string(4, '\0');
  return f + payload;
}

std::string hello(int protocol) {
  return dump_json(json{{"method", "hello"}, {"params", {{"protocol", protocol}, {"extension", {{"id", "abcdefghijklmnop"}, {"version", "0.1.0"}}}}}});
}

// A server whose /PAIRING upgrades go to the hub as that pairing's socket.
struct Hub {
  std::unique_ptr<net::IoThread> io = net::IoThread::start();
  std::shared_ptr<BridgeHub> hub = std::make_shared<BridgeHub>(*io, "9.9.9");
  std::unique_ptr<net::HttpServer> server;
  Hub() {
    auto s = net::HttpServer::start(
        *io, {}, [](const net::HttpRequest&) {
          net::HttpResponse res;
          res.status = 404;
          return res;
        },
        [this](const net::HttpRequest& r, std::shared_ptr<net::WsPeer> peer, net::WsHandlers& h) -> std::optional<net::HttpResponse> {
          hub->accept(r.path.substr(1), std::move(peer), h);
          return std::nullopt;
        });
    if (!s) throw std::runtime_error(s.error().message);
    server = std::move(*s);
  }
  ~Hub() { server.reset(); }
  // An extension of `pairing` that said hello (and was welcomed when `protocol` is ours).
  std::unique_ptr<RawClient> extension(const std::string& pairing, int protocol = cdp::BridgeLink::kProtocol) {
    auto c = std::make_unique<RawClient>(server->port());
    EXPECT_EQ(c->upgrade("/" + pairing).status, 101);
    EXPECT_TRUE(c->send(text_frame(hello(protocol))));
    return c;
  }
};

TEST(BridgeHub, AnExtensionOfAnotherProtocolIsClosedSayingWhichToUse) {
  Hub h;
  auto old = h.extension("p1", 0);
  auto frame = old->read_message(5s);
  ASSERT_TRUE(frame);
  ASSERT_EQ(frame->opcode, 8) << frame->payload;
  EXPECT_EQ(frame->close_code(), 4002);
  EXPECT_NE(frame->close_reason().find("ouro 9.9.9 speaks bridge protocol " + std::to_string(cdp::BridgeLink::kProtocol) + "; this extension speaks 0"),
            std::string::npos)
      << frame->close_reason();
  EXPECT_FALSE(h.hub->connected("p1"));
}

TEST(BridgeHub, NoiseBeforeHelloIsIgnoredAndHelloIsWelcomed) {
  Hub h;
  RawClient c(h.server->port());
  ASSERT_EQ(c.upgrade("/p1").status, 101);
  ASSERT_TRUE(c.send(text_frame("not json")));
  ASSERT_TRUE(c.send(text_frame(R"({"method":"ping"})")));
  ASSERT_TRUE(c.send(text_frame(hello(cdp::BridgeLink::kProtocol))));
  auto welcome = c.read_message(5s);
  ASSERT_TRUE(welcome);
  ASSERT_EQ(welcome->opcode, 1);
  auto msg = parse_json(welcome->payload);
  ASSERT_TRUE(msg) << welcome->payload;
  EXPECT_EQ((*msg)["method"], "welcome");
  EXPECT_EQ((*msg)["params"]["protocol"], cdp::BridgeLink::kProtocol);
  EXPECT_EQ((*msg)["params"]["server"]["version"], "9.9.9");
  EXPECT_TRUE(h.hub->connected("p1"));
}

TEST(BridgeHub, ASecondSocketOfOnePairingReplacesTheFirst) {
  Hub h;
  auto first = h.extension("p1");
  ASSERT_TRUE(first->read_message(5s));  // welcome
  auto second = h.extension("p1");
  ASSERT_TRUE(second->read_message(5s));  // welcome
  auto closed = first->read_message(5s);
  ASSERT_TRUE(closed);
  ASSERT_EQ(closed->opcode, 8);
  EXPECT_EQ(closed->close_code(), 4003);
  EXPECT_TRUE(h.hub->connected("p1"));
  auto link = h.hub->link(1s);
  ASSERT_TRUE(link) << link.error().message;
  EXPECT_FALSE((*link)->closed());
}

TEST(BridgeHub, RunsGetTheirPairingsLinkElseTheNewest) {
  Hub h;
  auto p1 = h.extension("p1");
  ASSERT_TRUE(p1->read_message(5s));
  auto p2 = h.extension("p2");
  ASSERT_TRUE(p2->read_message(5s));
  auto newest = h.hub->link(1s);
  auto asked = h.hub->link(1s, "p1");
  auto unknown = h.hub->link(1s, "p3");
  ASSERT_TRUE(newest && asked && unknown);
  EXPECT_NE(newest->get(), asked->get());
  EXPECT_EQ(unknown->get(), newest->get());
  auto p2_link = h.hub->link(1s, "p2");
  ASSERT_TRUE(p2_link) << p2_link.error().message;
  EXPECT_EQ(p2_link->get(), newest->get());
}

TEST(BridgeHub, WithNoExtensionTheWaitEndsWithHowToLoadAndPairOne) {
  Hub h;
  auto none = h.hub->link(50ms);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, Code::FailedPrecondition);
  EXPECT_NE(none.error().message.find("ouro extension"), std::string::npos) << none.error().message;
  EXPECT_NE(none.error().message.find("pairing code"), std::string::npos) << none.error().message;
  // One that leaves is no longer offered.
  auto gone = h.extension("p1");
  ASSERT_TRUE(gone->read_message(5s));
  ASSERT_TRUE(h.hub->link(1s));
  gone.reset();
  for (auto until = std::chrono::steady_clock::now() + 5s; h.hub->connected("p1") && std::chrono::steady_clock::now() < until;)
    std::this_thread::sleep_for(10ms);
  EXPECT_FALSE(h.hub->connected("p1"));
  EXPECT_FALSE(h.hub->link(50ms));
}

TEST(BridgeHub, AnExtensionNotHeardFromForAMinuteIsLetGo) {
  ManualClock clock(1'700'000'000'000.0);
  Hub h;
  auto ext = h.extension("p1");
  ASSERT_TRUE(ext->read_message(5s));  // welcomed: its hello was heard
  clock.advance(50'000);
  // At 50 s its keep-alive ping (answered with a pong): heard again.
  ASSERT_TRUE(ext->send(text_frame(R"({"method":"ping","params":{"t":1}})")));
  auto pong = ext->read_message(5s);
  ASSERT_TRUE(pong);
  EXPECT_NE(pong->payload.find("pong"), std::string::npos) << pong->payload;
  // 100 s since its hello, 50 since its ping: kept.
  clock.advance(50'000);
  EXPECT_FALSE(ext->read_message(300ms)) << "let go though heard from 50 s ago";
  EXPECT_TRUE(h.hub->connected("p1"));
  // A minute and more since its ping: closed, saying why, without the test waiting a minute.
  clock.advance(11'000);
  auto bye = ext->read_message(5s);
  ASSERT_TRUE(bye) << "still open past a minute of silence";
  ASSERT_EQ(bye->opcode, 8) << bye->payload;
  EXPECT_EQ(bye->close_code(), 1001);
  EXPECT_NE(bye->close_reason().find("nothing heard from the extension"), std::string::npos) << bye->close_reason();
}

}  // namespace
}  // namespace ouro::server
