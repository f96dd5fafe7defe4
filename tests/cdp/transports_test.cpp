// How CDP messages travel (cdp/transport.h), with the test playing the browser: over a pair of
// pipes framed as --remote-debugging-pipe frames them (each message a JSON text ended by a NUL
// byte), messages come out whole and in order however the bytes are cut, what ouro sends ends
// in a NUL each, a browser that closes its pipe or stops reading is reported once, and nothing is
// delivered after close() returns — even when a callback closes its own transport. Over a DevTools
// WebSocket (served by net::HttpServer on 127.0.0.1), the same promises.
#include "cdp/transport.h"
#include "net/http_server.h"
#include "net/io.h"
#include "../support/ws_server.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace ouro::cdp {
namespace {

using namespace std::chrono_literals;
using namespace std::string_literals;

using Seen = ouro::testing::Delivered;
using ouro::testing::drained;

Transport::OnMessage record_message(const std::shared_ptr<Seen>& seen) { return Seen::message_to(seen); }
Transport::OnClose record_close(const std::shared_ptr<Seen>& seen) { return Seen::close_to(seen); }

// The browser's side of --remote-debugging-pipe: it writes replies and events into one pipe and
// reads commands from the other. The transport is given (and owns) the two other ends.
struct FarEnd {
  int write_fd = -1;        // the browser's replies and events
  int read_fd = -1;         // the commands the transport sends
  int transport_read = -1;  // for make_pipe_transport
  int transport_write = -1;

  FarEnd() {
    ::signal(SIGPIPE, SIG_IGN);  // a write to a closed pipe is EPIPE, on both sides
    int replies[2] = {-1, -1}, commands[2] = {-1, -1};
    EXPECT_EQ(::pipe2(replies, O_CLOEXEC), 0);
    EXPECT_EQ(::pipe2(commands, O_CLOEXEC), 0);
    transport_read = replies[0];
    write_fd = replies[1];
    read_fd = commands[0];
    transport_write = commands[1];
  }
  ~FarEnd() {
    close_write();
    close_read();
  }
  FarEnd(const FarEnd&) = delete;
  FarEnd& operator=(const FarEnd&) = delete;

  void close_write() {
    if (write_fd >= 0) ::close(write_fd);
    write_fd = -1;
  }
  void close_read() {
    if (read_fd >= 0) ::close(read_fd);
    read_fd = -1;
  }
  // Blocks while the pipe is full; false once the transport's end is closed (EPIPE).
  bool write_all(std::string_view bytes) {
    for (size_t off = 0; off < bytes.size();) {
      ssize_t n = ::write(write_fd, bytes.data() + off, bytes.size() - off);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      off += static_cast<size_t>(n);
    }
    return true;
  }
  // What the transport sent, until `want` bytes have come, its end closed, or `within` passed.
  std::string read_bytes(size_t want, std::chrono::milliseconds within, bool* eof = nullptr) {
    std::string out;
    const auto deadline = std::chrono::steady_clock::now() + within;
    char buf[65536];
    while (out.size() < want) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
      if (left <= 0) break;
      pollfd p{read_fd, POLLIN, 0};
      int ready = ::poll(&p, 1, static_cast<int>(left));
      if (ready < 0 && errno == EINTR) continue;
      if (ready <= 0) break;
      ssize_t n = ::read(read_fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        if (eof) *eof = true;
        break;
      }
      out.append(buf, static_cast<size_t>(n));
    }
    return out;
  }
  // True when the transport has closed its end of the command pipe within `within`.
  bool sees_eof(std::chrono::milliseconds within = 10s) {
    bool eof = false;
    (void)read_bytes(static_cast<size_t>(-1), within, &eof);
    return eof;
  }
};

std::vector<std::string> split_at_nuls(const std::string& bytes) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t nul; (nul = bytes.find('\0', start)) != std::string::npos; start = nul + 1) out.push_back(bytes.substr(start, nul - start));
  EXPECT_EQ(start, bytes.size()) << "bytes after the last NUL";
  return out;
}

// --- Pipes ----------------------------------------------------------------------------------------

TEST(PipeTransport, MessagesArriveWholeAndInOrderHoweverTheBytesAreCut) {
  FarEnd far;
  auto io = net::IoThread::start();
  auto seen = std::make_shared<Seen>();
  ASSERT_TRUE(far.write_all("{\"early\":0}\0"s)) << "written before the transport starts";
  auto t = make_pipe_transport(*io, far.transport_read, far.transport_write);
  t->start(record_message(seen), record_close(seen));
  // Cut everywhere: one byte at a time, a message's end and the next one's start together.
  for (char c : "{\"a\":1}\0{\"b\":\"two\"}\0{\"c\":3"s) ASSERT_TRUE(far.write_all(std::string(1, c)));
  ASSERT_TRUE(far.write_all("}\0{\"d\":4}\0{\"e\":5}\0"s));
  const std::vector<std::string> want = {"{\"early\":0}", "{\"a\":1}", "{\"b\":\"two\"}", "{\"c\":3}", "{\"d\":4}", "{\"e\":5}"};
  EXPECT_TRUE(seen->wait([&] { return seen->messages.size() >= want.size(); })) << "only " << seen->message_count() << " arrived";
  EXPECT_EQ(seen->all_messages(), want);
  EXPECT_TRUE(seen->all_closes().empty());
}

// Chromium's replies (a screenshot, a large DOM) are megabytes, far over one read.
TEST(PipeTransport, AMessageLargerThanManyReadsIsDeliveredWhole) {
  FarEnd far;
  auto io = net::IoThread::start();
  auto seen = std::make_shared<Seen>();
  std::string big(3u << 20, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>('a' + i % 26);
  auto t = make_pipe_transport(*io, far.transport_read, far.transport_write);
  t->start(record_message(seen), record_close(seen));
  std::string stream = big + '\0';
  for (int i = 0; i < 1000; ++i) stream += std::to_string(i) + '\0';
  stream += big + "!" + '\0';
  std::thread writer([&far, stream] { (void)far.write_all(stream); });  // blocks while the pipe is full
  const bool all = seen->wait([&] { return seen->messages.size() >= 1002; }, 30s);
  auto got = seen->all_messages();
  t.reset();  // a writer still blocked fails with EPIPE: the join below never hangs
  writer.join();
  ASSERT_TRUE(all) << "only " << got.size() << " of 1002 messages arrived";
  ASSERT_EQ(got.size(), 1002u);
  EXPECT_EQ(got[0].size(), big.size());
  EXPECT_TRUE(got[0] == big);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(got[static_cast<size_t>(i) + 1], std::to_string(i));
  EXPECT_TRUE(got[1001] == big + "!");
}

// What ouro sends ends in a NUL each, whole, in the order queued — each thread's in its own order
// when several send at once.
TEST(PipeTransport, SentMessagesEndInANulEachAndKeepTheirOrder) {
  FarEnd far;
  auto io = net::IoThread::start();
  auto seen = std::make_shared<Seen>();
  auto t = make_pipe_transport(*io, far.transport_read, far.transport_write);
  t->start(record_message(seen), record_close(seen));
  const std::string big(1u << 20, 'x');
  t->send(big);
  t->send("");
  size_t want = big.size() + 2;
  std::vector<std::thread> senders;
  for (int s = 0; s < 4; ++s) {
    for (int i = 0; i < 50; ++i) want += (std::to_string(s) + ":" + std::to_string(i)).size() + 1;
    senders.emplace_back([&t, s] {
      for (int i = 0; i < 50; ++i) t->send(std::to_string(s) + ":" + std::to_string(i));
    });
  }
  for (auto& s : senders) s.join();
  const std::string bytes = far.read_bytes(want, 20s);
  ASSERT_EQ(bytes.size(), want);
  const std::vector<std::string> sent = split_at_nuls(bytes);
  ASSERT_EQ(sent.size(), 202u);
  EXPECT_TRUE(sent[0] == big);
  EXPECT_EQ(sent[1], "") << "an empty message is an empty frame";
  int next[4] = {0, 0, 0, 0};
  for (size_t i = 2; i < sent.size(); ++i) {
    const int s = sent[i][0] - '0';
    ASSERT_TRUE(s >= 0 && s < 4) << sent[i];
    EXPECT_EQ(sent[i], std::to_string(s) + ":" + std::to_string(next[s])) << "thread " << s << "'s messages out of order";
    ++next[s];
  }
  EXPECT_TRUE(seen->all_closes().empty());
}

// The browser exiting closes its pipe: what it wrote before comes first, then on_close once, as
// Unavailable; the transport lets go of its own ends, and a later send is dropped.
TEST(PipeTransport, TheBrowserClosingItsPipeIsReportedOnceAfterWhatItWrote) {
  FarEnd far;
  auto io = net::IoThread::start();
  auto seen = std::make_shared<Seen>();
  auto t = make_pipe_transport(*io, far.transport_read, far.transport_write);
  t->start(record_message(seen), record_close(seen));
  ASSERT_TRUE(far.write_all("{\"last\":1}\0{\"last\":2}\0"s));
  far.close_write();
  ASSERT_TRUE(seen->wait([&] { return !seen->closes.empty(); })) << "the close was never reported";
  EXPECT_EQ(seen->all_messages(), (std::vector<std::string>{"{\"last\":1}", "{\"last\":2}"}));
  auto closes = seen->all_closes();
  ASSERT_EQ(closes.size(), 1u);
  EXPECT_EQ(closes[0].code, Code::Unavailable);
  EXPECT_EQ(closes[0].message, "the browser closed its DevTools pipe");
  EXPECT_TRUE(far.sees_eof()) << "the transport kept its end of the command pipe open";
  t->send("{\"after\":1}");
  ASSERT_TRUE(drained(*io));
  EXPECT_EQ(seen->all_closes().size(), 1u) << "on_close ran again";
}

TEST(PipeTransport, ABrowserThatStopsReadingIsReportedAsUnavailable) {
  FarEnd far;
  auto io = net::IoThread::start();
  auto seen = std::make_shared<Seen>();
  auto t = make_pipe_transport(*io, far.transport_read, far.transport_write);
  t->start(record_message(seen), record_close(seen));
  far.close_read();
  t->send("{\"id\":1,\"method\":\"Browser.getVersion\"}");
  ASSERT_TRUE(seen->wait([&] { return !seen->closes.empty(); })) << "the failed write was never reported";
  auto closes = seen->all_closes();
  ASSERT_EQ(closes.size(), 1u);
  EXPECT_EQ(closes[0].code, Code::Unavailable);
  EXPECT_EQ(closes[0].message.rfind("cannot write to the browser's DevTools pipe: ", 0), 0u) << closes[0].message;
}

// close() while the browser streams events: once it returns nothing more is delivered, on_close
// is not called for a close ouro asked for, and both descriptors are let go.
TEST(PipeTransport, NothingIsDeliveredOnceCloseReturns) {
  FarEnd far;
  auto io = net::IoThread::start();
  auto seen = std::make_shared<Seen>();
  auto t = make_pipe_transport(*io, far.transport_read, far.transport_write);
  t->start(record_message(seen), record_close(seen));
  std::atomic<bool> stop{false};
  std::thread streamer([&far, &stop] {
    const std::string event = "{\"method\":\"Runtime.consoleAPICalled\"}"s + '\0';
    while (!stop && far.write_all(event)) {
    }
  });
  EXPECT_TRUE(seen->wait([&] { return seen->messages.size() >= 200; })) << "the events never streamed in";
  t->close();
  const size_t at_close = seen->message_count();
  EXPECT_TRUE(far.sees_eof()) << "the transport kept its end of the command pipe open after close()";
  stop = true;
  streamer.join();  // its writes fail (EPIPE) once the transport's read end is closed
  ASSERT_TRUE(drained(*io));
  EXPECT_EQ(seen->message_count(), at_close) << "a message was delivered after close() returned";
  EXPECT_TRUE(seen->all_closes().empty()) << "on_close ran for a close ouro asked for";
}

// The gate's mutex is recursive (cdp/gate.h): a callback may close its own transport, and what
// came in the same read after that message is not delivered.
TEST(PipeTransport, ACallbackMayCloseItsOwnTransport) {
  FarEnd far;
  auto io = net::IoThread::start();
  auto seen = std::make_shared<Seen>();
  ASSERT_TRUE(far.write_all("{\"n\":1}\0{\"n\":2}\0{\"n\":3}\0"s));  // one write: one read
  auto t = make_pipe_transport(*io, far.transport_read, far.transport_write);
  Transport* raw = t.get();
  auto record = record_message(seen);
  t->start(
      [raw, record](std::string text) {
        record(std::move(text));
        raw->close();
      },
      record_close(seen));
  EXPECT_TRUE(far.sees_eof()) << "the transport never closed (a deadlock in the callback?)";
  ASSERT_TRUE(drained(*io));
  EXPECT_EQ(seen->all_messages(), std::vector<std::string>{"{\"n\":1}"});
  EXPECT_TRUE(seen->all_closes().empty());
}

TEST(PipeTransport, DestroyingItLetsGoOfBothDescriptors) {
  FarEnd far;
  auto io = net::IoThread::start();
  auto seen = std::make_shared<Seen>();
  auto t = make_pipe_transport(*io, far.transport_read, far.transport_write);
  t->start(record_message(seen), record_close(seen));
  t.reset();
  EXPECT_TRUE(far.sees_eof()) << "the command pipe's write end is still open";
  errno = 0;
  const ssize_t wrote = ::write(far.write_fd, "x", 1);
  const int why = errno;
  EXPECT_EQ(wrote, -1) << "the reply pipe's read end is still open";
  EXPECT_EQ(why, EPIPE);
  EXPECT_TRUE(seen->all_closes().empty());
}

// --- A DevTools WebSocket -------------------------------------------------------------------------

// A DevTools endpoint on 127.0.0.1 that answers every message with "echo " and the message.
struct DevToolsServer : ouro::testing::LoopbackWsServer {
  DevToolsServer() : LoopbackWsServer([](const std::string& text) { return std::optional<std::string>("echo " + text); }) {}
};

TEST(WebSocketTransport, CarriesMessagesBothWaysAndIsQuietAfterClose) {
  DevToolsServer browser;
  auto io = net::IoThread::start();
  auto seen = std::make_shared<Seen>();
  auto made = make_websocket_transport(*io, browser.url());
  ASSERT_TRUE(made) << made.error().message;
  std::unique_ptr<Transport> t = std::move(*made);
  t->start(record_message(seen), record_close(seen));
  for (int i = 0; i < 20; ++i) t->send("{\"id\":" + std::to_string(i) + "}");
  ASSERT_TRUE(seen->wait([&] { return seen->messages.size() >= 20; })) << "only " << seen->message_count() << " replies";
  auto got = seen->all_messages();
  for (int i = 0; i < 20; ++i) EXPECT_EQ(got[static_cast<size_t>(i)], "echo {\"id\":" + std::to_string(i) + "}");

  t->close();
  EXPECT_TRUE(browser.wait([&] { return browser.closed; })) << "the browser never saw the socket close";
  t->send("{\"id\":99}");  // after close: dropped, no crash
  t->close();              // twice: harmless
  ASSERT_TRUE(drained(*io));
  EXPECT_EQ(seen->message_count(), 20u);
  EXPECT_TRUE(seen->all_closes().empty()) << "on_close ran for a close ouro asked for";
  std::lock_guard lock(browser.mutex);
  EXPECT_EQ(browser.received.size(), 20u) << "a message sent after close() reached the browser";
}

TEST(WebSocketTransport, TheBrowserGoingAwayIsReportedOnceAfterWhatItSent) {
  DevToolsServer browser;
  auto io = net::IoThread::start();
  auto seen = std::make_shared<Seen>();
  auto made = make_websocket_transport(*io, browser.url());
  ASSERT_TRUE(made) << made.error().message;
  std::unique_ptr<Transport> t = std::move(*made);
  t->start(record_message(seen), record_close(seen));
  std::shared_ptr<net::WsPeer> peer;
  ASSERT_TRUE(browser.wait([&] { return browser.peer != nullptr; }));
  {
    std::lock_guard lock(browser.mutex);
    peer = browser.peer;
  }
  (void)peer->send("{\"method\":\"Target.detachedFromTarget\"}");
  peer->close(net::CloseCode::GoingAway, "the browser quits");
  ASSERT_TRUE(seen->wait([&] { return !seen->closes.empty(); })) << "the close was never reported";
  EXPECT_EQ(seen->all_messages(), std::vector<std::string>{"{\"method\":\"Target.detachedFromTarget\"}"});
  t->send("{\"id\":1}");
  ASSERT_TRUE(drained(*io));
  auto closes = seen->all_closes();
  ASSERT_EQ(closes.size(), 1u);
  EXPECT_EQ(closes[0].code, Code::Unavailable);
  EXPECT_NE(closes[0].message.find("WebSocket connection lost"), std::string::npos) << closes[0].message;
  peer.reset();
}

}  // namespace
}  // namespace ouro::cdp
