#include "session/pool.h"
#include "base/steady_clock.h"
#include "base/clock.h"

#include "base/text.h"

#include "base/log.h"
#include "browser/browser.h"
#include "net/io.h"
#include "safety/redact.h"
#include "session/session.h"

#include <boost/url.hpp>
#include <curl/curl.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

namespace ouro::session {

using Clock = ouro::SteadyClock;
using namespace std::chrono_literals;

namespace urls = boost::urls;

namespace {

constexpr int kMaxCapacity = 256;
constexpr size_t kMaxEndpoints = 64;
constexpr size_t kMaxUrl = 2000;

std::string short_text(const std::string& s) { return clip_head(s, 80); }

// What is left of text that is not a URL once everything that may be a secret is cut: from the
// first '?' or '#' on, and a user:password@ before the host.
std::string strip_roughly(std::string_view url) {
  std::string u(url);
  if (size_t cut = u.find_first_of("?#"); cut != std::string::npos) u = u.substr(0, cut);
  if (size_t scheme = u.find("://"); scheme != std::string::npos) {
    size_t host = scheme + 3;
    size_t end = u.find('/', host);
    size_t at = u.rfind('@', end == std::string::npos ? u.size() : end);
    if (at != std::string::npos && at >= host) u.erase(host, at + 1 - host);
  }
  return u;
}

// A URL's path names Chromium's own DevTools WebSocket (/devtools/browser/ID), as opposed to a
// browser service's (browserless: `/` or `/chromium`, a new browser per connection).
bool is_devtools_path(std::string_view path) { return path.rfind("/devtools/", 0) == 0; }

// An endpoint URL (RFC 3986, parsed by Boost.URL): ws:// or http://, a host, a port that fits;
// the scheme in lower case and the fragment dropped, path and query as given.
Result<urls::url> checked_url(std::string_view text) {
  const std::string shown = short_text(redact_endpoint(text));
  if (text.size() > kMaxUrl) return errorf(Code::InvalidArgument, "'{}': an endpoint URL has at most {} characters", shown, kMaxUrl);
  auto parsed = urls::parse_uri(text);
  if (!parsed || !parsed->has_authority() || parsed->encoded_host().empty())
    return errorf(Code::InvalidArgument,
                  "'{}' is not a browser endpoint: give ws://host:port/devtools/browser/ID (a browser's DevTools WebSocket), "
                  "http://host:port (its --remote-debugging-port) or a browser service's ws://host:port/chromium?token=…",
                  shown);
  urls::url u = *parsed;
  switch (u.scheme_id()) {
    case urls::scheme::ws:
    case urls::scheme::http:
      break;
    case urls::scheme::wss:
    case urls::scheme::https:
      return errorf(Code::InvalidArgument,
                    "'{}': TLS endpoints ({}://) are not supported yet; reach the browser over ws:// or http:// (e.g. through a "
                    "TLS-terminating proxy or a port-forward)",
                    shown, u.scheme());
    default:
      return errorf(Code::InvalidArgument, "'{}': the scheme must be ws:// or http://", shown);
  }
  if (u.has_port() && !port_number(u.port())) return errorf(Code::InvalidArgument, "'{}': port {} is out of range", shown, short_text(u.port()));
  u.set_scheme_id(u.scheme_id());  // lower case
  u.remove_fragment();
  return u;
}

// Two spellings of one endpoint compare equal: case of scheme and host, a trailing slash; the
// query (its token) is not part of it.
std::string endpoint_key(std::string_view url) {
  auto u = checked_url(url);
  if (!u) return strip_roughly(url);
  std::string k = std::string(u->scheme()) + "://" + std::string(u->encoded_host_and_port()) + std::string(u->encoded_path());
  for (char& c : k) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  while (!k.empty() && k.back() == '/') k.pop_back();
  return k;
}

bool valid_env_name(const std::string& s) {
  if (s.empty() || s.size() > 128 || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

}  // namespace

std::string redact_endpoint(std::string_view url) {
  auto parsed = urls::parse_uri(url);
  if (!parsed) return strip_roughly(url);
  urls::url u = *parsed;
  u.remove_userinfo();
  u.remove_query();
  u.remove_fragment();
  return std::string(u.buffer());
}

bool serves_as_pool(std::string_view url) {
  auto u = checked_url(url);
  return u && (u->scheme_id() == urls::scheme::http || !is_devtools_path(u->path()));
}

Result<PoolEndpoint> parse_endpoint_url(const std::string& url, int capacity) {
  urls::url u = TRY(checked_url(url));
  if (capacity < 1 || capacity > kMaxCapacity)
    return errorf(Code::InvalidArgument, "'{}': capacity must be a whole number from 1 to {}, got {}", short_text(redact_endpoint(url)),
                  kMaxCapacity, capacity);
  return PoolEndpoint{std::string(u.buffer()), capacity, {}};
}

Result<std::vector<PoolEndpoint>> parse_pool_file(std::string_view text) {
  json doc = TRY(parse_json(text, "the pool file"));
  const json* list = &doc;
  if (doc.is_object()) {
    for (const auto& [k, v] : doc.items())
      if (k != "endpoints") return errorf(Code::InvalidArgument, "the pool file has an unknown field '{}'; it takes {{\"endpoints\": [...]}}", short_text(k));
    if (!doc.contains("endpoints")) return make_error(Code::InvalidArgument, "the pool file needs {\"endpoints\": [{\"url\": \"ws://…\", \"capacity\": 4}, …]}");
    list = &doc["endpoints"];
  }
  if (!list->is_array()) return make_error(Code::InvalidArgument, "the pool file's endpoints must be a list of {\"url\": \"…\", \"capacity\": N}");
  if (list->empty()) return make_error(Code::InvalidArgument, "the pool file lists no endpoints");
  if (list->size() > kMaxEndpoints) return errorf(Code::InvalidArgument, "the pool file lists {} endpoints; at most {}", list->size(), kMaxEndpoints);
  std::vector<PoolEndpoint> out;
  std::set<std::string> seen;
  for (size_t i = 0; i < list->size(); ++i) {
    const json& e = (*list)[i];
    std::string url, token_env;
    int capacity = 4;
    if (e.is_string()) {
      url = e.get<std::string>();
    } else if (e.is_object()) {
      for (const auto& [k, v] : e.items())
        if (k != "url" && k != "capacity" && k != "token_env")
          return errorf(Code::InvalidArgument, "endpoint {}: unknown field '{}'; an endpoint has url, capacity and token_env", i + 1, short_text(k));
      if (!e.contains("url") || !e["url"].is_string()) return errorf(Code::InvalidArgument, "endpoint {}: url must be a string", i + 1);
      url = e["url"].get<std::string>();
      if (e.contains("capacity")) {
        const json& c = e["capacity"];
        if (!c.is_number_integer() || c.get<int64_t>() < 1 || c.get<int64_t>() > kMaxCapacity)
          return errorf(Code::InvalidArgument, "endpoint {}: capacity must be a whole number from 1 to {}, got {}", i + 1, kMaxCapacity,
                        short_text(c.dump()));
        capacity = static_cast<int>(c.get<int64_t>());
      }
      if (e.contains("token_env")) {
        if (!e["token_env"].is_string() || !valid_env_name(e["token_env"].get<std::string>()))
          return errorf(Code::InvalidArgument, "endpoint {}: token_env must name an environment variable (letters, digits, _), got {}", i + 1,
                        short_text(e["token_env"].dump()));
        token_env = e["token_env"].get<std::string>();
      }
    } else {
      return errorf(Code::InvalidArgument, "endpoint {}: expected {{\"url\": \"…\", \"capacity\": N}} or a URL, got {}", i + 1, e.type_name());
    }
    auto checked = parse_endpoint_url(url, capacity);
    if (!checked) return errorf(Code::InvalidArgument, "endpoint {}: {}", i + 1, checked.error().message);
    if (!token_env.empty() && urls::url_view(checked->url).params().contains("token"))
      return errorf(Code::InvalidArgument, "endpoint {}: its URL has a token and token_env names another; give one of them", i + 1);
    if (!seen.insert(endpoint_key(url)).second)
      return errorf(Code::InvalidArgument, "endpoint {}: {} is listed twice", i + 1, short_text(redact_endpoint(url)));
    checked->token_env = token_env;
    out.push_back(*checked);
  }
  return out;
}

namespace {

// The URL ouro connects with: the endpoint's, with the token of its token_env added. Never shown.
Result<std::string> connect_url_of(const PoolEndpoint& e) {
  if (e.token_env.empty()) return e.url;
  const char* token = std::getenv(e.token_env.c_str());
  if (!token || !*token)
    return errorf(Code::InvalidArgument, "browser endpoint {}: its token_env {} is not set in ouro's environment", redact_endpoint(e.url),
                  e.token_env);
  urls::url u = TRY(checked_url(e.url));
  u.params().set("token", token);
  return std::string(u.buffer());
}

struct Fetched {
  long status = 0;
  std::string body;
};

size_t keep_body(char* data, size_t size, size_t n, void* user) {
  auto* body = static_cast<std::string*>(user);
  if (body->size() + size * n > 64 * 1024) return 0;  // /json/version and /pressure are a few hundred bytes
  body->append(data, size * n);
  return size * n;
}

// GET over plain HTTP, no proxy, no redirects, within timeout; its errors name the URL redacted.
Result<Fetched> http_get(const urls::url& target, std::chrono::milliseconds timeout) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  const std::string shown = redact_endpoint(target.buffer());
  CURL* curl = curl_easy_init();
  if (!curl) return make_error(Code::Internal, "cannot start an HTTP request (libcurl)");
  Fetched got;
  char errbuf[CURL_ERROR_SIZE] = {0};
  const std::string text(target.buffer());
  curl_easy_setopt(curl, CURLOPT_URL, text.c_str());
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http");
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_NOPROXY, "*");
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(std::min<int64_t>(timeout.count(), 3000)));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, keep_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &got.body);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
  CURLcode rc = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &got.status);
  curl_easy_cleanup(curl);
  if (rc != CURLE_OK) return errorf(Code::Unavailable, "{}: {}", shown, *errbuf ? errbuf : curl_easy_strerror(rc));
  return got;
}

// The WebSocket URL to connect to, from an endpoint's URL (its token in it).
//
// http://host:port: CDP's HTTP endpoint /json/version (Chrome DevTools Protocol, "HTTP Endpoints")
// names the browser's webSocketDebuggerUrl. Its path (and query) are joined to the host, port and
// query we were given — Chromium writes the URL with the Host header's name, which may not be one
// we can reach, and a browser service's (browserless) leaves its token out of it. The query goes
// to /json/version too: browserless wants the token on its HTTP routes as well.
//
// A browser service's WebSocket (not /devtools/…) ends its session after a limit of its own
// (browserless: TIMEOUT, 30 s by default, cutting the connection ouro keeps for all its runs
// there); browserless takes `timeout` in the query to override it per session, and 0 means none
// (browserless' router: getTimeout; the queue package: no timer for 0). It is asked for unless the
// URL sets `timeout` itself.
Result<std::string> resolve_ws_url(const std::string& url, std::chrono::milliseconds timeout) {
  urls::url given = TRY(checked_url(url));
  urls::url ws = given;
  if (given.scheme_id() == urls::scheme::http) {
    urls::url probe = given;
    probe.set_path("/json/version");
    const std::string shown = redact_endpoint(probe.buffer());
    Fetched got = TRY(http_get(probe, timeout));
    if (got.status != 200)
      return errorf(Code::Unavailable, "{} answered HTTP {}{}", shown, got.status, got.status == 401 || got.status == 403 ? " (is the token right?)" : "");
    auto doc = parse_json(got.body, shown);
    if (!doc || !doc->is_object() || !doc->contains("webSocketDebuggerUrl") || !(*doc)["webSocketDebuggerUrl"].is_string())
      return errorf(Code::Unavailable, "{} has no webSocketDebuggerUrl (is it a Chromium DevTools endpoint?)", shown);
    auto found = urls::parse_uri((*doc)["webSocketDebuggerUrl"].get<std::string>());
    if (!found || found->scheme_id() != urls::scheme::ws) return errorf(Code::Unavailable, "{} gave an unusable webSocketDebuggerUrl", shown);
    ws.set_scheme_id(urls::scheme::ws);
    ws.set_encoded_path(found->encoded_path());
    for (auto p : found->params())
      if (!ws.params().contains(p.key)) ws.params().append(p);
  }
  if (ws.encoded_path().empty()) ws.set_path("/");
  if (!is_devtools_path(ws.path()) && !ws.params().contains("timeout")) ws.params().set("timeout", "0");
  return std::string(ws.buffer());
}

// What a browser service says of its capacity: browserless's GET /pressure (its management
// routes: {pressure: {maxConcurrent, running, queued, isAvailable, …}}). Plain Chromium has no such
// route; nothing then.
std::optional<EngineLoad> read_engine_load(const std::string& ws_url, std::chrono::milliseconds timeout) {
  auto parsed = urls::parse_uri(ws_url);
  if (!parsed || is_devtools_path(parsed->path())) return std::nullopt;
  urls::url probe = *parsed;
  probe.set_scheme_id(urls::scheme::http);
  probe.set_path("/pressure");
  probe.params().erase("timeout");
  auto got = http_get(probe, timeout);
  if (!got || got->status != 200) return std::nullopt;
  auto doc = parse_json(got->body, "/pressure");
  if (!doc || !doc->is_object() || !(*doc)["pressure"].is_object()) return std::nullopt;
  const json& p = (*doc)["pressure"];
  auto count = [&](const char* key) -> std::optional<int> {
    auto it = p.find(key);
    if (it == p.end() || !it->is_number_integer()) return std::nullopt;
    return static_cast<int>(std::clamp<int64_t>(it->get<int64_t>(), 0, 1 << 20));
  };
  auto max = count("maxConcurrent");
  if (!max) return std::nullopt;
  EngineLoad load;
  load.max_concurrent = std::min(*max, kMaxCapacity);
  load.running = count("running").value_or(0);
  load.queued = count("queued").value_or(0);
  auto available = p.find("isAvailable");
  load.available = available == p.end() || !available->is_boolean() || available->get<bool>();
  return load;
}

}  // namespace


struct BrowserPool::Impl : std::enable_shared_from_this<Impl> {
  struct Endpoint {
    PoolEndpoint spec;
    std::string name;                            // redacted URL
    std::string connect_url;                     // with its token: never shown
    std::optional<EngineLoad> engine;            // what the browser service last said of its load
    std::shared_ptr<session::Runtime> runtime;   // null while down
    bool healthy = false;
    int running = 0;
    std::string last_error;
    double down_since = 0;                       // wall-clock ms; 0 while healthy
    Clock::time_point next_try{};
    std::chrono::milliseconds backoff{0};
    Clock::time_point up_since{};                // when it last came back
    bool connecting = false;
  };

  std::shared_ptr<net::IoThread> io;
  std::shared_ptr<store::Database> db;
  std::string data_dir;
  Options options;
  mutable std::mutex mutex;  // endpoints, stopping, wake
  std::condition_variable changed;  // a place freed, an endpoint came back or went
  std::condition_variable wake;     // the health thread: a connection was lost, or stopping
  bool woken = false;
  bool stopping = false;
  std::vector<Endpoint> endpoints;
  std::thread health;

  // Runtimes let go of under the mutex, destroyed by the health thread outside it (closing a
  // browser's connection waits for the network thread).
  std::vector<std::shared_ptr<session::Runtime>> dropped;

  void mark_down(Endpoint& e, const std::string& why) {  // mutex held
    if (e.healthy) spdlog::warn("browser pool: {} is down: {}", e.name, why);
    e.healthy = false;
    if (e.runtime) dropped.push_back(std::move(e.runtime));  // sessions on it keep theirs until they end
    e.runtime.reset();
    e.last_error = why;
    if (e.down_since == 0) e.down_since = wall_ms();
    // One that drops again soon after it came back (crash-looping, or a stranger's endpoint that
    // accepts and drops) waits longer each time; one that stayed up a while starts afresh.
    bool flapping = e.backoff.count() > 0 && Clock::now() - e.up_since < options.max_backoff;
    e.backoff = flapping ? std::min(options.max_backoff, e.backoff * 2) : options.first_backoff;
    e.next_try = Clock::now() + e.backoff;
    woken = true;  // the health thread lets the runtime go
    wake.notify_all();
    changed.notify_all();
  }

  // Its places: the pool file's capacity, lowered to what its engine says it takes.
  static int places(const Endpoint& e) {
    return e.engine && e.engine->max_concurrent > 0 ? std::min(e.spec.capacity, e.engine->max_concurrent) : e.spec.capacity;
  }
  // Its `available` is not a reason to hold runs back: ouro's contexts live in a session it holds
  // already, and browserless says unavailable for a full queue of new sessions or a CPU over its
  // MAX_CPU_PERCENT even when its own health checks are off (its /pressure route).
  static bool admits(const Endpoint& e) { return e.running < places(e); }

  // Off the lock: resolve and attach; the endpoint's Runtime over the shared thread and database,
  // and what its engine says of its load. Its errors never carry the URL's secrets (a token in its
  // query or its userinfo, whatever layer wrote them).
  struct Connected {
    std::shared_ptr<session::Runtime> runtime;
    std::optional<EngineLoad> engine;
  };
  Result<Connected> connect(const std::string& url) {
    auto scrub = [&](Error e, const std::string& ws_url) {
      for (const std::string& u : {ws_url, url}) {
        const std::string shown = redact_endpoint(u);
        if (u.empty() || shown == u) continue;
        for (size_t at = 0; (at = e.message.find(u, at)) != std::string::npos; at += shown.size()) e.message.replace(at, u.size(), shown);
        // The secrets themselves, wherever a layer put them (decoded, or without the rest of the URL).
        if (auto parsed = urls::parse_uri(u)) {
          std::vector<std::string> secrets;
          for (auto p : parsed->params()) secrets.push_back(p.value);
          secrets.push_back(parsed->password());
          for (const auto& secret : secrets)
            for (size_t at = 0; secret.size() >= 4 && (at = e.message.find(secret, at)) != std::string::npos;)
              e.message.replace(at, secret.size(), "[redacted]");
        }
      }
      e.message = safety::redact_url_params(e.message);
      return tl::make_unexpected(std::move(e));
    };
    auto ws = resolve_ws_url(url, options.connect_timeout);
    if (!ws) return scrub(ws.error(), url);
    browser::BrowserOptions bo;
    bo.connect_url = *ws;
    auto started = browser::Browser::start(*io, bo);
    if (!started) return scrub(started.error(), *ws);
    auto b = std::move(*started);
    std::weak_ptr<Impl> weak = weak_from_this();
    // On the network thread, after a change of tabs or the connection's loss: the health thread
    // is woken to look (it only asks each browser whether it is gone, a lock and no I/O).
    auto runtime = session::make_runtime(io, db, std::move(b), data_dir, [weak] {
      if (auto self = weak.lock()) {
        std::lock_guard lock(self->mutex);
        self->woken = true;
        self->wake.notify_all();
      }
    });
    return Connected{std::move(runtime), read_engine_load(*ws, options.check_timeout)};
  }

  // deep: also ask each healthy browser for its version (Browser.getVersion, under a deadline)
  // and connect again the down ones whose backoff has passed; else only see which are gone.
  void check_all(bool deep) {
    struct Job {
      size_t index;
      std::shared_ptr<session::Runtime> runtime;  // healthy: check it; null: connect again
      std::string url;                            // connect_url
      bool ask_engine = false;                    // healthy: ask its engine for its load (again)
    };
    std::vector<Job> jobs;
    std::vector<std::shared_ptr<session::Runtime>> gone;
    {
      std::lock_guard lock(mutex);
      auto now = Clock::now();
      for (size_t i = 0; i < endpoints.size(); ++i) {
        Endpoint& e = endpoints[i];
        if (e.healthy && e.runtime) {
          if (auto dead = e.runtime->browser->dead()) {
            mark_down(e, dead->message);
            continue;
          }
          // Every deep check asks its engine (plain Chromium's DevTools URL is not asked): a
          // first answer missed under load would otherwise leave the file's capacity for good.
          if (deep) jobs.push_back({i, e.runtime, e.connect_url, true});
        } else if (deep && !e.connecting && now >= e.next_try) {
          e.connecting = true;
          jobs.push_back({i, nullptr, e.connect_url});
        }
      }
      gone.swap(dropped);
    }
    gone.clear();
    for (auto& job : jobs) {
      if (job.runtime) {
        auto r = job.runtime->browser->cdp().call("Browser.getVersion", json::object(), "", options.check_timeout);
        std::optional<EngineLoad> load;
        if (r && job.ask_engine) load = read_engine_load(job.url, options.check_timeout);
        std::lock_guard lock(mutex);
        Endpoint& e = endpoints[job.index];
        if (!r && e.runtime == job.runtime) mark_down(e, "health check failed: " + r.error().message);
        if (load && e.runtime == job.runtime) {
          e.engine = load;
          changed.notify_all();  // a place may have opened
        }
        continue;
      }
      auto rt = connect(job.url);
      std::lock_guard lock(mutex);
      Endpoint& e = endpoints[job.index];
      e.connecting = false;
      if (stopping) {
        if (rt) dropped.push_back(std::move(rt->runtime));
        break;
      }
      if (rt) {
        spdlog::warn("browser pool: {} is healthy", e.name);
        e.runtime = std::move(rt->runtime);
        e.engine = rt->engine;
        e.healthy = true;
        e.last_error.clear();
        e.down_since = 0;
        e.up_since = Clock::now();  // the backoff stays until it has stayed up (mark_down)
        changed.notify_all();
      } else {
        e.last_error = rt.error().message;
        if (e.down_since == 0) e.down_since = wall_ms();
        e.backoff = e.backoff.count() == 0 ? options.first_backoff : std::min(options.max_backoff, e.backoff * 2);
        e.next_try = Clock::now() + e.backoff;
      }
    }
  }

  void health_loop() {
    std::unique_lock lock(mutex);
    auto next_deep = Clock::now() + options.check_every;
    while (!stopping) {
      ouro::wait_until(wake, lock, next_deep, [&] { return stopping || woken; });
      if (stopping) break;
      bool deep = Clock::now() >= next_deep;
      woken = false;
      lock.unlock();
      check_all(deep);
      lock.lock();
      if (deep) next_deep = Clock::now() + options.check_every;
    }
  }
};

Result<std::shared_ptr<BrowserPool>> BrowserPool::create(std::shared_ptr<net::IoThread> io, std::shared_ptr<store::Database> db,
                                                         std::string data_dir, std::vector<PoolEndpoint> endpoints, Options options) {
  if (endpoints.empty()) return make_error(Code::InvalidArgument, "a browser pool needs at least one endpoint");
  std::set<std::string> seen;
  std::vector<std::string> connect_urls;
  for (const auto& e : endpoints) {
    TRY(parse_endpoint_url(e.url, e.capacity));
    if (!seen.insert(endpoint_key(e.url)).second)
      return errorf(Code::InvalidArgument, "browser endpoint {} is given twice", redact_endpoint(e.url));
    connect_urls.push_back(TRY(connect_url_of(e)));
  }
  std::shared_ptr<BrowserPool> pool(new BrowserPool());
  pool->m = std::make_shared<Impl>();
  Impl& p = *pool->m;
  p.io = std::move(io);
  p.db = std::move(db);
  p.data_dir = std::move(data_dir);
  p.options = options;
  for (size_t i = 0; i < endpoints.size(); ++i) {
    Impl::Endpoint e;
    e.name = redact_endpoint(endpoints[i].url);
    e.spec = std::move(endpoints[i]);
    e.connect_url = std::move(connect_urls[i]);
    e.down_since = wall_ms();
    e.last_error = "not connected yet";
    p.endpoints.push_back(std::move(e));
  }
  // The first connections at once, each within its deadline; those that fail are retried.
  std::vector<std::thread> first;
  std::vector<Result<Impl::Connected>> got(p.endpoints.size(), make_error(Code::Internal, "not tried"));
  for (size_t i = 0; i < p.endpoints.size(); ++i)
    first.emplace_back([&, i] { got[i] = p.connect(p.endpoints[i].connect_url); });
  for (auto& t : first) t.join();
  for (size_t i = 0; i < p.endpoints.size(); ++i) {
    Impl::Endpoint& e = p.endpoints[i];
    if (got[i]) {
      e.runtime = std::move(got[i]->runtime);
      e.engine = got[i]->engine;
      e.healthy = true;
      e.last_error.clear();
      e.down_since = 0;
    } else {
      spdlog::warn("browser pool: {} is down: {}", e.name, got[i].error().message);
      e.last_error = got[i].error().message;
      e.backoff = options.first_backoff;
      e.next_try = Clock::now() + e.backoff;
    }
  }
  p.health = std::thread([impl = pool->m.get()] { impl->health_loop(); });
  return pool;
}

BrowserPool::~BrowserPool() {
  {
    std::lock_guard lock(m->mutex);
    m->stopping = true;
    m->wake.notify_all();
    m->changed.notify_all();
  }
  if (m->health.joinable()) m->health.join();
  std::vector<std::shared_ptr<session::Runtime>> runtimes;
  {
    std::lock_guard lock(m->mutex);
    for (auto& e : m->endpoints) runtimes.push_back(std::move(e.runtime));
    for (auto& r : m->dropped) runtimes.push_back(std::move(r));
    m->dropped.clear();
  }
  runtimes.clear();  // outside the lock: a browser's close waits for the network thread
}

BrowserPool::Lease::Lease(Lease&& o) noexcept { *this = std::move(o); }

BrowserPool::Lease& BrowserPool::Lease::operator=(Lease&& o) noexcept {
  if (this != &o) {
    release();
    m_pool = std::move(o.m_pool);
    m_index = o.m_index;
    m_runtime = std::move(o.m_runtime);
    m_endpoint = std::move(o.m_endpoint);
    o.m_pool.reset();
  }
  return *this;
}

BrowserPool::Lease::~Lease() { release(); }

void BrowserPool::Lease::release() {
  if (auto pool = m_pool.lock()) {
    std::lock_guard lock(pool->mutex);
    auto& e = pool->endpoints[m_index];
    if (e.running > 0) --e.running;
    pool->changed.notify_all();
  }
  m_pool.reset();
  m_runtime.reset();
}

Result<BrowserPool::Lease> BrowserPool::acquire(std::chrono::milliseconds wait, const std::function<bool()>& cancelled, const std::string& avoid) {
  auto deadline = Clock::now() + wait;
  std::unique_lock lock(m->mutex);
  while (true) {
    if (m->stopping) return make_error(Code::Unavailable, "ouro is shutting down");
    Impl::Endpoint* best = nullptr;
    size_t best_index = 0;
    bool any_healthy = false;
    for (size_t i = 0; i < m->endpoints.size(); ++i) {
      Impl::Endpoint& e = m->endpoints[i];
      if (!e.healthy || !e.runtime || e.name == avoid) continue;
      if (auto dead = e.runtime->browser->dead()) {
        m->mark_down(e, dead->message);
        continue;
      }
      any_healthy = true;
      if (!Impl::admits(e)) continue;
      // Least loaded: running / places, compared without division; ties to fewer running.
      const int64_t mine = best ? int64_t(e.running) * Impl::places(*best) : 0;
      const int64_t theirs = best ? int64_t(best->running) * Impl::places(e) : 0;
      if (!best || mine < theirs || (mine == theirs && e.running < best->running)) {
        best = &e;
        best_index = i;
      }
    }
    if (best) {
      ++best->running;
      Lease lease;
      lease.m_pool = m;
      lease.m_index = best_index;
      lease.m_runtime = best->runtime;
      lease.m_endpoint = best->name;
      return lease;
    }
    if (!any_healthy) {
      std::string why;
      for (const auto& e : m->endpoints)
        if (e.name != avoid) why += (why.empty() ? "" : "; ") + e.name + ": " + (e.last_error.empty() ? "down" : e.last_error);
      return errorf(Code::Unavailable, "no browser endpoint is healthy{}{}", why.empty() ? "" : " (", why.empty() ? "" : why + ")");
    }
    if (cancelled) {
      // The caller's check takes its own locks: never under the pool's (a lock order the network
      // thread's tab listener could close into a deadlock).
      lock.unlock();
      bool gone = cancelled();
      lock.lock();
      if (gone) return make_error(Code::Cancelled, "cancelled while waiting for a browser");
    }
    if (Clock::now() >= deadline)
      return errorf(Code::ResourceExhausted, "every healthy browser endpoint stayed at capacity for {} s", wait.count() / 1000);
    m->changed.wait_for(lock, 250ms);
  }
}

json BrowserPool::to_json() const {
  std::lock_guard lock(m->mutex);
  json list = json::array();
  int capacity = 0, running = 0, healthy = 0;
  for (const auto& e : m->endpoints) {
    bool up = e.healthy && e.runtime && !e.runtime->browser->dead();
    json j = {{"url", e.name}, {"state", up ? "healthy" : "down"}, {"capacity", Impl::places(e)}, {"running", e.running}};
    j["lastError"] = e.last_error.empty() ? json(nullptr) : json(e.last_error);
    j["downSince"] = up || e.down_since == 0 ? json(nullptr) : json(e.down_since);
    j["engine"] = e.engine ? json{{"maxConcurrent", e.engine->max_concurrent}, {"running", e.engine->running},
                                  {"queued", e.engine->queued}, {"available", e.engine->available}}
                           : json(nullptr);
    list.push_back(j);
    capacity += Impl::places(e);
    running += e.running;
    healthy += up ? 1 : 0;
  }
  return {{"endpoints", list}, {"capacity", capacity}, {"running", running}, {"healthy", healthy}};
}

size_t BrowserPool::total_capacity() const {
  std::lock_guard lock(m->mutex);
  size_t n = 0;
  for (const auto& e : m->endpoints) n += static_cast<size_t>(Impl::places(e));
  return n;
}

}  // namespace ouro::session
