// The runs API over real HTTP and WebSocket on 127.0.0.1, with scripted models and real Chromium.
#include "browser_env.h"

#include "net/io.h"
#include "net/websocket_client.h"
#include "server/api.h"
#include "server/runs.h"
#include "store/database.h"

#include <curl/curl.h>
#include <sys/stat.h>

#include <condition_variable>
#include <fstream>
#include <thread>

namespace ouro::testing {
namespace {

struct Http {
  long status = 0;
  json body;
  std::string raw;
};

size_t collect(char* d, size_t s, size_t n, void* u) {
  static_cast<std::string*>(u)->append(d, s * n);
  return s * n;
}

Http request(const std::string& method, const std::string& url, const std::string& token, const std::string& body = "",
             std::vector<std::string> extra = {}) {
  CURL* c = curl_easy_init();
  Http out;
  curl_slist* h = nullptr;
  if (!token.empty()) h = curl_slist_append(h, ("Authorization: Bearer " + token).c_str());
  h = curl_slist_append(h, "Content-Type: application/json");
  for (const auto& e : extra) h = curl_slist_append(h, e.c_str());
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
  if (!body.empty()) curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.c_str());
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

// A WebSocket subscriber that collects events.
struct Watcher {
  std::unique_ptr<net::WebSocketClient> ws;
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<json> events;
  Watcher(net::IoThread& io, const std::string& url) {
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
  bool wait_for(const std::function<bool(const std::vector<json>&)>& pred, std::chrono::milliseconds t = std::chrono::seconds(20)) {
    std::unique_lock lock(mutex);
    return cv.wait_for(lock, t, [&] { return pred(events); });
  }
  static bool has(const std::vector<json>& ev, const std::string& type) {
    return std::any_of(ev.begin(), ev.end(), [&](const json& e) { return e["type"] == type; });
  }
};

struct Server {
  std::unique_ptr<session::Session> base;
  std::unique_ptr<server::RunManager> runs;
  std::unique_ptr<server::ApiServer> api;
  std::string data_dir;
  explicit Server(std::string dir = temp_dir()) : data_dir(dir) {
    auto opts = test_options();
    opts.db_path = data_dir + "/ouro.db";
    auto s = session::Session::start(opts);
    if (!s) throw std::runtime_error(s.error().message);
    base = std::move(*s);
    server::RunManager::Config rc;
    rc.data_dir = data_dir;
    rc.ouro_binary = ouro_binary();
    rc.confirm_timeout = std::chrono::seconds(10);
    runs = std::make_unique<server::RunManager>(base->runtime(), rc);
    auto a = server::ApiServer::start(*base->runtime()->io, 0, *runs, base->runtime());
    if (!a) throw std::runtime_error(a.error().message);
    api = std::move(*a);
  }
  std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(api->port()) + path; }
  std::string ws(const std::string& query) const {
    return "ws://127.0.0.1:" + std::to_string(api->port()) + "/api/events?token=" + api->token() + "&" + query;
  }
  Http get(const std::string& path) { return request("GET", url(path), api->token()); }
  Http post(const std::string& path, const json& body) { return request("POST", url(path), api->token(), body.dump()); }
  json wait_done(const std::string& id, std::chrono::seconds t = std::chrono::seconds(30)) {
    auto until = std::chrono::steady_clock::now() + t;
    while (std::chrono::steady_clock::now() < until) {
      Http r = get("/api/runs/" + id);
      std::string st = r.body.value("state", "");
      if (st != "queued" && st != "running") return r.body;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return json();
  }
};

TEST(Api, TokenOriginHostAndBodiesAreChecked) {
  Server s;
  EXPECT_EQ(request("GET", s.url("/api/runs"), "").status, 401);
  EXPECT_EQ(request("GET", s.url("/api/runs"), "wrong-token").status, 401);
  EXPECT_EQ(request("GET", s.url("/api/runs?token=" + s.api->token()), "").status, 200) << "?token= works too";
  Http origin = request("GET", s.url("/api/runs"), s.api->token(), "", {"Origin: http://evil.example"});
  EXPECT_EQ(origin.status, 403);
  EXPECT_NE(origin.body["error"]["message"].get<std::string>().find("evil.example"), std::string::npos);
  EXPECT_EQ(request("GET", s.url("/api/runs"), s.api->token(), "", {"Host: rebind.example:80"}).status, 403);
  EXPECT_EQ(request("GET", s.url("/api/runs"), s.api->token(), "", {"Origin: http://127.0.0.1:" + std::to_string(s.api->port())}).status, 200);
  Http bad = request("POST", s.url("/api/runs"), s.api->token(), "{not json");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.body["error"]["code"], "InvalidArgument");
  EXPECT_NE(bad.body["error"]["message"].get<std::string>().find("malformed request body"), std::string::npos);
  Http no_task = s.post("/api/runs", {{"urls", json::array()}});
  EXPECT_EQ(no_task.status, 400);
  EXPECT_EQ(s.get("/api/runs/nope").status, 404);
  EXPECT_EQ(request("GET", s.url("/"), "").status, 401) << "the page needs the token";
  EXPECT_EQ(request("GET", s.url("/?token=" + s.api->token()), "").status, 200);
  // A WebSocket without the token is refused.
  auto io = net::IoThread::start();
  EXPECT_FALSE(net::WebSocketClient::connect(*io, "ws://127.0.0.1:" + std::to_string(s.api->port()) + "/api/events?run=all", std::chrono::seconds(3)));
}

TEST(Api, CreateStreamAndResumeBySequenceNumber) {
  Server s;
  std::string path = script_file({{{"reasoning", "thinking"}, {"text", repl_reply("env.h = await getText(activeTab, 'h1')")}},
                             {{"text", repl_reply("setFinal(env.h)")}}});
  Http created = s.post("/api/runs", {{"task", "Read the heading"}, {"urls", {site().url("/")}}, {"options", {{"provider", "script:" + path}}}});
  ASSERT_EQ(created.status, 201) << created.raw;
  std::string id = created.body["id"];
  auto io = net::IoThread::start();
  Watcher w(*io, s.ws("run=" + id + "&after=0"));
  ASSERT_TRUE(w.wait_for([](auto& ev) { return Watcher::has(ev, "complete"); })) << "no complete event";
  std::vector<json> all;
  {
    std::lock_guard lock(w.mutex);
    all = w.events;
  }
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i]["seq"], i + 1) << "in order, no gaps";
  EXPECT_TRUE(Watcher::has(all, "stream-token"));
  EXPECT_TRUE(Watcher::has(all, "code-result"));
  EXPECT_EQ(all.back()["data"]["final"], "Fixture Home");
  json run = s.wait_done(id);
  EXPECT_EQ(run["state"], "done");
  EXPECT_EQ(run["final"], "Fixture Home");
  EXPECT_EQ(run["iterations"], 2);
  // A client that saw up to seq 5 reconnects: exactly the rest, no duplicates.
  Watcher again(*io, s.ws("run=" + id + "&after=5"));
  ASSERT_TRUE(again.wait_for([&](auto& ev) { return ev.size() == all.size() - 5; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  std::lock_guard lock(again.mutex);
  ASSERT_EQ(again.events.size(), all.size() - 5);
  EXPECT_EQ(again.events.front()["seq"], 6);
  EXPECT_EQ(again.events.back()["type"], "complete");
  // The REST form gives the same stream.
  EXPECT_EQ(s.get("/api/runs/" + id + "/events?after=0").body.size(), all.size());
}

TEST(Api, CancelStopsARunWithinASecond) {
  Server s;
  std::string path = script_file({{{"text", repl_reply("env.a = 1")}}, {{"text", repl_reply("await execInTab(activeTab, 'await new Promise(r => setTimeout(r, 9000))')")}}});
  Http created = s.post("/api/runs", {{"task", "Wait"}, {"urls", {site().url("/")}}, {"options", {{"provider", "script:" + path}}}});
  std::string id = created.body["id"];
  auto io = net::IoThread::start();
  Watcher w(*io, s.ws("run=" + id));
  ASSERT_TRUE(w.wait_for([](auto& ev) { return std::count_if(ev.begin(), ev.end(), [](const json& e) { return e["type"] == "code-generated"; }) >= 2; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(s.post("/api/runs/" + id + "/cancel", json::object()).status, 200);
  ASSERT_TRUE(w.wait_for([](auto& ev) { return Watcher::has(ev, "complete"); }, std::chrono::seconds(5)));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(1000));
  json run = s.wait_done(id);
  EXPECT_EQ(run["state"], "cancelled");
  EXPECT_EQ(run["final"]["env"]["a"], 1) << "what was done is kept";
  EXPECT_EQ(s.post("/api/runs/" + id + "/cancel", json::object()).status, 409) << "not in progress any more";
}

TEST(Api, ConfirmationsAreAnsweredThroughTheApi) {
  Server s;
  auto checkout = [&](bool approve) {
    std::string path = script_file({{{"text", repl_reply("await click(activeTab, '#place');\nsetFinal(await getText(activeTab, '#result'))")}},
                               {{"text", repl_reply("setFinal('denied')")}}});
    Http created = s.post("/api/runs", {{"task", "Buy"}, {"urls", {site().url("/checkout")}}, {"options", {{"provider", "script:" + path}}}});
    std::string id = created.body["id"];
    auto io = net::IoThread::start();
    Watcher w(*io, s.ws("run=" + id));
    EXPECT_TRUE(w.wait_for([](auto& ev) { return Watcher::has(ev, "confirmation-req"); }));
    json req;
    {
      std::lock_guard lock(w.mutex);
      for (const auto& e : w.events)
        if (e["type"] == "confirmation-req") req = e["data"];
    }
    EXPECT_EQ(req["details"]["reason"], "it submits a form");
    EXPECT_EQ(s.get("/api/runs/" + id).body["pendingConfirmations"], json::array({req["id"]}));
    Http answer = s.post("/api/runs/" + id + "/confirm", {{"id", req["id"]}, {"approved", approve}});
    EXPECT_EQ(answer.status, 200) << answer.raw;
    return s.wait_done(id);
  };
  EXPECT_EQ(checkout(true)["final"], "Order placed");
  EXPECT_EQ(checkout(false)["final"], "denied");
  EXPECT_EQ(s.post("/api/runs/rnope/confirm", {{"id", "c1"}, {"approved", true}}).status, 404);
  EXPECT_EQ(s.post("/api/runs/rnope/confirm", {{"id", 1}}).status, 400);
}

TEST(Api, ConcurrentRunsHaveIsolatedCookies) {
  Server s;
  std::string a = script_file({{{"text", repl_reply("await setCookie({ name: 'who', value: 'run-a', url: '" + site().url("/") + "' });\nawait sleep(800);\n"
                                         "setFinal((await getCookies()).map(c => c.name + '=' + c.value))")}}});
  std::string b = script_file({{{"text", repl_reply("await sleep(400);\nsetFinal((await getCookies()).map(c => c.name + '=' + c.value))")}}});
  std::string ida = s.post("/api/runs", {{"task", "A"}, {"urls", {site().url("/")}}, {"options", {{"provider", "script:" + a}}}}).body["id"];
  std::string idb = s.post("/api/runs", {{"task", "B"}, {"urls", {site().url("/")}}, {"options", {{"provider", "script:" + b}}}}).body["id"];
  json ra = s.wait_done(ida), rb = s.wait_done(idb);
  EXPECT_EQ(ra["final"], json::array({"who=run-a"}));
  EXPECT_EQ(rb["final"], json::array()) << "run B must not see run A's cookie";
  EXPECT_LT(std::abs(ra["created_at"].get<double>() - rb["created_at"].get<double>()), 1000.0) << "they ran at once";
}

TEST(Api, ALiveViewStreamsTheActiveTab) {
  Server s;
  std::string path = script_file({{{"text", repl_reply("for (let i = 0; i < 30; i++) { await execInTab(activeTab, `document.body.style.background = '#' + (${i} % 10) + '0' + (${i} % 10)`); await sleep(100); }\nsetFinal('ok')")}}});
  std::string id = s.post("/api/runs", {{"task", "Flicker"}, {"urls", {site().url("/")}}, {"options", {{"provider", "script:" + path}}}}).body["id"];
  json tabs;
  for (int i = 0; i < 100; ++i) {
    Http t = s.get("/api/runs/" + id + "/tabs");
    if (t.status == 200 && !t.body["activeTab"].get<std::string>().empty()) {
      tabs = t.body;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_FALSE(tabs.is_null()) << "the run's tabs are listed while it runs";
  EXPECT_EQ(tabs["tabs"][0]["url"], site().url("/"));
  auto io = net::IoThread::start();
  Watcher w(*io, "ws://127.0.0.1:" + std::to_string(s.api->port()) + "/api/screencast?token=" + s.api->token() + "&run=" + id);
  ASSERT_TRUE(w.wait_for([](auto& ev) { return ev.size() >= 2; }, std::chrono::seconds(10))) << "no frames";
  std::lock_guard lock(w.mutex);
  EXPECT_EQ(w.events[0]["tab"], tabs["activeTab"]);
  EXPECT_EQ(w.events[0]["jpeg"].get<std::string>().rfind("/9j/", 0), 0u) << "base64 JPEG";
}

TEST(Api, SettingsKeepTheKeyPrivate) {
  Server s;
  Http put = request("PUT", s.url("/api/settings"), s.api->token(),
                     json{{"provider", "anthropic"}, {"model", "claude-sonnet-4-20250514"}, {"api_key", "sk-ant-SECRETSECRET1234"}, {"max_iterations", 12}}.dump());
  EXPECT_EQ(put.status, 200) << put.raw;
  EXPECT_EQ(put.raw.find("SECRETSECRET"), std::string::npos) << "the key is never sent back in full";
  Http got = s.get("/api/settings");
  EXPECT_EQ(got.body["api_key"], "sk-…1234");
  EXPECT_EQ(got.body["max_iterations"], 12);
  struct stat st;
  ASSERT_EQ(stat((s.data_dir + "/secrets.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(request("PUT", s.url("/api/settings"), s.api->token(), R"({"max_iterations": "lots"})").status, 400);
}

TEST(Api, ARestartKeepsHistoryAndMarksUnfinishedRunsInterrupted) {
  std::string dir = temp_dir();
  std::string id;
  {
    Server s(dir);
    std::string path = script_file({{{"text", repl_reply("setFinal(42)")}}});
    id = s.post("/api/runs", {{"task", "Answer"}, {"options", {{"provider", "script:" + path}}}}).body["id"];
    EXPECT_EQ(s.wait_done(id)["final"], 42);
    // A run the process was in the middle of when it died.
    store::Database::RunRow crashed;
    crashed.id = "rcrashed";
    crashed.task = "Half done";
    crashed.state = "running";
    crashed.created_at = crashed.updated_at = 1;
    ASSERT_TRUE(s.base->db().insert_run(crashed));
  }
  Server again(dir);
  json runs = again.get("/api/runs").body;
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(again.get("/api/runs/rcrashed").body["state"], "interrupted");
  EXPECT_EQ(again.get("/api/runs/" + id).body["final"], 42);
  json events = again.get("/api/runs/" + id + "/events").body;
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back()["type"], "complete");
}

}  // namespace
}  // namespace ouro::testing
