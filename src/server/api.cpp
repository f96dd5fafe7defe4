#include "server/api.h"
#include "server/evals.h"
#include "base/priority.h"
#include "base/random.h"
#include "base/text.h"

#include "base/log.h"
#include "base/thread_pool.h"
#include "browser/browser.h"
#include "browser/screencast.h"
#include "browser/shared_tabs.h"
#include "server/bridge_hub.h"
#include "server/memories.h"
#include "safety/known_secrets.h"
#include "store/run_state.h"
#include "undo/journal.h"
#include "server/metrics.h"
#include "server/pairing.h"
#include "server/runs.h"
#include "server/scheduler.h"
#include "server/scripts.h"
#include "session/session.h"

#include <filesystem>
#include <boost/asio/ip/address.hpp>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <mutex>
#include <random>
#include <variant>

namespace ouro::embedded {
extern const std::string_view index_html;
extern const std::string_view app_js;
extern const std::string_view app_css;
}  // namespace ouro::embedded

namespace ouro::server {

namespace {

using net::HttpRequest;
using net::HttpResponse;

HttpResponse json_response(int status, const json& body) {
  HttpResponse r;
  r.status = status;
  r.content_type = "application/json";
  r.body = dump_json(body);
  r.headers.push_back({"Cache-Control", "no-store"});
  return r;
}

// The one place errors become HTTP statuses.
int http_status(Code code) {
  switch (code) {
    case Code::InvalidArgument: case Code::OutOfRange: return 400;
    case Code::Unauthenticated: return 401;
    case Code::PermissionDenied: return 403;
    case Code::NotFound: return 404;
    case Code::AlreadyExists: case Code::FailedPrecondition: case Code::Aborted: case Code::Cancelled: return 409;
    case Code::ResourceExhausted: return 429;
    case Code::Unimplemented: return 501;
    case Code::Unavailable: return 503;
    case Code::DeadlineExceeded: return 504;
    default: return 500;
  }
}

HttpResponse error_response(const Error& e) {
  const std::string kind = e.details.is_object() ? get_str(e.details, "kind") : "";
  return net::json_error(http_status(e.code), code_name(e.code), e.message, kind);
}

HttpResponse from(const Result<json>& r, int ok_status = 200) { return r ? json_response(ok_status, *r) : error_response(r.error()); }

HttpResponse no_such_endpoint(const HttpRequest& r) {
  std::string path = clip_head(r.path, 200);
  return net::json_error(404, "NotFound", "no such endpoint: " + r.method.substr(0, 20) + " " + path);
}

// No page of ouro serve's may be shown inside another site's frame (clickjacking the Command
// Center's buttons): every HTML response says so, in CSP Level 3's `frame-ancestors 'none'` and,
// for browsers without it, RFC 7034's `X-Frame-Options: DENY`. (HttpResponse's content type is
// HTML unless a response says otherwise.)
std::optional<HttpResponse> unframed(std::optional<HttpResponse> res) {
  if (!res || res->content_type.rfind("text/html", 0) != 0) return res;
  bool has_policy = false;
  for (auto& [name, value] : res->headers)
    if (name == "Content-Security-Policy") {
      value += "; frame-ancestors 'none'";
      has_policy = true;
    }
  if (!has_policy) res->headers.push_back({"Content-Security-Policy", "frame-ancestors 'none'"});
  res->headers.push_back({"X-Frame-Options", "DENY"});
  return res;
}

HttpResponse busy() { return net::json_error(503, "Unavailable", "ouro is busy with other requests; try again shortly"); }

// 160 random bits as 40 hex characters.
std::string random_token() { return random_hex(20); }

bool equal_time_constant(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

std::string query_param(const std::string& query, std::string_view key) { return net::query_param(query, key).value_or(""); }

// ?after=N: a non-negative whole number, 0 when absent.
Result<int64_t> after_param(const std::string& query) {
  std::string text = query_param(query, "after");
  if (text.empty()) return 0;
  char* end = nullptr;
  errno = 0;
  long long n = std::strtoll(text.c_str(), &end, 10);
  if (*end || errno || n < 0 || !std::isdigit(static_cast<unsigned char>(text[0])))
    return make_error(Code::InvalidArgument, "after must be a whole number (the last seq, or id for run=all, you received)");
  return static_cast<int64_t>(n);
}

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> out;
  size_t start = 1;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    std::string part = path.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (!part.empty()) out.push_back(part);
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return out;
}

// JSON this deep is refused before it is parsed: copying and printing a value recurse once per
// level, and no request of ours nests past a few.
constexpr int kMaxJsonDepth = 64;

bool is_page(const std::string& path) { return path == "/" || path == "/index.html"; }
// GET /healthz and /readyz: answered without a token (docs/reference/http-api.md, "Operations").
bool is_probe(const HttpRequest& r) { return !r.upgrade && (r.path == "/healthz" || r.path == "/readyz"); }
// Answered without a token: how the extension tells ouro from another program on the port, and
// pairing itself (docs/design/extension-bridge.md, "Pairing").
bool is_open(const HttpRequest& r) {
  return !r.upgrade && ((r.path == "/api/hello" && r.method == "GET") || (r.path == "/api/pair" && r.method == "POST"));
}

// The id in an Origin of the form chrome-extension://<32 letters a-p>, else "".
std::string extension_origin_id(const std::string& origin) {
  constexpr std::string_view prefix = "chrome-extension://";
  if (origin.rfind(prefix, 0) != 0) return "";
  std::string id = origin.substr(prefix.size());
  return Pairings::valid_extension_id(id) ? id : "";
}

// The credential in a WebSocket's subprotocols (RFC 6455 §4.1, Sec-WebSocket-Protocol): the
// browser API can send no Authorization header, so the extension offers "ouro-credential.<it>"
// beside "ouro-bridge.1".
std::string subprotocol_credential(const HttpRequest& r) {
  std::string list = r.header("sec-websocket-protocol");
  constexpr std::string_view prefix = "ouro-credential.";
  size_t start = 0;
  while (start < list.size()) {
    size_t comma = list.find(',', start);
    std::string item = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (item.rfind(prefix, 0) == 0) return item.substr(prefix.size());
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return "";
}

// Who sent a request: the page token's holder (the Command Center, a script), or a paired
// extension.
struct Principal {
  enum class Kind { Page, Extension } kind = Kind::Page;
  std::string pairing_id, extension_id;
};
bool is_stream(const std::string& path) { return path == "/api/events" || path == "/api/screencast"; }

// An open events WebSocket and its subscription, which a worker makes while the socket may
// already be closing.
struct EventStream {
  std::mutex mutex;
  int subscription = 0;
  bool closed = false;
  int64_t last_sent = 0;  // seq, or id for run=all; touched only by the subscription's callback
};

// An open screencast WebSocket and its viewer id at the browser.
struct Viewer {
  std::mutex mutex;
  int id = 0;
  bool closed = false;
};

constexpr size_t kMaxPendingFrames = 2;
// Close codes of the application range (RFC 6455 §7.4.2), as docs/design/extension-bridge.md
// assigns them.
constexpr auto kRevoked = static_cast<net::CloseCode>(4001);
constexpr int kMaxTabsOpening = 2;

}  // namespace

struct ApiServer::Impl : std::enable_shared_from_this<ApiServer::Impl> {
  RunManager* runs = nullptr;  // outlives the server (start's contract)
  Scheduler* scheduler = nullptr;  // likewise; null: no schedules here
  std::shared_ptr<session::Runtime> runtime;
  std::string token;
  uint16_t port = 0;
  bool off_loopback = false;  // --listen on an address other than loopback: any Host, the token decides
  std::unique_ptr<Metrics> metrics;  // GET /metrics; made at start, ended before the runs
  std::unique_ptr<ThreadPool> work;  // blocking work of the handlers, with a bounded queue (503 beyond)
  std::atomic<int> tabs_opening{0};
  std::unique_ptr<net::HttpServer> http;
  std::unique_ptr<Pairings> pairings;  // null without a database (then nothing pairs)
  std::shared_ptr<BridgeHub> bridge;
  std::string version;
  // The sockets each paired extension holds (event streams, its bridge), closed when it is
  // revoked. Any thread.
  std::mutex paired_mutex;
  std::multimap<std::string, std::weak_ptr<net::WsPeer>> paired_peers;

  void hold_for_pairing(const std::string& pairing_id, std::weak_ptr<net::WsPeer> peer) {
    std::lock_guard lock(paired_mutex);
    std::erase_if(paired_peers, [](const auto& kv) { return kv.second.expired(); });
    paired_peers.emplace(pairing_id, std::move(peer));
  }

  // A revoked pairing's sockets close at once, with 4001 (the extension forgets its credential).
  void close_pairing(const std::string& pairing_id) {
    std::vector<std::shared_ptr<net::WsPeer>> open;
    {
      std::lock_guard lock(paired_mutex);
      auto [from, to] = paired_peers.equal_range(pairing_id);
      for (auto it = from; it != to; ++it)
        if (auto peer = it->second.lock()) open.push_back(std::move(peer));
      paired_peers.erase(pairing_id);
    }
    for (auto& peer : open) peer->close(kRevoked, "this pairing was revoked");
  }

  bool pairing_connected(const std::string& pairing_id) {
    std::lock_guard lock(paired_mutex);
    auto [from, to] = paired_peers.equal_range(pairing_id);
    for (auto it = from; it != to; ++it)
      if (!it->second.expired()) return true;
    return false;
  }
  net::HttpServer::AsyncHandler mcp;  // /mcp, when ouro serve offers it

  // DNS rebinding: a page on evil.example that resolves to 127.0.0.1 sends its own Host; we
  // accept only our own.
  std::optional<HttpResponse> check_host(const HttpRequest& r) const {
    std::string host = r.header("host");
    if (off_loopback) return std::nullopt;  // a proxy's or the node's name; every route but the probes needs the token
    std::string ours1 = "127.0.0.1:" + std::to_string(port), ours2 = "localhost:" + std::to_string(port);
    if (host != ours1 && host != ours2)
      return net::json_error(403, "PermissionDenied", "unexpected Host header '" + host.substr(0, 100) + "'");
    return std::nullopt;
  }

  bool own_origin(const std::string& origin, const HttpRequest& r) const {
    std::string p = std::to_string(port);
    if (off_loopback && !origin.empty() && (origin == "http://" + r.header("host") || origin == "https://" + r.header("host"))) return true;
    return origin.empty() || origin == "http://127.0.0.1:" + p || origin == "http://localhost:" + p;
  }

  static HttpResponse foreign_origin(const std::string& origin) {
    return net::json_error(403, "PermissionDenied", "requests from origin '" + origin.substr(0, 100) + "' are not allowed");
  }

  // Whether the query may carry the credential: only where a header cannot be sent — a page
  // opened from a link, and the WebSockets.
  static bool query_allowed(const HttpRequest& r) {
    return r.upgrade ? is_stream(r.path) : is_page(r.path) && (r.method == "GET" || r.method == "HEAD");
  }

  // Who the request's credential belongs to, with the Origin it must come from: the page token
  // from our own pages (or none), a paired credential from its own extension
  // (chrome-extension://<id>), or with no Origin when it came in the Authorization header —
  // Chromium sends no Origin on an extension's GET requests, and a web page cannot set that
  // header on a cross-origin request without a CORS preflight, which this server never grants
  // (Fetch Standard, "CORS-safelisted request-header"). A paired credential in the URL needs its
  // extension's Origin. nullopt: no credential we know; a response: refused.
  std::variant<std::monostate, Principal, HttpResponse> principal(const HttpRequest& r) const {
    std::string origin = r.header("origin");
    struct Offered {
      std::string credential;
      bool in_header;  // Authorization: Bearer …
    };
    std::vector<Offered> offered;
    std::string auth = r.header("authorization");
    if (auth.rfind("Bearer ", 0) == 0) offered.push_back({auth.substr(7), true});
    if (query_allowed(r)) offered.push_back({query_param(r.query, "token"), false});
    if (r.upgrade && r.path == "/api/bridge") offered.push_back({subprotocol_credential(r), false});
    for (const auto& [credential, in_header] : offered) {
      if (credential.empty()) continue;
      if (equal_time_constant(credential, token)) {
        if (!own_origin(origin, r)) return foreign_origin(origin);
        return Principal{};
      }
      if (!pairings) continue;
      if (auto paired = pairings->authenticate(credential)) {
        bool from_its_extension = origin == "chrome-extension://" + paired->extension_id;
        if (!from_its_extension && !(origin.empty() && in_header))
          return net::json_error(403, "PermissionDenied", "this credential is accepted only from the extension it was paired with");
        return Principal{Principal::Kind::Extension, paired->id, paired->extension_id};
      }
    }
    return std::monostate{};
  }

  // Runs on the header alone, before any body is read.
  std::optional<HttpResponse> check_headers(const HttpRequest& r) const {
    if (auto refused = check_host(r)) return refused;
    std::string origin = r.header("origin");
    bool from_extension = !extension_origin_id(origin).empty();
    if (!own_origin(origin, r) && !from_extension) return foreign_origin(origin);
    // A load balancer's probes send no credential; they learn only "up" and "ready".
    if (is_probe(r)) return std::nullopt;
    // The Command Center's script and style carry no secrets.
    if (!r.upgrade && (r.path == "/static/app.js" || r.path == "/static/app.css")) return std::nullopt;
    if (is_open(r)) return std::nullopt;
    auto who = principal(r);
    if (auto* refused = std::get_if<HttpResponse>(&who)) return *refused;
    if (auto* p = std::get_if<Principal>(&who)) {
      bool bridge = r.upgrade && r.path == "/api/bridge";
      if (bridge && p->kind != Principal::Kind::Extension)
        return net::json_error(403, "PermissionDenied", "/api/bridge is for a paired extension (docs/design/extension-bridge.md)");
      if (p->kind == Principal::Kind::Extension && r.path == "/mcp")
        return net::json_error(403, "PermissionDenied", "/mcp takes the page token, not an extension's credential");
      return std::nullopt;
    }
    if (from_extension && r.upgrade && r.path == "/api/bridge")
      return net::json_error(401, "Unauthenticated", "unknown or revoked extension credential; pair again");
    bool query = query_allowed(r);
    std::string in_query = query_param(r.query, "token");
    if (!r.upgrade && is_page(r.path) && r.header("accept").find("text/html") != std::string::npos) {
      // A person at a browser: say what to open. The page script picks up a token it kept for
      // this tab (a reload after it dropped the token from the address bar).
      HttpResponse res;
      res.status = 401;
      res.body = "<!doctype html><title>ouro</title><p>This Command Center needs its access token: open the URL that "
                 "<code>ouro serve</code> printed (it ends in <code>?token=…</code>).</p><script src=\"/static/app.js\"></script>";
      return res;
    }
    if (!in_query.empty() && !query)
      return net::json_error(401, "Unauthenticated",
                             "?token= is accepted only for the Command Center page and the WebSockets; send Authorization: Bearer <token>");
    return net::json_error(401, "Unauthenticated", "missing or wrong token: send Authorization: Bearer <token> (printed by ouro serve)");
  }

  // Network thread: only what answers at once; everything under /api goes to a worker.
  void handle(const HttpRequest& r, std::function<void(HttpResponse)> respond) {
    const std::string& p = r.path;
    if (p == "/static/app.js" || p == "/static/app.css") {
      HttpResponse res;
      res.content_type = p == "/static/app.js" ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8";
      res.body = std::string(p == "/static/app.js" ? embedded::app_js : embedded::app_css);
      return respond(res);
    }
    if (is_page(p)) {
      if (r.method != "GET" && r.method != "HEAD") return respond(net::json_error(405, "InvalidArgument", "the Command Center page is GET only"));
      HttpResponse res;
      res.body = std::string(embedded::index_html);
      res.headers.push_back({"Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self' " + eval_report_style_source() +
                                                        "; script-src 'self'; connect-src 'self' ws://127.0.0.1:* ws://localhost:*"});
      res.headers.push_back({"Referrer-Policy", "no-referrer"});
      return respond(res);
    }
    if (p == "/mcp" && mcp) {
      // MCP over Streamable HTTP: on a worker; its tool calls run on the MCP session's own threads.
      bool queued = work->try_post([handler = mcp, r, respond] {
        try {
          handler(r, respond);
        } catch (const std::exception& e) {
          respond(net::json_error(500, "Internal", redact(std::string("handling /mcp failed: ") + e.what())));
        }
      });
      if (!queued) respond(busy());
      return;
    }
    if (p == "/healthz" || p == "/readyz" || p == "/metrics") {
      if (r.method != "GET" && r.method != "HEAD") return respond(net::json_error(405, "InvalidArgument", p + " is GET only"));
      if (p == "/healthz") return respond(json_response(200, {{"status", "ok"}}));
      // Both read the store: on a worker.
      std::weak_ptr<Impl> weak = weak_from_this();
      bool queued = work->try_post([weak, r, respond] {
        auto self = weak.lock();
        if (!self) return respond(net::json_error(503, "Unavailable", "ouro is shutting down"));
        try {
          respond(r.path == "/readyz" ? self->readiness() : self->metrics_page(r));
        } catch (const std::exception& e) {
          respond(net::json_error(500, "Internal", redact("handling " + r.path + " failed: " + e.what())));
        }
      });
      if (!queued) respond(busy());
      return;
    }
    if (p.rfind("/api/", 0) != 0) return respond(no_such_endpoint(r));
    std::weak_ptr<Impl> weak = weak_from_this();
    bool queued = work->try_post([weak, r, respond] {
      auto self = weak.lock();
      if (!self) return respond(net::json_error(503, "Unavailable", "ouro is shutting down"));
      // The exception boundary of the API's worker threads.
      try {
        respond(self->route(r));
      } catch (const std::exception& e) {
        std::string message = redact("handling " + r.method.substr(0, 20) + " " + r.path.substr(0, 200) + " failed: " + e.what());
        spdlog::error("api: {}", message);
        respond(net::json_error(500, "Internal", message));
      }
    });
    if (!queued) respond(busy());
  }

  // A worker thread. Ready when the store answers and runs have somewhere to go: the server's own
  // browser alive, a healthy pool endpoint, or (with neither: `--browser extension`) the bridge.
  HttpResponse readiness() {
    json checks = json::object();
    bool ready = true;
    auto settings = runs->settings();
    checks["store"] = settings ? "ok" : "failed: " + settings.error().message;
    ready = ready && settings.has_value();
    if (auto pool = runs->pool_state()) {
      int healthy = pool->value("healthy", 0);
      checks["pool"] = fmt::format("{} of {} endpoints healthy", healthy, (*pool)["endpoints"].size());
      ready = ready && healthy > 0;
    } else if (runtime && runtime->browser) {
      auto dead = runtime->browser->dead();
      checks["browser"] = dead ? "gone: " + dead->message : "ok";
      ready = ready && !dead;
    } else {
      checks["browser"] = "the paired extension's (not checked)";
    }
    return json_response(ready ? 200 : 503, {{"ready", ready}, {"checks", checks}});
  }

  // A worker thread. GET /metrics: the page token only (an extension's credential is for its bridge).
  HttpResponse metrics_page(const HttpRequest& r) {
    auto who = principal(r);
    if (!std::holds_alternative<Principal>(who) || std::get<Principal>(who).kind != Principal::Kind::Page)
      return net::json_error(401, "Unauthenticated", "/metrics takes the page token: Authorization: Bearer <token>");
    if (!metrics) return net::json_error(503, "Unavailable", "metrics are not collected by this server");
    HttpResponse res;
    res.content_type = "text/plain; version=0.0.4; charset=utf-8";
    res.body = metrics->render(scheduler);
    res.headers.push_back({"Cache-Control", "no-store"});
    return res;
  }

  // A worker thread. Every /api route is here.
  HttpResponse route(const HttpRequest& r) {
    auto parts = split_path(r.path);
    json body = json::object();
    if (!r.body.empty()) {
      if (nested_deeper_than(r.body, kMaxJsonDepth))
        return net::json_error(400, "InvalidArgument", fmt::format("the request body nests deeper than {} levels", kMaxJsonDepth));
      auto parsed = parse_json(r.body, "request body");
      if (!parsed) return error_response(parsed.error());
      body = std::move(*parsed);
    }
    const std::string& m = r.method;
    if (is_open(r)) return open_route(r, body);
    // The credential was checked with the header; it may have been revoked since.
    auto who = principal(r);
    if (!std::holds_alternative<Principal>(who)) return net::json_error(401, "Unauthenticated", "this credential is no longer valid");
    const Principal& caller = std::get<Principal>(who);
    if (parts.size() >= 2 && (parts[1] == "pair" || parts[1] == "pairings")) return pairing_route(parts, m, caller);
    if (parts.size() == 2 && parts[1] == "runs") {
      if (m == "GET") return from(runs->list());
      if (m == "POST") return from(runs->create(body, nullptr, caller.kind == Principal::Kind::Extension ? caller.pairing_id : ""), 201);
    } else if (parts.size() == 3 && parts[1] == "runs" && m == "GET") {
      return from(runs->get(parts[2]));
    } else if (parts.size() == 4 && parts[1] == "runs" && parts[3] == "cancel" && m == "POST") {
      return from(runs->cancel(parts[2]));
    } else if (parts.size() == 4 && parts[1] == "runs" && parts[3] == "end" && m == "POST") {
      return from(runs->end(parts[2]));
    } else if (parts.size() == 4 && parts[1] == "runs" && parts[3] == "resume" && m == "POST") {
      return from(runs->resume(parts[2]));
    } else if (parts.size() == 4 && parts[1] == "runs" && parts[3] == "messages" && m == "POST") {
      if (!body.is_object() || !body.contains("text") || !body["text"].is_string())
        return error_response(Error{Code::InvalidArgument, "a message is {\"text\": \"what to do next\"}", nullptr});
      return from(runs->message(parts[2], body["text"].get<std::string>()), 202);
    } else if (parts.size() == 4 && parts[1] == "runs" && parts[3] == "answer" && m == "POST") {
      if (!body.is_object() || !body.contains("id") || !body["id"].is_string() || !body.contains("answer") || !body["answer"].is_string())
        return error_response(Error{Code::InvalidArgument, "an answer is {\"id\": \"q1\", \"answer\": \"text\"}", nullptr});
      return from(runs->answer(parts[2], body["id"].get<std::string>(), body["answer"].get<std::string>()));
    } else if (parts.size() == 4 && parts[1] == "runs" && parts[3] == "confirm" && m == "POST") {
      if (!body.is_object() || !body.contains("id") || !body["id"].is_string() || !body.contains("approved") || !body["approved"].is_boolean())
        return error_response(Error{Code::InvalidArgument, "a confirmation answer is {\"id\": \"c1\", \"approved\": true|false}", nullptr});
      bool remember = body.contains("remember") && body["remember"].is_boolean() && body["remember"].get<bool>();
      return from(runs->confirm(parts[2], body["id"].get<std::string>(), body["approved"].get<bool>(), remember));
    } else if (parts.size() == 4 && parts[1] == "runs" && parts[3] == "tabs" && m == "GET") {
      return from(runs->tabs_of(parts[2]));
    } else if (parts.size() == 4 && parts[1] == "runs" && parts[3] == "events" && m == "GET") {
      auto after = after_param(r.query);
      if (!after) return error_response(after.error());
      return from(runs->events(parts[2], *after));
    } else if (parts.size() == 4 && parts[1] == "runs" && parts[3] == "script" && m == "POST") {
      bool dry_run = body.is_object() && body.contains("dry_run") && body["dry_run"] == true;
      return from(save_script_from_run(*runtime->db, parts[2], body), dry_run ? 200 : 201);
    } else if (parts.size() == 2 && parts[1] == "eval" && m == "GET") {
      return from(list_evals(runtime->data_dir));
    } else if ((parts.size() == 4 && parts[1] == "eval" && parts[3] == "report" && m == "GET") ||
               (parts.size() == 3 && parts[1] == "eval" && parts[2] == "compare" && m == "GET")) {
      // An HTML page the Command Center opens: no script, its one style block allowed by hash.
      auto page = parts.size() == 4 ? eval_report(runtime->data_dir, parts[2])
                                    : eval_compare(runtime->data_dir, query_param(r.query, "a"), query_param(r.query, "b"));
      if (!page) return error_response(page.error());
      HttpResponse res;
      res.body = std::move(*page);
      res.headers.push_back({"Content-Security-Policy", "default-src 'none'; style-src " + eval_report_style_source()});
      res.headers.push_back({"Cache-Control", "no-store"});
      return res;
    } else if (parts.size() == 2 && parts[1] == "scripts" && m == "GET") {
      return from(list_scripts(*runtime->db));
    } else if (parts.size() == 3 && parts[1] == "scripts" && m == "GET") {
      return from(show_script(*runtime->db, parts[2], query_param(r.query, "version"), query_param(r.query, "diff")));
    } else if (parts.size() == 3 && parts[1] == "scripts" && m == "DELETE") {
      return from(delete_script(*runtime->db, parts[2]));
    } else if (parts.size() == 4 && parts[1] == "scripts" && parts[3] == "run" && m == "POST") {
      // An ordinary run with the replay provider: its events, the gate and confirmations hold.
      auto replay = replay_run_body(*runtime->db, parts[2], body);
      if (!replay) return error_response(replay.error());
      return from(runs->create(*replay), 201);
    } else if (parts.size() == 4 && parts[1] == "conversations" && (parts[3] == "undo" || parts[3] == "redo")) {
      // Undo and redo of a conversation's turns (docs/guides/undo.md).
      auto row = runtime->db->get_run(parts[2]);
      if (!row) return error_response(row.error());
      if (!*row) return net::json_error(404, "NotFound", "no conversation (run) " + clip_line(parts[2], 40));
      if (m == "GET" && parts[3] == "undo") return from(undo::stack(*runtime->db, parts[2]));
      if (m == "POST") {
        const bool redo = parts[3] == "redo";
        auto done = redo ? undo::redo(*runtime->db, parts[2]) : undo::undo(*runtime->db, parts[2]);
        if (!done) return error_response(done.error());
        json out = done->to_json(parts[2], redo);
        // What it says of memories is masked for every run's secrets, as GET /api/memory is.
        std::error_code dir_error;
        if (!runtime->data_dir.empty() && std::filesystem::is_directory(runtime->data_dir, dir_error)) {
          auto known = safety::KnownSecrets::open((std::filesystem::path(runtime->data_dir) / "secret-digests").string());
          if (!known) return error_response(known.error());
          (*known)->scrub(out["changes"]);
        }
        // The checklist as the conversation's next turn will start from it, for the Command Center.
        for (const auto& c : done->changes)
          if (get_str(c, "kind") == "goals")
            if (auto saved = store::load_run_checkpoint(*runtime->db, parts[2]); saved && *saved)
              out["goals"] = get_field(parse_json((*saved)->state).value_or(json::object()), "goals");
        return json_response(200, out);
      }
    } else if (parts.size() == 2 && parts[1] == "memory" && m == "GET") {
      return from(memory_get(*runtime->db, r.query, runtime->data_dir, runtime->embeddings.get()));
    } else if (parts.size() == 3 && parts[1] == "memory" && m == "DELETE") {
      return from(memory_delete(*runtime->db, parts[2]));
    } else if (parts.size() >= 2 && parts[1] == "schedules") {
      if (auto handled = schedules(parts, m, body)) return *handled;
    } else if (parts.size() == 2 && parts[1] == "pool" && m == "GET") {
      return from(runs->pool_state());
    } else if (parts.size() == 2 && parts[1] == "tabs") {
      // On a browser pool the server has no browser of its own: runs' tabs are on the endpoints.
      if (!runtime->browser) return net::json_error(404, "NotFound", "this server has no browser of its own (its runs use a browser pool, GET /api/pool, or your Chrome through the extension)");
      if (m == "GET") {
        browser::Browser& b = *runtime->browser;
        json tabs = json::array();
        for (const auto& t : b.tabs()) tabs.push_back(t.to_json());
        return json_response(200, {{"tabs", tabs}, {"activeTab", b.active_tab()}});
      }
      if (m == "POST") return open_tab(body);
    } else if (parts.size() == 2 && parts[1] == "settings") {
      if (m == "GET") return from(runs->settings());
      if (m == "PUT" || m == "POST") return from(runs->update_settings(body));
    } else if (parts.size() == 3 && parts[1] == "settings" && parts[2] == "test" && m == "POST") {
      return from(runs->test_connection(body));
    } else if (parts.size() == 2 && parts[1] == "providers" && m == "GET") {
      return json_response(200, runs->providers());
    }
    return no_such_endpoint(r);
  }

  // GET /api/hello and POST /api/pair: no credential (docs/design/extension-bridge.md).
  HttpResponse open_route(const HttpRequest& r, const json& body) {
    if (r.path == "/api/hello")
      return json_response(200, {{"service", "ouro"}, {"product", "ouro"}, {"version", version}, {"protocol", 1}, {"pairing", pairings != nullptr}});
    if (!pairings) return net::json_error(503, "Unavailable", "this server keeps no database, so it cannot pair");
    std::string from = extension_origin_id(r.header("origin"));
    if (from.empty())
      return net::json_error(403, "PermissionDenied", "pairing is for ouro's Chrome extension: its requests come from chrome-extension://<id>");
    if (!body.is_object() || !body.contains("code") || !body["code"].is_string())
      return net::json_error(400, "InvalidArgument", "a pairing is {\"code\": \"K7Q2-9XWD\", \"name\": \"…\", \"extensionId\": \"…\"}");
    std::string name = body.contains("name") && body["name"].is_string() ? body["name"].get<std::string>() : "";
    std::string ext = body.contains("extensionId") && body["extensionId"].is_string() ? body["extensionId"].get<std::string>() : "";
    if (ext != from) return net::json_error(403, "PermissionDenied", "extensionId must be the id of the extension that sends the request");
    auto paired = pairings->pair(body["code"].get<std::string>(), name, ext);
    if (!paired) return error_response(paired.error());
    (*paired)["server"] = {{"version", version}};
    return json_response(201, *paired);
  }

  // /api/pair/self, /api/pair/code, /api/pairings[/{id}]: the page token manages pairings; an
  // extension may only read and revoke its own.
  HttpResponse pairing_route(const std::vector<std::string>& parts, const std::string& m, const Principal& caller) {
    if (!pairings) return net::json_error(503, "Unavailable", "this server keeps no database, so it has no pairings");
    bool page = caller.kind == Principal::Kind::Page;
    auto page_only = [] { return net::json_error(403, "PermissionDenied", "pairings are managed with the page token, not with an extension's credential"); };
    if (parts.size() == 3 && parts[1] == "pair" && parts[2] == "self" && m == "GET") {
      if (page) return net::json_error(400, "InvalidArgument", "/api/pair/self answers for an extension's credential; this is the page token");
      return from(pairings->describe(caller.pairing_id));
    }
    if (parts.size() == 3 && parts[1] == "pair" && parts[2] == "code" && (m == "GET" || m == "POST")) {
      if (!page) return page_only();
      auto code = m == "GET" ? pairings->current_code() : pairings->new_code();
      return json_response(200, {{"code", code.code}, {"expiresAt", code.expires_at}});
    }
    if (parts.size() == 2 && parts[1] == "pairings" && m == "GET") {
      if (!page) return page_only();
      auto list = pairings->list();
      if (!list) return error_response(list.error());
      for (auto& p : *list) {
        std::string id = p["id"].get<std::string>();
        p["connected"] = bridge->connected(id) || pairing_connected(id);
      }
      return json_response(200, *list);
    }
    if (parts.size() == 3 && parts[1] == "pairings" && m == "DELETE") {
      if (!page && parts[2] != caller.pairing_id) return page_only();
      auto revoked = pairings->revoke(parts[2]);
      if (!revoked) return error_response(revoked.error());
      return json_response(200, json::object());
    }
    return net::json_error(404, "NotFound", "pairing endpoints: GET /api/pair/self, GET|POST /api/pair/code, GET /api/pairings, DELETE /api/pairings/{id}");
  }

  // GET|POST /api/schedules, DELETE /api/schedules/{id}, POST /api/schedules/{id}/run; nullopt:
  // no such route.
  std::optional<HttpResponse> schedules(const std::vector<std::string>& parts, const std::string& m, const json& body) {
    if (!scheduler) return net::json_error(503, "Unavailable", "schedules run in `ouro serve`; this server has no scheduler");
    if (parts.size() == 2 && m == "GET") return from(scheduler->list());
    if (parts.size() == 2 && m == "POST") return from(scheduler->create(body), 201);
    if (parts.size() == 3 && m == "DELETE") return from(scheduler->remove(parts[2]));
    if (parts.size() == 4 && parts[3] == "run" && m == "POST") return from(scheduler->run_now(parts[2]), 202);
    return std::nullopt;
  }

  // POST /api/tabs {url?}: opening waits for the page, so only a few at once.
  HttpResponse open_tab(const json& body) {
    if (!body.is_object()) return net::json_error(400, "InvalidArgument", "POST /api/tabs takes {\"url\": \"https://…\"}");
    std::string url = "about:blank";
    if (auto it = body.find("url"); it != body.end()) {
      if (!it->is_string()) return net::json_error(400, "InvalidArgument", "url must be a string");
      url = it->get<std::string>();
    }
    if (tabs_opening.fetch_add(1) >= kMaxTabsOpening) {
      tabs_opening.fetch_sub(1);
      return net::json_error(429, "ResourceExhausted", "tabs are being opened already; try again when they are open");
    }
    browser::Browser& b = *runtime->browser;
    auto id = b.open_tab(url);
    tabs_opening.fetch_sub(1);
    if (!id) return error_response(id.error());
    auto info = b.tab_info(*id);
    return info ? json_response(201, info->to_json()) : error_response(info.error());
  }

  // GET /api/events?token=…&run=<id>|all&after=<seq or global id>. Network thread: the socket is
  // accepted at once; a worker replays the stored events and subscribes.
  std::optional<HttpResponse> upgrade(const HttpRequest& r, std::shared_ptr<net::WsPeer> peer, net::WsHandlers& handlers) {
    auto who = principal(r);
    const auto* caller = std::get_if<Principal>(&who);
    if (!caller) return net::json_error(401, "Unauthenticated", "this credential is no longer valid");
    if (caller->kind == Principal::Kind::Extension) hold_for_pairing(caller->pairing_id, peer);
    if (r.path == "/api/bridge") {
      // The credential came in the subprotocols (checked with the header); the extension must
      // also offer the protocol itself, which the handshake's answer names (RFC 6455 §4.2.2).
      if (caller->kind != Principal::Kind::Extension)
        return net::json_error(403, "PermissionDenied", "/api/bridge is for a paired extension");
      if (r.header("sec-websocket-protocol").find(BridgeHub::kSubprotocol) == std::string::npos)
        return net::json_error(400, "InvalidArgument", "offer the WebSocket subprotocol ouro-bridge.1 (docs/design/extension-bridge.md)");
      bridge->accept(caller->pairing_id, peer, handlers);
      return std::nullopt;
    }
    if (r.path == "/api/screencast") return screencast(r, peer, handlers);
    if (r.path != "/api/events") return net::json_error(404, "NotFound", "WebSocket endpoints: /api/events, /api/screencast, /api/bridge");
    std::string run = query_param(r.query, "run");
    if (run == "all") run.clear();
    auto after = after_param(r.query);
    if (!after) return error_response(after.error());
    auto stream = std::make_shared<EventStream>();
    stream->last_sent = *after;
    std::weak_ptr<Impl> weak = weak_from_this();
    std::weak_ptr<net::WsPeer> client = peer;
    bool queued = work->try_post([weak, stream, client, run, after = *after] {
      auto self = weak.lock();
      if (!self) return;
      const char* key = run.empty() ? "id" : "seq";
      auto sub = self->runs->subscribe(run, after, [stream, client, key](const json& e) {
        auto peer = client.lock();
        if (!peer) return false;
        auto sent = peer->send(dump_json(e));
        if (sent == net::WsPeer::Sent::Queued) {
          stream->last_sent = e[key].get<int64_t>();
          return true;
        }
        if (sent == net::WsPeer::Sent::Closed) return false;
        // Too far behind: events are resumable, so the client reconnects from what it has.
        spdlog::info("api: an events client fell too far behind; closing it at {}={}", key, stream->last_sent);
        peer->close(net::CloseCode::TryAgainLater, fmt::format("too far behind; reconnect with after={}", stream->last_sent));
        return false;
      });
      if (!sub) {
        if (auto peer = client.lock()) peer->close(net::CloseCode::InternalError, sub.error().message);
        return;
      }
      std::lock_guard lock(stream->mutex);
      if (stream->closed) self->runs->unsubscribe(*sub);
      else stream->subscription = *sub;
    });
    if (!queued) return busy();
    handlers.on_close = [weak, stream] {
      int sub;
      {
        std::lock_guard lock(stream->mutex);
        stream->closed = true;
        sub = stream->subscription;
      }
      auto self = weak.lock();
      if (self && sub) self->work->post([self, sub] { self->runs->unsubscribe(sub); });
    };
    handlers.on_message = [](std::string) {};
    return std::nullopt;
  }

  // GET /api/screencast?token=…&run=<id>: JPEG frames of the run's active tab as they paint; a
  // slow client gets the newest frames, not every frame late.
  std::optional<HttpResponse> screencast(const HttpRequest& r, std::shared_ptr<net::WsPeer> peer, net::WsHandlers& handlers) {
    std::string run = query_param(r.query, "run");
    if (run.empty()) return net::json_error(400, "InvalidArgument", "which run? /api/screencast?run=<id>");
    if (!runtime->browser) return net::json_error(404, "NotFound", "the live view of runs on a browser pool is not available yet");
    auto viewer = std::make_shared<Viewer>();
    std::weak_ptr<Impl> weak = weak_from_this();
    std::weak_ptr<net::WsPeer> client = peer;
    bool queued = work->try_post([weak, viewer, client, run] {
      auto self = weak.lock();
      if (!self) return;
      auto tabs = self->runs->tabs_of(run);
      std::string tab = tabs ? (*tabs)["activeTab"].get<std::string>() : "";
      if (tabs && tabs->contains("ownBrowser")) {
        // Its tabs are in the user's Chrome, beside the panel: there is nothing here to show.
        if (auto peer = client.lock()) peer->close(net::CloseCode::PolicyViolation, "this run works in your Chrome's tab group; look there");
        return;
      }
      if (tab.empty()) {
        if (auto peer = client.lock())
          peer->close(net::CloseCode::PolicyViolation, tabs ? "the run has no tab to show" : tabs.error().message);
        return;
      }
      browser::Browser& b = *self->runtime->browser;
      auto id = b.screencast().start(tab, [client, tab](const std::string& jpeg) {
        if (auto peer = client.lock()) (void)peer->send_or_drop(dump_json(json{{"tab", tab}, {"jpeg", jpeg}}), kMaxPendingFrames);
      });
      if (!id) {
        if (auto peer = client.lock()) peer->close(net::CloseCode::PolicyViolation, id.error().message);
        return;
      }
      std::lock_guard lock(viewer->mutex);
      if (viewer->closed) b.screencast().stop(*id);
      else viewer->id = *id;
    });
    if (!queued) return busy();
    handlers.on_close = [weak, viewer] {
      std::lock_guard lock(viewer->mutex);
      viewer->closed = true;
      if (auto self = weak.lock(); self && viewer->id) self->runtime->browser->screencast().stop(viewer->id);
    };
    handlers.on_message = [](std::string) {};
    return std::nullopt;
  }
};

namespace {

// "ADDR" or "ADDR:PORT", IPv6 in brackets ("[::]:8765"): the address (an IP literal) and the port
// (`port` when none is given).
Result<std::pair<boost::asio::ip::address, uint16_t>> parse_listen(const std::string& text, uint16_t port) {
  std::string host = text;
  std::string port_text;
  if (!text.empty() && text[0] == '[') {
    size_t close = text.find(']');
    if (close == std::string::npos) return errorf(Code::InvalidArgument, "--listen '{}': an IPv6 address goes in brackets: [::]:8765", text.substr(0, 100));
    host = text.substr(1, close - 1);
    if (close + 1 < text.size()) {
      if (text[close + 1] != ':') return errorf(Code::InvalidArgument, "--listen '{}': expected ADDR:PORT", text.substr(0, 100));
      port_text = text.substr(close + 2);
    }
  } else if (size_t colon = text.find(':'); colon != std::string::npos && text.find(':', colon + 1) == std::string::npos) {
    host = text.substr(0, colon);
    port_text = text.substr(colon + 1);
  }
  boost::system::error_code ec;
  auto address = boost::asio::ip::make_address(host, ec);
  if (ec) return errorf(Code::InvalidArgument, "--listen '{}': '{}' is not an IP address (e.g. 0.0.0.0, [::], 10.0.0.5)", text.substr(0, 100), host.substr(0, 100));
  if (!port_text.empty()) {
    char* end = nullptr;
    long n = std::strtol(port_text.c_str(), &end, 10);
    if (*end || n < 0 || n > 65535 || port_text.size() > 5) return errorf(Code::InvalidArgument, "--listen '{}': the port must be 0 to 65535", text.substr(0, 100));
    port = static_cast<uint16_t>(n);
  }
  return std::pair{address, port};
}

}  // namespace

Result<std::unique_ptr<ApiServer>> ApiServer::start(net::IoThread& io, RunManager& runs, std::shared_ptr<session::Runtime> runtime, Options options) {
  std::unique_ptr<ApiServer> s(new ApiServer());
  s->m = std::make_shared<Impl>();
  s->m->runs = &runs;
  s->m->scheduler = options.scheduler;
  s->m->mcp = std::move(options.mcp);
  s->m->bridge = options.bridge ? options.bridge : std::make_shared<BridgeHub>(io, options.version);
  s->m->runtime = std::move(runtime);
  s->m->token = options.token.empty() ? random_token() : options.token;
  s->m->work = std::make_unique<ThreadPool>(std::max<size_t>(options.workers, 1), std::max<size_t>(options.max_queued_work, 1), prefer_latency);
  std::weak_ptr<Impl> weak = s->m;
  net::HttpServer::Options http;
  http.port = options.port;
  http.limits = options.limits;
  if (!options.listen.empty()) {
    auto [address, port] = TRY(parse_listen(options.listen, options.port));
    if (!address.is_loopback() && options.token.empty())
      return errorf(Code::FailedPrecondition,
                    "--listen {} is reachable from other machines, and the API token is the only way in: set OURO_API_TOKEN (or OURO_API_TOKEN_FILE, a file "
                    "holding it) to a long random secret (e.g. `openssl rand -hex 32`) and give it to the clients (docs/guides/pools-and-scaling.md)",
                    options.listen.substr(0, 100));
    http.address = address.to_string();
    http.port = port;
    s->m->off_loopback = !address.is_loopback();
  }
  http.check_headers = [weak](const HttpRequest& r) -> std::optional<HttpResponse> {
    auto self = weak.lock();
    if (!self) return net::json_error(503, "Unavailable", "ouro is shutting down");
    return unframed(self->check_headers(r));
  };
  // Made before the server listens: every answer is timed into it (on_answered).
  s->m->metrics = Metrics::start(runs);
  http.on_answered = [weak](const HttpRequest& r, int, double ms) {
    if (auto self = weak.lock(); self && self->metrics) self->metrics->answered(r.path, ms);
  };
  s->m->http = TRY(net::HttpServer::start_async(
      io, std::move(http),
      [weak](const HttpRequest& r, std::function<void(HttpResponse)> respond) {
        auto framed = [respond = std::move(respond)](HttpResponse res) { respond(*unframed(std::move(res))); };
        if (auto self = weak.lock()) self->handle(r, std::move(framed));
        else framed(net::json_error(503, "Unavailable", "ouro is shutting down"));
      },
      [weak](const HttpRequest& r, std::shared_ptr<net::WsPeer> peer, net::WsHandlers& h) -> std::optional<HttpResponse> {
        if (auto self = weak.lock()) return unframed(self->upgrade(r, std::move(peer), h));
        return net::json_error(503, "Unavailable", "ouro is shutting down");
      }));
  s->m->port = s->m->http->port();
  s->m->version = options.version;
  if (s->m->runtime && s->m->runtime->db) {
    s->m->pairings = TRY(Pairings::open(*s->m->runtime->db));
    (void)s->m->pairings->current_code();  // in force from the start; ouro serve prints it
    s->m->pairings->set_revocation_listener([weak](const std::string& id) {
      if (auto self = weak.lock()) self->close_pairing(id);
    });
    if (options.on_pairing_code)
      s->m->pairings->set_code_listener([print = options.on_pairing_code](const Pairings::PairingCode& c) { print(c.code); });
  }
  // Its own pages carry the token: no run may see or touch the tabs that show them.
  if (s->m->runtime && s->m->runtime->browser) {
    std::string port = std::to_string(s->m->port);
    // Nor the pages of ouro's extension (its side panel, in the Chromium plain `ouro` launches).
    s->m->runtime->browser->shared().set_hidden_prefixes({"http://127.0.0.1:" + port + "/", "http://localhost:" + port + "/", "chrome-extension://"});
  }
  return s;
}

Result<std::unique_ptr<ApiServer>> ApiServer::start(net::IoThread& io, uint16_t port, RunManager& runs, std::shared_ptr<session::Runtime> runtime,
                                                    std::string token) {
  Options options;
  options.port = port;
  options.token = std::move(token);
  return start(io, runs, std::move(runtime), std::move(options));
}

ApiServer::~ApiServer() {
  if (!m) return;
  // No handler runs after this: open streams are closed and post their unsubscriptions.
  m->http.reset();
  // The workers finish what they hold (their answers go nowhere) and the unsubscriptions.
  m->work.reset();
  m->metrics.reset();  // its subscription ends while the runs are still there
}

uint16_t ApiServer::port() const { return m->port; }
const std::string& ApiServer::token() const { return m->token; }
std::string ApiServer::pairing_code() const { return m->pairings ? m->pairings->current_code().code : ""; }
std::string ApiServer::url() const { return "http://127.0.0.1:" + std::to_string(m->port) + "/?token=" + m->token; }

}  // namespace ouro::server
