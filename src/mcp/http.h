// The MCP server over Streamable HTTP (MCP specification 2025-06-18, basic/transports
// "Streamable HTTP"), at /mcp of `ouro serve`. The API server checks the token and the Origin on
// the request's header before this sees it; this is the transport:
//
//   POST  one JSON-RPC message (a batch is refused). Accept must name application/json and
//         text/event-stream (else 406), Content-Type application/json (else 415). initialize
//         starts a session and answers with its Mcp-Session-Id (random, 128 bits); every later
//         message must carry it (none: 400; unknown or ended: 404). MCP-Protocol-Version, when
//         sent, must be the session's revision (else 400). A notification or a response (the
//         client's answer to our sampling request) is 202 with no body. A request is answered
//         with application/json when its answer is all there is, and with an SSE stream when
//         progress notifications or sampling requests come before it (then the answer ends it).
//   GET   405: no stream of server-initiated messages outside a request (we send none).
//   DELETE ends the session (its calls are cancelled, its browser context closed).
//
// Each session has its own Protocol and Tools (a browser context of its own), made by the
// factory. Sessions are capped (a new one past the cap replaces the longest-idle session that
// has no call in flight, else 503) and expire after an idle time. Nothing here blocks for long:
// handle() runs on an API worker, tool calls on the session's Protocol pool, and SSE bytes go out
// through the network thread (net::BodyStream).
#pragma once

#include "base/error.h"
#include "mcp/protocol.h"
#include "net/http_server.h"

#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace ouro::mcp {

class HttpEndpoint {
 public:
  struct Options {
    size_t max_sessions = 8;
    std::chrono::milliseconds idle_timeout = std::chrono::minutes(30);  // no message and no call in flight for this long: ended
    size_t max_stream_bytes = 8u << 20;  // waiting to be sent on one SSE stream; past that the stream is cut
  };
  // A new session's tools (a browser context of its own). Called on an API worker; may block
  // briefly.
  using ToolsFactory = std::function<Result<std::unique_ptr<Tools>>()>;

  HttpEndpoint(ToolsFactory factory, Protocol::Info info, Options options);
  // Ends every session: their calls are cancelled and waited for. Not on the network thread.
  ~HttpEndpoint();
  HttpEndpoint(const HttpEndpoint&) = delete;
  HttpEndpoint& operator=(const HttpEndpoint&) = delete;

  // One request to /mcp whose header the API accepted (token, Origin, Host) and whose body fits
  // the API's limit. Answers through `respond` exactly once, now or later, from any thread. An
  // API worker thread (never the network thread).
  void handle(const net::HttpRequest& request, std::function<void(net::HttpResponse)> respond);

  size_t sessions() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> m;
};

}  // namespace ouro::mcp
