// Chromium's --remote-debugging-pipe: the browser reads commands from fd 3 and writes replies and
// events to fd 4, each message a JSON text terminated by a NUL byte.
#include "cdp/transport.h"
#include "cdp/gate.h"
#include "net/io.h"
#include "net/websocket_client.h"

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include <deque>
#include <mutex>

namespace ouro::cdp {

namespace asio = boost::asio;

namespace {

class PipeTransport final : public Transport {
 public:
  PipeTransport(net::IoThread& io, int read_fd, int write_fd)
      : m_state(std::make_shared<State>(io.context(), read_fd, write_fd)) {}
  ~PipeTransport() override { close(); }

  void start(OnMessage on_message, OnClose on_close) override {
    auto s = m_state;
    s->gate.open(std::move(on_message), std::move(on_close));
    asio::post(s->reader.get_executor(), [s] { State::read(s); });
  }

  void send(std::string message) override {
    auto s = m_state;
    message.push_back('\0');
    asio::post(s->writer.get_executor(), [s, message = std::move(message)]() mutable {
      if (s->closed) return;
      s->outbox.push_back(std::move(message));
      if (s->outbox.size() == 1) State::write(s);
    });
  }

  void close() override {
    auto s = m_state;
    s->gate.close();
    asio::post(s->reader.get_executor(), [s] { s->shut(); });
  }

 private:
  struct State {
    State(asio::io_context& io, int rfd, int wfd) : reader(io, rfd), writer(io, wfd) {}
    asio::posix::stream_descriptor reader, writer;
    std::string inbox;
    std::size_t scanned = 0;  // inbox bytes known to hold no NUL (a long message arrives in many chunks)
    char chunk[64 * 1024];
    std::deque<std::string> outbox;
    Gate gate;
    bool closed = false;

    static void read(const std::shared_ptr<State>& s) {
      if (s->closed) return;
      s->reader.async_read_some(asio::buffer(s->chunk), [s](boost::system::error_code ec, std::size_t n) {
        if (ec) return s->fail(ec == asio::error::eof ? "the browser closed its DevTools pipe" : ec.message());
        s->inbox.append(s->chunk, n);
        std::size_t start = 0;
        for (std::size_t nul; (nul = s->inbox.find('\0', std::max(start, s->scanned))) != std::string::npos; start = nul + 1) {
          if (!s->gate.message(s->inbox.substr(start, nul - start))) return;
        }
        s->inbox.erase(0, start);
        s->scanned = s->inbox.size();
        read(s);
      });
    }

    static void write(const std::shared_ptr<State>& s) {
      asio::async_write(s->writer, asio::buffer(s->outbox.front()), [s](boost::system::error_code ec, std::size_t) {
        if (ec) return s->fail("cannot write to the browser's DevTools pipe: " + ec.message());
        s->outbox.pop_front();
        if (!s->outbox.empty()) write(s);
      });
    }

    void fail(const std::string& why) {
      if (closed) return;
      shut();
      gate.fail(Error{Code::Unavailable, why, nullptr});
    }

    void shut() {
      if (closed) return;
      closed = true;
      boost::system::error_code ec;
      reader.close(ec);
      writer.close(ec);
    }
  };
  std::shared_ptr<State> m_state;
};

class WsTransport final : public Transport {
 public:
  explicit WsTransport(std::unique_ptr<net::WebSocketClient> client) : m_client(std::move(client)) {}
  ~WsTransport() override { close(); }
  void start(OnMessage on_message, OnClose on_close) override {
    m_gate->open(std::move(on_message), std::move(on_close));
    auto gate = m_gate;
    m_client->start([gate](std::string text) { gate->message(std::move(text)); }, [gate](Error e) { gate->fail(std::move(e)); });
  }
  void send(std::string message) override {
    std::lock_guard lock(m_mutex);
    if (!m_closed) m_client->send(std::move(message));
  }
  void close() override {
    m_gate->close();
    std::lock_guard lock(m_mutex);
    if (m_closed) return;
    m_closed = true;
    m_client->close();  // posts the close; the gate already stops what it would still deliver
  }

 private:
  std::shared_ptr<Gate> m_gate = std::make_shared<Gate>();
  std::mutex m_mutex;  // send and close may come from any thread
  bool m_closed = false;
  std::unique_ptr<net::WebSocketClient> m_client;
};

}  // namespace

std::unique_ptr<Transport> make_pipe_transport(net::IoThread& io, int read_fd, int write_fd) {
  return std::make_unique<PipeTransport>(io, read_fd, write_fd);
}

Result<std::unique_ptr<Transport>> make_websocket_transport(net::IoThread& io, const std::string& url) {
  auto client = TRY(net::WebSocketClient::connect(io, url, std::chrono::seconds(10)));
  return std::unique_ptr<Transport>(std::make_unique<WsTransport>(std::move(client)));
}

}  // namespace ouro::cdp
