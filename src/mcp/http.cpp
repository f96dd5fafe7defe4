#include "mcp/http.h"

#include "base/clock.h"
#include "base/random.h"

#include "base/json.h"
#include "base/log.h"
#include "base/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>
#include <random>

namespace ouro::mcp {

namespace {

using net::HttpRequest;
using net::HttpResponse;

// An HTTP-level refusal, its body a JSON-RPC error without an id (as the specification's
// examples answer a POST that is not accepted).
HttpResponse rpc_error(int status, int code, const std::string& message) {
  HttpResponse r;
  r.status = status;
  r.content_type = "application/json";
  r.body = dump_json(json{{"jsonrpc", "2.0"}, {"id", nullptr}, {"error", {{"code", code}, {"message", message}}}});
  r.headers.push_back({"Cache-Control", "no-store"});
  return r;
}

HttpResponse json_body(std::string body) {
  HttpResponse r;
  r.content_type = "application/json";
  r.body = std::move(body);
  r.headers.push_back({"Cache-Control", "no-store"});
  return r;
}

HttpResponse accepted() {
  HttpResponse r;
  r.status = 202;
  r.content_type = "application/json";
  return r;
}

// "Mcp-Session-Id … SHOULD be globally unique and cryptographically secure": 128 random bits.
std::string new_session_id() { return random_hex(16); }

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// One POSTed request and where what the Protocol says about it goes: a JSON answer while
// nothing came before it, else an SSE stream (text/event-stream, WHATWG HTML §9.2.5) of
// `event: message` events that the answer ends.
class Exchange {
 public:
  Exchange(std::function<void(HttpResponse)> respond, size_t max_stream_bytes) : m_respond(std::move(respond)), m_max(max_stream_bytes) {}

  bool deliver(const std::string& line, bool last) {
    std::unique_lock lock(m_mutex);
    if (!m_stream) {
      if (!m_respond) return false;
      auto respond = std::move(m_respond);
      m_respond = nullptr;
      if (last) {
        lock.unlock();
        respond(line.empty() ? accepted() : json_body(line));
        return true;
      }
      m_stream = net::BodyStream::create(m_max);
      HttpResponse r;
      r.content_type = "text/event-stream";
      r.headers.push_back({"Cache-Control", "no-store"});
      r.stream = m_stream;
      bool ok = m_stream->write(event(line));
      lock.unlock();
      respond(std::move(r));
      return ok;
    }
    bool ok = line.empty() || m_stream->write(event(line));
    if (last) m_stream->end();
    return ok;
  }

 private:
  static std::string event(const std::string& line) { return "event: message\ndata: " + line + "\n\n"; }

  std::mutex m_mutex;
  std::function<void(HttpResponse)> m_respond;  // until the response has begun
  std::shared_ptr<net::BodyStream> m_stream;
  size_t m_max;
};

struct Session {
  std::string id;
  std::unique_ptr<Tools> tools;
  std::unique_ptr<Protocol> protocol;  // uses tools: destroyed first
  double last_used_ms = steady_ms();  // the one clock (base/clock.h); under the endpoint's mutex

  ~Session() {
    if (tools) tools->ending();  // a task cut short now is interrupted, not cancelled
    if (protocol) protocol->cancel_all();
    protocol.reset();  // waits for the cancelled calls
  }
};

}  // namespace

struct HttpEndpoint::Impl {
  ToolsFactory factory;
  Protocol::Info info;
  Options options;
  mutable std::mutex mutex;  // guards sessions and their last_used
  std::map<std::string, std::shared_ptr<Session>> sessions;
  size_t starting = 0;  // sessions being started (counted against the limit while their context opens)

  // Sessions idle past the timeout, taken out of the map (destroyed by the caller, unlocked).
  std::vector<std::shared_ptr<Session>> take_expired() {
    std::vector<std::shared_ptr<Session>> out;
    std::lock_guard lock(mutex);
    const double now = steady_ms();
    for (auto it = sessions.begin(); it != sessions.end();) {
      if (now - it->second->last_used_ms > static_cast<double>(options.idle_timeout.count()) && it->second->protocol->calls_in_flight() == 0) {
        spdlog::info("mcp: session {}… ended after {} s idle", it->first.substr(0, 8),
                     std::chrono::duration_cast<std::chrono::seconds>(options.idle_timeout).count());
        out.push_back(std::move(it->second));
        it = sessions.erase(it);
      } else {
        ++it;
      }
    }
    return out;
  }

  std::shared_ptr<Session> find(const std::string& id) {
    std::lock_guard lock(mutex);
    auto it = sessions.find(id);
    if (it == sessions.end()) return nullptr;
    it->second->last_used_ms = steady_ms();
    return it->second;
  }

  void post(const HttpRequest& r, std::function<void(HttpResponse)> respond);
  void initialize(const std::string& body, std::function<void(HttpResponse)> respond);
};

HttpEndpoint::HttpEndpoint(ToolsFactory factory, Protocol::Info info, Options options) : m(std::make_shared<Impl>()) {
  m->factory = std::move(factory);
  m->info = std::move(info);
  m->options = options;
}

HttpEndpoint::~HttpEndpoint() {
  std::map<std::string, std::shared_ptr<Session>> all;
  {
    std::lock_guard lock(m->mutex);
    all.swap(m->sessions);
  }
  all.clear();
}

size_t HttpEndpoint::sessions() const {
  std::lock_guard lock(m->mutex);
  return m->sessions.size();
}

void HttpEndpoint::handle(const HttpRequest& r, std::function<void(HttpResponse)> respond) {
  (void)m->take_expired();  // destroyed here, on this worker, with no lock held
  const std::string sid = r.header("mcp-session-id");
  if (r.method == "POST") return m->post(r, std::move(respond));
  if (r.method == "DELETE") {
    if (sid.empty()) return respond(rpc_error(400, kInvalidRequest, "Bad Request: DELETE /mcp needs the Mcp-Session-Id header"));
    std::shared_ptr<Session> gone;
    {
      std::lock_guard lock(m->mutex);
      if (auto it = m->sessions.find(sid); it != m->sessions.end()) {
        gone = std::move(it->second);
        m->sessions.erase(it);
      }
    }
    if (!gone) return respond(rpc_error(404, kInvalidRequest, "Not Found: no such MCP session (it ended or expired); initialize a new one"));
    spdlog::info("mcp: session {}… ended by the client", sid.substr(0, 8));
    gone.reset();
    HttpResponse ok;
    ok.status = 204;
    ok.content_type = "application/json";
    return respond(ok);
  }
  HttpResponse r405 = rpc_error(405, kInvalidRequest,
                                r.method == "GET" ? "Method Not Allowed: this server sends no messages outside a request's own response; POST messages to /mcp"
                                                  : "Method Not Allowed: /mcp takes POST and DELETE");
  r405.headers.push_back({"Allow", "POST, DELETE"});
  respond(r405);
}

void HttpEndpoint::Impl::post(const HttpRequest& r, std::function<void(HttpResponse)> respond) {
  const std::string accept = lower(r.header("accept"));
  bool any = accept.find("*/*") != std::string::npos;
  if (!any && (accept.find("application/json") == std::string::npos || accept.find("text/event-stream") == std::string::npos))
    return respond(rpc_error(406, kInvalidRequest, "Not Acceptable: a POST to /mcp must accept both application/json and text/event-stream"));
  if (lower(r.header("content-type")).rfind("application/json", 0) != 0)
    return respond(rpc_error(415, kInvalidRequest, "Unsupported Media Type: a POST to /mcp carries one JSON-RPC message as application/json"));
  if (nested_deeper_than(r.body, kMaxJsonDepth)) return respond(rpc_error(400, kParseError, "Parse error: the message is nested too deeply"));
  auto parsed = parse_json(r.body, "the message");
  if (!parsed) return respond(rpc_error(400, kParseError, "Parse error: " + parsed.error().message));
  if (parsed->is_array())
    return respond(rpc_error(400, kInvalidRequest, "Invalid Request: batches are not supported (MCP 2025-06-18 removed JSON-RPC batching)"));
  if (!parsed->is_object()) return respond(rpc_error(400, kInvalidRequest, "Invalid Request: a message is a JSON object"));
  const json& msg = *parsed;
  const bool is_request = msg.contains("method") && msg.contains("id");
  const std::string sid = r.header("mcp-session-id");

  if (is_request && msg["method"] == "initialize") {
    if (!sid.empty() && find(sid))
      return respond(rpc_error(400, kInvalidRequest, "Bad Request: this session is initialized already; initialize without Mcp-Session-Id to start another"));
    return initialize(r.body, std::move(respond));
  }
  if (sid.empty()) return respond(rpc_error(400, kInvalidRequest, "Bad Request: no Mcp-Session-Id header; send initialize first and then the id it answers with"));
  auto session = find(sid);
  if (!session) return respond(rpc_error(404, kInvalidRequest, "Not Found: no such MCP session (it ended or expired); initialize a new one"));
  // Protocol version header: "If the server receives a request with an invalid or unsupported
  // MCP-Protocol-Version, it MUST respond with 400 Bad Request."
  const std::string version = r.header("mcp-protocol-version");
  if (!version.empty() && version != session->protocol->protocol_version())
    return respond(rpc_error(400, kInvalidRequest,
                             fmt::format("Bad Request: MCP-Protocol-Version {} is not this session's revision ({})", clip_text(version, 40),
                                         session->protocol->protocol_version())));

  if (!is_request) {
    // A notification or a response: 202, or 400 with the error the Protocol answered.
    std::string error;
    session->protocol->on_line(r.body, [&error](const std::string& line, bool) {
      if (error.empty()) error = line;
      return true;
    });
    if (error.empty()) return respond(accepted());
    HttpResponse bad = json_body(error);
    bad.status = 400;
    return respond(bad);
  }
  auto exchange = std::make_shared<Exchange>(std::move(respond), options.max_stream_bytes);
  session->protocol->on_line(r.body, [exchange](const std::string& line, bool last) { return exchange->deliver(line, last); });
}

void HttpEndpoint::Impl::initialize(const std::string& body, std::function<void(HttpResponse)> respond) {
  std::shared_ptr<Session> evicted;
  {
    std::lock_guard lock(mutex);
    if (sessions.size() + starting >= options.max_sessions) {
      // The longest-idle session with no call in flight makes room, if it has been idle a minute.
      auto oldest = sessions.end();
      for (auto it = sessions.begin(); it != sessions.end(); ++it)
        if (it->second->protocol->calls_in_flight() == 0 && (oldest == sessions.end() || it->second->last_used_ms < oldest->second->last_used_ms)) oldest = it;
      if (oldest == sessions.end() || steady_ms() - oldest->second->last_used_ms < 60000)
        return respond(rpc_error(503, kInternalError,
                                 fmt::format("Service Unavailable: {} MCP sessions are open, the limit; end one (DELETE /mcp with its Mcp-Session-Id) "
                                             "or try again later", options.max_sessions)));
      spdlog::info("mcp: session {}… ended to make room for a new one", oldest->first.substr(0, 8));
      evicted = std::move(oldest->second);
      sessions.erase(oldest);
    }
    ++starting;  // a place held while the session starts: concurrent initializes cannot pass the limit
  }
  // However this returns, the held place is given back (to `sessions` when the session is kept).
  struct Starting {
    Impl& self;
    ~Starting() {
      std::lock_guard lock(self.mutex);
      --self.starting;
    }
  } held{*this};
  evicted.reset();
  auto tools = factory();
  if (!tools) return respond(rpc_error(503, kInternalError, "Service Unavailable: the MCP session could not start: " + tools.error().message));
  auto session = std::make_shared<Session>();
  session->id = new_session_id();
  session->tools = std::move(*tools);
  session->protocol = std::make_unique<Protocol>(*session->tools, info, [](const std::string&) {});
  std::string answer;
  session->protocol->on_line(body, [&answer](const std::string& line, bool) {
    answer = line;
    return true;
  });
  auto parsed = parse_json(answer, "the initialize answer");
  if (!parsed || !parsed->contains("result")) {
    HttpResponse bad = json_body(answer);
    bad.status = 400;
    return respond(bad);  // the session is not kept
  }
  HttpResponse ok = json_body(answer);
  ok.headers.push_back({"Mcp-Session-Id", session->id});
  {
    std::lock_guard lock(mutex);
    sessions[session->id] = session;
  }
  spdlog::info("mcp: session {}… started over HTTP", session->id.substr(0, 8));
  respond(std::move(ok));
}

}  // namespace ouro::mcp
