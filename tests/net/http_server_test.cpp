// The HTTP server under clients that misbehave, over real sockets on 127.0.0.1: headers checked
// before bodies, body and connection caps, slow and malformed requests, handlers that throw,
// WebSocket clients that stop reading, and the server destroyed with work in flight.
#include "base/clock.h"
#include "base/json.h"
#include "net/http_server.h"
#include "net/io.h"
#include "net/websocket_client.h"
#include "raw_client.h"
#include "raw_server.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>
#include <tuple>
#include <vector>

namespace ouro::testing {
namespace {

using namespace std::chrono_literals;
using net::HttpRequest;
using net::HttpResponse;
using net::HttpServer;

std::string request_head(const std::string& method, const std::string& target, uint16_t port, const std::string& extra = "") {
  return method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) + "\r\n" + extra + "\r\n";
}

json error_of(const RawResponse& r) {
  auto body = parse_json(r.body);
  EXPECT_TRUE(body && body->contains("error")) << "not a JSON error: " << r.status << " " << r.body;
  return body ? body->value("error", json::object()) : json::object();
}

// A server whose handler says how many body bytes it got, and whose header check wants
// `X-Key: ok` on every path but /open.
struct Fixture {
  std::unique_ptr<net::IoThread> io = net::IoThread::start();
  std::unique_ptr<HttpServer> server;
  std::atomic<int> handled{0};
  explicit Fixture(HttpServer::Limits limits = {}, HttpServer::UpgradeHandler upgrade = {}) {
    HttpServer::Options o;
    o.limits = limits;
    o.check_headers = [](const HttpRequest& r) -> std::optional<HttpResponse> {
      if (r.path == "/open" || r.header("x-key") == "ok") return std::nullopt;
      return net::json_error(401, "Unauthenticated", "no key");
    };
    auto s = HttpServer::start(*io, o, [this](const HttpRequest& r) {
      ++handled;
      if (r.path == "/throw") throw std::runtime_error("the handler broke");
      HttpResponse res;
      res.content_type = "application/json";
      res.body = dump_json(json{{"bytes", r.body.size()}});
      return res;
    }, std::move(upgrade));
    if (!s) throw std::runtime_error(s.error().message);
    server = std::move(*s);
  }
  uint16_t port() const { return server->port(); }
};

// A server that accepts one WebSocket, and a raw client on it that reads only when told to.
struct OneWebSocket {
  std::promise<std::shared_ptr<net::WsPeer>> accepted;
  Fixture f;
  std::unique_ptr<RawClient> client;
  std::shared_ptr<net::WsPeer> peer;
  explicit OneWebSocket(HttpServer::Limits limits = {})
      : f(limits, [this](const HttpRequest&, std::shared_ptr<net::WsPeer> p, net::WsHandlers&) -> std::optional<HttpResponse> {
          accepted.set_value(p);
          return std::nullopt;
        }),
        client(std::make_unique<RawClient>(f.port())) {
    if (client->upgrade("/open").status != 101) throw std::runtime_error("the WebSocket upgrade failed");
    peer = accepted.get_future().get();
  }
};

TEST(HttpServer, RefusesOnTheHeaderBeforeReadingTheBody) {
  Fixture f;
  RawClient c(f.port());
  // Ten megabytes announced, none sent: the answer must come from the header alone.
  ASSERT_TRUE(c.send(request_head("POST", "/upload", f.port(), "Content-Length: 10485760\r\n")));
  RawResponse r = c.read_response(3s);
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(error_of(r)["code"], "Unauthenticated");
  EXPECT_EQ(r.headers["connection"], "close");
  EXPECT_TRUE(c.closed_within(5s)) << "a refused connection closes";
  EXPECT_EQ(f.handled, 0) << "the handler never saw it";
}

TEST(HttpServer, BodiesOverTheLimitGet413AndTheConnectionCloses) {
  HttpServer::Limits limits;
  limits.max_body_bytes = 1u << 20;
  Fixture f(limits);
  {
    RawClient c(f.port());
    c.send(request_head("POST", "/open", f.port(), "Content-Length: 1048577\r\n"));
    RawResponse r = c.read_response(3s);
    EXPECT_EQ(r.status, 413);
    EXPECT_NE(error_of(r)["message"].get<std::string>().find("1048576 bytes"), std::string::npos) << r.body;
    EXPECT_TRUE(c.closed_within(5s));
  }
  {
    // Chunked: the size is known only as it arrives.
    RawClient c(f.port());
    c.send(request_head("POST", "/open", f.port(), "Transfer-Encoding: chunked\r\n"));
    std::string chunk(64 << 10, 'x');
    bool refused = false;
    for (int i = 0; i < 40 && !refused; ++i) refused = !c.send("10000\r\n" + chunk + "\r\n");
    RawResponse r = c.read_response(3s);
    EXPECT_EQ(r.status, 413);
  }
  {
    // Exactly at the limit is fine, and a client that asks first gets its go-ahead.
    RawClient c(f.port());
    c.send(request_head("POST", "/open", f.port(), "Content-Length: 1048576\r\nExpect: 100-continue\r\n"));
    RawResponse go = c.read_response(3s);
    EXPECT_EQ(go.status, 100);
    c.send(std::string(1u << 20, 'y'));
    RawResponse r = c.read_response(3s);
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(parse_json(r.body).value_or(json())["bytes"], 1u << 20);
  }
}

TEST(HttpServer, ConnectionsBeyondTheCapGet503) {
  HttpServer::Limits limits;
  limits.max_connections = 4;
  Fixture f(limits);
  std::vector<std::unique_ptr<RawClient>> open;
  for (int i = 0; i < 4; ++i) open.push_back(std::make_unique<RawClient>(f.port()));
  // Connections are accepted in the order they arrive, so the fifth is over the cap.
  RawClient extra(f.port());
  RawResponse r = extra.read_response(3s);
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(error_of(r)["code"], "Unavailable");
  EXPECT_TRUE(extra.closed_within(5s));
  // The first four still work.
  open[0]->send(request_head("GET", "/open", f.port()));
  EXPECT_EQ(open[0]->read_response().status, 200);
  // One goes: a new client gets in again once the server has seen it go.
  open.pop_back();
  int status = 0;
  for (auto until = std::chrono::steady_clock::now() + 5s; status != 200 && std::chrono::steady_clock::now() < until;) {
    RawClient c(f.port());
    c.send(request_head("GET", "/open", f.port()));
    status = c.read_response(3s).status;
  }
  EXPECT_EQ(status, 200);
}

TEST(HttpServer, SlowHeadersAndBodiesAreCutOff) {
  HttpServer::Limits limits;
  limits.header_timeout = 300ms;
  limits.body_timeout = 300ms;
  Fixture f(limits);
  RawClient slow_header(f.port());
  slow_header.send("GET /open HTTP/1.1\r\nHost: 127.0.0.1\r\n");  // and never the blank line
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(slow_header.closed_within(5s));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
  RawClient slow_body(f.port());
  slow_body.send(request_head("POST", "/open", f.port(), "Content-Length: 100\r\n") + "only part");
  EXPECT_TRUE(slow_body.closed_within(5s));
  EXPECT_EQ(f.handled, 0);
}

TEST(HttpServer, MalformedRequestsGetJsonErrors) {
  HttpServer::Limits limits;
  limits.max_header_bytes = 4096;
  Fixture f(limits);
  for (std::string bad : {std::string("NOT HTTP AT ALL\r\n\r\n"), std::string("GET / HTTP/1.1\r\nNo colon here\r\n\r\n"),
                          std::string("GET /open HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n"),
                          std::string("GET /open HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n")}) {
    RawClient c(f.port());
    c.send(bad);
    RawResponse r = c.read_response(3s);
    EXPECT_EQ(r.status, 400) << bad;
    EXPECT_EQ(error_of(r)["code"], "InvalidArgument") << bad;
  }
  RawClient big(f.port());
  big.send("GET /open HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(8192, 'a') + "\r\n\r\n");
  EXPECT_EQ(big.read_response(3s).status, 431);
  EXPECT_EQ(f.handled, 0);
}

TEST(HttpServer, AnExceptionInAHandlerIsA500AndTheServerGoesOn) {
  std::promise<void> closed;
  Fixture f({}, [&](const HttpRequest&, std::shared_ptr<net::WsPeer>, net::WsHandlers& h) -> std::optional<HttpResponse> {
    h.on_message = [](std::string text) { throw std::runtime_error("cannot take " + text); };
    h.on_close = [&] { closed.set_value(); };
    return std::nullopt;
  });
  RawClient c(f.port());
  c.send(request_head("GET", "/throw", f.port(), "X-Key: ok\r\n"));
  RawResponse r = c.read_response();
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(error_of(r)["code"], "Internal");
  EXPECT_NE(error_of(r)["message"].get<std::string>().find("GET /throw failed: the handler broke"), std::string::npos) << r.body;
  // Same connection, next request.
  c.send(request_head("GET", "/open", f.port()));
  EXPECT_EQ(c.read_response().status, 200);
  // A WebSocket whose message handler throws is closed as an internal error.
  auto ws = net::WebSocketClient::connect(*f.io, "ws://127.0.0.1:" + std::to_string(f.port()) + "/open", 3s);
  ASSERT_TRUE(ws) << ws.error().message;
  (*ws)->start([](std::string) {}, [](Error) {});
  (*ws)->send("hello");
  EXPECT_EQ(closed.get_future().wait_for(5s), std::future_status::ready);
  RawClient after(f.port());
  after.send(request_head("GET", "/open", f.port()));
  EXPECT_EQ(after.read_response().status, 200);
}

// Every answer says how long the server took (W3C Server Timing: `app;dur=MS`, from the request's
// header read to its answer, a worker's queue included) and tells the owner the same figure —
// timed on ouro's clock, moved here by the test instead of waited for.
TEST(HttpServer, EveryAnswerSaysHowLongTheServerTookAndTellsTheOwner) {
  ManualClock clock(1'700'000'000'000.0);
  auto io = net::IoThread::start();
  std::promise<std::function<void(HttpResponse)>> held;
  std::mutex m;
  std::vector<std::tuple<std::string, int, double>> told;
  HttpServer::Options o;
  o.on_answered = [&](const HttpRequest& r, int status, double ms) {
    std::lock_guard lock(m);
    told.emplace_back(r.path, status, ms);
  };
  auto server = HttpServer::start_async(*io, o, [&](const HttpRequest& r, std::function<void(HttpResponse)> respond) {
    if (r.path == "/slow") return held.set_value(std::move(respond));
    HttpResponse res;
    res.status = 404;
    respond(res);
  });
  ASSERT_TRUE(server) << server.error().message;
  RawClient c((*server)->port());
  c.send(request_head("GET", "/slow", (*server)->port()));
  auto respond = held.get_future().get();
  clock.advance(250);
  respond(HttpResponse{});
  RawResponse r = c.read_response();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.headers["server-timing"], "app;dur=250.0");
  c.send(request_head("GET", "/missing", (*server)->port()));
  RawResponse quick = c.read_response();
  EXPECT_EQ(quick.status, 404);
  EXPECT_EQ(quick.headers["server-timing"], "app;dur=0.0");
  server->reset();
  std::lock_guard lock(m);
  ASSERT_EQ(told.size(), 2u);
  EXPECT_EQ(told[0], std::make_tuple(std::string("/slow"), 200, 250.0));
  EXPECT_EQ(told[1], std::make_tuple(std::string("/missing"), 404, 0.0));
}

// The client reads its URL by RFC 3986: the path and query reach the server as written (a browser
// service's token is in the query), the Host header names host and port; what is not a ws URL
// with a host and a port is refused before any connection, its query left out of the message.
TEST(HttpServer, TheWebSocketClientSendsPathQueryAndHostAsWrittenAndRefusesWhatIsNotAWsUrl) {
  std::promise<std::pair<std::string, std::string>> seen;
  Fixture f({}, [&](const HttpRequest& r, std::shared_ptr<net::WsPeer>, net::WsHandlers&) -> std::optional<HttpResponse> {
    seen.set_value({r.target, r.header("host")});
    return std::nullopt;
  });
  const std::string port = std::to_string(f.port());
  auto ws = net::WebSocketClient::connect(*f.io, "WS://127.0.0.1:" + port + "/open?token=a%20b&x=1#frag", 3s);
  ASSERT_TRUE(ws) << ws.error().message;
  auto got = seen.get_future();
  ASSERT_EQ(got.wait_for(5s), std::future_status::ready);
  auto [target, host] = got.get();
  EXPECT_EQ(target, "/open?token=a%20b&x=1");
  EXPECT_EQ(host, "127.0.0.1:" + port);
  for (const std::string& bad : std::vector<std::string>{"http://127.0.0.1:" + port + "/open", "ws://:" + port + "/",
                                "ws://u:SECRET1@127.0.0.1:" + port + "/", "ws://127.0.0.1:0/", "ws://127.0.0.1:99999/", "not a url ?token=SECRET1",
                                "ws://127.0.0.1:" + port + "/a b"}) {
    auto r = net::WebSocketClient::connect(*f.io, bad, 3s);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, Code::InvalidArgument) << bad;
    EXPECT_NE(r.error().message.find("is not a ws://host:port/path URL"), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().message.find("SECRET1"), std::string::npos) << r.error().message;
  }
}

// A browser endpoint that cannot be used says why, in the words of the usual cause, and never
// echoes the token: no port, TLS, nothing listening, a declined upgrade (a wrong token), a port
// that does not speak HTTP.
TEST(HttpServer, TheWebSocketClientNamesWhyAnEndpointCannotBeUsed) {
  Fixture f;
  const std::string port = std::to_string(f.port());
  auto io = net::IoThread::start();
  auto expect = [&](const std::string& url, Code code, const std::string& words) {
    auto r = net::WebSocketClient::connect(*io, url, 3s);
    ASSERT_FALSE(r) << url;
    EXPECT_EQ(r.error().code, code) << url << ": " << r.error().message;
    EXPECT_NE(r.error().message.find(words), std::string::npos) << url << ": " << r.error().message;
    EXPECT_EQ(r.error().message.find("SECRET1"), std::string::npos) << r.error().message;
  };
  expect("ws://127.0.0.1/open?token=SECRET1", Code::InvalidArgument, "has no port");
  expect("wss://127.0.0.1:" + port + "/?token=SECRET1", Code::InvalidArgument, "wss:// (WebSocket over TLS) is not supported");
  expect("ws://127.0.0.1:1/devtools?token=SECRET1", Code::Unavailable, "nothing listens there (connection refused)");
  // The server answers 401 to the upgrade, as a browser service does to a wrong token.
  expect("ws://127.0.0.1:" + port + "/closed?token=SECRET1", Code::PermissionDenied, "refused the WebSocket connection with HTTP 401");
  expect("ws://127.0.0.1:" + port + "/closed?token=SECRET1", Code::PermissionDenied, "the token");
  // A port that answers with something else than HTTP (a TLS server's alert, say).
  RawServer tls;
  tls.push({Step::write(std::string("\x15\x03\x01\x00\x02\x02\x46", 7)), Step::close()});
  std::string tls_port = tls.url().substr(tls.url().rfind(':') + 1);
  expect("ws://127.0.0.1:" + tls_port + "/?token=SECRET1", Code::Unavailable, "did not answer as an HTTP server");
}

// A WebSocket client that does not read: the server's queue for it stays bounded, and what it
// was sent before the close arrives whole and in order.
TEST(HttpServer, AWebSocketClientThatFallsBehindIsBoundedAndClosedWithAReason) {
  HttpServer::Limits limits;
  limits.ws_outbox_bytes = 64u << 10;
  OneWebSocket ws(limits);
  RawClient& c = *ws.client;
  auto peer = ws.peer;
  std::string message(1024, 'm');
  int sent = 0;
  // Kernel buffers take a few megabytes; past them, the outbox limit refuses.
  auto result = net::WsPeer::Sent::Queued;
  while (sent < 100000 && (result = peer->send(std::to_string(sent) + ":" + message)) == net::WsPeer::Sent::Queued) ++sent;
  ASSERT_EQ(result, net::WsPeer::Sent::Full) << "the outbox never filled";
  peer->close(net::CloseCode::TryAgainLater, "too far behind; reconnect with after=" + std::to_string(sent - 1));
  EXPECT_EQ(peer->send("late"), net::WsPeer::Sent::Closed) << "nothing is queued after close";
  for (int i = 0; i < sent; ++i) {
    auto frame = c.read_message();
    ASSERT_TRUE(frame) << "message " << i << " of " << sent;
    ASSERT_EQ(frame->opcode, 1);
    ASSERT_EQ(frame->payload.substr(0, frame->payload.find(':')), std::to_string(i));
  }
  auto close = c.read_message();
  ASSERT_TRUE(close);
  EXPECT_EQ(close->opcode, 8);
  EXPECT_EQ(close->close_code(), 1013);
  EXPECT_EQ(close->close_reason(), "too far behind; reconnect with after=" + std::to_string(sent - 1));
}

TEST(HttpServer, LiveViewFramesForASlowClientAreDroppedNotQueued) {
  OneWebSocket ws;
  RawClient& c = *ws.client;
  auto peer = ws.peer;
  std::string frame(64u << 10, 'f');
  int offered = 2000, queued = 0;  // 128 MB offered to a client that reads nothing
  for (int i = 0; i < offered; ++i) queued += peer->send_or_drop(frame, 2) == net::WsPeer::Sent::Queued ? 1 : 0;
  EXPECT_LT(queued, offered / 4) << "most frames are dropped";
  peer->close();
  int received = 0;
  while (auto f = c.read_message()) {
    if (f->opcode == 8) break;
    ++received;
  }
  EXPECT_EQ(received, queued) << "what was accepted arrives; nothing else was held";
}

TEST(HttpServer, DestroyingItWithARequestInFlightAndAWebSocketOpenIsSafe) {
  auto io = net::IoThread::start();
  std::mutex mutex;
  std::condition_variable cv;
  std::function<void(HttpResponse)> pending;
  bool ws_closed = false;
  std::atomic<int> calls{0};
  HttpServer::Options o;
  auto server = HttpServer::start_async(
      *io, o,
      [&](const HttpRequest&, std::function<void(HttpResponse)> respond) {
        ++calls;
        std::lock_guard lock(mutex);
        pending = std::move(respond);  // answered later, after the server is gone
        cv.notify_all();
      },
      [&](const HttpRequest&, std::shared_ptr<net::WsPeer>, net::WsHandlers& h) -> std::optional<HttpResponse> {
        ++calls;
        h.on_close = [&] {
          std::lock_guard lock(mutex);
          ws_closed = true;
        };
        return std::nullopt;
      });
  ASSERT_TRUE(server);
  uint16_t port = (*server)->port();
  RawClient ws(port);
  ASSERT_EQ(ws.upgrade("/ws").status, 101);
  RawClient waiting(port);
  waiting.send(request_head("GET", "/slow", port));
  {
    std::unique_lock lock(mutex);
    ASSERT_TRUE(cv.wait_for(lock, 5s, [&] { return pending != nullptr; }));
  }
  server->reset();
  {
    std::lock_guard lock(mutex);
    EXPECT_TRUE(ws_closed) << "the WebSocket's owner heard of the close before the destructor returned";
  }
  pending(HttpResponse{});  // too late: ignored, no crash
  EXPECT_TRUE(waiting.closed_within(5s));
  EXPECT_TRUE(ws.closed_within(5s));
  int before = calls;
  EXPECT_THROW(RawClient{port}, std::runtime_error) << "nothing listens any more";
  EXPECT_EQ(calls, before);
}

}  // namespace
}  // namespace ouro::testing

namespace ouro::testing {
namespace {

// A server whose handler answers with a stream the test writes to.
struct StreamFixture {
  std::unique_ptr<net::IoThread> io = net::IoThread::start();
  std::unique_ptr<HttpServer> server;
  std::shared_ptr<net::BodyStream> stream = net::BodyStream::create(64);
  std::atomic<int> closes{0};
  StreamFixture() {
    stream->on_close([this] { ++closes; });
    auto s = HttpServer::start_async(*io, HttpServer::Options{}, [this](const HttpRequest&, std::function<void(HttpResponse)> respond) {
      HttpResponse r;
      r.content_type = "text/event-stream";
      r.stream = stream;
      respond(std::move(r));
    });
    if (!s) throw std::runtime_error(s.error().message);
    server = std::move(*s);
  }
};

TEST(HttpServerStream, BytesGoOutAsWrittenAndTheEndClosesTheConnection) {
  StreamFixture f;
  ASSERT_TRUE(f.stream->write("data: before\n\n"));  // written before the response began: kept
  RawClient c(f.server->port());
  c.send(request_head("POST", "/mcp", f.server->port(), "Content-Length: 2\r\n") + "{}");
  RawResponse head = c.read_response();
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.headers["content-type"], "text/event-stream");
  EXPECT_EQ(head.headers.count("content-length"), 0u);
  EXPECT_EQ(head.headers["connection"], "close");
  ASSERT_TRUE(f.stream->write("data: after\n\n"));
  f.stream->end();
  EXPECT_FALSE(f.stream->write("late")) << "nothing is taken after the end";
  EXPECT_EQ(c.read_to_close(), "data: before\n\ndata: after\n\n");
  for (int i = 0; i < 100 && f.closes == 0; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(f.closes, 1);
}

TEST(HttpServerStream, AClientThatLeavesClosesTheStream) {
  StreamFixture f;
  {
    RawClient c(f.server->port());
    c.send(request_head("GET", "/events", f.server->port()));
    EXPECT_EQ(c.read_response().status, 200);
  }
  for (int i = 0; i < 500 && f.closes == 0; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(f.closes, 1);
  EXPECT_FALSE(f.stream->open());
  EXPECT_FALSE(f.stream->write("x"));
}

TEST(HttpServerStream, TooMuchWaitingEndsTheStreamAndDestroyingTheServerClosesIt) {
  StreamFixture f;
  ASSERT_TRUE(f.stream->write(std::string(40, 'a')));
  EXPECT_FALSE(f.stream->write(std::string(40, 'b'))) << "past the 64-byte limit";
  EXPECT_FALSE(f.stream->open());
  // Another stream, open when the server goes: its owner hears of the close.
  StreamFixture g;
  RawClient c(g.server->port());
  c.send(request_head("GET", "/events", g.server->port()));
  EXPECT_EQ(c.read_response().status, 200);
  g.server.reset();
  EXPECT_EQ(g.closes, 1);
  EXPECT_TRUE(c.closed_within(5s));
}

}  // namespace
}  // namespace ouro::testing

// A query parameter is read as URLs are everywhere in ouro, with Boost.URL: percent-decoded, '+'
// a space as forms send it, the first of repeated keys; an invalid query gives nothing rather
// than a guess.
TEST(HttpRequest, QueryParametersAreDecodedLikeAForm) {
  ouro::net::HttpRequest r;
  r.query = "q=lisbon%20flight+window&tag=trip%2Fsummer&empty=&flag&q=second&t%C3%A9=caf%C3%A9";
  EXPECT_EQ(r.param("q"), "lisbon flight window");
  EXPECT_EQ(r.param("tag"), "trip/summer");
  EXPECT_EQ(r.param("empty"), "");
  EXPECT_EQ(r.param("flag"), "");
  EXPECT_EQ(r.param("té"), "café");
  EXPECT_EQ(r.param("missing"), std::nullopt);
  EXPECT_EQ(ouro::net::query_param("token=abc%zz", "token"), std::nullopt) << "an invalid escape";
  EXPECT_EQ(ouro::net::query_param("", "token"), std::nullopt);
}
