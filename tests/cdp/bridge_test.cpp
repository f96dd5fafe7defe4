// The extension bridge's link and transport (cdp/bridge.h) against a fake extension in memory:
// replies by id, the extension's errors as ouro's codes, deadlines, the cap on requests in
// flight, a dropped socket failing what waits, and a cdp::Connection running on the transport —
// tabs as targets, commands to a tab's session carried as `cdp` requests, a tab leaving the group
// as Target.detachedFromTarget. Objects destroyed with callbacks pending fail them, never crash.
#include "cdp/bridge.h"
#include "cdp/connection.h"
#include "net/io.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <future>
#include <mutex>

namespace ouro::cdp {
namespace {

using namespace std::chrono_literals;

// The extension's side: records requests; answers those it has an answer for.
struct FakeExtension {
  std::unique_ptr<net::IoThread> io = net::IoThread::start();
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<json> requests;
  std::vector<std::string> sent_notices;  // pong and the like
  std::function<std::optional<json>(const json& request)> answer;  // nullopt: stays unanswered
  std::shared_ptr<BridgeLink> link;

  FakeExtension() {
    link = BridgeLink::create(*io, [this](std::string text) {
      json msg = json::parse(text);
      std::optional<json> reply;
      {
        std::lock_guard lock(mutex);
        if (!msg.contains("id")) {
          sent_notices.push_back(text);
        } else {
          requests.push_back(msg);
          if (answer) reply = answer(msg);
        }
      }
      changed.notify_all();
      if (reply) deliver(*reply);
      return true;
    }, json{{"protocol", 1}, {"browser", {{"brand", "Chromium 156"}}}});
  }
  // The link goes before the network thread, as in ouro serve: what is queued runs first.
  ~FakeExtension() {
    std::promise<void> drained;
    io->post([&] {
      link.reset();
      drained.set_value();
    });
    drained.get_future().wait();
    std::promise<void> again;
    io->post([&] { again.set_value(); });
    again.get_future().wait();
    io.reset();
  }
  // As the socket would: on the network thread.
  void deliver(json msg) {
    io->post([l = link, text = msg.dump()] { l->on_message(text); });
  }
  void drop(const std::string& why) {
    io->post([l = link, why] { l->on_closed(why); });
  }
  json wait_request(const std::string& method, size_t nth = 0) {
    std::unique_lock lock(mutex);
    json found;
    changed.wait_for(lock, 5s, [&] {
      size_t seen = 0;
      for (const auto& r : requests)
        if (r["method"] == method && seen++ == nth) {
          found = r;
          return true;
        }
      return false;
    });
    return found;
  }
};

Result<json> wait(std::future<Result<json>>& f) {
  if (f.wait_for(10s) != std::future_status::ready) return make_error(Code::DeadlineExceeded, "the test waited too long");
  return f.get();
}

std::future<Result<json>> request(BridgeLink& link, const std::string& method, json params, std::chrono::milliseconds timeout = 5s) {
  auto p = std::make_shared<std::promise<Result<json>>>();
  link.request(method, std::move(params), timeout, [p](Result<json> r) { p->set_value(std::move(r)); });
  return p->get_future();
}

TEST(BridgeLink, MatchesRepliesByIdAndMapsErrors) {
  FakeExtension ext;
  ext.answer = [](const json& r) -> std::optional<json> {
    if (r["method"] == "listTabs") return json{{"id", r["id"]}, {"result", {{"groups", json::array()}}}};
    return json{{"id", r["id"]}, {"error", {{"code", "NotInGroup"}, {"message", "tab 5 is not in the group of conversation c"}}}};
  };
  auto ok = request(*ext.link, "listTabs", json::object());
  auto refused = request(*ext.link, "attach", {{"conversation", "c"}, {"tabId", 5}});
  auto a = wait(ok);
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_TRUE((*a)["groups"].is_array());
  auto b = wait(refused);
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().code, Code::PermissionDenied);
  EXPECT_NE(b.error().message.find("not in the group"), std::string::npos);
}

TEST(BridgeLink, AnswersPingWithPong) {
  FakeExtension ext;
  ext.deliver({{"method", "ping"}, {"params", {{"t", 1}}}});
  std::unique_lock lock(ext.mutex);
  ASSERT_TRUE(ext.changed.wait_for(lock, 5s, [&] { return !ext.sent_notices.empty(); }));
  EXPECT_EQ(json::parse(ext.sent_notices[0])["method"], "pong");
}

TEST(BridgeLink, DeadlineFailsARequestAndFreesItsPlace) {
  FakeExtension ext;
  auto r = request(*ext.link, "cdp", {{"tabId", 1}}, 100ms);
  auto got = wait(r);
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().code, Code::DeadlineExceeded);
  EXPECT_EQ(ext.link->in_flight(), 0u);
}

TEST(BridgeLink, ADroppedSocketFailsEveryPendingRequest) {
  FakeExtension ext;
  auto a = request(*ext.link, "cdp", {{"tabId", 1}});
  auto b = request(*ext.link, "openTab", {{"conversation", "c"}});
  ext.wait_request("openTab");
  ext.drop("the browser closed");
  for (auto* f : {&a, &b}) {
    auto r = wait(*f);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, Code::Unavailable);
    EXPECT_NE(r.error().message.find("the extension disconnected: the browser closed"), std::string::npos) << r.error().message;
  }
  auto later = request(*ext.link, "listTabs", json::object());
  EXPECT_EQ(wait(later).error().code, Code::Unavailable);
}

TEST(BridgeLink, RefusesBeyondTheCapInFlight) {
  FakeExtension ext;
  std::vector<std::future<Result<json>>> held;
  for (size_t i = 0; i < BridgeLink::kMaxInFlight; ++i) held.push_back(request(*ext.link, "cdp", {{"tabId", 1}}, 30s));
  auto over = request(*ext.link, "cdp", {{"tabId", 1}});
  auto r = wait(over);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::ResourceExhausted);
  ext.drop("test over");
  for (auto& f : held) EXPECT_FALSE(wait(f));
}

TEST(BridgeLink, DestroyedWithARequestPendingFailsIt) {
  auto ext = std::make_unique<FakeExtension>();
  auto r = request(*ext->link, "cdp", {{"tabId", 1}}, 30s);
  ext->wait_request("cdp");
  ext->link.reset();  // the last owner: the socket's handlers are gone
  auto got = wait(r);
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().code, Code::Unavailable);
}

// --- the transport under a Connection ---------------------------------------------------------

struct Browserish {
  FakeExtension ext;
  std::unique_ptr<Connection> conn;
  std::mutex mutex;
  std::vector<Event> events;

  Browserish() {
    // A tab opened in the group answers every DevTools command with {"ok": method}.
    ext.answer = [](const json& r) -> std::optional<json> {
      const std::string m = r["method"];
      if (m == "openTab") return json{{"id", r["id"]}, {"result", {{"tabId", 7}, {"groupId", 3}, {"targetId", "T7"}}}};
      if (m == "cdp") return json{{"id", r["id"]}, {"result", {{"ok", r["params"]["cdpMethod"]}}}};
      if (m == "listTabs") return json{{"id", r["id"]}, {"result", {{"groups", json::array()}}}};
      if (m == "release") return json{{"id", r["id"]}, {"result", json::object()}};
      return std::nullopt;
    };
    conn = Connection::create(make_bridge_transport(*ext.io, ext.link, BridgeTarget{"conv-1", "Find a mug", 5000ms}));
    conn->set_event_handler([this](const Event& e) {
      std::lock_guard lock(mutex);
      events.push_back(e);
    });
  }
  bool saw(const std::string& method) {
    std::lock_guard lock(mutex);
    return std::any_of(events.begin(), events.end(), [&](const Event& e) { return e.method == method; });
  }
};

TEST(BridgeTransport, OpensATabInTheGroupAndCarriesItsCommands) {
  Browserish b;
  ASSERT_TRUE(b.conn->call("Target.setAutoAttach", {{"autoAttach", true}}));
  auto created = b.conn->call("Target.createTarget", {{"url", "about:blank"}});
  ASSERT_TRUE(created) << created.error().message;
  EXPECT_EQ((*created)["targetId"], "T7");
  json open = b.ext.wait_request("openTab");
  EXPECT_EQ(open["params"]["conversation"], "conv-1");
  EXPECT_EQ(open["params"]["title"], "Find a mug");
  ASSERT_TRUE(b.saw("Target.attachedToTarget"));
  std::string session;
  {
    std::lock_guard lock(b.mutex);
    for (const auto& e : b.events)
      if (e.method == "Target.attachedToTarget") session = e.params["sessionId"];
  }
  auto evaluated = b.conn->call("Runtime.evaluate", {{"expression", "1"}}, session);
  ASSERT_TRUE(evaluated) << evaluated.error().message;
  EXPECT_EQ((*evaluated)["ok"], "Runtime.evaluate");
  json carried = b.ext.wait_request("cdp");
  EXPECT_EQ(carried["params"]["tabId"], 7);
  EXPECT_FALSE(carried["params"].contains("sessionId")) << "the tab's own session is the tab";

  // Its events come back on its session; a child session keeps Chrome's id.
  b.ext.deliver({{"method", "cdpEvent"}, {"params", {{"tabId", 7}, {"cdpMethod", "Target.attachedToTarget"},
                                                      {"cdpParams", {{"sessionId", "CHILD"}, {"targetInfo", {{"type", "iframe"}}}}}}}});
  ASSERT_TRUE(b.conn->call("Runtime.enable", json::object(), "CHILD"));
  EXPECT_EQ(b.ext.wait_request("cdp", 1)["params"]["sessionId"], "CHILD");

  // Another conversation's tab is not this browser's.
  b.ext.deliver({{"method", "cdpEvent"}, {"params", {{"tabId", 99}, {"cdpMethod", "Page.loadEventFired"}, {"cdpParams", json::object()}}}});

  // The person drags the tab out of the group: the tab is detached, commands on it fail.
  b.ext.deliver({{"method", "tabRemoved"}, {"params", {{"tabId", 7}, {"groupId", 3}, {"conversation", "conv-1"}, {"reason", "left-group"}}}});
  for (int i = 0; i < 50 && !b.saw("Target.detachedFromTarget"); ++i) std::this_thread::sleep_for(20ms);
  EXPECT_TRUE(b.saw("Target.detachedFromTarget"));
  EXPECT_FALSE(b.saw("Page.loadEventFired"));
  auto gone = b.conn->call("Runtime.evaluate", {{"expression", "1"}}, session, 2s);
  ASSERT_FALSE(gone);
}

TEST(BridgeTransport, RefusesACleanContextSayingWhy) {
  Browserish b;
  auto r = b.conn->call("Target.createBrowserContext", json::object());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::Unimplemented);
  EXPECT_NE(r.error().message.find("clean context"), std::string::npos) << r.error().message;
  auto other = b.conn->call("Target.createTarget", {{"url", "about:blank"}, {"browserContextId", "X"}});
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().message.find("clean context"), std::string::npos);
}

TEST(BridgeTransport, ExtensionErrorsKeepTheirKind) {
  Browserish b;
  b.ext.answer = [](const json& r) -> std::optional<json> {
    if (r["method"] == "attach") return json{{"id", r["id"]}, {"error", {{"code", "NotInGroup"}, {"message", "tab 4 is not in the group"}}}};
    return std::nullopt;
  };
  auto r = b.conn->call("Target.attachToTarget", {{"targetId", "tab-4"}, {"flatten", true}});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::PermissionDenied) << r.error().message;
}

TEST(BridgeTransport, ADroppedSocketFailsCommandsWithTheReason) {
  Browserish b;
  b.ext.answer = nullptr;  // nothing is answered
  std::promise<Result<json>> p;
  b.conn->send("Target.getTargets", json::object(), "", 10s, [&](Result<json> r) { p.set_value(std::move(r)); });
  b.ext.wait_request("listTabs");
  b.ext.drop("Chrome quit");
  auto f = p.get_future();
  ASSERT_EQ(f.wait_for(5s), std::future_status::ready);
  auto r = f.get();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::Unavailable);
  EXPECT_NE(r.error().message.find("the extension disconnected: Chrome quit"), std::string::npos) << r.error().message;
}

TEST(BridgeTransport, ClosedWithACommandPendingAndReleasesTheConversation) {
  auto b = std::make_unique<Browserish>();
  b->ext.answer = [](const json& r) -> std::optional<json> {
    if (r["method"] == "release") return json{{"id", r["id"]}, {"result", json::object()}};
    return std::nullopt;
  };
  std::promise<Result<json>> p;
  b->conn->send("Target.getTargets", json::object(), "", 10s, [&](Result<json> r) { p.set_value(std::move(r)); });
  b->ext.wait_request("listTabs");
  b->conn.reset();  // the Browser goes: its transport closes
  auto f = p.get_future();
  ASSERT_EQ(f.wait_for(5s), std::future_status::ready);
  EXPECT_FALSE(f.get());
  EXPECT_EQ(b->ext.wait_request("release")["params"]["conversation"], "conv-1");
  // The extension's late answer to the listTabs goes nowhere.
  b->ext.deliver({{"id", 1}, {"result", {{"groups", json::array()}}}});
}

TEST(OfferedTransport, IsTakenOnce) {
  FakeExtension ext;
  std::string url = offer_transport(make_bridge_transport(*ext.io, ext.link, BridgeTarget{"c", "t"}));
  EXPECT_TRUE(is_offered_transport(url));
  EXPECT_TRUE(take_transport(url));
  EXPECT_FALSE(take_transport(url));
}

}  // namespace
}  // namespace ouro::cdp
