// Chromium's --remote-debugging-pipe: the browser reads commands from fd 3 and writes replies and
// events to fd 4, each message a JSON text terminated by a NUL byte.
#include "cdp/transport.h"
#include "net/io.h"
#include "net/websocket_client.h"

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include <deque>

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
    asio::post(s->reader.get_executor(), [s, on_message = std::move(on_message), on_close = std::move(on_close)]() mutable {
      s->on_message = std::move(on_message);
      s->on_close = std::move(on_close);
      State::read(s);
    });
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
    asio::post(s->reader.get_executor(), [s] {
      s->on_message = nullptr;
      s->on_close = nullptr;
      s->shut();
    });
  }

 private:
  struct State {
    State(asio::io_context& io, int rfd, int wfd) : reader(io, rfd), writer(io, wfd) {}
    asio::posix::stream_descriptor reader, writer;
    std::string inbox;
    char chunk[64 * 1024];
    std::deque<std::string> outbox;
    OnMessage on_message;
    OnClose on_close;
    bool closed = false;

    static void read(const std::shared_ptr<State>& s) {
      s->reader.async_read_some(asio::buffer(s->chunk), [s](boost::system::error_code ec, std::size_t n) {
        if (ec) return s->fail(ec == asio::error::eof ? "the browser closed its DevTools pipe" : ec.message());
        s->inbox.append(s->chunk, n);
        std::size_t start = 0;
        for (std::size_t nul; (nul = s->inbox.find('\0', start)) != std::string::npos; start = nul + 1) {
          if (s->on_message) s->on_message(s->inbox.substr(start, nul - start));
          if (s->closed) return;
        }
        s->inbox.erase(0, start);
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
      auto cb = std::move(on_close);
      shut();
      if (cb) cb(Error{Code::Unavailable, why, nullptr});
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
  void start(OnMessage on_message, OnClose on_close) override { m_client->start(std::move(on_message), std::move(on_close)); }
  void send(std::string message) override { m_client->send(std::move(message)); }
  void close() override { m_client->close(); }

 private:
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
