// An `ouro serve` in the test process — the profile's session on its own Chromium, a RunManager
// and the ApiServer on a free port — with an HTTP client (libcurl) and a WebSocket watcher for
// its events. Shared by the API tests and the API fuzz test.
#pragma once

#include "browser_env.h"

#include "net/io.h"
#include "net/websocket_client.h"
#include "server/api.h"
#include "server/runs.h"

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ouro::testing {

struct Http {
  long status = 0;  // 0: no answer
  json body;        // the body, when it is JSON
  std::string raw;
};

// One request with `Authorization: Bearer token` (unless token is empty) and a JSON content type.
Http request(const std::string& method, const std::string& url, const std::string& token, const std::string& body = "",
             std::vector<std::string> extra = {});

// A WebSocket subscriber that collects events.
struct Watcher {
  std::unique_ptr<net::WebSocketClient> ws;
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<json> events;
  Watcher(net::IoThread& io, const std::string& url);
  bool wait_for(const std::function<bool(const std::vector<json>&)>& pred, std::chrono::milliseconds t = std::chrono::seconds(20));
  static bool has(const std::vector<json>& ev, const std::string& type);
  // The data of the last event of this type seen so far (null if none).
  json last(const std::string& type);
};

struct Server {
  std::unique_ptr<session::Session> base;
  std::unique_ptr<server::RunManager> runs;
  std::unique_ptr<server::ApiServer> api;
  std::string data_dir;
  explicit Server(std::string dir = temp_dir(), size_t max_active_runs = 8, server::ApiServer::Options options = {});
  std::string url(const std::string& path) const;
  // ws://…/api/events?token=…&<query>
  std::string ws(const std::string& query) const;
  Http get(const std::string& path);
  Http post(const std::string& path, const json& body);
  // The run once it is no longer queued or running (null after t).
  json wait_done(const std::string& id, std::chrono::seconds t = std::chrono::seconds(30));
};

// The data of a run's stored events of one type, in order.
std::vector<json> events_of(Server& s, const std::string& id, const std::string& type);

}  // namespace ouro::testing
