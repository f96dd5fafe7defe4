// A pool of remote browsers for `ouro serve`: Chromium-compatible endpoints reached
// over CDP — `ws://host:port/devtools/browser/…` URLs, or `http://host:port`, resolved through
// its `/json/version` webSocketDebuggerUrl each time it is connected (the id changes when
// Chromium restarts) — each with a capacity (runs at once).
//
// Every endpoint that is up has a Runtime of its own (its Browser and tab listeners)
// over the server's one network thread and database, so sessions attach to it as to the local
// browser. Placement: a run takes the least-loaded healthy endpoint (running / capacity) with a
// free place, and works there in a browser context of its own. When every healthy endpoint is
// full, the run waits (it stays "queued") until a place frees, up to a deadline; when none is
// healthy it is refused at once (Unavailable, naming each endpoint's last error).
//
// Browser services (browserless): an endpoint whose WebSocket is not Chromium's /devtools/ one is
// asked for a session without a time limit (`timeout=0` in its query, unless the URL sets one), and
// its own capacity is read from its GET /pressure at each connection and health check; its
// endpoint takes no more runs than its maxConcurrent.
//
// Health: a thread of the pool's checks each healthy endpoint every 2 s (Browser.getVersion under
// a 2 s deadline); a lost connection marks its endpoint down at once (the browser's tab listener
// hears the close). A down endpoint is connected again with backoff (1 s, doubling to 30 s) and is
// healthy again when that succeeds. Runs already on a lost endpoint stop at their next iteration
// boundary (agent::RunOptions::stop_when_browser_lost) and RunManager moves them (fail_over).
//
// Threads: every method may block briefly on the pool's mutex; acquire() may wait up to its
// deadline; none is for the network thread.
#pragma once

#include "base/json.h"

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ouro::net { class IoThread; }
namespace ouro::store { class Database; }

namespace ouro::session {

struct Runtime;

struct PoolEndpoint {
  // ws://host:port/devtools/browser/ID, http://host:port, or a browser service's WebSocket
  // (browserless: ws://host:port/?token=T, ws://host:port/chromium?token=T)
  std::string url;
  int capacity = 4;  // runs at once, 1 to 256; a browser service that tells its own may lower it
  // An environment variable whose value is the endpoint's token (added to the URL's query as
  // `token`), so the token is in neither the pool file nor the process list. Empty: none.
  std::string token_env;
};

// A browser service's own account of its load (browserless: GET /pressure).
struct EngineLoad {
  int max_concurrent = 0;  // the sessions it takes at once (browserless: CONCURRENT)
  int running = 0;
  int queued = 0;
  bool available = true;   // false: it would refuse a new session (queue full, CPU or memory); shown only
};

// The endpoints of a pool file, checked (pure): {"endpoints": [{"url": "...", "capacity": N,
// "token_env": "NAME"}, …]} (a bare array of the same objects, or of URL strings, is taken too).
// URLs are parsed as RFC 3986 URIs (Boost.URL). InvalidArgument naming the entry and what is
// wrong: not JSON (with its offset), no endpoints, a URL that is neither ws:// nor http://,
// wss:// and https:// (no TLS on the CDP transport yet), a capacity outside 1 to 256, an unknown
// field, a token_env that is not a variable name or beside a token in the URL, the same URL twice
// (compared without its query string). The token_env variables are read by BrowserPool::create.
Result<std::vector<PoolEndpoint>> parse_pool_file(std::string_view text);
// One endpoint URL as --browser gives it, checked as the pool file's are.
Result<PoolEndpoint> parse_endpoint_url(const std::string& url, int capacity = 4);
// Whether one `--browser` URL is served as a pool of one: http:// (found again through
// /json/version at each connection) or a browser service's WebSocket (not /devtools/…): both can
// go away and come back, and a pool reconnects, places runs by the engine's capacity and keeps
// the token out of sight. False for anything else (a DevTools ws:// URL, "auto", "extension").
bool serves_as_pool(std::string_view url);
// What the API, events and logs show of an endpoint's URL: no user:password, no query string or
// fragment (browserless and hosted services put their token there). Text that is not a URL is cut
// at its first '?' or '#'.
std::string redact_endpoint(std::string_view url);

class BrowserPool {
 public:
  struct Options {
    std::chrono::milliseconds check_every{2000};
    std::chrono::milliseconds check_timeout{2000};
    std::chrono::milliseconds first_backoff{1000};
    std::chrono::milliseconds max_backoff{30000};
    std::chrono::milliseconds connect_timeout{10000};  // resolving and attaching one endpoint
  };

  // Connects every endpoint (at once, each within connect_timeout); those that fail are down
  // and retried. InvalidArgument for no endpoints, the same one twice, or a token_env that is not
  // set (naming the variable, never a value). The io thread and the
  // database are shared with the server; data_dir is where sessions' downloads go.
  static Result<std::shared_ptr<BrowserPool>> create(std::shared_ptr<net::IoThread> io, std::shared_ptr<store::Database> db,
                                                     std::string data_dir, std::vector<PoolEndpoint> endpoints, Options options);
  static Result<std::shared_ptr<BrowserPool>> create(std::shared_ptr<net::IoThread> io, std::shared_ptr<store::Database> db,
                                                     std::string data_dir, std::vector<PoolEndpoint> endpoints) {
    return create(std::move(io), std::move(db), std::move(data_dir), std::move(endpoints), Options{});
  }
  ~BrowserPool();  // stops the health thread; leases still held release into nothing
  BrowserPool(const BrowserPool&) = delete;
  BrowserPool& operator=(const BrowserPool&) = delete;

  struct Impl;
  // A place on an endpoint, held while a run works there; given back on destruction. Move-only.
  class Lease {
   public:
    Lease(Lease&&) noexcept;
    Lease& operator=(Lease&&) noexcept;
    ~Lease();
    const std::shared_ptr<Runtime>& runtime() const { return m_runtime; }
    const std::string& endpoint() const { return m_endpoint; }  // redacted URL

   private:
    friend class BrowserPool;
    Lease() = default;
    void release();
    std::weak_ptr<Impl> m_pool;
    size_t m_index = 0;
    std::shared_ptr<Runtime> m_runtime;
    std::string m_endpoint;
  };

  // A place on the least-loaded healthy endpoint other than `avoid` (a redacted URL; "" = any).
  // Waits while every healthy one is full, up to `wait` (ResourceExhausted then), checking
  // `cancelled` (Cancelled) every 250 ms; Unavailable at once when none is healthy.
  Result<Lease> acquire(std::chrono::milliseconds wait, const std::function<bool()>& cancelled, const std::string& avoid = {});

  // GET /api/pool: {endpoints: [{url, state: healthy|down, capacity, running, lastError,
  // downSince, engine: null | {maxConcurrent, running, queued, available}}], capacity, running,
  // healthy}. An endpoint's capacity is its pool file's, lowered to what its engine says it takes.
  json to_json() const;
  // The places of every endpoint together.
  size_t total_capacity() const;

 private:
  BrowserPool() = default;
  std::shared_ptr<Impl> m;
};

}  // namespace ouro::session
