#include "api_env.h"

#include <curl/curl.h>

#include <thread>

namespace ouro::testing {

namespace {

size_t collect(char* d, size_t s, size_t n, void* u) {
  static_cast<std::string*>(u)->append(d, s * n);
  return s * n;
}

}  // namespace

Http request(const std::string& method, const std::string& url, const std::string& token, const std::string& body, std::vector<std::string> extra) {
  CURL* c = curl_easy_init();
  Http out;
  curl_slist* h = nullptr;
  if (!token.empty()) h = curl_slist_append(h, ("Authorization: Bearer " + token).c_str());
  h = curl_slist_append(h, "Content-Type: application/json");
  for (const auto& e : extra) h = curl_slist_append(h, e.c_str());
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
  if (!body.empty()) {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  }
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &out.raw);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
  curl_easy_perform(c);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &out.status);
  curl_slist_free_all(h);
  curl_easy_cleanup(c);
  out.body = parse_json(out.raw).value_or(json());
  return out;
}

Watcher::Watcher(net::IoThread& io, const std::string& url) {
  auto c = net::WebSocketClient::connect(io, url, std::chrono::seconds(5));
  if (!c) throw std::runtime_error(c.error().message);
  ws = std::move(*c);
  ws->start(
      [this](std::string text) {
        std::lock_guard lock(mutex);
        events.push_back(json::parse(text));
        cv.notify_all();
      },
      [](Error) {});
}

bool Watcher::wait_for(const std::function<bool(const std::vector<json>&)>& pred, std::chrono::milliseconds t) {
  std::unique_lock lock(mutex);
  return cv.wait_for(lock, t, [&] { return pred(events); });
}

bool Watcher::has(const std::vector<json>& ev, const std::string& type) {
  return std::any_of(ev.begin(), ev.end(), [&](const json& e) { return e["type"] == type; });
}

Server::Server(std::string dir, size_t max_active_runs, server::ApiServer::Options options) : data_dir(std::move(dir)) {
  auto opts = test_options();
  opts.db_path = data_dir + "/ouro.db";
  auto s = session::Session::start(opts);
  if (!s) throw std::runtime_error(s.error().message);
  base = std::move(*s);
  server::RunManager::Config rc;
  rc.data_dir = data_dir;
  rc.ouro_binary = ouro_binary();
  rc.confirm_timeout = std::chrono::seconds(10);
  rc.max_active_runs = max_active_runs;
  runs = std::make_unique<server::RunManager>(base->runtime(), rc);
  auto a = server::ApiServer::start(*base->runtime()->io, *runs, base->runtime(), std::move(options));
  if (!a) throw std::runtime_error(a.error().message);
  api = std::move(*a);
}

std::string Server::url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(api->port()) + path; }

std::string Server::ws(const std::string& query) const {
  return "ws://127.0.0.1:" + std::to_string(api->port()) + "/api/events?token=" + api->token() + "&" + query;
}

Http Server::get(const std::string& path) { return request("GET", url(path), api->token()); }

Http Server::post(const std::string& path, const json& body) { return request("POST", url(path), api->token(), body.dump()); }

json Watcher::last(const std::string& type) {
  std::lock_guard lock(mutex);
  json out;
  for (const auto& e : events)
    if (e["type"] == type) out = e["data"];
  return out;
}

json Server::wait_done(const std::string& id, std::chrono::seconds t) {
  auto until = std::chrono::steady_clock::now() + t;
  while (std::chrono::steady_clock::now() < until) {
    Http r = get("/api/runs/" + id);
    std::string st = r.body.value("state", "");
    if (st != "queued" && st != "running" && st != "awaiting_user") return r.body;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return json();
}

std::vector<json> events_of(Server& s, const std::string& id, const std::string& type) {
  std::vector<json> out;
  for (const auto& e : s.get("/api/runs/" + id + "/events").body)
    if (e["type"] == type) out.push_back(e["data"]);
  return out;
}

}  // namespace ouro::testing
