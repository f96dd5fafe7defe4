#include "session/pool.h"

#include "base/log.h"
#include "browser/browser.h"
#include "net/io.h"
#include "safety/redact.h"
#include "session/session.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <regex>
#include <set>
#include <thread>

namespace ouro::session {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

constexpr int kMaxCapacity = 256;
constexpr size_t kMaxEndpoints = 64;

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string short_text(const std::string& s) { return s.size() > 80 ? s.substr(0, 77) + "..." : s; }

// scheme://[user@]host:port[/path][?query][#fragment], the host a name, IPv4 or [IPv6].
const std::regex& url_re() {
  static const std::regex re(R"(^([A-Za-z]+)://(?:[^@/?#]*@)?([A-Za-z0-9.\-]+|\[[0-9A-Fa-f:.]+\]):(\d{1,5})([/?#].*)?$)");
  return re;
}

}  // namespace

namespace {
// Two spellings of one endpoint compare equal: case of scheme and host, a trailing slash.
std::string endpoint_key(std::string_view url) {
  std::string k = redact_endpoint(url);
  while (!k.empty() && k.back() == '/') k.pop_back();
  size_t path = k.find('/', k.find("://") == std::string::npos ? 0 : k.find("://") + 3);
  for (size_t i = 0; i < std::min(path, k.size()); ++i) k[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(k[i])));
  return k;
}
}  // namespace

std::string redact_endpoint(std::string_view url) {
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

Result<PoolEndpoint> parse_endpoint_url(const std::string& url, int capacity) {
  std::smatch m;
  if (url.size() > 2000 || !std::regex_match(url, m, url_re()))
    return errorf(Code::InvalidArgument,
                  "'{}' is not a browser endpoint: give ws://host:port/devtools/browser/ID (a browser's DevTools WebSocket) or "
                  "http://host:port (its --remote-debugging-port)",
                  short_text(redact_endpoint(url)));
  std::string scheme = m[1].str();
  for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (scheme == "wss" || scheme == "https")
    return errorf(Code::InvalidArgument,
                  "'{}': TLS endpoints ({}://) are not supported yet; reach the browser over ws:// or http:// (e.g. through a "
                  "TLS-terminating proxy or a port-forward)",
                  short_text(redact_endpoint(url)), scheme);
  if (scheme != "ws" && scheme != "http")
    return errorf(Code::InvalidArgument, "'{}': the scheme must be ws:// or http://", short_text(redact_endpoint(url)));
  int port = std::stoi(m[3].str());
  if (port < 1 || port > 65535) return errorf(Code::InvalidArgument, "'{}': port {} is out of range", short_text(redact_endpoint(url)), port);
  if (capacity < 1 || capacity > kMaxCapacity)
    return errorf(Code::InvalidArgument, "'{}': capacity must be a whole number from 1 to {}, got {}", short_text(redact_endpoint(url)),
                  kMaxCapacity, capacity);
  return PoolEndpoint{scheme + url.substr(scheme.size()), capacity};  // the scheme in lower case
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
    std::string url;
    int capacity = 4;
    if (e.is_string()) {
      url = e.get<std::string>();
    } else if (e.is_object()) {
      for (const auto& [k, v] : e.items())
        if (k != "url" && k != "capacity")
          return errorf(Code::InvalidArgument, "endpoint {}: unknown field '{}'; an endpoint has url and capacity", i + 1, short_text(k));
      if (!e.contains("url") || !e["url"].is_string()) return errorf(Code::InvalidArgument, "endpoint {}: url must be a string", i + 1);
      url = e["url"].get<std::string>();
      if (e.contains("capacity")) {
        const json& c = e["capacity"];
        if (!c.is_number_integer() || c.get<int64_t>() < 1 || c.get<int64_t>() > kMaxCapacity)
          return errorf(Code::InvalidArgument, "endpoint {}: capacity must be a whole number from 1 to {}, got {}", i + 1, kMaxCapacity,
                        short_text(c.dump()));
        capacity = static_cast<int>(c.get<int64_t>());
      }
    } else {
      return errorf(Code::InvalidArgument, "endpoint {}: expected {{\"url\": \"…\", \"capacity\": N}} or a URL, got {}", i + 1, e.type_name());
    }
    auto checked = parse_endpoint_url(url, capacity);
    if (!checked) return errorf(Code::InvalidArgument, "endpoint {}: {}", i + 1, checked.error().message);
    if (!seen.insert(endpoint_key(url)).second)
      return errorf(Code::InvalidArgument, "endpoint {}: {} is listed twice", i + 1, short_text(redact_endpoint(url)));
    out.push_back(*checked);
  }
  return out;
}

namespace {

size_t keep_body(char* data, size_t size, size_t n, void* user) {
  auto* body = static_cast<std::string*>(user);
  if (body->size() + size * n > 64 * 1024) return 0;  // /json/version is a few hundred bytes
  body->append(data, size * n);
  return size * n;
}

// http://host:port → ws://host:port/devtools/browser/ID, from /json/version (CDP's HTTP
// endpoints). The path is taken from webSocketDebuggerUrl and joined to the host we were given:
// Chromium writes its URL with the Host header's name, which may not be one we can reach.
Result<std::string> resolve_ws_url(const std::string& url, std::chrono::milliseconds timeout) {
  std::smatch m;
  if (!std::regex_match(url, m, url_re())) return errorf(Code::InvalidArgument, "'{}' is not an endpoint URL", redact_endpoint(url));
  if (m[1].str() == "ws") return url;
  std::string base = "http://" + m[2].str() + ":" + m[3].str();
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  CURL* curl = curl_easy_init();
  if (!curl) return make_error(Code::Internal, "cannot start an HTTP request (libcurl)");
  std::string body;
  char errbuf[CURL_ERROR_SIZE] = {0};
  std::string target = base + "/json/version";
  curl_easy_setopt(curl, CURLOPT_URL, target.c_str());
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http");
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_NOPROXY, "*");
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(std::min<int64_t>(timeout.count(), 3000)));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, keep_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
  CURLcode rc = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_cleanup(curl);
  if (rc != CURLE_OK) return errorf(Code::Unavailable, "{}/json/version: {}", base, *errbuf ? errbuf : curl_easy_strerror(rc));
  if (status != 200) return errorf(Code::Unavailable, "{}/json/version answered HTTP {}", base, status);
  auto doc = parse_json(body, base + "/json/version");
  if (!doc || !doc->is_object() || !doc->contains("webSocketDebuggerUrl") || !(*doc)["webSocketDebuggerUrl"].is_string())
    return errorf(Code::Unavailable, "{}/json/version has no webSocketDebuggerUrl (is it a Chromium DevTools endpoint?)", base);
  std::string ws = (*doc)["webSocketDebuggerUrl"].get<std::string>();
  size_t path = ws.find("/devtools/");
  if (ws.rfind("ws://", 0) != 0 || path == std::string::npos)
    return errorf(Code::Unavailable, "{}/json/version gave an unusable webSocketDebuggerUrl", base);
  return "ws://" + m[2].str() + ":" + m[3].str() + ws.substr(path);
}

}  // namespace

struct BrowserPool::Impl : std::enable_shared_from_this<Impl> {
  struct Endpoint {
    PoolEndpoint spec;
    std::string name;                            // redacted URL
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
    if (e.down_since == 0) e.down_since = now_ms();
    // One that drops again soon after it came back (crash-looping, or a stranger's endpoint that
    // accepts and drops) waits longer each time; one that stayed up a while starts afresh.
    bool flapping = e.backoff.count() > 0 && Clock::now() - e.up_since < options.max_backoff;
    e.backoff = flapping ? std::min(options.max_backoff, e.backoff * 2) : options.first_backoff;
    e.next_try = Clock::now() + e.backoff;
    woken = true;  // the health thread lets the runtime go
    wake.notify_all();
    changed.notify_all();
  }

  // Off the lock: resolve and attach; the endpoint's Runtime over the shared thread and database.
  // Its errors never carry the URL's secrets (a token in its query), whatever layer wrote them.
  Result<std::shared_ptr<session::Runtime>> connect(const PoolEndpoint& spec) {
    auto scrub = [&](Error e, const std::string& url) {
      for (const std::string& u : {url, spec.url}) {
        const std::string shown = redact_endpoint(u);
        if (u.empty() || shown == u) continue;
        for (size_t at = 0; (at = e.message.find(u, at)) != std::string::npos; at += shown.size()) e.message.replace(at, u.size(), shown);
      }
      e.message = safety::redact_url_params(e.message);
      return tl::make_unexpected(std::move(e));
    };
    auto ws = resolve_ws_url(spec.url, options.connect_timeout);
    if (!ws) return scrub(ws.error(), spec.url);
    browser::BrowserOptions bo;
    bo.connect_url = *ws;
    auto started = browser::Browser::start(*io, bo);
    if (!started) return scrub(started.error(), *ws);
    auto b = std::move(*started);
    std::weak_ptr<Impl> weak = weak_from_this();
    // On the network thread, after a change of tabs or the connection's loss: the health thread
    // is woken to look (it only asks each browser whether it is gone, a lock and no I/O).
    return session::make_runtime(io, db, std::move(b), data_dir, [weak] {
      if (auto self = weak.lock()) {
        std::lock_guard lock(self->mutex);
        self->woken = true;
        self->wake.notify_all();
      }
    });
  }

  // deep: also ask each healthy browser for its version (Browser.getVersion, under a deadline)
  // and connect again the down ones whose backoff has passed; else only see which are gone.
  void check_all(bool deep) {
    struct Job {
      size_t index;
      std::shared_ptr<session::Runtime> runtime;  // healthy: check it; null: connect again
      PoolEndpoint spec;
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
          if (deep) jobs.push_back({i, e.runtime, e.spec});
        } else if (deep && !e.connecting && now >= e.next_try) {
          e.connecting = true;
          jobs.push_back({i, nullptr, e.spec});
        }
      }
      gone.swap(dropped);
    }
    gone.clear();
    for (auto& job : jobs) {
      if (job.runtime) {
        auto r = job.runtime->browser->cdp().call("Browser.getVersion", json::object(), "", options.check_timeout);
        std::lock_guard lock(mutex);
        Endpoint& e = endpoints[job.index];
        if (!r && e.runtime == job.runtime) mark_down(e, "health check failed: " + r.error().message);
        continue;
      }
      auto rt = connect(job.spec);
      std::lock_guard lock(mutex);
      Endpoint& e = endpoints[job.index];
      e.connecting = false;
      if (stopping) {
        if (rt) dropped.push_back(std::move(*rt));
        break;
      }
      if (rt) {
        spdlog::warn("browser pool: {} is healthy", e.name);
        e.runtime = std::move(*rt);
        e.healthy = true;
        e.last_error.clear();
        e.down_since = 0;
        e.up_since = Clock::now();  // the backoff stays until it has stayed up (mark_down)
        changed.notify_all();
      } else {
        e.last_error = rt.error().message;
        if (e.down_since == 0) e.down_since = now_ms();
        e.backoff = e.backoff.count() == 0 ? options.first_backoff : std::min(options.max_backoff, e.backoff * 2);
        e.next_try = Clock::now() + e.backoff;
      }
    }
  }

  void health_loop() {
    std::unique_lock lock(mutex);
    auto next_deep = Clock::now() + options.check_every;
    while (!stopping) {
      wake.wait_until(lock, next_deep, [&] { return stopping || woken; });
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
  for (const auto& e : endpoints) {
    TRY(parse_endpoint_url(e.url, e.capacity));
    if (!seen.insert(endpoint_key(e.url)).second)
      return errorf(Code::InvalidArgument, "browser endpoint {} is given twice", redact_endpoint(e.url));
  }
  std::shared_ptr<BrowserPool> pool(new BrowserPool());
  pool->m = std::make_shared<Impl>();
  Impl& p = *pool->m;
  p.io = std::move(io);
  p.db = std::move(db);
  p.data_dir = std::move(data_dir);
  p.options = options;
  for (auto& spec : endpoints) {
    Impl::Endpoint e;
    e.name = redact_endpoint(spec.url);
    e.spec = std::move(spec);
    e.down_since = now_ms();
    e.last_error = "not connected yet";
    p.endpoints.push_back(std::move(e));
  }
  // The first connections at once, each within its deadline; those that fail are retried.
  std::vector<std::thread> first;
  std::vector<Result<std::shared_ptr<session::Runtime>>> got(p.endpoints.size(), make_error(Code::Internal, "not tried"));
  for (size_t i = 0; i < p.endpoints.size(); ++i)
    first.emplace_back([&, i] { got[i] = p.connect(p.endpoints[i].spec); });
  for (auto& t : first) t.join();
  for (size_t i = 0; i < p.endpoints.size(); ++i) {
    Impl::Endpoint& e = p.endpoints[i];
    if (got[i]) {
      e.runtime = std::move(*got[i]);
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
      if (e.running >= e.spec.capacity) continue;
      // Least loaded: running / capacity, compared without division; ties to fewer running.
      if (!best || int64_t(e.running) * best->spec.capacity < int64_t(best->running) * e.spec.capacity ||
          (int64_t(e.running) * best->spec.capacity == int64_t(best->running) * e.spec.capacity && e.running < best->running)) {
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
    json j = {{"url", e.name}, {"state", up ? "healthy" : "down"}, {"capacity", e.spec.capacity}, {"running", e.running}};
    j["lastError"] = e.last_error.empty() ? json(nullptr) : json(e.last_error);
    j["downSince"] = up || e.down_since == 0 ? json(nullptr) : json(e.down_since);
    list.push_back(j);
    capacity += e.spec.capacity;
    running += e.running;
    healthy += up ? 1 : 0;
  }
  return {{"endpoints", list}, {"capacity", capacity}, {"running", running}, {"healthy", healthy}};
}

size_t BrowserPool::total_capacity() const {
  std::lock_guard lock(m->mutex);
  size_t n = 0;
  for (const auto& e : m->endpoints) n += static_cast<size_t>(e.spec.capacity);
  return n;
}

}  // namespace ouro::session
