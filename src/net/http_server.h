// A small HTTP/1.1 server (Boost.Beast) on 127.0.0.1 for the API server and the tests' fixture
// sites. Handlers run on the network thread and must not block; a response may ask to be delayed.
#pragma once

#include "base/error.h"
#include "net/io.h"

#include <chrono>
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
  std::string body;

  std::string header(const std::string& lower_name) const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/html; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  std::chrono::milliseconds delay{0};  // answer after this long (fixtures: slow pages)
};

// The server side of an accepted WebSocket (RFC 6455). send() and close() may be called from any
// thread; messages go out in order, one write in flight.
class WsPeer {
 public:
  virtual ~WsPeer() = default;
  virtual void send(std::string text) = 0;
  virtual void close() = 0;
};

struct WsHandlers {
  std::function<void(std::string)> on_message;  // network thread
  std::function<void()> on_close;               // network thread, once
};

class HttpServer {
 public:
  using Handler = std::function<HttpResponse(const HttpRequest&)>;
  // A handler that may answer later, from any thread (work that waits must not hold the
  // network thread): call `respond` exactly once.
  using AsyncHandler = std::function<void(const HttpRequest&, std::function<void(HttpResponse)> respond)>;
  // For a WebSocket upgrade request: return a response to refuse it, or fill `handlers` (and keep
  // `peer` to talk) to accept it.
  using UpgradeHandler = std::function<std::optional<HttpResponse>(const HttpRequest&, std::shared_ptr<WsPeer> peer, WsHandlers& handlers)>;

  // Listens on 127.0.0.1:port (0 picks a free port).
  static Result<std::unique_ptr<HttpServer>> start(IoThread& io, uint16_t port, Handler handler, UpgradeHandler upgrade = {});
  static Result<std::unique_ptr<HttpServer>> start_async(IoThread& io, uint16_t port, AsyncHandler handler, UpgradeHandler upgrade = {});
  ~HttpServer();

  uint16_t port() const;
  std::string url(const std::string& path = "/") const;

 private:
  HttpServer() = default;
  struct Impl;
  std::shared_ptr<Impl> m_impl;
};

}  // namespace ouro::net
