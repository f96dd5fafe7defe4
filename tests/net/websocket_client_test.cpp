// The WebSocket client (net/websocket_client.h) against net::HttpServer's WebSocket side on
// 127.0.0.1 (RFC 6455): messages both ways whole and in order, each sending thread's in its own
// order; a close by the server reported once, after what it sent before; a close ouro asked for
// not reported; a server that accepts the connection and never answers the handshake ends at the
// deadline; a declined upgrade named by its usual cause. (The URL checks and the 401 wording are
// tested with the HTTP server, tests/net/http_server_test.cpp.)
#include "net/http_server.h"
#include "net/io.h"
#include "net/websocket_client.h"
#include "../support/ws_server.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace ouro::net {
namespace {

using namespace std::chrono_literals;

using Seen = testing::Delivered;
using testing::drained;

void watch(WebSocketClient& client, const std::shared_ptr<Seen>& seen) { client.start(Seen::message_to(seen), Seen::close_to(seen)); }

// A message "echo:X" is answered with "X", "big:N" with N bytes.
struct WsServer : testing::LoopbackWsServer {
  WsServer()
      : LoopbackWsServer([](const std::string& text) -> std::optional<std::string> {
          if (text.rfind("echo:", 0) == 0) return text.substr(5);
          if (text.rfind("big:", 0) == 0) return std::string(std::stoul(text.substr(4)), 'b');
          return std::nullopt;
        }) {}
};

TEST(WebSocketClient, MessagesGoBothWaysWholeAndInOrder) {
  WsServer server;
  auto io = IoThread::start();
  auto seen = std::make_shared<Seen>();
  auto client = WebSocketClient::connect(*io, server.url(), 5s);
  ASSERT_TRUE(client) << client.error().message;
  watch(**client, seen);
  std::vector<std::string> want;
  for (int i = 0; i < 300; ++i) {
    (*client)->send("echo:" + std::to_string(i));
    want.push_back(std::to_string(i));
  }
  const std::string large(600u << 10, 'l');  // under the server's 1 MiB message limit
  (*client)->send("echo:" + large);
  want.push_back(large);
  (*client)->send("big:" + std::to_string(6u << 20));  // 6 MiB from the server, far over one frame
  ASSERT_TRUE(seen->wait([&] { return seen->messages.size() >= want.size() + 1; })) << "only " << seen->all_messages().size();
  auto got = seen->all_messages();
  ASSERT_EQ(got.size(), want.size() + 1);
  for (size_t i = 0; i < want.size(); ++i) ASSERT_TRUE(got[i] == want[i]) << "message " << i << " differs";
  EXPECT_EQ(got.back().size(), 6u << 20);
  EXPECT_EQ(got.back().find_first_not_of('b'), std::string::npos);
  EXPECT_TRUE(seen->all_closes().empty());
}

// send() may be called from any thread: the server reads each thread's messages in the order
// that thread queued them.
TEST(WebSocketClient, SendsFromSeveralThreadsKeepEachThreadsOrder) {
  WsServer server;
  auto io = IoThread::start();
  auto seen = std::make_shared<Seen>();
  auto client = WebSocketClient::connect(*io, server.url(), 5s);
  ASSERT_TRUE(client) << client.error().message;
  watch(**client, seen);
  std::vector<std::thread> senders;
  for (int t = 0; t < 4; ++t)
    senders.emplace_back([&client, t] {
      for (int i = 0; i < 200; ++i) (*client)->send(std::to_string(t) + ":" + std::to_string(i));
    });
  for (auto& s : senders) s.join();
  ASSERT_TRUE(server.wait([&] { return server.received.size() >= 800; })) << "only " << server.all_received().size() << " arrived";
  std::map<int, int> next;
  for (const std::string& m : server.all_received()) {
    const int t = m[0] - '0';
    EXPECT_EQ(m, std::to_string(t) + ":" + std::to_string(next[t])) << "thread " << t << "'s messages out of order";
    ++next[t];
  }
  EXPECT_EQ(next.size(), 4u);
}

// A server that closes (a browser that quits, a service at its time limit): what it sent before
// arrives first, then on_close once, as Unavailable, saying the other end closed it.
TEST(WebSocketClient, AServersCloseIsReportedOnceAfterWhatItSent) {
  WsServer server;
  auto io = IoThread::start();
  auto seen = std::make_shared<Seen>();
  auto client = WebSocketClient::connect(*io, server.url(), 5s);
  ASSERT_TRUE(client) << client.error().message;
  watch(**client, seen);
  ASSERT_TRUE(server.wait([&] { return server.peer != nullptr; }));
  std::shared_ptr<WsPeer> peer;
  {
    std::lock_guard lock(server.mutex);
    peer = server.peer;
  }
  for (const char* m : {"one", "two", "three"}) (void)peer->send(m);
  peer->close(CloseCode::GoingAway, "the session's time is up");
  ASSERT_TRUE(seen->wait([&] { return !seen->closes.empty(); })) << "the close was never reported";
  EXPECT_EQ(seen->all_messages(), (std::vector<std::string>{"one", "two", "three"}));
  (*client)->send("after the close");  // dropped: the connection is over
  ASSERT_TRUE(drained(*io));
  auto closes = seen->all_closes();
  ASSERT_EQ(closes.size(), 1u);
  EXPECT_EQ(closes[0].code, Code::Unavailable);
  EXPECT_NE(closes[0].message.find("the other end closed it"), std::string::npos) << closes[0].message;
  EXPECT_EQ(seen->all_messages().size(), 3u);
  peer.reset();
}

// "on_close is not called for a close we asked for": the server sees the connection go, the
// client's owner hears nothing.
TEST(WebSocketClient, ACloseOuroAskedForIsNotReported) {
  WsServer server;
  auto io = IoThread::start();
  auto seen = std::make_shared<Seen>();
  auto client = WebSocketClient::connect(*io, server.url(), 5s);
  ASSERT_TRUE(client) << client.error().message;
  watch(**client, seen);
  (*client)->send("echo:before");
  ASSERT_TRUE(seen->wait([&] { return !seen->messages.empty(); }));
  (*client)->close();
  EXPECT_TRUE(server.wait([&] { return server.closed; })) << "the server never saw the connection close";
  ASSERT_TRUE(drained(*io));
  EXPECT_TRUE(seen->all_closes().empty()) << seen->all_closes()[0].message;
  EXPECT_EQ(seen->all_messages(), std::vector<std::string>{"before"});
  (*client)->close();  // again, and then the destructor: harmless
}

// A send after close() is dropped, not a crash (send() may be called from any thread at any
// time). A death test, so that were it to crash, only a child process would end.
TEST(WebSocketClientDeathTest, ASendAfterCloseIsDroppedNotACrash) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        WsServer server;
        auto io = IoThread::start();
        auto client = WebSocketClient::connect(*io, server.url(), 5s);
        if (!client) _exit(2);
        (*client)->close();
        (*client)->send("late");
        (void)drained(*io);
        _exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

// A server that takes the connection and never answers the handshake (a stopped process, a
// port that is not a browser's) ends at the deadline, naming it, the URL's token left out.
TEST(WebSocketClient, AHandshakeNeverAnsweredEndsAtTheDeadline) {
  int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(listener, 4), 0);  // the kernel completes the TCP handshake; nothing reads
  socklen_t len = sizeof a;
  ASSERT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&a), &len), 0);
  const std::string url = "ws://127.0.0.1:" + std::to_string(ntohs(a.sin_port)) + "/devtools/browser/x?token=SECRET3";

  auto io = std::shared_ptr<IoThread>(IoThread::start());
  auto outcome = std::make_shared<std::promise<Error>>();
  auto f = outcome->get_future();
  const auto began = std::chrono::steady_clock::now();
  // On a thread of its own, so that a connect that never returns fails the test instead of hanging it.
  std::thread([io, url, outcome] {
    auto r = WebSocketClient::connect(*io, url, 300ms);
    outcome->set_value(r ? Error{Code::Ok, "connected", nullptr} : r.error());
  }).detach();
  ASSERT_EQ(f.wait_for(20s), std::future_status::ready) << "connect() never returned";
  const auto took = std::chrono::steady_clock::now() - began;
  const Error e = f.get();
  EXPECT_EQ(e.code, Code::DeadlineExceeded) << e.message;
  EXPECT_NE(e.message.find("within 300 ms"), std::string::npos) << e.message;
  EXPECT_EQ(e.message.find("SECRET3"), std::string::npos) << e.message;
  EXPECT_LT(took, 10s) << "the 300 ms deadline was not kept";
  ::close(listener);
}

// A declined upgrade (RFC 6455 section 4.1: anything but 101) says what its status usually means.
TEST(WebSocketClient, ADeclinedUpgradeIsNamedByItsUsualCause) {
  WsServer server;
  auto io = IoThread::start();
  struct Case {
    int status;
    Code code;
    const char* words;
  };
  for (const Case& c : {Case{404, Code::Unavailable, "nothing is at that path"}, Case{403, Code::PermissionDenied, "the token"},
                        Case{429, Code::Unavailable, "busy or at its session limit"},
                        Case{503, Code::Unavailable, "busy or at its session limit"},
                        Case{500, Code::Unavailable, "the endpoint is not a DevTools WebSocket"}}) {
    SCOPED_TRACE(c.status);
    auto r = WebSocketClient::connect(*io, server.url("/status/" + std::to_string(c.status)) + "?token=SECRET4", 5s);
    ASSERT_FALSE(r) << "the refused upgrade connected";
    EXPECT_EQ(r.error().code, c.code) << r.error().message;
    EXPECT_NE(r.error().message.find("refused the WebSocket connection with HTTP " + std::to_string(c.status)), std::string::npos)
        << r.error().message;
    EXPECT_NE(r.error().message.find(c.words), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().message.find("SECRET4"), std::string::npos) << r.error().message;
  }
}

}  // namespace
}  // namespace ouro::net
