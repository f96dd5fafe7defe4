#include "net/http_server.h"

#include "base/clock.h"
#include "base/json.h"
#include "base/log.h"
#include "net/timer.h"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/url/params_view.hpp>
#include <boost/url/parse_query.hpp>

#include <algorithm>
#include <atomic>
#include <deque>
#include <future>
#include <mutex>
#include <optional>
#include <sstream>

namespace ouro::net {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

std::string HttpRequest::header(const std::string& lower_name) const {
  auto it = headers.find(lower_name);
  return it == headers.end() ? std::string() : it->second;
}

std::optional<std::string> HttpRequest::param(std::string_view key) const { return query_param(query, key); }

std::optional<std::string> query_param(std::string_view query, std::string_view key) {
  // Checked first, so the view below (which throws on an invalid query) is given a valid one.
  if (!boost::urls::parse_query(query)) return std::nullopt;
  boost::urls::encoding_opts forms;
  forms.space_as_plus = true;
  for (auto p : boost::urls::params_view(boost::urls::string_view(query.data(), query.size()), forms))
    if (p.key == key) return std::string(p.value);
  return std::nullopt;
}

HttpResponse json_error(int status, std::string_view code, const std::string& message, std::string_view kind) {
  HttpResponse r;
  r.status = status;
  r.content_type = "application/json";
  json error = {{"code", std::string(code)}, {"message", message}};
  if (!kind.empty()) error["kind"] = std::string(kind);
  r.body = dump_json(json{{"error", std::move(error)}});
  r.headers.push_back({"Cache-Control", "no-store"});
  return r;
}

// --- Streamed bodies ----------------------------------------------------------------------------

struct BodyStream::State {
  mutable std::mutex mutex;
  std::deque<std::string> queue;
  size_t queued_bytes = 0, max_bytes = 0;
  bool ended = false;   // no more writes; closes when the queue is sent
  bool closed = false;  // over: nothing more is sent
  std::function<void()> wake;      // set by the connection: there is something to send
  std::function<void()> on_close;  // the owner's
};

std::shared_ptr<BodyStream> BodyStream::create(size_t max_buffered_bytes) {
  std::shared_ptr<BodyStream> s(new BodyStream());
  s->m = std::make_unique<State>();
  s->m->max_bytes = max_buffered_bytes;
  return s;
}

BodyStream::~BodyStream() = default;

bool BodyStream::write(std::string bytes) {
  std::function<void()> wake;
  {
    std::lock_guard lock(m->mutex);
    if (m->ended || m->closed) return false;
    if (m->queued_bytes + bytes.size() > m->max_bytes && !m->queue.empty()) {
      // Too far behind: the connection closes when it looks next.
      m->ended = true;
      m->queue.clear();
      m->queued_bytes = 0;
      wake = m->wake;
    } else {
      m->queued_bytes += bytes.size();
      m->queue.push_back(std::move(bytes));
      wake = m->wake;
      bytes.clear();
    }
  }
  if (wake) wake();
  return bytes.empty();
}

void BodyStream::end() {
  std::function<void()> wake;
  {
    std::lock_guard lock(m->mutex);
    if (m->ended || m->closed) return;
    m->ended = true;
    wake = m->wake;
  }
  if (wake) wake();
}

bool BodyStream::open() const {
  std::lock_guard lock(m->mutex);
  return !m->ended && !m->closed;
}

void BodyStream::on_close(std::function<void()> fn) {
  {
    std::lock_guard lock(m->mutex);
    if (!m->closed) {
      m->on_close = std::move(fn);
      return;
    }
  }
  if (fn) fn();
}

// The connection's side of a BodyStream.
struct BodyStreamAccess {
  static void attach(BodyStream& s, std::function<void()> wake) {
    std::lock_guard lock(s.m->mutex);
    s.m->wake = std::move(wake);
  }
  // What waits, appended to `out`; true when the stream has ended and nothing more will come.
  static bool take(BodyStream& s, std::string& out) {
    std::lock_guard lock(s.m->mutex);
    for (auto& piece : s.m->queue) out += piece;
    s.m->queue.clear();
    s.m->queued_bytes = 0;
    return s.m->ended;
  }
  static void finish(BodyStream& s) {
    std::function<void()> fn;
    {
      std::lock_guard lock(s.m->mutex);
      if (s.m->closed) return;
      s.m->closed = true;
      s.m->queue.clear();
      s.m->wake = nullptr;
      fn = std::move(s.m->on_close);
    }
    if (fn) fn();
  }
};

namespace {

// Something the server closes at once when it stops.
struct Closable {
  virtual ~Closable() = default;
  // Network thread. Runs the owner's close handlers now, not later.
  virtual void force_close() = 0;
};

// What an exception escaping a handler becomes: the message names what failed; no stack, and
// it passes redact() in case it quotes a secret.
HttpResponse internal_error(const std::string& what, const char* detail) {
  std::string message = redact(what + " failed: " + detail);
  spdlog::error("http: {}", message);
  return json_error(500, "Internal", message);
}

std::string describe(const HttpRequest& r) { return r.method + " " + r.path; }

}  // namespace

namespace {

// What the server's connections share with it; outlives the HttpServer while they hold it.
struct Server : std::enable_shared_from_this<Server> {
  Server(IoThread& thread, HttpServer::Options o) : io(thread), acceptor(thread.context()), retry(thread.context()), options(std::move(o)) {}
  IoThread& io;
  tcp::acceptor acceptor;
  Timer retry;  // accepting again after running out of descriptors
  HttpServer::Options options;
  uint16_t port = 0;
  // The owner's handlers, dropped when the server stops; copied before each call so a handler
  // that destroys the server does not destroy itself mid-call. Network thread.
  std::shared_ptr<HttpServer::AsyncHandler> handler;
  std::shared_ptr<HttpServer::UpgradeHandler> upgrade;
  bool stopped = false;  // network thread

  // Open connections, by slot id. Slots end on whichever thread lets the connection go (a
  // worker that answered last), hence the mutex.
  std::mutex mutex;
  std::map<uint64_t, std::weak_ptr<Closable>> live;
  uint64_t next_slot = 1;

  void accept();
  void stop();
};

// A place among the server's open connections: taken when a connection is accepted, given back
// when the last owner of its socket (the HTTP connection, then its WebSocket) goes.
struct Slot {
  std::shared_ptr<Server> server;
  uint64_t id = 0;
  explicit Slot(std::shared_ptr<Server> s) : server(std::move(s)) {
    std::lock_guard lock(server->mutex);
    id = server->next_slot++;
    server->live[id];
  }
  ~Slot() {
    std::lock_guard lock(server->mutex);
    server->live.erase(id);
  }
  void hold(std::weak_ptr<Closable> owner) {
    std::lock_guard lock(server->mutex);
    server->live[id] = std::move(owner);
  }
};

// --- WebSocket (RFC 6455) ------------------------------------------------------------------------

struct WsSession : WsPeer, Closable, std::enable_shared_from_this<WsSession> {
  WsSession(asio::io_context& io, const HttpServer::Limits& limits) : io(io), outbox_limit(limits.ws_outbox_bytes), message_limit(limits.ws_message_bytes) {}

  asio::io_context& io;
  size_t outbox_limit, message_limit;  // set before start, read after
  std::shared_ptr<Slot> slot;
  std::optional<websocket::stream<beast::tcp_stream>> ws;  // set when the upgrade is accepted
  beast::flat_buffer buffer;

  // Network thread.
  WsHandlers handlers;
  std::deque<std::string> outbox;
  bool open = false, writing = false, closing_started = false, finished = false;
  std::optional<websocket::close_reason> close_after_outbox;

  // What waits for the client, counted where send() is called (any thread).
  std::mutex mutex;
  size_t queued_bytes = 0, queued_messages = 0;
  bool accepting = true;

  void start(beast::tcp_stream stream, http::request<http::empty_body> req) {
    ws.emplace(std::move(stream));
    beast::get_lowest_layer(*ws).expires_never();
    ws->set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
    if (handlers.max_message_bytes) message_limit = handlers.max_message_bytes;
    if (handlers.outbox_bytes) {
      std::lock_guard lock(mutex);
      outbox_limit = handlers.outbox_bytes;
    }
    ws->read_message_max(message_limit);
    if (!handlers.subprotocol.empty())
      ws->set_option(websocket::stream_base::decorator([protocol = handlers.subprotocol](websocket::response_type& res) {
        res.set(http::field::sec_websocket_protocol, protocol);
      }));
    ws->async_accept(req, [self = shared_from_this()](beast::error_code ec) {
      if (ec) return self->finish();
      self->open = true;
      self->pump();
      self->read();
    });
  }

  void read() {
    ws->async_read(buffer, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec || self->finished) return self->finish();
      std::string text = beast::buffers_to_string(self->buffer.data());
      self->buffer.consume(self->buffer.size());
      if (self->handlers.on_message) {
        try {
          self->handlers.on_message(std::move(text));
        } catch (const std::exception& e) {
          (void)internal_error("a WebSocket message handler", e.what());
          return self->close_now(CloseCode::InternalError, "internal error");
        }
      }
      self->read();
    });
  }

  // Starts the next write, or the close that waited for the outbox to empty. Network thread.
  void pump() {
    if (!open || writing || finished) return;
    if (!outbox.empty()) {
      writing = true;
      ws->text(true);
      ws->async_write(asio::buffer(outbox.front()), [self = shared_from_this()](beast::error_code ec, std::size_t) {
        self->writing = false;
        {
          std::lock_guard lock(self->mutex);
          self->queued_bytes -= std::min(self->queued_bytes, self->outbox.front().size());
          if (self->queued_messages) --self->queued_messages;
        }
        self->outbox.pop_front();
        if (ec) return self->finish();
        self->pump();
      });
    } else if (close_after_outbox && !closing_started) {
      closing_started = true;
      ws->async_close(*close_after_outbox, [self = shared_from_this()](beast::error_code) { self->finish(); });
    }
  }

  Sent queue(std::string text, size_t max_waiting) {
    {
      std::lock_guard lock(mutex);
      if (!accepting) return Sent::Closed;
      // A message larger than the whole limit still goes when nothing else waits: refusing it
      // would leave a resuming client no way past it.
      if (queued_messages > 0 && queued_bytes + text.size() > outbox_limit) return Sent::Full;
      if (max_waiting && queued_messages >= max_waiting) return Sent::Full;
      queued_bytes += text.size();
      ++queued_messages;
    }
    asio::post(io, [self = shared_from_this(), text = std::move(text)]() mutable {
      if (self->finished) return;
      self->outbox.push_back(std::move(text));
      self->pump();
    });
    return Sent::Queued;
  }

  Sent send(std::string text) override { return queue(std::move(text), 0); }
  Sent send_or_drop(std::string text, size_t max_waiting) override { return queue(std::move(text), std::max<size_t>(max_waiting, 1)); }

  void close(CloseCode code, std::string reason) override {
    {
      std::lock_guard lock(mutex);
      accepting = false;
    }
    asio::post(io, [self = shared_from_this(), code, reason = std::move(reason)]() mutable {
      if (self->finished || self->close_after_outbox) return;
      if (reason.size() > 123) reason.resize(123);
      self->close_after_outbox = websocket::close_reason(static_cast<websocket::close_code>(code), reason);
      self->pump();
    });
  }

  // Drops what waits and closes now (network thread).
  void close_now(CloseCode code, std::string reason) {
    {
      std::lock_guard lock(mutex);
      accepting = false;
    }
    outbox.erase(outbox.begin() + (writing ? 1 : 0), outbox.end());
    if (!close_after_outbox) close_after_outbox = websocket::close_reason(static_cast<websocket::close_code>(code), reason);
    pump();
  }

  void force_close() override {
    if (ws) {
      beast::error_code ec;
      beast::get_lowest_layer(*ws).socket().close(ec);
    }
    finish();
  }

  // The connection is over: the owner hears of it once. Network thread.
  void finish() {
    if (finished) return;
    finished = true;
    {
      std::lock_guard lock(mutex);
      accepting = false;
    }
    if (ws && !closing_started) {
      beast::error_code ec;
      beast::get_lowest_layer(*ws).socket().close(ec);
    }
    auto on_close = std::move(handlers.on_close);
    handlers = {};
    if (!on_close) return;
    try {
      on_close();
    } catch (const std::exception& e) {
      (void)internal_error("a WebSocket close handler", e.what());
    }
  }
};

// --- HTTP/1.1 (RFC 9112) -------------------------------------------------------------------------

struct Connection : Closable, std::enable_shared_from_this<Connection> {
  Connection(tcp::socket socket, std::shared_ptr<Server> server)
      : stream(std::move(socket)), timer(stream.get_executor()), server(std::move(server)) {}

  beast::tcp_stream stream;
  Timer timer;
  std::shared_ptr<Server> server;
  std::shared_ptr<Slot> slot;
  beast::flat_buffer buffer;
  std::optional<http::request_parser<http::string_body>> parser;
  std::shared_ptr<http::response<http::string_body>> response;
  HttpRequest request;  // the one being answered
  double header_ms = 0;  // steady_ms() when its header had been read
  bool closed = false;  // network thread
  // A streamed response (HttpResponse::stream), once it has begun: network thread.
  std::shared_ptr<BodyStream> body_stream;
  std::string stream_out;  // being written
  bool stream_writing = false;

  const HttpServer::Limits& limits() const { return server->options.limits; }

  void read_header() {
    parser.emplace();
    parser->header_limit(static_cast<uint32_t>(std::min<size_t>(limits().max_header_bytes, UINT32_MAX)));
    parser->body_limit(boost::none);  // the cap is applied after the header check
    stream.expires_after(limits().header_timeout);
    http::async_read_header(stream, buffer, *parser, [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_header(ec); });
  }

  void on_header(beast::error_code ec) {
    header_ms = steady_ms();
    request = HttpRequest{};  // a request that cannot be read is not the connection's last one
    if (closed || server->stopped) return close();
    if (ec) return read_failed(ec);
    const auto& head = parser->get();
    request.method = std::string(head.method_string());
    request.target = std::string(head.target());
    auto q = request.target.find('?');
    request.path = request.target.substr(0, q);
    if (q != std::string::npos) request.query = request.target.substr(q + 1);
    for (const auto& f : head) {
      std::string name(f.name_string());
      std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      auto [it, fresh] = request.headers.try_emplace(name, std::string(f.value()));
      if (!fresh) it->second += ", " + std::string(f.value());  // repeated fields join (RFC 9110 §5.3)
    }
    request.upgrade = websocket::is_upgrade(head);
    if (server->options.check_headers) {
      std::optional<HttpResponse> refusal;
      try {
        refusal = server->options.check_headers(request);
      } catch (const std::exception& e) {
        refusal = internal_error("checking the request " + describe(request), e.what());
      }
      if (refusal) return refuse(std::move(*refusal));
    }
    bool has_body = head.chunked() || parser->content_length().value_or(0) > 0;
    if (request.upgrade && server->upgrade && *server->upgrade) {
      if (has_body) return refuse(json_error(400, "InvalidArgument", "a WebSocket upgrade request has no body"));
      return upgrade();
    }
    if (parser->content_length() && *parser->content_length() > limits().max_body_bytes) return refuse(too_large());
    parser->body_limit(limits().max_body_bytes);
    if (!has_body) return on_body({});
    stream.expires_after(limits().body_timeout);
    if (beast::iequals(head[http::field::expect], "100-continue")) {
      // The client waits for a go-ahead before it sends the body (RFC 9110 §10.1.1).
      static const std::string kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      asio::async_write(stream, asio::buffer(kContinue), [self = shared_from_this()](beast::error_code ec, std::size_t) {
        if (ec) return self->close();
        self->read_body();
      });
      return;
    }
    read_body();
  }

  void read_body() {
    http::async_read(stream, buffer, *parser, [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_body(ec); });
  }

  HttpResponse too_large() const {
    return json_error(413, "InvalidArgument",
                      fmt::format("the request body is larger than the limit of {} bytes", limits().max_body_bytes));
  }

  // A request we could not read: say why when the client can still hear it.
  void read_failed(beast::error_code ec) {
    if (ec == http::error::end_of_stream || ec == beast::error::timeout || ec == asio::error::operation_aborted ||
        ec == asio::error::connection_reset || ec == asio::error::eof || ec == asio::error::broken_pipe)
      return close();
    if (ec == http::error::body_limit) return refuse(too_large());
    if (ec == http::error::header_limit)
      return refuse(json_error(431, "InvalidArgument", fmt::format("the request header is larger than the limit of {} bytes", limits().max_header_bytes)));
    if (ec == http::error::partial_message) return close();
    refuse(json_error(400, "InvalidArgument", "malformed HTTP request: " + ec.message()));
  }

  void on_body(beast::error_code ec) {
    if (closed || server->stopped) return close();
    if (ec) return read_failed(ec);
    stream.expires_never();  // the handler may take its time; the client may wait
    request.body = std::move(parser->get().body());
    auto handler = server->handler;
    if (!handler || !*handler) return close();
    unsigned version = parser->get().version();
    bool keep_alive = parser->get().keep_alive();
    auto once = std::make_shared<std::atomic<bool>>(false);
    std::function<void(HttpResponse)> respond = [self = shared_from_this(), once, version, keep_alive](HttpResponse out) {
      if (once->exchange(true)) return;
      asio::post(self->stream.get_executor(), [self, version, keep_alive, out = std::move(out)]() mutable {
        self->respond(std::move(out), version, keep_alive);
      });
    };
    try {
      (*handler)(request, respond);
    } catch (const std::exception& e) {
      respond(internal_error("handling " + describe(request), e.what()));
    }
  }

  void upgrade() {
    auto ws = std::make_shared<WsSession>(server->io.context(), limits());
    auto handler = server->upgrade;
    std::optional<HttpResponse> refusal;
    try {
      refusal = (*handler)(request, ws, ws->handlers);
    } catch (const std::exception& e) {
      refusal = internal_error("opening the WebSocket " + describe(request), e.what());
    }
    if (refusal) {
      ws->finish();
      return refuse(std::move(*refusal));
    }
    ws->slot = std::move(slot);
    ws->slot->hold(ws);
    http::request<http::empty_body> head(parser->release().base());
    ws->start(std::move(stream), std::move(head));
    closed = true;  // the socket is the WebSocket's now
  }

  // A header field value may not hold CR, LF or NUL (RFC 9110 §5.5): a handler that put a
  // client's text into one (a redirect's Location) must not let it start a header of its own. A
  // field that does is left out, as is a name that is not a token.
  static bool field_ok(const std::string& name, const std::string& value) {
    if (name.empty()) return false;
    for (char c : name)
      if (static_cast<unsigned char>(c) <= 0x20 || c == ':' || c == 0x7f) return false;
    for (char c : value)
      if (c == '\r' || c == '\n' || c == '\0') return false;
    return true;
  }

  void respond(HttpResponse out, unsigned version, bool keep_alive) {
    if (closed || server->stopped) {
      if (out.stream) BodyStreamAccess::finish(*out.stream);
      return;
    }
    answered(out);
    if (out.stream) return start_stream(std::move(out), version);
    response = std::make_shared<http::response<http::string_body>>(static_cast<http::status>(out.status), version);
    response->set(http::field::content_type, out.content_type);
    for (auto& [k, v] : out.headers)
      if (field_ok(k, v)) response->insert(k, v);
    response->body() = std::move(out.body);
    response->keep_alive(keep_alive);
    response->prepare_payload();
    if (request.method == "HEAD") {
      // The length of what a GET would get, and no body (RFC 9110 §9.3.2).
      size_t length = response->body().size();
      response->body().clear();
      response->content_length(length);
    }
    if (out.delay.count() > 0) {
      timer.expires_after(out.delay);
      timer.async_wait([self = shared_from_this()](beast::error_code) { self->write(); });
    } else {
      write();
    }
  }

  // How long the answer took, from the request's header read to now — queueing for a worker
  // included — in the response (W3C Server Timing, https://www.w3.org/TR/server-timing/: `app`,
  // its `dur` in milliseconds) and to the server's owner (its metrics).
  void answered(HttpResponse& out) {
    const double ms = header_ms > 0 ? std::max(0.0, steady_ms() - header_ms) : 0.0;
    out.headers.push_back({"Server-Timing", fmt::format("app;dur={:.1f}", ms)});
    if (server->options.on_answered) {
      try {
        server->options.on_answered(request, out.status, ms);
      } catch (const std::exception& e) {
        spdlog::warn("http: the answered hook failed: {}", redact(std::string(e.what()).substr(0, 200)));
      }
    }
  }

  void write() {
    if (closed) return;
    stream.expires_after(limits().header_timeout);
    http::async_write(stream, *response, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return self->close();
      if (!self->response->keep_alive()) return self->linger();
      self->read_header();
    });
  }

  // A streamed body: the header now (no length; the connection closes after the body), then
  // the stream's bytes as they are written. The client is read meanwhile only to notice it leave.
  void start_stream(HttpResponse out, unsigned version) {
    body_stream = std::move(out.stream);
    http::response<http::empty_body> head(static_cast<http::status>(out.status), version);
    head.set(http::field::content_type, out.content_type);
    for (auto& [k, v] : out.headers)
      if (field_ok(k, v)) head.insert(k, v);
    head.set(http::field::connection, "close");
    std::ostringstream text;
    text << head.base();
    stream_out = text.str();
    stream.expires_never();
    std::weak_ptr<Connection> weak = shared_from_this();
    auto executor = stream.get_executor();
    BodyStreamAccess::attach(*body_stream, [weak, executor] {
      asio::post(executor, [weak] {
        if (auto self = weak.lock()) self->pump_stream();
      });
    });
    watch_peer();
    pump_stream();
  }

  void watch_peer() {
    auto scratch = std::make_shared<std::array<char, 1024>>();
    stream.socket().async_read_some(asio::buffer(*scratch), [self = shared_from_this(), scratch](beast::error_code ec, std::size_t) {
      if (ec || self->closed) return self->close();
      self->watch_peer();  // whatever else the client sends is not read as a request
    });
  }

  void pump_stream() {
    if (closed || stream_writing || !body_stream) return;
    bool ended = false;
    if (stream_out.empty()) ended = BodyStreamAccess::take(*body_stream, stream_out);
    if (stream_out.empty()) {
      if (ended) {
        beast::error_code ec;
        stream.socket().shutdown(tcp::socket::shutdown_send, ec);
        close();
      }
      return;
    }
    stream_writing = true;
    // A client that takes nothing for this long is gone.
    timer.expires_after(limits().body_timeout);
    timer.async_wait([weak = std::weak_ptr<Connection>(shared_from_this())](beast::error_code ec) {
      if (ec) return;
      if (auto self = weak.lock()) self->close();
    });
    asio::async_write(stream.socket(), asio::buffer(stream_out), [self = shared_from_this()](beast::error_code ec, std::size_t) {
      self->timer.cancel();
      self->stream_writing = false;
      self->stream_out.clear();
      if (ec) return self->close();
      self->pump_stream();
    });
  }

  // Answers and closes without reading what else the client sends.
  void refuse(HttpResponse out) {
    respond(std::move(out), parser && parser->is_header_done() ? parser->get().version() : 11, false);
  }

  // After the last response: stop sending, then read and discard for a moment (at most 2 s and
  // 4 MiB), so a client still sending a body reads the response rather than a reset (RFC 9112
  // §9.6).
  void linger() {
    beast::error_code ec;
    stream.socket().shutdown(tcp::socket::shutdown_send, ec);
    stream.expires_after(std::chrono::seconds(2));
    discard(4u << 20);
  }

  void discard(size_t budget) {
    auto scratch = std::make_shared<std::array<char, 16384>>();
    stream.async_read_some(asio::buffer(*scratch), [self = shared_from_this(), scratch, budget](beast::error_code ec, std::size_t n) {
      if (ec || n >= budget || self->closed) return self->close();
      self->discard(budget - n);
    });
  }

  void close() {
    if (closed) return;
    closed = true;
    beast::error_code ec;
    stream.socket().close(ec);
    if (body_stream) BodyStreamAccess::finish(*body_stream);
  }

  void force_close() override { close(); }
};

void Server::accept() {
  acceptor.async_accept([self = shared_from_this()](beast::error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted || self->stopped || !self->acceptor.is_open()) return;
    if (ec) {
      // Out of descriptors (or another transient failure): try again shortly instead of spinning.
      self->retry.expires_after(std::chrono::milliseconds(100));
      self->retry.async_wait([self](beast::error_code e) {
        if (!e && !self->stopped) self->accept();
      });
      return;
    }
    size_t open;
    {
      std::lock_guard lock(self->mutex);
      open = self->live.size();
    }
    const size_t cap = self->options.limits.max_connections;
    if (open >= cap + 32) {
      // Far past the cap: not even an answer.
      socket.close(ec);
    } else {
      // Responses go out as header and body writes; without NODELAY, Nagle holds the second
      // back until the peer's delayed ACK.
      socket.set_option(tcp::no_delay(true), ec);
      auto c = std::make_shared<Connection>(std::move(socket), self);
      c->slot = std::make_shared<Slot>(self);
      c->slot->hold(c);
      if (open >= cap)
        c->refuse(json_error(503, "Unavailable", fmt::format("ouro has {} connections open, its limit; try again shortly", open)));
      else
        c->read_header();
    }
    self->accept();
  });
}

void Server::stop() {
  stopped = true;
  beast::error_code ec;
  acceptor.close(ec);
  retry.cancel();
  std::vector<std::shared_ptr<Closable>> open;
  {
    std::lock_guard lock(mutex);
    for (auto& [id, weak] : live)
      if (auto c = weak.lock()) open.push_back(std::move(c));
  }
  for (auto& c : open) c->force_close();
  handler.reset();
  upgrade.reset();
  options.check_headers = nullptr;
}

}  // namespace

struct HttpServer::Impl {
  std::shared_ptr<Server> server;
};

Result<std::unique_ptr<HttpServer>> HttpServer::start(IoThread& io, Options options, Handler handler, UpgradeHandler upgrade) {
  return start_async(
      io, std::move(options),
      [handler = std::move(handler)](const HttpRequest& r, std::function<void(HttpResponse)> respond) { respond(handler(r)); },
      std::move(upgrade));
}

Result<std::unique_ptr<HttpServer>> HttpServer::start_async(IoThread& io, Options options, AsyncHandler handler, UpgradeHandler upgrade) {
  uint16_t port = options.port;
  beast::error_code bad;
  auto address = asio::ip::make_address(options.address, bad);
  if (bad) return errorf(Code::InvalidArgument, "'{}' is not an IP address to listen on", options.address.substr(0, 100));
  auto impl = std::make_shared<Server>(io, std::move(options));
  impl->handler = std::make_shared<AsyncHandler>(std::move(handler));
  impl->upgrade = std::make_shared<UpgradeHandler>(std::move(upgrade));
  beast::error_code ec;
  tcp::endpoint ep(address, port);
  impl->acceptor.open(ep.protocol(), ec);
  if (!ec) impl->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(ep, ec);
  if (!ec) impl->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec)
    return errorf(Code::Unavailable, "cannot listen on {}:{}: {}", address.is_v6() ? "[" + address.to_string() + "]" : address.to_string(), port,
                  ec.message());
  impl->port = impl->acceptor.local_endpoint().port();
  if (io.on_thread()) {
    impl->accept();
  } else {
    std::promise<void> started;
    io.post([&] {
      impl->accept();
      started.set_value();
    });
    started.get_future().wait();
  }
  std::unique_ptr<HttpServer> server(new HttpServer());
  server->m_impl = std::make_shared<Impl>(Impl{impl});
  return server;
}

HttpServer::~HttpServer() {
  auto impl = m_impl->server;
  if (impl->io.on_thread() || impl->io.context().stopped()) {
    impl->stop();
    return;
  }
  std::promise<void> stopped;
  impl->io.post([&] {
    impl->stop();
    stopped.set_value();
  });
  stopped.get_future().wait();
}

uint16_t HttpServer::port() const { return m_impl->server->port; }

std::string HttpServer::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(m_impl->server->port) + path;
}

}  // namespace ouro::net
