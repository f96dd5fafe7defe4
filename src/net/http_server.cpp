#include "net/http_server.h"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

#include <deque>

#include <algorithm>
#include <future>
#include <optional>

namespace ouro::net {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

std::string HttpRequest::header(const std::string& lower_name) const {
  auto it = headers.find(lower_name);
  return it == headers.end() ? std::string() : it->second;
}

namespace {

namespace websocket = beast::websocket;

struct WsSession : WsPeer, std::enable_shared_from_this<WsSession> {
  explicit WsSession(beast::tcp_stream stream) : ws(std::move(stream)) {}
  websocket::stream<beast::tcp_stream> ws;
  beast::flat_buffer buffer;
  std::deque<std::string> outbox;
  WsHandlers handlers;
  bool open = false, closed = false;

  void start(http::request<http::string_body> req) {
    beast::get_lowest_layer(ws).expires_never();
    ws.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
    ws.read_message_max(16u << 20);
    ws.async_accept(req, [self = shared_from_this()](beast::error_code ec) {
      if (ec) return self->finish();
      self->open = true;
      if (!self->outbox.empty()) self->write_next();
      self->read();
    });
  }
  void read() {
    ws.async_read(buffer, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return self->finish();
      std::string text = beast::buffers_to_string(self->buffer.data());
      self->buffer.consume(self->buffer.size());
      if (self->handlers.on_message) self->handlers.on_message(std::move(text));
      self->read();
    });
  }
  void write_next() {
    ws.text(true);
    ws.async_write(asio::buffer(outbox.front()), [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return self->finish();
      self->outbox.pop_front();
      if (!self->outbox.empty()) self->write_next();
    });
  }
  void finish() {
    if (closed) return;
    closed = true;
    auto on_close = std::move(handlers.on_close);
    handlers = {};
    if (on_close) on_close();
  }
  void send(std::string text) override {
    asio::post(ws.get_executor(), [self = shared_from_this(), text = std::move(text)]() mutable {
      if (self->closed) return;
      self->outbox.push_back(std::move(text));
      if (self->open && self->outbox.size() == 1) self->write_next();
    });
  }
  void close() override {
    asio::post(ws.get_executor(), [self = shared_from_this()] {
      if (self->closed) return;
      self->ws.async_close(websocket::close_code::normal, [self](beast::error_code) { self->finish(); });
    });
  }
};

struct Connection : std::enable_shared_from_this<Connection> {
  Connection(tcp::socket socket, std::shared_ptr<HttpServer::AsyncHandler> handler, std::shared_ptr<HttpServer::UpgradeHandler> upgrade)
      : stream(std::move(socket)), timer(stream.get_executor()), handler(std::move(handler)), upgrade(std::move(upgrade)) {}

  beast::tcp_stream stream;
  asio::steady_timer timer;
  beast::flat_buffer buffer;
  std::shared_ptr<HttpServer::AsyncHandler> handler;
  std::shared_ptr<HttpServer::UpgradeHandler> upgrade;
  std::optional<http::request_parser<http::string_body>> parser;
  std::shared_ptr<http::response<http::string_body>> response;

  void read() {
    parser.emplace();
    parser->body_limit(64u << 20);
    stream.expires_after(std::chrono::seconds(60));
    http::async_read(stream, buffer, *parser, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return self->shutdown();
      self->handle(self->parser->release());
    });
  }

  void handle(http::request<http::string_body> req) {
    HttpRequest r;
    r.method = std::string(req.method_string());
    r.target = std::string(req.target());
    auto q = r.target.find('?');
    r.path = r.target.substr(0, q);
    if (q != std::string::npos) r.query = r.target.substr(q + 1);
    for (const auto& f : req) {
      std::string name(f.name_string());
      std::transform(name.begin(), name.end(), name.begin(), ::tolower);
      r.headers[name] = std::string(f.value());
    }
    r.body = req.body();
    if (websocket::is_upgrade(req) && upgrade && *upgrade) {
      auto ws = std::make_shared<WsSession>(std::move(stream));
      std::optional<HttpResponse> refusal = (*upgrade)(r, ws, ws->handlers);
      if (!refusal) return ws->start(std::move(req));
      // Refused: answer over the stream we handed over, then close.
      auto res = std::make_shared<http::response<http::string_body>>(static_cast<http::status>(refusal->status), req.version());
      res->set(http::field::content_type, refusal->content_type);
      res->body() = refusal->body;
      res->keep_alive(false);
      res->prepare_payload();
      auto& s = beast::get_lowest_layer(ws->ws);
      http::async_write(s, *res, [ws, res](beast::error_code, std::size_t) {
        beast::error_code ec;
        beast::get_lowest_layer(ws->ws).socket().shutdown(tcp::socket::shutdown_both, ec);
      });
      return;
    }
    unsigned version = req.version();
    bool keep_alive = req.keep_alive();
    auto self = shared_from_this();
    (*handler)(r, [self, version, keep_alive](HttpResponse out) {
      asio::post(self->stream.get_executor(), [self, version, keep_alive, out = std::move(out)]() mutable {
        self->respond(std::move(out), version, keep_alive);
      });
    });
  }

  void respond(HttpResponse out, unsigned version, bool keep_alive) {
    response = std::make_shared<http::response<http::string_body>>(static_cast<http::status>(out.status), version);
    response->set(http::field::content_type, out.content_type);
    for (auto& [k, v] : out.headers) response->insert(k, v);
    response->body() = std::move(out.body);
    response->keep_alive(keep_alive);
    response->prepare_payload();
    if (out.delay.count() > 0) {
      timer.expires_after(out.delay);
      timer.async_wait([self = shared_from_this()](beast::error_code) { self->write(); });
    } else {
      write();
    }
  }

  void write() {
    http::async_write(stream, *response, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec || !self->response->keep_alive()) return self->shutdown();
      self->read();
    });
  }

  void shutdown() {
    beast::error_code ec;
    stream.socket().shutdown(tcp::socket::shutdown_send, ec);
  }
};

}  // namespace

struct HttpServer::Impl : std::enable_shared_from_this<HttpServer::Impl> {
  explicit Impl(asio::io_context& io) : acceptor(io) {}
  tcp::acceptor acceptor;
  std::shared_ptr<AsyncHandler> handler;
  std::shared_ptr<UpgradeHandler> upgrade;
  uint16_t port = 0;

  void accept() {
    acceptor.async_accept([self = shared_from_this()](beast::error_code ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted || !self->acceptor.is_open()) return;
      if (!ec) {
        // Responses go out as header and body writes; without NODELAY, Nagle holds the second
        // back until the peer's delayed ACK.
        socket.set_option(tcp::no_delay(true), ec);
        std::make_shared<Connection>(std::move(socket), self->handler, self->upgrade)->read();
      }
      self->accept();
    });
  }
};

Result<std::unique_ptr<HttpServer>> HttpServer::start(IoThread& io, uint16_t port, Handler handler, UpgradeHandler upgrade) {
  return start_async(
      io, port, [handler = std::move(handler)](const HttpRequest& r, std::function<void(HttpResponse)> respond) { respond(handler(r)); },
      std::move(upgrade));
}

Result<std::unique_ptr<HttpServer>> HttpServer::start_async(IoThread& io, uint16_t port, AsyncHandler handler, UpgradeHandler upgrade) {
  auto impl = std::make_shared<Impl>(io.context());
  impl->handler = std::make_shared<AsyncHandler>(std::move(handler));
  impl->upgrade = std::make_shared<UpgradeHandler>(std::move(upgrade));
  beast::error_code ec;
  tcp::endpoint ep(asio::ip::make_address("127.0.0.1"), port);
  impl->acceptor.open(ep.protocol(), ec);
  if (!ec) impl->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(ep, ec);
  if (!ec) impl->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return errorf(Code::Unavailable, "cannot listen on 127.0.0.1:{}: {}", port, ec.message());
  impl->port = impl->acceptor.local_endpoint().port();
  std::promise<void> started;
  io.post([&] { impl->accept(); started.set_value(); });
  started.get_future().wait();
  std::unique_ptr<HttpServer> server(new HttpServer());
  server->m_impl = impl;
  return server;
}

HttpServer::~HttpServer() {
  auto impl = m_impl;
  std::promise<void> stopped;
  asio::post(impl->acceptor.get_executor(), [&] {
    beast::error_code ec;
    impl->acceptor.close(ec);
    stopped.set_value();
  });
  stopped.get_future().wait_for(std::chrono::seconds(2));
}

uint16_t HttpServer::port() const { return m_impl->port; }

std::string HttpServer::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(m_impl->port) + path;
}

}  // namespace ouro::net
