// The CDP connection with an in-memory transport: ids, replies, events, deadlines, disconnects.
#include "cdp/connection.h"
#include "base/clock.h"
#include "net/http_server.h"
#include "net/io.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

namespace ouro::cdp {
namespace {

// Records what the connection sends; the test plays the browser by delivering messages.
class FakeTransport final : public Transport {
 public:
  struct Shared {
    std::mutex mutex;
    std::vector<json> sent;
    OnMessage on_message;
    OnClose on_close;
    bool closed = false;
  };
  explicit FakeTransport(std::shared_ptr<Shared> s) : m_s(std::move(s)) {}
  void start(OnMessage m, OnClose c) override {
    std::lock_guard lock(m_s->mutex);
    m_s->on_message = std::move(m);
    m_s->on_close = std::move(c);
  }
  void send(std::string message) override {
    std::lock_guard lock(m_s->mutex);
    m_s->sent.push_back(json::parse(message));
  }
  void close() override {
    std::lock_guard lock(m_s->mutex);
    m_s->closed = true;
  }

 private:
  std::shared_ptr<Shared> m_s;
};

struct Fixture {
  std::shared_ptr<FakeTransport::Shared> s = std::make_shared<FakeTransport::Shared>();
  std::unique_ptr<Connection> conn = Connection::create(std::make_unique<FakeTransport>(s));

  void deliver(const json& msg) { s->on_message(msg.dump()); }
  json last_sent() {
    std::lock_guard lock(s->mutex);
    return s->sent.back();
  }
  size_t sent_count() {
    std::lock_guard lock(s->mutex);
    return s->sent.size();
  }
};

TEST(CdpConnection, CorrelatesRepliesById) {
  Fixture f;
  std::promise<Result<json>> a, b;
  f.conn->send("Page.navigate", {{"url", "x"}}, "S1", 5s, [&](Result<json> r) { a.set_value(r); });
  f.conn->send("Runtime.evaluate", {}, "", 5s, [&](Result<json> r) { b.set_value(r); });
  ASSERT_EQ(f.sent_count(), 2u);
  json first = f.s->sent[0], second = f.s->sent[1];
  EXPECT_NE(first["id"], second["id"]);
  EXPECT_EQ(first["sessionId"], "S1");
  EXPECT_FALSE(second.contains("sessionId"));
  // Replies may come in any order.
  f.deliver({{"id", second["id"]}, {"result", {{"v", 2}}}});
  f.deliver({{"id", first["id"]}, {"result", {{"v", 1}}}});
  EXPECT_EQ((*a.get_future().get())["v"], 1);
  EXPECT_EQ((*b.get_future().get())["v"], 2);
  EXPECT_EQ(f.conn->pending_count(), 0u);
}

TEST(CdpConnection, ProtocolErrorsBecomeErrorsNamingTheMethod) {
  Fixture f;
  std::promise<Result<json>> p;
  f.conn->send("DOM.nope", {}, "", 5s, [&](Result<json> r) { p.set_value(r); });
  f.deliver({{"id", f.last_sent()["id"]}, {"error", {{"code", -32601}, {"message", "'DOM.nope' wasn't found"}}}});
  auto r = p.get_future().get();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::Unimplemented);
  EXPECT_NE(r.error().message.find("DOM.nope"), std::string::npos);
}

// Chromium says what went away only in its message text; the connection reads it once, so callers
// decide by the error's cause.
TEST(CdpConnection, ChromiumsGoneTargetsAndContextsBecomeCauses) {
  const std::vector<std::pair<std::string, Cause>> cases = {
      {"Session with given id not found.", Cause::TargetGone},
      {"No session with given id", Cause::TargetGone},
      {"Cannot find context with specified id", Cause::ContextGone},
      {"Execution context was destroyed.", Cause::ContextGone},
      {"Inspected target navigated or closed", Cause::PageNavigated},
      {"Invalid parameters", Cause::None},
  };
  Fixture f;
  for (const auto& [message, cause] : cases) {
    std::promise<Result<json>> p;
    f.conn->send("Runtime.evaluate", {}, "S1", 5s, [&](Result<json> r) { p.set_value(r); });
    f.deliver({{"id", f.last_sent()["id"]}, {"error", {{"code", -32000}, {"message", message}}}});
    auto r = p.get_future().get();
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().cause, cause) << message;
  }
  // A session ouro ended keeps the cause it was ended with for the commands sent on it later.
  f.conn->fail_session("S2", Error{Code::NotFound, "tab t3 was closed", nullptr, Cause::TargetGone});
  auto late = f.conn->call("Runtime.evaluate", {}, "S2", 5s);
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().cause, Cause::TargetGone);
}

TEST(CdpConnection, RoutesEventsWithTheirSession) {
  Fixture f;
  std::vector<Event> events;
  f.conn->set_event_handler([&](const Event& e) { events.push_back(e); });
  f.deliver({{"method", "Page.loadEventFired"}, {"params", {{"timestamp", 1}}}, {"sessionId", "S9"}});
  f.deliver({{"method", "Target.targetCreated"}, {"params", {{"targetInfo", json::object()}}}});
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].method, "Page.loadEventFired");
  EXPECT_EQ(events[0].session_id, "S9");
  EXPECT_EQ(events[1].session_id, "");
}

TEST(CdpConnection, UnknownIdsAndGarbageAreIgnored) {
  Fixture f;
  f.deliver({{"id", 424242}, {"result", json::object()}});
  f.s->on_message("{not json");
  std::promise<Result<json>> p;
  f.conn->send("Browser.getVersion", {}, "", 5s, [&](Result<json> r) { p.set_value(r); });
  f.deliver({{"id", f.last_sent()["id"]}, {"result", {{"product", "Chrome"}}}});
  EXPECT_EQ((*p.get_future().get())["product"], "Chrome");
}

TEST(CdpConnection, CommandsFailAtTheirDeadline) {
  Fixture f;
  auto start = std::chrono::steady_clock::now();
  auto r = f.conn->call("Page.navigate", {}, "", 150ms);
  auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::DeadlineExceeded);
  EXPECT_NE(r.error().message.find("Page.navigate"), std::string::npos);
  EXPECT_GE(took, 140ms);
  EXPECT_LT(took, 1500ms);
  EXPECT_EQ(f.conn->pending_count(), 0u);
}

// The deadline is read on the one clock: an hour-long command fails as soon as the test moves the
// clock an hour, and not before.
TEST(CdpConnection, ACommandsDeadlineIsKeptOnTheOneClock) {
  ManualClock manual(0);
  Fixture f;
  auto r = std::async(std::launch::async, [&] { return f.conn->call("Runtime.evaluate", {}, "", std::chrono::hours(1)); });
  while (f.sent_count() == 0) std::this_thread::yield();
  EXPECT_EQ(r.wait_for(100ms), std::future_status::timeout);
  manual.advance(3'600'000 + 1);
  ASSERT_EQ(r.wait_for(30s), std::future_status::ready);
  auto result = r.get();
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, Code::DeadlineExceeded);
  EXPECT_EQ(f.conn->pending_count(), 0u);
}

TEST(CdpConnection, DisconnectFailsEveryPendingCommand) {
  Fixture f;
  std::vector<std::future<Result<json>>> futures;
  std::vector<std::shared_ptr<std::promise<Result<json>>>> promises;
  for (int i = 0; i < 5; ++i) {
    auto p = std::make_shared<std::promise<Result<json>>>();
    futures.push_back(p->get_future());
    f.conn->send("Runtime.evaluate", {}, i % 2 ? "S1" : "", 30s, [p](Result<json> r) { p->set_value(r); });
  }
  Error closed_with;
  // The owner explains the loss; pending commands carry its explanation.
  f.conn->set_close_handler([&](const Error& e) {
    closed_with = e;
    return Error{Code::Unavailable, "Chromium was killed by signal 9", nullptr};
  });
  f.s->on_close(Error{Code::Unavailable, "the browser closed its DevTools pipe", nullptr});
  for (auto& fut : futures) {
    auto r = fut.get();
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, Code::Unavailable);
    EXPECT_NE(r.error().message.find("killed by signal 9"), std::string::npos) << r.error().message;
  }
  EXPECT_NE(closed_with.message.find("closed its DevTools pipe"), std::string::npos);
  EXPECT_EQ(closed_with.code, Code::Unavailable);
  // Later commands fail at once instead of waiting for their deadline.
  auto r = f.conn->call("Page.reload", {}, "", 30s);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::Unavailable);
  ASSERT_TRUE(f.conn->close_reason().has_value());
}

TEST(CdpConnection, FailSessionOnlyFailsThatSession) {
  Fixture f;
  std::promise<Result<json>> in_session, other;
  f.conn->send("Runtime.evaluate", {}, "S1", 30s, [&](Result<json> r) { in_session.set_value(r); });
  f.conn->send("Runtime.evaluate", {}, "S2", 30s, [&](Result<json> r) { other.set_value(r); });
  f.conn->fail_session("S1", Error{Code::NotFound, "tab t3 was closed", nullptr});
  auto r = in_session.get_future().get();
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("tab t3 was closed"), std::string::npos);
  EXPECT_EQ(f.conn->pending_count(), 1u);
  f.deliver({{"id", f.last_sent()["id"]}, {"result", json::object()}});
  EXPECT_TRUE(other.get_future().get());
  // A command sent on the session afterwards (its id taken just before the tab went) fails the
  // same way, without reaching the browser.
  size_t sent = f.sent_count();
  auto late = f.conn->call("Runtime.evaluate", {}, "S1", 30s);
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().code, Code::NotFound);
  EXPECT_EQ(late.error().message, "Runtime.evaluate: tab t3 was closed");
  EXPECT_EQ(f.sent_count(), sent);
}

TEST(CdpConnection, DestroyedWithCommandsPendingCancelsThem) {
  Fixture f;
  auto p = std::make_shared<std::promise<Result<json>>>();
  auto fut = p->get_future();
  f.conn->send("Runtime.evaluate", {}, "", 30s, [p](Result<json> r) { p->set_value(r); });
  f.conn.reset();
  auto r = fut.get();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::Cancelled);
  EXPECT_TRUE(f.s->closed);
}

TEST(CdpConnection, NothingAHandlerThrowsEscapesAndLaterMessagesStillArrive) {
  Fixture f;
  int events = 0;
  f.conn->set_event_handler([&](const Event& e) {
    ++events;
    if (e.method == "Boom.typeError") (void)e.params.at("missing").get<std::string>();
    if (e.method == "Boom.runtime") throw std::runtime_error(std::string(100000, 'x'));
  });
  std::promise<Result<json>> p;
  f.conn->send("Runtime.evaluate", {}, "", 5s, [&](Result<json>) { throw std::logic_error("callback bug"); });
  json first = f.last_sent();
  EXPECT_NO_THROW(f.deliver({{"method", "Boom.typeError"}, {"params", json::object()}}));
  EXPECT_NO_THROW(f.deliver({{"method", "Boom.runtime"}, {"params", json::object()}}));
  EXPECT_NO_THROW(f.deliver({{"id", first["id"]}, {"result", json::object()}}));
  // Messages of the wrong shape are dropped too.
  EXPECT_NO_THROW(f.deliver({{"method", 42}, {"params", "not an object"}, {"sessionId", json::array()}}));
  EXPECT_NO_THROW(f.deliver({{"id", "7"}, {"error", {{"code", "x"}, {"message", 5}}}}));
  f.conn->send("Browser.getVersion", {}, "", 5s, [&](Result<json> r) { p.set_value(r); });
  f.deliver({{"id", f.last_sent()["id"]}, {"error", {{"code", "x"}, {"message", 5}, {"data", {{"k", 1}}}}}});
  auto r = p.get_future().get();
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("unknown error"), std::string::npos) << r.error().message;
  EXPECT_EQ(events, 3);
}

// Plays Chromium on the far side of a real transport: once started, streams events without
// pause and answers every other command, until the connection goes.
class FarBrowser {
 public:
  virtual ~FarBrowser() = default;
  virtual std::unique_ptr<Transport> transport(net::IoThread& io) = 0;
  virtual void start() = 0;

 protected:
  static std::string event(int i) {
    return json{{"method", "Runtime.consoleAPICalled"},
                {"params", {{"type", "log"}, {"args", json::array({{{"type", "string"}, {"value", std::string(i % 7 * 100, 'z')}}})}}},
                {"sessionId", "S1"}}
        .dump();
  }
  // The reply to a command, or "" for the half left pending.
  static std::string reply(const std::string& command) {
    auto cmd = json::parse(command);
    return cmd["id"].get<int>() % 2 == 0 ? json{{"id", cmd["id"]}, {"result", json::object()}}.dump() : "";
  }
};

// Over --remote-debugging-pipe's framing: NUL-terminated messages on two pipes.
class PipeBrowser final : public FarBrowser {
 public:
  PipeBrowser() {
    signal(SIGPIPE, SIG_IGN);
    int a[2], b[2];
    if (pipe(a) != 0 || pipe(b) != 0) throw std::runtime_error("pipe");
    m_conn_reads = a[0], m_write = a[1], m_read = b[0], m_conn_writes = b[1];
    fcntl(m_read, F_SETFL, O_NONBLOCK);
    m_thread = std::thread([this] {
      if (m_go.get_future().get()) run();
    });
  }
  ~PipeBrowser() override {
    if (!m_started) m_go.set_value(false);
    m_thread.join();  // ends when the transport has closed its ends
    close(m_write);
    close(m_read);
  }
  std::unique_ptr<Transport> transport(net::IoThread& io) override { return make_pipe_transport(io, m_conn_reads, m_conn_writes); }
  void start() override {
    m_started = true;
    m_go.set_value(true);
  }

 private:
  bool write_all(const std::string& msg) {
    std::string m = msg + '\0';
    for (size_t off = 0; off < m.size();) {
      ssize_t n = write(m_write, m.data() + off, m.size() - off);
      if (n <= 0) return false;  // EPIPE: the connection is gone
      off += static_cast<size_t>(n);
    }
    return true;
  }
  void run() {
    std::string inbox, chunk(65536, '\0');
    for (int i = 0;; ++i) {
      if (!write_all(event(i))) return;
      ssize_t n = read(m_read, chunk.data(), chunk.size());
      if (n == 0) return;
      if (n > 0) inbox.append(chunk.data(), static_cast<size_t>(n));
      for (size_t nul; (nul = inbox.find('\0')) != std::string::npos; inbox.erase(0, nul + 1))
        if (std::string r = reply(inbox.substr(0, nul)); !r.empty() && !write_all(r)) return;
    }
  }
  int m_conn_reads, m_conn_writes, m_write, m_read;
  bool m_started = false;
  std::promise<bool> m_go;
  std::thread m_thread;
};

// Over a DevTools WebSocket, served by our own HTTP server on its own network thread.
class WsBrowser final : public FarBrowser {
 public:
  WsBrowser() : m_io(net::IoThread::start()) {
    auto server = net::HttpServer::start(*m_io, net::HttpServer::Options{}, [](const net::HttpRequest&) {
                                           net::HttpResponse r;
                                           r.status = 404;
                                           return r;
                                         },
                                         [this](const net::HttpRequest&, std::shared_ptr<net::WsPeer> peer, net::WsHandlers& h) {
                                           std::weak_ptr<net::WsPeer> weak = peer;
                                           h.on_message = [weak](std::string text) {
                                             if (auto p = weak.lock(); p)
                                               if (std::string r = reply(text); !r.empty()) p->send(r);
                                           };
                                           h.on_close = [this] { m_stop = true; };
                                           std::lock_guard lock(m_mutex);
                                           m_peer = peer;
                                           return std::optional<net::HttpResponse>();
                                         });
    if (!server) throw std::runtime_error(server.error().message);
    m_server = std::move(*server);
  }
  ~WsBrowser() override {
    m_stop = true;
    if (m_thread.joinable()) m_thread.join();
    {
      std::lock_guard lock(m_mutex);
      m_peer.reset();  // before the network thread it belongs to goes
    }
    m_server.reset();
    m_io.reset();
  }
  std::unique_ptr<Transport> transport(net::IoThread& io) override {
    auto t = make_websocket_transport(io, "ws://127.0.0.1:" + std::to_string(m_server->port()) + "/devtools/browser/test");
    if (!t) throw std::runtime_error(t.error().message);
    return std::move(*t);
  }
  void start() override {
    m_thread = std::thread([this] {
      std::shared_ptr<net::WsPeer> peer;
      {
        std::lock_guard lock(m_mutex);
        peer = m_peer;
      }
      // Bursts, so the server's outbox stays small while the client keeps up.
      for (int i = 0; !m_stop; ++i) {
        peer->send(event(i));
        if (i % 50 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    });
  }

 private:
  std::unique_ptr<net::IoThread> m_io;
  std::unique_ptr<net::HttpServer> m_server;
  std::mutex m_mutex;
  std::shared_ptr<net::WsPeer> m_peer;
  std::atomic<bool> m_stop{false};
  std::thread m_thread;
};

// Destroys a connection while its far end streams events and answers half of 400 commands
// sent from four threads; the race is narrow, so it is run `rounds` times.
void destroy_while_streaming(const std::function<std::unique_ptr<FarBrowser>()>& make, int rounds) {
  for (int round = 0; round < rounds && !::testing::Test::HasFailure(); ++round) {
    auto io = net::IoThread::start();
    std::atomic<bool> gone{false};
    std::atomic<int> events{0}, late{0}, callbacks{0}, sent{0};
    {
      auto far = make();
      auto conn = Connection::create(far->transport(*io));
      conn->set_event_handler([&](const Event&) {
        ++events;
        if (gone) ++late;
      });
      far->start();
      std::vector<std::thread> callers;
      for (int t = 0; t < 4; ++t)
        callers.emplace_back([&] {
          for (int i = 0; i < 100; ++i, ++sent)
            conn->send("Runtime.evaluate", json::object(), "S1", 30s, [&](Result<json>) { ++callbacks; });
        });
      for (auto& c : callers) c.join();
      // Wait (bounded) until events are really streaming.
      for (int i = 0; i < 500 && events < 200; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
      conn.reset();
      gone = true;
      // Every command was answered or cancelled by the time the connection is gone.
      EXPECT_EQ(callbacks.load(), sent.load());
    }  // the far end stops
    io.reset();  // runs or drops whatever the network thread still had
    EXPECT_GT(events.load(), 0);
    EXPECT_EQ(late.load(), 0) << "an event was delivered after the connection was destroyed";
    EXPECT_EQ(callbacks.load(), 400);
  }
}

TEST(CdpConnection, DestroyedWhileAPipeStreamsInNothingRunsAfterward) {
  destroy_while_streaming([] { return std::make_unique<PipeBrowser>(); }, 20);
}

TEST(CdpConnection, DestroyedWhileAWebSocketStreamsInNothingRunsAfterward) {
  destroy_while_streaming([] { return std::make_unique<WsBrowser>(); }, 10);
}

}  // namespace
}  // namespace ouro::cdp
