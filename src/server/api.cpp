#include "server/api.h"

#include "browser/browser.h"
#include "net/http_server.h"
#include "server/runs.h"
#include "session/session.h"

#include <fstream>
#include <map>
#include <mutex>
#include <random>

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
  return json_response(http_status(e.code), {{"error", {{"code", std::string(code_name(e.code))}, {"message", e.message}}}});
}

HttpResponse from(const Result<json>& r, int ok_status = 200) { return r ? json_response(ok_status, *r) : error_response(r.error()); }

std::string random_token() {
  std::random_device rd;
  std::string t;
  static const char* hex = "0123456789abcdef";
  for (int i = 0; i < 40; ++i) t += hex[rd() % 16];
  return t;
}

bool equal_time_constant(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

std::string query_param(const std::string& query, const std::string& key) {
  size_t pos = 0;
  while (pos <= query.size()) {
    size_t amp = query.find('&', pos);
    std::string part = query.substr(pos, amp == std::string::npos ? std::string::npos : amp - pos);
    if (part.rfind(key + "=", 0) == 0) return part.substr(key.size() + 1);
    if (amp == std::string::npos) break;
    pos = amp + 1;
  }
  return "";
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

}  // namespace

struct ApiServer::Impl : std::enable_shared_from_this<ApiServer::Impl> {
  RunManager* runs = nullptr;
  // Open event streams: closed and unsubscribed when the server goes, before the RunManager.
  std::mutex streams_mutex;
  std::map<int, std::shared_ptr<net::WsPeer>> streams;
  std::shared_ptr<session::Runtime> runtime;
  std::string token;
  std::unique_ptr<net::HttpServer> http;
  uint16_t port = 0;

  // DNS rebinding: a page on evil.example that resolves to 127.0.0.1 sends its own Host and
  // Origin; we accept only our own.
  std::optional<HttpResponse> check_origin(const HttpRequest& r) const {
    std::string host = r.header("host");
    std::string ours1 = "127.0.0.1:" + std::to_string(port), ours2 = "localhost:" + std::to_string(port);
    if (host != ours1 && host != ours2)
      return json_response(403, {{"error", {{"code", "PermissionDenied"}, {"message", "unexpected Host header '" + host + "'"}}}});
    std::string origin = r.header("origin");
    if (!origin.empty() && origin != "http://" + ours1 && origin != "http://" + ours2)
      return json_response(403, {{"error", {{"code", "PermissionDenied"}, {"message", "requests from origin '" + origin + "' are not allowed"}}}});
    return std::nullopt;
  }

  bool authorised(const HttpRequest& r) const {
    std::string auth = r.header("authorization");
    if (auth.rfind("Bearer ", 0) == 0 && equal_time_constant(auth.substr(7), token)) return true;
    return equal_time_constant(query_param(r.query, "token"), token);
  }

  void handle(const HttpRequest& r, std::function<void(HttpResponse)> respond) {
    if (auto refused = check_origin(r)) return respond(*refused);
    const std::string& p = r.path;
    // Static files of the Command Center carry no secrets; the page itself needs the token.
    if (p == "/static/app.js" || p == "/static/app.css") {
      HttpResponse res;
      res.content_type = p.back() == 's' && p[p.size() - 2] == 'j' ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8";
      res.body = std::string(p == "/static/app.js" ? embedded::app_js : embedded::app_css);
      return respond(res);
    }
    if (!authorised(r)) {
      if (p == "/" || p == "/index.html") {
        HttpResponse res;
        res.status = 401;
        res.body = "<!doctype html><title>ouro</title><p>This Command Center needs its access token: open the URL that "
                   "<code>ouro serve</code> printed (it ends in <code>?token=…</code>).</p>";
        return respond(res);
      }
      return respond(json_response(401, {{"error", {{"code", "Unauthenticated"}, {"message", "missing or wrong token: send Authorization: Bearer <token> (printed by ouro serve)"}}}}));
    }
    if (p == "/" || p == "/index.html") {
      HttpResponse res;
      res.body = std::string(embedded::index_html);
      res.headers.push_back({"Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self' ws://127.0.0.1:* ws://localhost:*"});
      return respond(res);
    }
    auto parts = split_path(p);
    if (parts.empty() || parts[0] != "api") return respond(json_response(404, {{"error", {{"code", "NotFound"}, {"message", "no such endpoint: " + r.method + " " + p}}}}));
    json body = json::object();
    if (!r.body.empty()) {
      auto parsed = parse_json(r.body, "request body");
      if (!parsed) return respond(error_response(parsed.error()));
      body = std::move(*parsed);
    }
    const std::string& m = r.method;
    if (parts.size() == 2 && parts[1] == "runs") {
      if (m == "GET") return respond(from(runs->list()));
      if (m == "POST") return respond(from(runs->create(body), 201));
    } else if (parts.size() == 3 && parts[1] == "runs" && m == "GET") {
      return respond(from(runs->get(parts[2])));
    } else if (parts.size() == 4 && parts[1] == "runs" && parts[3] == "cancel" && m == "POST") {
      return respond(from(runs->cancel(parts[2])));
    } else if (parts.size() == 4 && parts[1] == "runs" && parts[3] == "confirm" && m == "POST") {
      if (!body.contains("id") || !body["id"].is_string() || !body.contains("approved") || !body["approved"].is_boolean())
        return respond(error_response(Error{Code::InvalidArgument, "a confirmation answer is {\"id\": \"c1\", \"approved\": true|false}", nullptr}));
      return respond(from(runs->confirm(parts[2], body["id"], body["approved"])));
    } else if (parts.size() == 4 && parts[1] == "runs" && parts[3] == "tabs" && m == "GET") {
      return respond(from(runs->tabs_of(parts[2])));
    } else if (parts.size() == 4 && parts[1] == "runs" && parts[3] == "events" && m == "GET") {
      std::string after = query_param(r.query, "after");
      json out = json::array();
      int sub = runs->subscribe(parts[2], after.empty() ? 0 : std::atoll(after.c_str()), [&](const json& e) { out.push_back(e); });
      runs->unsubscribe(sub);
      return respond(json_response(200, out));
    } else if (parts.size() == 2 && parts[1] == "tabs") {
      browser::Browser& b = *runtime->browser;
      if (m == "GET") {
        json tabs = json::array();
        for (const auto& t : b.tabs()) tabs.push_back(t.to_json());
        return respond(json_response(200, {{"tabs", tabs}, {"activeTab", b.active_tab()}}));
      }
      if (m == "POST") {
        std::string url = body.value("url", "about:blank");
        // Opening waits for the page: off the network thread.
        std::thread([&b, url, respond] {
          auto id = b.open_tab(url);
          if (!id) return respond(error_response(id.error()));
          auto info = b.tab_info(*id);
          respond(info ? json_response(201, info->to_json()) : error_response(info.error()));
        }).detach();
        return;
      }
    } else if (parts.size() == 2 && parts[1] == "settings") {
      if (m == "GET") return respond(from(runs->settings()));
      if (m == "PUT" || m == "POST") return respond(from(runs->update_settings(body)));
    }
    respond(json_response(404, {{"error", {{"code", "NotFound"}, {"message", "no such endpoint: " + m + " " + p}}}}));
  }

  // GET /api/events?token=…&run=<id>|all&after=<seq or global id>
  std::optional<HttpResponse> upgrade(const HttpRequest& r, std::shared_ptr<net::WsPeer> peer, net::WsHandlers& handlers) {
    if (auto refused = check_origin(r)) return refused;
    if (!authorised(r)) return json_response(401, {{"error", {{"code", "Unauthenticated"}, {"message", "missing or wrong token"}}}});
    if (r.path == "/api/screencast") return screencast(r, peer, handlers);
    if (r.path != "/api/events") return json_response(404, {{"error", {{"code", "NotFound"}, {"message", "WebSocket endpoints: /api/events, /api/screencast"}}}});
    std::string run = query_param(r.query, "run");
    if (run == "all") run.clear();
    std::string after = query_param(r.query, "after");
    std::weak_ptr<net::WsPeer> weak = peer;
    int sub = runs->subscribe(run, after.empty() ? 0 : std::atoll(after.c_str()), [weak](const json& e) {
      if (auto p = weak.lock()) p->send(dump_json(e));
    });
    {
      std::lock_guard lock(streams_mutex);
      streams[sub] = peer;
    }
    std::weak_ptr<Impl> self = shared_from_this();
    handlers.on_close = [self, sub] {
      if (auto s = self.lock()) s->drop(sub);
    };
    handlers.on_message = [](std::string) {};
    return std::nullopt;
  }

  // GET /api/screencast?token=…&run=<id>: JPEG frames of the run's active tab as they paint.
  std::optional<HttpResponse> screencast(const HttpRequest& r, std::shared_ptr<net::WsPeer> peer, net::WsHandlers& handlers) {
    std::string run = query_param(r.query, "run");
    auto tabs = runs->tabs_of(run);
    if (!tabs) return error_response(tabs.error());
    std::string tab = (*tabs)["activeTab"];
    if (tab.empty()) return json_response(404, {{"error", {{"code", "NotFound"}, {"message", "the run has no tab to show"}}}});
    std::weak_ptr<net::WsPeer> weak = peer;
    browser::Browser* b = runtime->browser.get();
    auto id = b->start_screencast(tab, [weak, tab](const std::string& jpeg) {
      if (auto p = weak.lock()) p->send(dump_json(json{{"tab", tab}, {"jpeg", jpeg}}));
    });
    if (!id) return error_response(id.error());
    int viewer = *id;
    std::weak_ptr<Impl> self = shared_from_this();
    handlers.on_close = [self, viewer] {
      if (auto s = self.lock()) s->runtime->browser->stop_screencast(viewer);
    };
    handlers.on_message = [](std::string) {};
    return std::nullopt;
  }

  void drop(int sub) {
    std::shared_ptr<net::WsPeer> peer;
    {
      std::lock_guard lock(streams_mutex);
      auto it = streams.find(sub);
      if (it == streams.end()) return;
      peer = std::move(it->second);
      streams.erase(it);
    }
    runs->unsubscribe(sub);
  }

  void close_all() {
    std::map<int, std::shared_ptr<net::WsPeer>> all;
    {
      std::lock_guard lock(streams_mutex);
      all.swap(streams);
    }
    for (auto& [sub, peer] : all) {
      runs->unsubscribe(sub);
      peer->close();
    }
  }
};

Result<std::unique_ptr<ApiServer>> ApiServer::start(net::IoThread& io, uint16_t port, RunManager& runs, std::shared_ptr<session::Runtime> runtime,
                                                    std::string token) {
  std::unique_ptr<ApiServer> s(new ApiServer());
  s->m = std::make_shared<Impl>();
  s->m->runs = &runs;
  s->m->runtime = std::move(runtime);
  s->m->token = token.empty() ? random_token() : token;
  Impl* impl = s->m.get();
  s->m->http = TRY(net::HttpServer::start_async(
      io, port, [impl](const HttpRequest& r, std::function<void(HttpResponse)> respond) { impl->handle(r, std::move(respond)); },
      [impl](const HttpRequest& r, std::shared_ptr<net::WsPeer> peer, net::WsHandlers& h) { return impl->upgrade(r, std::move(peer), h); }));
  s->m->port = s->m->http->port();
  return s;
}

ApiServer::~ApiServer() {
  if (!m) return;
  m->http.reset();
  m->close_all();
}

uint16_t ApiServer::port() const { return m->port; }
const std::string& ApiServer::token() const { return m->token; }
std::string ApiServer::url() const { return "http://127.0.0.1:" + std::to_string(m->port) + "/?token=" + m->token; }

}  // namespace ouro::server
