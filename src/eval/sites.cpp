#include "eval/sites.h"

#include "base/random.h"
#include "base/text.h"

#include <boost/url/params_view.hpp>
#include <boost/url/parse_query.hpp>

#include <algorithm>

namespace ouro::eval {

namespace {

constexpr size_t kMaxLog = 2000;       // entries a site keeps
constexpr size_t kMaxReceived = 1000;  // requests the attacker's site keeps
constexpr size_t kMaxKeptBody = 8000;  // of a request's body, kept for the checks

std::string content_type(const std::string& path) {
  auto ends = [&](std::string_view s) { return path.size() >= s.size() && path.compare(path.size() - s.size(), s.size(), s) == 0; };
  if (ends(".html")) return "text/html; charset=utf-8";
  if (ends(".js")) return "text/javascript; charset=utf-8";
  if (ends(".css")) return "text/css; charset=utf-8";
  if (ends(".json")) return "application/json";
  if (ends(".svg")) return "image/svg+xml";
  if (ends(".png")) return "image/png";
  if (ends(".jpg") || ends(".jpeg")) return "image/jpeg";
  if (ends(".ico")) return "image/x-icon";
  return "application/octet-stream";
}

net::HttpResponse plain(int status, std::string body, std::string type = "text/plain; charset=utf-8") {
  net::HttpResponse r;
  r.status = status;
  r.content_type = std::move(type);
  r.body = std::move(body);
  r.headers.push_back({"Cache-Control", "no-store"});
  return r;
}

net::HttpResponse redirect(const std::string& to, std::vector<std::pair<std::string, std::string>> extra = {}) {
  net::HttpResponse r = plain(303, "");
  r.headers.push_back({"Location", to});
  for (auto& h : extra) r.headers.push_back(std::move(h));
  return r;
}

net::HttpResponse json_response(const json& j) { return plain(200, dump_json(j), "application/json"); }

std::string cookie(const net::HttpRequest& req, const std::string& name) {
  const std::string all = req.header("cookie");
  size_t at = 0;
  while (at < all.size()) {
    size_t end = all.find(';', at);
    std::string part = all.substr(at, end == std::string::npos ? std::string::npos : end - at);
    at = end == std::string::npos ? all.size() : end + 1;
    size_t b = part.find_first_not_of(' ');
    if (b == std::string::npos) continue;
    part = part.substr(b);
    if (part.rfind(name + "=", 0) == 0) return part.substr(name.size() + 1);
  }
  return {};
}

// A path on this site for a redirect (`_next`): anything else goes to "/".
std::string local_path(const json& body, const std::string& dflt) {
  std::string next = body.is_object() ? get_str(body, "_next", dflt) : dflt;
  if (next.empty() || next[0] != '/' || next.size() > 2000) return dflt;
  // Nothing a browser would drop or read as another host (/\t/evil.example is //evil.example).
  for (unsigned char c : next)
    if (c < 0x20 || c == 0x7f || c == '\\') return dflt;
  if (next.size() > 1 && next[1] == '/') return dflt;
  return next;
}

void substitute(json& j, const std::string& attacker) {
  if (j.is_string()) {
    std::string s = j.get<std::string>();
    for (size_t at = s.find("{{attacker}}"); at != std::string::npos; at = s.find("{{attacker}}", at + attacker.size()))
      s.replace(at, 12, attacker);
    j = s;
  } else if (j.is_structured()) {
    for (auto& v : j) substitute(v, attacker);
  }
}

}  // namespace

json injected(json data, const json& patch, const std::string& attacker) {
  json p = patch;
  substitute(p, attacker);
  data.merge_patch(p);
  return data;
}

Result<json> form_fields(std::string_view body) {
  if (!boost::urls::parse_query(boost::urls::string_view(body.data(), body.size())))
    return make_error(Code::InvalidArgument, "the form's body is not application/x-www-form-urlencoded");
  boost::urls::encoding_opts forms;
  forms.space_as_plus = true;
  json out = json::object();
  for (auto p : boost::urls::params_view(boost::urls::string_view(body.data(), body.size()), forms)) {
    std::string k(p.key), v(p.value);
    if (k.empty()) continue;
    if (!out.contains(k)) out[k] = v;
    else if (out[k].is_array()) out[k].push_back(v);
    else out[k] = json::array({out[k], v});
  }
  return out;
}

// --- SiteInstance -------------------------------------------------------------------------------

Result<std::unique_ptr<SiteInstance>> SiteInstance::start(net::IoThread& io, std::shared_ptr<const Site> site, json data) {
  std::unique_ptr<SiteInstance> s(new SiteInstance());
  s->m_site = std::move(site);
  if (data.is_object() && data.contains("_auth")) {
    s->m_auth = data["_auth"];
    data.erase("_auth");
    if (!s->m_auth.is_object() || get_str(s->m_auth, "user").empty())
      return errorf(Code::InvalidArgument, "site {}: \"_auth\" needs at least \"user\" (and \"password\", \"code\", \"private\")", s->m_site->name);
  }
  s->m_data = std::move(data);
  net::HttpServer::Options o;
  o.limits.max_connections = 64;
  SiteInstance* self = s.get();  // the server is stopped in the destructor, before the instance goes
  s->m_server = TRY(net::HttpServer::start(io, o, [self](const net::HttpRequest& r) { return self->handle(r); }));
  return s;
}

SiteInstance::~SiteInstance() { m_server.reset(); }

std::string SiteInstance::origin() const { return fmt::format("http://127.0.0.1:{}", m_server->port()); }

json SiteInstance::log() const {
  std::lock_guard lock(m_mutex);
  return m_log;
}

bool SiteInstance::signed_in(const net::HttpRequest& req) const {
  if (m_auth.is_null()) return true;
  std::lock_guard lock(m_mutex);
  return !m_session.empty() && cookie(req, "eval_session") == m_session;
}

net::HttpResponse SiteInstance::handle(const net::HttpRequest& req) {
  if (req.path == "/api/state") {
    if (req.method != "GET") return plain(405, "GET /api/state");
    if (!signed_in(req)) return net::json_error(401, "unauthenticated", "sign in first");
    std::lock_guard lock(m_mutex);
    return json_response({{"data", m_data}, {"log", m_log}});
  }
  // POST /api/ACTION: lower-case letters, digits and '-', up to 40 (no regular expression on the
  // network thread for a stranger's path).
  if (req.path.rfind("/api/", 0) == 0) {
    const std::string action = req.path.substr(5);
    const bool named = !action.empty() && action.size() <= 40 &&
                       std::all_of(action.begin(), action.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
    if (named) {
      if (req.method != "POST") return plain(405, "POST " + req.path);
      return post(req, action);
    }
  }
  if (req.path.rfind("/api/", 0) == 0)
    return net::json_error(404, "not-found", "no such action: POST /api/ACTION, ACTION lower-case letters, digits and '-' (up to 40)");
  if (req.method != "GET" && req.method != "HEAD") return plain(405, "this site answers GET for its pages");
  std::string path = req.path == "/" ? "/index.html" : req.path;
  auto it = m_site->files.find(path);
  if (it == m_site->files.end() && path.find('.') == std::string::npos) it = m_site->files.find(path + ".html");
  if (it == m_site->files.end()) return plain(404, "no such page: " + clip_text(req.path, 200));
  if (!m_auth.is_null()) {
    for (const auto& p : get_array(m_auth, "private"))
      if (p.is_string() && (p.get<std::string>() == it->first || p.get<std::string>() == path || p.get<std::string>() == req.path) && !signed_in(req))
        return redirect("/login.html");
  }
  return plain(200, it->second, content_type(path));
}

net::HttpResponse SiteInstance::post(const net::HttpRequest& req, const std::string& action) {
  const std::string type = req.header("content-type");
  const bool is_json = type.find("application/json") != std::string::npos;
  json body;
  if (is_json) {
    auto j = parse_json(req.body, "the request's body");
    if (!j || !j->is_object()) return net::json_error(400, "invalid-body", "send a JSON object");
    body = std::move(*j);
  } else if (type.empty() || type.find("application/x-www-form-urlencoded") != std::string::npos || type.find("text/plain") != std::string::npos) {
    auto f = form_fields(req.body);
    if (!f) return net::json_error(400, "invalid-body", f.error().message);
    body = std::move(*f);
  } else {
    return net::json_error(415, "unsupported-body", "send JSON or a url-encoded form");
  }
  const std::string next = local_path(body, "/");
  body.erase("_next");
  std::vector<std::pair<std::string, std::string>> cookies;
  std::string go = next;
  // The two-step sign-in: the log keeps who tried and whether it worked, never the secrets.
  if (!m_auth.is_null() && (action == "login" || action == "verify")) {
    std::lock_guard lock(m_mutex);
    bool ok;
    if (action == "login") {
      ok = get_str(body, "user") == get_str(m_auth, "user") && get_str(body, "password") == get_str(m_auth, "password");
      body = {{"user", get_str(body, "user")}, {"ok", ok}};
      if (ok) {
        m_pending = random_hex(16);
        cookies.push_back({"Set-Cookie", "eval_pending=" + m_pending + "; Path=/; HttpOnly; SameSite=Lax"});
      }
      go = ok ? get_str(m_auth, "verify", "/verify.html") : "/login.html?error=1";
    } else {
      ok = !m_pending.empty() && cookie(req, "eval_pending") == m_pending && get_str(body, "code") == get_str(m_auth, "code");
      body = {{"ok", ok}};
      if (ok) {
        m_session = random_hex(16);
        cookies.push_back({"Set-Cookie", "eval_session=" + m_session + "; Path=/; HttpOnly; SameSite=Lax"});
      }
      go = ok ? (next != "/" ? next : get_str(m_auth, "home", "/")) : "/verify.html?error=1";
    }
  } else if (!signed_in(req)) {
    return net::json_error(401, "unauthenticated", "sign in first");
  }
  int64_t seq;
  {
    std::lock_guard lock(m_mutex);
    if (m_log.size() >= kMaxLog) return net::json_error(507, "log-full", "this site keeps at most 2000 entries");
    seq = static_cast<int64_t>(m_log.size()) + 1;
    m_log.push_back({{"seq", seq}, {"action", action}, {"body", std::move(body)}});
  }
  if (is_json) {
    net::HttpResponse r = json_response({{"ok", true}, {"seq", seq}});
    for (auto& c : cookies) r.headers.push_back(std::move(c));
    return r;
  }
  return redirect(go, std::move(cookies));
}

// --- AttackerSite -------------------------------------------------------------------------------

Result<std::unique_ptr<AttackerSite>> AttackerSite::start(net::IoThread& io, const std::string& address) {
  std::unique_ptr<AttackerSite> a(new AttackerSite());
  a->m_address = address;
  net::HttpServer::Options o;
  o.address = address;
  o.limits.max_connections = 32;
  AttackerSite* self = a.get();
  auto server = net::HttpServer::start(io, o, [self](const net::HttpRequest& r) {
    {
      std::lock_guard lock(self->m_mutex);
      if (self->m_received.size() < kMaxReceived)
        self->m_received.push_back({{"method", r.method}, {"target", r.target}, {"body", clip_text(r.body, kMaxKeptBody)}});
    }
    return plain(200, "<!doctype html><title>Verified</title><p>Thank you, your account is verified.</p>", "text/html; charset=utf-8");
  });
  if (!server)
    return errorf(Code::Unavailable, "cannot start the attacker's site on {} ({}): an injected task needs a second loopback address", address,
                  server.error().message);
  a->m_server = std::move(*server);
  return a;
}

AttackerSite::~AttackerSite() { m_server.reset(); }

std::string AttackerSite::origin() const { return fmt::format("http://{}:{}", m_address, m_server->port()); }

json AttackerSite::received() const {
  std::lock_guard lock(m_mutex);
  return m_received;
}

}  // namespace ouro::eval
