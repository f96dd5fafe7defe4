// Random traffic against a real `ouro serve` (in this process, on its own Chromium): every API
// route with random methods, bodies (garbage, huge, deeply nested, wrong types in every field),
// headers (missing, extra, duplicated, bad tokens), query strings, malformed HTTP and WebSocket
// upgrades, from several clients at once. Seeded (OURO_FUZZ_SEED=N replays a run's choices per
// client) and bounded in time. It requires: no crash, an answer (or, for a request that is not
// HTTP, a closed connection) within the deadline for every request, a JSON
// {"error": {"code", "message"}} with every failure, no 500, and a server that still works.
#include "api_env.h"
#include "raw_client.h"

#include <atomic>
#include <cstdio>
#include <mutex>
#include <random>
#include <thread>

namespace ouro::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr auto kBudget = 25s;          // time the clients send for
constexpr auto kAnswerDeadline = 8s;   // for any one answer
constexpr int kClients = 4;

struct Counts {
  std::mutex mutex;
  std::map<std::string, int> by_class;  // "2xx", "4xx", "closed", "101", …
  std::map<int, int> by_status;
  int requests = 0;
  std::vector<std::string> failures;    // what broke the rules, with the request
  std::vector<std::string> run_ids;     // runs created, for later requests to use

  void add(const std::string& cls, int status) {
    std::lock_guard lock(mutex);
    ++requests;
    ++by_class[cls];
    if (status) ++by_status[status];
  }
  void fail(const std::string& what) {
    std::lock_guard lock(mutex);
    if (failures.size() < 50) failures.push_back(what);
  }
};

// One client's choices: everything random comes from its generator.
class Fuzzer {
 public:
  Fuzzer(Server& s, Counts& counts, uint64_t seed, std::string quick_script)
      : m_s(s), m_counts(counts), m_rng(seed), m_port(s.api->port()), m_quick(std::move(quick_script)) {}

  void run(Clock::time_point until) {
    while (Clock::now() < until) {
      int kind = pick(100);
      if (kind < 70) http_request();
      else if (kind < 85) malformed();
      else websocket();
    }
  }

 private:
  Server& m_s;
  Counts& m_counts;
  std::mt19937_64 m_rng;
  uint16_t m_port;
  std::string m_quick;
  int m_tabs_opened = 0;

  int pick(int n) { return static_cast<int>(m_rng() % static_cast<uint64_t>(n)); }
  bool chance(int percent) { return pick(100) < percent; }
  template <typename T>
  const T& one_of(const std::vector<T>& v) { return v[static_cast<size_t>(pick(static_cast<int>(v.size())))]; }

  std::string random_bytes(size_t n, bool printable) {
    std::string out(n, ' ');
    for (auto& c : out) c = printable ? static_cast<char>(32 + pick(95)) : static_cast<char>(pick(256));
    return out;
  }

  std::string run_id() {
    {
      std::lock_guard lock(m_counts.mutex);
      if (!m_counts.run_ids.empty() && chance(50)) return m_counts.run_ids[static_cast<size_t>(pick(static_cast<int>(m_counts.run_ids.size())))];
    }
    return one_of<std::string>({"rnope", "r", "", "..", "%00", "r" + std::string(300, 'x'), random_bytes(8, true), "%2e%2e%2fapi"});
  }

  // Any JSON value, to depth `depth`.
  json value(int depth) {
    switch (pick(depth > 0 ? 9 : 6)) {
      case 0: return nullptr;
      case 1: return chance(50);
      case 2: return one_of<json>({0, -1, 1, 500, 501, 4294967297LL, -9223372036854775807LL, 18446744073709551615ULL, 2.5, 1e308});
      case 3: return random_bytes(static_cast<size_t>(pick(20)), true);
      case 4: return std::string(static_cast<size_t>(pick(5000)), 'x');
      case 5: return "\xff\xfe bad utf-8 \xc3";
      case 6: {
        json a = json::array();
        for (int i = pick(4); i > 0; --i) a.push_back(value(depth - 1));
        return a;
      }
      default: {
        json o = json::object();
        for (int i = pick(4); i > 0; --i) o[random_bytes(static_cast<size_t>(1 + pick(8)), true)] = value(depth - 1);
        return o;
      }
    }
  }

  // A body shaped like what the route takes, with fields swapped for wrong types at random.
  json mutate(json body) {
    for (auto& [k, v] : body.items())
      if (chance(30)) v = value(2);
    if (chance(15)) body[random_bytes(6, true)] = value(1);
    if (chance(10) && !body.empty()) body.erase(body.begin());
    return body;
  }

  json run_body() {
    json options = json::object();
    if (chance(80)) options["provider"] = chance(85) ? json("script:" + m_quick) : value(0);
    for (const char* k : {"model", "sub_model", "base_url"})
      if (chance(20)) options[k] = chance(50) ? json(random_bytes(6, true)) : value(1);
    if (chance(30)) options["max_iterations"] = chance(50) ? json(1 + pick(3)) : value(1);
    if (chance(30)) options["profile"] = chance(50) ? json(false) : value(0);
    json body = {{"task", chance(80) ? json("Say one") : value(1)}, {"options", options}};
    if (chance(30)) body["urls"] = chance(50) ? json::array({site().url("/")}) : value(2);
    return chance(70) ? body : mutate(body);
  }

  std::string body_text(const std::string& route) {
    int kind = pick(100);
    if (kind < 8) return "";
    if (kind < 14) return random_bytes(static_cast<size_t>(pick(300)), chance(50));
    if (kind < 18) {  // deep nesting
      size_t depth = static_cast<size_t>(50 + pick(200000));
      return std::string(depth, '[') + std::string(chance(50) ? depth : depth / 2, ']');
    }
    if (kind < 21) return "{\"task\": \"" + std::string((1u << 20) + static_cast<size_t>(pick(1000)), 'a') + "\"}";  // over the cap
    if (kind < 26) return dump_json(value(3));
    json body;
    if (route == "runs") body = run_body();
    else if (route == "confirm") body = mutate({{"id", "c1"}, {"approved", chance(50)}});
    else if (route == "settings") {
      body = mutate({{"provider", chance(50) ? json("script:" + m_quick) : value(0)}, {"model", "m"}, {"max_iterations", 1 + pick(600)}});
      if (chance(20)) body["api_key"] = chance(50) ? json(nullptr) : value(1);
      if (body.contains("api_key") && body["api_key"].is_string()) body["api_key"] = 5;  // never a real-looking key
    } else if (route == "tabs") {
      body = {{"url", m_tabs_opened < 4 && chance(30) ? json("about:blank") : value(1)}};
      if (body["url"].is_string() && body["url"] != "about:blank") body["url"] = 7;  // no navigations to random places
      if (body["url"] == "about:blank") ++m_tabs_opened;
    } else {
      body = value(2);
    }
    return dump_json(body);
  }

  std::string target() {
    std::string id = run_id();
    struct Route {
      std::string path, body_kind;
    };
    const std::vector<Route> routes = {
        {"/api/runs", "runs"}, {"/api/runs", "runs"}, {"/api/runs", "runs"}, {"/api/runs/" + id, ""}, {"/api/runs/" + id + "/cancel", ""}, {"/api/runs/" + id + "/confirm", "confirm"},
        {"/api/runs/" + id + "/tabs", ""}, {"/api/runs/" + id + "/events", ""}, {"/api/tabs", "tabs"}, {"/api/settings", "settings"},
        {"/", ""}, {"/index.html", ""}, {"/static/app.js", ""}, {"/static/app.css", ""}, {"/api/events", ""}, {"/api/screencast", ""},
        {"/api", ""}, {"/api/", ""}, {"/api/runs/", ""}, {"/nope", ""}, {"/" + random_bytes(10, true), ""}, {"//api//runs", ""},
    };
    const Route& r = one_of(routes);
    m_body_kind = r.body_kind;
    std::string query;
    if (chance(30)) query += "after=" + one_of<std::string>({"0", "5", "-3", "x", "99999999999999999999", "", "1e3"});
    if (chance(15)) query += "&run=" + one_of<std::string>({"all", id, ""});
    if (chance(10)) query += "&token=" + (chance(50) ? m_s.api->token() : random_bytes(5, true));
    if (chance(5)) query += "&" + random_bytes(static_cast<size_t>(pick(40)), true);
    std::string path = r.path;
    for (auto& c : path)
      if (c == ' ' || c == '?' || c == '#') c = '_';
    return query.empty() ? path : path + "?" + query;
  }
  std::string m_body_kind;

  std::string headers(bool& html) {
    std::string h;
    int host = pick(100);
    if (host < 85) h += "Host: 127.0.0.1:" + std::to_string(m_port) + "\r\n";
    else if (host < 90) h += "Host: localhost:" + std::to_string(m_port) + "\r\n";
    else if (host < 95) h += "Host: rebind.example\r\n";
    // else: no Host at all
    int auth = pick(100);
    if (auth < 75) h += "Authorization: Bearer " + m_s.api->token() + "\r\n";
    else if (auth < 82) h += "Authorization: Bearer wrong\r\n";
    else if (auth < 86) h += "Authorization: Basic " + m_s.api->token() + "\r\n";
    else if (auth < 90) h += "Authorization: Bearer " + m_s.api->token() + "\r\nAuthorization: Bearer " + m_s.api->token() + "\r\n";
    if (chance(10)) h += "Origin: " + one_of<std::string>({"http://evil.example", "null", "http://127.0.0.1:" + std::to_string(m_port)}) + "\r\n";
    if (chance(70)) h += "Content-Type: " + one_of<std::string>({"application/json", "text/plain", "multipart/form-data; boundary=x", ""}) + "\r\n";
    if (chance(10)) h += "X-Extra-" + std::to_string(pick(1000)) + ": " + random_bytes(static_cast<size_t>(pick(200)), true) + "\r\n";
    if (chance(3)) h += "X-Huge: " + std::string(20000, 'h') + "\r\n";
    html = chance(3);
    if (html) h += "Accept: text/html\r\n";
    return h;
  }

  // Checks one answer; `what` describes the request for the failure list.
  void judge(const RawResponse& r, const std::string& what, bool must_answer, bool head, bool html, RawClient& c) {
    if (r.status == 0) {
      // No answer: allowed only for what is not a whole HTTP request, and then the connection
      // must close by the deadline rather than hang.
      bool closed = c.closed_within(kAnswerDeadline);
      if (must_answer || !closed) m_counts.fail((closed ? "closed without an answer: " : "hung: ") + what);
      m_counts.add("closed", 0);
      return;
    }
    m_counts.add(std::to_string(r.status / 100) + "xx", r.status);
    if (r.status >= 500 && r.status != 503) m_counts.fail("status " + std::to_string(r.status) + " " + r.body.substr(0, 300) + " for " + what);
    if (r.status >= 400 && !head && !(html && r.headers.count("content-type") && r.headers.at("content-type").rfind("text/html", 0) == 0)) {
      auto body = parse_json(r.body);
      bool shaped = body && body->is_object() && body->contains("error") && (*body)["error"].is_object() &&
                    (*body)["error"].value("code", json()).is_string() && (*body)["error"].value("message", json()).is_string();
      if (!shaped) m_counts.fail("status " + std::to_string(r.status) + " without a JSON error (" + r.body.substr(0, 200) + ") for " + what);
    }
    if (r.status == 201 && m_body_kind == "runs" && what.rfind("POST", 0) == 0) {
      if (auto body = parse_json(r.body); body && body->contains("id")) {
        std::lock_guard lock(m_counts.mutex);
        m_counts.run_ids.push_back((*body)["id"].get<std::string>());
      }
    }
  }

  void http_request() {
    static const std::vector<std::string> methods = {"GET", "GET", "GET", "POST", "POST", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "get", "FOO", "CONNECT"};
    std::string method = one_of(methods);
    std::string t = target();
    bool html = false;
    std::string h = headers(html);
    std::string body = method == "GET" && chance(80) ? "" : body_text(m_body_kind);
    bool chunked = !body.empty() && chance(10);
    std::string request = method + " " + t + " HTTP/1.1\r\n" + h;
    if (chunked) {
      request += "Transfer-Encoding: chunked\r\n\r\n";
      for (size_t at = 0; at < body.size(); at += 4096) {
        std::string part = body.substr(at, 4096);
        request += fmt::format("{:x}\r\n", part.size()) + part + "\r\n";
      }
      request += "0\r\n\r\n";
    } else {
      if (!body.empty() || chance(20)) request += "Content-Length: " + std::to_string(body.size()) + "\r\n";
      request += "\r\n" + body;
    }
    std::string what = method + " " + t.substr(0, 120) + " (" + std::to_string(body.size()) + " body bytes" + (chunked ? ", chunked" : "") + ")";
    RawClient c(m_port);
    c.send(request);  // may be cut short by a refusal: the answer says why
    RawResponse r = c.read_response(kAnswerDeadline, method == "HEAD");
    judge(r, what, true, method == "HEAD", html, c);
    // A second request on the same connection, when it is still open.
    if (r.status && r.status < 400 && r.headers["connection"] != "close" && chance(30)) {
      c.send("GET /api/runs HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(m_port) + "\r\nAuthorization: Bearer " + m_s.api->token() + "\r\n\r\n");
      judge(c.read_response(kAnswerDeadline), "GET /api/runs after " + what, true, false, false, c);
    }
  }

  void malformed() {
    std::string host = "Host: 127.0.0.1:" + std::to_string(m_port) + "\r\n";
    std::string auth = "Authorization: Bearer " + m_s.api->token() + "\r\n";
    struct Case {
      std::string bytes;
      bool whole;  // a complete request head: it must get an answer
    };
    const std::vector<Case> cases = {
        {random_bytes(static_cast<size_t>(1 + pick(500)), false), false},
        {random_bytes(static_cast<size_t>(1 + pick(200)), true) + "\r\n\r\n", true},
        {"GET /api/runs HTTP/9.9\r\n" + host + auth + "\r\n", true},
        {"GET /api/runs HTTP/1.1\r\n" + host + "Bad Header Line\r\n\r\n", true},
        {"GET http://evil.example/api/runs HTTP/1.1\r\n" + host + auth + "\r\n", true},
        {"GET /" + std::string(20000, 'u') + " HTTP/1.1\r\n" + host + "\r\n", true},
        {"POST /api/runs HTTP/1.1\r\n" + host + auth + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", true},
        {"POST /api/runs HTTP/1.1\r\n" + host + auth + "Transfer-Encoding: chunked\r\n\r\nnothex\r\n", true},
        {"POST /api/runs HTTP/1.1\r\n" + host + auth + "Content-Length: 99999999999999999999\r\n\r\n", true},
        {"POST /api/settings HTTP/1.1\r\n" + host + auth + "Content-Length: 40\r\n\r\n{\"model\":", false},  // body never finishes
        {"GET /api/runs HTTP/1.1\r\n" + host, false},                                                           // head never finishes
        {"GET /api/runs HTTP/1.1\r\n" + host + auth + "\r\nGET /api/settings HTTP/1.1\r\n" + host + auth + "\r\n", true},  // pipelined
        {"GET /api/runs HTTP/1.0\r\n" + host + auth + "\r\n", true},
        {"\r\n\r\n\r\n", false},
    };
    const Case& c = one_of(cases);
    RawClient client(m_port);
    client.send(c.bytes);
    RawResponse r = client.read_response(c.whole ? kAnswerDeadline : 3s);
    std::string what = "malformed: " + dump_json(json(c.bytes.substr(0, 80)));
    judge(r, what, false, false, false, client);
  }

  void websocket() {
    bool html = false;
    std::string h = headers(html);
    std::string id = run_id();
    std::string t = one_of<std::string>({"/api/events", "/api/screencast", "/api/runs", "/"});
    std::string query;
    if (chance(85)) query += "token=" + (chance(85) ? m_s.api->token() : random_bytes(6, true));
    if (chance(60)) query += "&run=" + one_of<std::string>({"all", id, ""});
    if (chance(40)) query += "&after=" + one_of<std::string>({"0", "3", "-1", "abc", "99999999999999999999"});
    RawClient c(m_port);
    // The upgrade sends its own Host; the random headers may add another or a bad Origin.
    size_t first_line = h.find("\r\n");
    RawResponse r = c.upgrade(t + "?" + query, chance(50) || first_line == std::string::npos ? "" : h.substr(first_line + 2));
    std::string what = "WebSocket " + t + "?" + query.substr(0, 100);
    if (r.status == 101) {
      m_counts.add("101", 101);
      // The server talks or closes; either way it must not hang the connection forever.
      auto frame = c.read_message(chance(50) ? 300ms : 1500ms);
      if (frame && frame->opcode == 8 && frame->close_reason().empty() && frame->close_code() != 1000)
        m_counts.fail("a WebSocket closed without a reason for " + what);
      return;
    }
    judge(r, what, true, false, false, c);
  }
};

TEST(ApiFuzz, RandomTrafficNeverBreaksTheServer) {
  uint64_t seed = std::random_device{}();
  if (const char* s = std::getenv("OURO_FUZZ_SEED")) seed = std::strtoull(s, nullptr, 10);
  std::printf("api fuzz seed: %llu (OURO_FUZZ_SEED=%llu replays each client's choices)\n", static_cast<unsigned long long>(seed),
              static_cast<unsigned long long>(seed));
  std::fflush(stdout);
  server::ApiServer::Options options;
  options.limits.header_timeout = 2s;  // slow clients are cut off quickly, within the answer deadline
  options.limits.body_timeout = 2s;
  Server s(temp_dir(), 4, options);
  std::string quick = script_file({{{"text", repl_reply("setFinal(1)")}}});
  ASSERT_EQ(request("PUT", s.url("/api/settings"), s.api->token(), json{{"provider", "script:" + quick}}.dump()).status, 200);
  Counts counts;
  auto start = Clock::now();
  auto until = start + kBudget;
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i)
    clients.emplace_back([&, i] { Fuzzer(s, counts, seed + static_cast<uint64_t>(i), quick).run(until); });
  for (auto& t : clients) t.join();
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();

  // Afterwards it still does its job.
  Http runs = s.get("/api/runs");
  EXPECT_EQ(runs.status, 200) << runs.raw;
  EXPECT_EQ(request("PUT", s.url("/api/settings"), s.api->token(), json{{"provider", "script:" + quick}}.dump()).status, 200);
  Http created;
  for (auto limit = Clock::now() + 30s; Clock::now() < limit;) {
    created = s.post("/api/runs", {{"task", "After the storm"}});
    if (created.status != 429) break;
    std::this_thread::sleep_for(100ms);  // the fuzz's runs are still ending
  }
  ASSERT_EQ(created.status, 201) << created.raw;
  EXPECT_EQ(s.wait_done(created.body["id"])["final"], 1);
  auto io = net::IoThread::start();
  Watcher w(*io, s.ws("run=" + created.body["id"].get<std::string>()));
  EXPECT_TRUE(w.wait_for([](auto& ev) { return Watcher::has(ev, "complete"); }));

  std::lock_guard lock(counts.mutex);
  std::printf("api fuzz: %d requests in %.1f s from %d clients:", counts.requests, seconds, kClients);
  for (const auto& [cls, n] : counts.by_class) std::printf(" %s %d", cls.c_str(), n);
  std::printf("\n  by status:");
  for (const auto& [status, n] : counts.by_status) std::printf(" %d×%d", status, n);
  std::printf("\n  runs created: %zu\n", counts.run_ids.size());
  EXPECT_GT(counts.requests, 200);
  for (const auto& f : counts.failures) ADD_FAILURE() << f;
}

}  // namespace
}  // namespace ouro::testing
