#include "net/websocket_client.h"

#include "base/text.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/url/parse.hpp>

#include <fmt/format.h>

#include <atomic>
#include <deque>
#include <future>

namespace ouro::net {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace ws = beast::websocket;
using tcp = asio::ip::tcp;

struct WebSocketClient::Session : std::enable_shared_from_this<Session> {
  explicit Session(asio::io_context& io) : resolver(io), stream(io) {}

  tcp::resolver resolver;
  ws::stream<beast::tcp_stream> stream;
  beast::flat_buffer buffer;
  std::deque<std::string> outbox;
  OnMessage on_message;
  OnClose on_close;
  bool closing = false;
  bool closed = false;

  void read() {
    stream.async_read(buffer, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return self->fail(ec);
      std::string text = beast::buffers_to_string(self->buffer.data());
      self->buffer.consume(self->buffer.size());
      if (self->on_message) self->on_message(std::move(text));
      self->read();
    });
  }

  void write_next() {
    stream.text(true);
    stream.async_write(asio::buffer(outbox.front()), [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return self->fail(ec);
      self->outbox.pop_front();
      if (!self->outbox.empty()) self->write_next();
    });
  }

  void fail(beast::error_code ec) {
    if (closed) return;
    closed = true;
    if (!closing && on_close) on_close(Error{Code::Unavailable, lost_reason(ec), nullptr});
  }

  // Why the connection ended, in the words of what usually does it.
  static std::string lost_reason(beast::error_code ec) {
    if (ec == ws::error::closed) return "WebSocket connection lost: the other end closed it";
    if (ec == asio::error::eof || ec == asio::error::connection_reset || ec == beast::error::timeout)
      return "WebSocket connection lost: the other end cut it (" + ec.message() +
             ") — a browser service ends a session at its time limit, and a browser that quits or crashes cuts it too";
    return "WebSocket connection lost: " + ec.message();
  }
  beast::websocket::response_type response;  // the handshake's answer, when the server declined it
};

namespace {

// Why a connection or its handshake failed, naming the usual cause: nothing listening, a TLS
// port, a declined upgrade and its HTTP status (RFC 6455 section 4.1: anything but 101 fails it).
std::string connect_failure(const std::string& url, beast::error_code ec, const beast::websocket::response_type& response) {
  if (ec == asio::error::connection_refused)
    return fmt::format("cannot connect to {}: nothing listens there (connection refused); check the host and port, and that the browser or "
                       "browser service runs",
                       url);
  if (ec == asio::error::host_not_found || ec == asio::error::host_not_found_try_again)
    return fmt::format("cannot connect to {}: its host name does not resolve ({})", url, ec.message());
  if (ec == ws::error::upgrade_declined) {
    unsigned status = response.result_int();
    std::string why = status == 401 || status == 403 ? "the token (the URL's token= or the pool file's token_env) is missing or wrong"
                      : status == 404 ? "nothing is at that path: a browser's /devtools/browser/ID changes at every start (give http://host:port "
                                        "to look it up), and a browser service takes / or /chromium"
                      : status == 429 || status == 503 ? "the service is busy or at its session limit; try again, or give it more capacity"
                                                       : "the endpoint is not a DevTools WebSocket";
    return fmt::format("{} refused the WebSocket connection with HTTP {} {}: {}", url, status, std::string(response.reason()).substr(0, 60), why);
  }
  if (ec.category() == beast::http::make_error_code(beast::http::error::bad_version).category())
    return fmt::format("{} did not answer as an HTTP server ({}): if it speaks TLS (wss://), put a TLS-terminating proxy on this machine in "
                       "front of it and give ws:// to that",
                       url, ec.message());
  return fmt::format("cannot connect to {}: {}", url, ec.message());
}

}  // namespace

Result<std::unique_ptr<WebSocketClient>> WebSocketClient::connect(IoThread& io, const std::string& url_text,
                                                                  std::chrono::milliseconds timeout) {
  // RFC 3986 by Boost.URL: ws, a host (an IPv6 literal in brackets too), a port, a path and query.
  auto parsed = boost::urls::parse_uri(url_text);
  // Errors name the URL without its query, fragment or user:password: browser services put their
  // token there. Text that is no URL at all is cut at its first '?', '#' or '@'.
  const std::string url = parsed ? std::string(parsed->scheme()) + "://" + std::string(parsed->encoded_host_and_port()) +
                                       std::string(parsed->encoded_path())
                                 : url_text.substr(0, std::min(url_text.find_first_of("?#@"), size_t{200}));
  if (parsed && parsed->scheme_id() == boost::urls::scheme::wss)
    return errorf(Code::InvalidArgument,
                  "'{}': wss:// (WebSocket over TLS) is not supported yet; reach the browser over ws:// (e.g. through a TLS-terminating "
                  "proxy or a port-forward on this machine)",
                  url);
  if (parsed && parsed->scheme_id() == boost::urls::scheme::ws && !parsed->encoded_host().empty() && !parsed->has_userinfo() && !parsed->has_port())
    return errorf(Code::InvalidArgument, "'{}' has no port: give ws://host:port/path (DevTools has no default port)", url);
  if (!parsed || parsed->scheme_id() != boost::urls::scheme::ws || parsed->encoded_host().empty() || parsed->has_userinfo() ||
      !parsed->has_port() || !port_number(parsed->port()))
    return errorf(Code::InvalidArgument, "'{}' is not a ws://host:port/path URL", url);
  // The resolver takes the address without brackets; the Host header the host and port as written.
  const std::string host = parsed->host_address(), port(parsed->port()), host_header(parsed->encoded_host_and_port());
  const std::string path = parsed->encoded_target().empty() ? std::string("/") : std::string(parsed->encoded_target());

  // The handshake's steps own everything they use, so giving up at the deadline (cancelling
  // the resolver, closing the socket) never leaves a callback pointing into this frame.
  auto session = std::make_shared<Session>(io.context());
  auto done = std::make_shared<std::promise<beast::error_code>>();
  auto settled = std::make_shared<std::atomic<bool>>(false);
  auto finish = [done, settled](beast::error_code ec) {
    if (!settled->exchange(true)) done->set_value(ec);
  };
  auto fut = done->get_future();
  asio::post(io.context(), [session, host, port, path, host_header, timeout, finish] {
    session->resolver.async_resolve(host, port, [session, path, host_header, timeout, finish](beast::error_code ec, tcp::resolver::results_type results) {
      if (ec) return finish(ec);
      beast::get_lowest_layer(session->stream).expires_after(timeout);
      beast::get_lowest_layer(session->stream).async_connect(results, [session, host_header, path, finish](beast::error_code ec, auto) {
        if (ec) return finish(ec);
        beast::get_lowest_layer(session->stream).expires_never();
        session->stream.set_option(ws::stream_base::timeout::suggested(beast::role_type::client));
        session->stream.read_message_max(512u << 20);
        session->stream.async_handshake(session->response, host_header, path, [session, finish](beast::error_code ec) { finish(ec); });
      });
    });
  });
  if (fut.wait_for(timeout + std::chrono::seconds(1)) != std::future_status::ready) {
    asio::post(io.context(), [session] {
      session->resolver.cancel();
      beast::error_code ignored;
      beast::get_lowest_layer(session->stream).socket().close(ignored);
    });
    return errorf(Code::DeadlineExceeded, "no WebSocket handshake from {} within {} ms: is a browser listening there?", url, timeout.count());
  }
  if (auto ec = fut.get()) {
    const Code code = ec == ws::error::upgrade_declined && (session->response.result_int() == 401 || session->response.result_int() == 403)
                          ? Code::PermissionDenied
                          : Code::Unavailable;
    return make_error(code, connect_failure(url, ec, session->response));
  }
  std::unique_ptr<WebSocketClient> client(new WebSocketClient());
  client->m_session = session;
  return client;
}

WebSocketClient::~WebSocketClient() { close(); }

// m_session is set once, by connect, and never changed, so any thread may call these at any time;
// what they do happens on the network thread, in order, and nothing happens after close().
void WebSocketClient::start(OnMessage on_message, OnClose on_close) {
  auto s = m_session;
  asio::post(s->stream.get_executor(), [s, on_message = std::move(on_message), on_close = std::move(on_close)]() mutable {
    if (s->closing || s->closed) return;
    s->on_message = std::move(on_message);
    s->on_close = std::move(on_close);
    s->read();
  });
}

void WebSocketClient::send(std::string message) {
  auto s = m_session;
  asio::post(s->stream.get_executor(), [s, message = std::move(message)]() mutable {
    if (s->closing || s->closed) return;
    s->outbox.push_back(std::move(message));
    if (s->outbox.size() == 1) s->write_next();
  });
}

void WebSocketClient::close() {
  auto s = m_session;
  asio::post(s->stream.get_executor(), [s] {
    if (s->closing) return;
    s->closing = true;
    s->on_message = nullptr;
    s->on_close = nullptr;
    beast::error_code ec;
    beast::get_lowest_layer(s->stream).socket().close(ec);
  });
}

}  // namespace ouro::net
