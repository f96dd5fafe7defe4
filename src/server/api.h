// The HTTP and WebSocket API on 127.0.0.1 (or the --listen address), and the Command Center's
// files. For operators: GET /healthz (the process answers) and GET /readyz (the store answers
// and a browser or a healthy pool endpoint is there; 503 otherwise) need no token; GET /metrics
// (server/metrics.h) needs the page token, as the API does. Access needs the
// random token made at start: `Authorization: Bearer <token>` for every API call; `?token=` only
// where a header cannot be sent — the Command Center page itself and the two WebSockets. A
// foreign Origin or an unexpected Host is refused (DNS rebinding). All of this is decided on the
// request's header, before its body is read. Errors map to HTTP statuses in one place, with JSON
// bodies. ouro's Chrome extension pairs with a one-time code and then holds a credential of its
// own, accepted only with its chrome-extension:// Origin (server/pairing.h). Work that waits (SQLite, Chromium) runs on a few worker threads, never on the network
// thread.
#pragma once

#include "base/error.h"
#include "net/http_server.h"

#include <functional>
#include <memory>
#include <string>

namespace ouro::net { class IoThread; }
namespace ouro::session { struct Runtime; }

namespace ouro::server {

class BridgeHub;
class RunManager;
class Scheduler;

class ApiServer {
 public:
  struct Options {
    uint16_t port = 0;      // 0: any free port
    std::string token;      // empty: a random one
    // Where to listen (`ouro serve --listen`): "ADDR" or "ADDR:PORT" ("0.0.0.0:8765", "[::]:8765");
    // empty: 127.0.0.1. An address other than loopback needs a token set by the operator (a
    // random one would be the only thing between the network and the runs, and unknown to the
    // load balancer's clients): FailedPrecondition without it. Off loopback, any Host header is
    // taken (a proxy's name) and an Origin of that same host; the token decides.
    std::string listen;
    net::HttpServer::Limits limits;  // 1 MiB bodies, 256 connections, 10 s to send a header, …
    size_t workers = 4;     // threads for the handlers' blocking work
    size_t max_queued_work = 64;  // requests waiting for a worker beyond this get 503
    // /api/schedules (ouro serve's scheduler); null: those routes answer 503. Must outlive the server.
    Scheduler* scheduler = nullptr;
    // /mcp (the MCP server over Streamable HTTP, src/mcp/http.h): called on a worker with a
    // request whose token and Origin passed; answers through `respond`. Empty: /mcp is 404.
    net::HttpServer::AsyncHandler mcp;
    std::string version;  // what GET /api/hello and pairing answer
    // Told each pairing code made after the first (a lockout, an expiry, Settings' New code),
    // as shown ("K7Q2-9XWD"), so `ouro serve` prints it. Any thread.
    std::function<void(const std::string& code)> on_pairing_code;
    // The extensions' bridge sockets (/api/bridge), shared with the runs that use them; null:
    // the server makes its own. Must outlive the server.
    std::shared_ptr<BridgeHub> bridge;
  };

  // Listens on 127.0.0.1. `runs` must outlive the ApiServer. Not on the network thread.
  static Result<std::unique_ptr<ApiServer>> start(net::IoThread& io, RunManager& runs, std::shared_ptr<session::Runtime> runtime, Options options);
  static Result<std::unique_ptr<ApiServer>> start(net::IoThread& io, uint16_t port, RunManager& runs,
                                                  std::shared_ptr<session::Runtime> runtime, std::string token = {});
  // Closes every connection and event stream and waits for the handlers' work in progress;
  // safe with requests in flight and WebSockets open. Not on the network thread.
  ~ApiServer();
  uint16_t port() const;
  const std::string& token() const;
  // The pairing code in force for ouro's extension ("K7Q2-9XWD"), made if needed; "" when the
  // server has no database.
  std::string pairing_code() const;
  // http://127.0.0.1:PORT/?token=… — what a person opens.
  std::string url() const;

 private:
  ApiServer() = default;
  struct Impl;
  std::shared_ptr<Impl> m;
};

}  // namespace ouro::server
