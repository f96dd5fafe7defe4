// The CDP connection with an in-memory transport: ids, replies, events, deadlines, disconnects.
#include "cdp/connection.h"
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

// Plays Chromium on the far side of a real pipe transport: streams events without pause and
// answers every other command, until the pipe breaks.
class PipeBrowser {
 public:
  PipeBrowser() {
    signal(SIGPIPE, SIG_IGN);
    int a[2], b[2];
    if (pipe(a) != 0 || pipe(b) != 0) throw std::runtime_error("pipe");
    conn_reads = a[0], m_write = a[1], m_read = b[0], conn_writes = b[1];
    fcntl(m_read, F_SETFL, O_NONBLOCK);
    m_thread = std::thread([this] {
      m_go.get_future().wait();
      run();
    });
  }
  // Starts streaming (once the connection has its handlers).
  void start() { m_go.set_value(); }
  ~PipeBrowser() {
    m_thread.join();
    close(m_write);
    close(m_read);
  }
  int conn_reads, conn_writes;  // the transport takes these
  std::atomic<int> sent_events{0};

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
      json ev = {{"method", "Runtime.consoleAPICalled"}, {"params", {{"type", "log"}, {"args", json::array({{{"type", "string"}, {"value", std::string(i % 7 * 100, 'z')}}})}}}, {"sessionId", "S1"}};
      if (!write_all(ev.dump())) return;
      ++sent_events;
      ssize_t n = read(m_read, chunk.data(), chunk.size());
      if (n == 0) return;
      if (n > 0) inbox.append(chunk.data(), static_cast<size_t>(n));
      for (size_t nul; (nul = inbox.find('\0')) != std::string::npos; inbox.erase(0, nul + 1)) {
        auto cmd = json::parse(inbox.substr(0, nul));
        if (cmd["id"].get<int>() % 2 == 0 && !write_all(json{{"id", cmd["id"]}, {"result", json::object()}}.dump())) return;
      }
    }
  }
  int m_write, m_read;
  std::promise<void> m_go;
  std::thread m_thread;
};

TEST(CdpConnection, DestroyedWhileRepliesAndEventsStreamInNothingRunsAfterward) {
  // The race is narrow: try it a number of times.
  for (int round = 0; round < 20 && !::testing::Test::HasFailure(); ++round) {
    auto io = net::IoThread::start();
    std::atomic<bool> gone{false};
    std::atomic<int> events{0}, late{0}, callbacks{0}, sent{0};
    {
      PipeBrowser browser;
      auto conn = Connection::create(make_pipe_transport(*io, browser.conn_reads, browser.conn_writes));
      conn->set_event_handler([&](const Event&) {
        ++events;
        if (gone) ++late;
      });
      browser.start();
      // Commands from several threads while events pour in; half are answered, half pending.
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
    }  // the fake browser stops when its pipe breaks
    io.reset();  // runs or drops whatever the network thread still had
    EXPECT_GT(events.load(), 0);
    EXPECT_EQ(late.load(), 0) << "an event was delivered after the connection was destroyed";
    EXPECT_EQ(callbacks.load(), 400);
  }
}

}  // namespace
}  // namespace ouro::cdp
