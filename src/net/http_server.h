// A small HTTP/1.1 server (Boost.Beast) on 127.0.0.1 for the API server and the tests' fixture
// sites. Handlers run on the network thread and must not block; a response may ask to be delayed.
//
// It refuses early: a request's header is read first and shown to the owner's header check, so
// a request without the right Host or token is answered before its body is read; bodies larger
// than the limit get 413; connections beyond the cap get 503; a client that is slow to send its
// header or body is cut off at a deadline. Any exception a handler throws becomes a 500 JSON
// error and never reaches the io_context.
#pragma once

#include "base/error.h"
#include "net/io.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ouro::net {

struct HttpRequest {
  std::string method;
  std::string target;  // path and query, as sent
  std::string path;    // target without the query
  std::string query;   // after '?', may be empty
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;    // empty while only the header has been read
  bool upgrade = false;  // a WebSocket upgrade request

  std::string header(const std::string& lower_name) const;
  // The first parameter `key` of the query, percent-decoded ('+' a space, as HTML forms send
  // it; RFC 3986 §3.4 and the URL Standard's application/x-www-form-urlencoded), read with
  // Boost.URL; nullopt when absent or when the query is not a valid one.
  std::optional<std::string> param(std::string_view key) const;
};

// The same for a query string on its own (what follows '?').
std::optional<std::string> query_param(std::string_view query, std::string_view key);

// A response body sent while it is produced (Server-Sent Events, WHATWG HTML §9.2): the handler
// keeps the stream and writes to it from any thread; the connection sends the header at once,
// then what is written as it comes, and closes after the end — the body is delimited by the
// connection's close (RFC 9112 §6.3, rule 8), so a streamed response is the connection's last.
// Bytes written before the response is given wait in the stream.
class BodyStream {
 public:
  // At most `max_buffered_bytes` wait to be sent; past that the client is too far behind.
  static std::shared_ptr<BodyStream> create(size_t max_buffered_bytes = 8u << 20);
  ~BodyStream();
  BodyStream(const BodyStream&) = delete;
  BodyStream& operator=(const BodyStream&) = delete;

  // Queues bytes. False (nothing queued) once the stream has ended or is closed, and when the
  // bytes would take what waits past the limit — the stream is then closed. Any thread.
  bool write(std::string bytes);
  // Nothing more comes: the connection closes once what is queued has been sent. Any thread.
  void end();
  // False once ended or closed.
  bool open() const;
  // `fn` runs once when the stream is over — its end sent, the client gone, the server stopped —
  // on the network thread, not under the stream's lock; at once when it is over already. It must
  // not block. Replaces an earlier one.
  void on_close(std::function<void()> fn);

 private:
  BodyStream() = default;
  friend struct BodyStreamAccess;
  struct State;
  std::unique_ptr<State> m;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/html; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  std::chrono::milliseconds delay{0};  // answer after this long (fixtures: slow pages)
  // Set: the body is this stream's, sent as it is written (`body` is ignored); the connection
  // closes after it. A client that reads nothing for Limits::body_timeout is cut off.
  std::shared_ptr<BodyStream> stream;
};

// {"error": {"code", "message", "kind"?}} with the given status, as the API answers every failure;
// the server uses it for what it refuses itself (413, 503, 400, 500). `kind`, when given, names
// the case for a client to decide on (e.g. "no-model") without reading the message.
HttpResponse json_error(int status, std::string_view code, const std::string& message, std::string_view kind = {});

// WebSocket close codes (RFC 6455 §7.4.1) the servers use.
enum class CloseCode : uint16_t {
  Normal = 1000,
  GoingAway = 1001,
  PolicyViolation = 1008,
  InternalError = 1011,
  TryAgainLater = 1013,
};

// The server side of an accepted WebSocket (RFC 6455). Every method may be called from any
// thread; messages go out in order, one write in flight.
class WsPeer {
 public:
  enum class Sent {
    Queued,
    Full,    // nothing queued: the client is too far behind (the caller decides what it gets)
    Closed,  // nothing queued: the socket is closing or closed
  };
  virtual ~WsPeer() = default;
  // Queues a text message, unless it would take the bytes waiting for this client past the
  // server's Limits::ws_outbox_bytes (a message is taken whatever its size when none waits).
  virtual Sent send(std::string text) = 0;
  // Like send, but Full already when `max_waiting` messages wait for this client (the one being
  // written counts): for frames of a live view, where a slow client should see the newest frames
  // rather than every frame late.
  virtual Sent send_or_drop(std::string text, size_t max_waiting) = 0;
  // Closes the connection once what is queued has been written, with a close code and a reason
  // the client can read (at most 123 bytes; longer ones are cut). Later sends return false.
  virtual void close(CloseCode code = CloseCode::Normal, std::string reason = {}) = 0;
};

struct WsHandlers {
  std::function<void(std::string)> on_message;  // network thread
  std::function<void()> on_close;               // network thread, once
  // Set by the upgrade handler for this socket alone: the subprotocol the handshake's answer
  // names (RFC 6455 §4.2.2, Sec-WebSocket-Protocol; "" names none), and limits above the
  // server's (0 keeps Limits::ws_message_bytes and ws_outbox_bytes).
  std::string subprotocol;
  size_t max_message_bytes = 0;
  size_t outbox_bytes = 0;
};

class HttpServer {
 public:
  struct Limits {
    size_t max_body_bytes = 1u << 20;          // larger bodies: 413, and the connection closes
    size_t max_header_bytes = 16u << 10;       // request line and fields: larger is 431
    size_t max_connections = 256;              // open HTTP and WebSocket connections; beyond: 503
    std::chrono::milliseconds header_timeout{10000};  // to receive a request's header (and keep-alive idle)
    std::chrono::milliseconds body_timeout{30000};    // to receive its body once the header is in
    size_t ws_outbox_bytes = 8u << 20;         // per WebSocket client, see WsPeer::send
    size_t ws_message_bytes = 1u << 20;        // largest message a WebSocket client may send
  };

  using Handler = std::function<HttpResponse(const HttpRequest&)>;
  // A handler that may answer later, from any thread (work that waits must not hold the
  // network thread): call `respond` exactly once.
  using AsyncHandler = std::function<void(const HttpRequest&, std::function<void(HttpResponse)> respond)>;
  // For a WebSocket upgrade request: return a response to refuse it, or fill `handlers` (and keep
  // `peer` to talk) to accept it. Network thread.
  using UpgradeHandler = std::function<std::optional<HttpResponse>(const HttpRequest&, std::shared_ptr<WsPeer> peer, WsHandlers& handlers)>;
  // Sees every request (upgrades included) with its header only, before the body is read; a
  // response refuses the request and closes the connection. Network thread.
  using HeaderCheck = std::function<std::optional<HttpResponse>(const HttpRequest& headers_only)>;

  struct Options {
    uint16_t port = 0;  // 0 picks a free port
    // The address to listen on: an IPv4 or IPv6 literal ("0.0.0.0", "::"). Callers decide when
    // anything but loopback is safe (ApiServer: only with a token the operator set).
    std::string address = "127.0.0.1";
    Limits limits;
    HeaderCheck check_headers;  // may be empty: every header is accepted
    // Told of every answer as it is sent, on the network thread (it must not block): the request
    // (empty when its header could not be read), the status, and the milliseconds from the
    // request's header read to its answer — to its head for a streamed one, before a fixture's
    // `delay` — as the response's Server-Timing header says too. A WebSocket's handshake is
    // not an answer here. May be empty.
    std::function<void(const HttpRequest&, int status, double ms)> on_answered;
  };

  // Listens on options.address (127.0.0.1 by default). Fails with Unavailable when the port is
  // taken, InvalidArgument when the address is not an IP literal.
  static Result<std::unique_ptr<HttpServer>> start(IoThread& io, Options options, Handler handler, UpgradeHandler upgrade = {});
  static Result<std::unique_ptr<HttpServer>> start_async(IoThread& io, Options options, AsyncHandler handler, UpgradeHandler upgrade = {});
  // Stops listening and closes every connection and WebSocket (their on_close handlers run);
  // when it returns, no handler of this server runs again. A respond callback called later is
  // ignored. Any thread, the network thread included; the IoThread must still run.
  ~HttpServer();

  uint16_t port() const;
  std::string url(const std::string& path = "/") const;

 private:
  HttpServer() = default;
  struct Impl;
  std::shared_ptr<Impl> m_impl;
};

}  // namespace ouro::net
