// For unit tests of what carries messages over the network thread (net::WebSocketClient, cdp's
// transports): a WebSocket server on 127.0.0.1, what a client delivered, and a wait for the
// network thread. Header-only over net, so a module's unit test links only its module.
#pragma once

#include "base/error.h"
#include "net/http_server.h"
#include "net/io.h"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ouro::testing {

// What a client or transport delivered (its messages, and why it closed), for the test thread to
// wait on; message_to and close_to are the callbacks that record them.
struct Delivered {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::string> messages;
  std::vector<Error> closes;

  static std::function<void(std::string)> message_to(const std::shared_ptr<Delivered>& seen) {
    return [seen](std::string text) {
      {
        std::lock_guard lock(seen->mutex);
        seen->messages.push_back(std::move(text));
      }
      seen->changed.notify_all();
    };
  }
  static std::function<void(Error)> close_to(const std::shared_ptr<Delivered>& seen) {
    return [seen](Error e) {
      {
        std::lock_guard lock(seen->mutex);
        seen->closes.push_back(std::move(e));
      }
      seen->changed.notify_all();
    };
  }
  bool wait(const std::function<bool()>& done, std::chrono::milliseconds within = std::chrono::seconds(10)) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, within, done);
  }
  size_t message_count() {
    std::lock_guard lock(mutex);
    return messages.size();
  }
  std::vector<std::string> all_messages() {
    std::lock_guard lock(mutex);
    return messages;
  }
  std::vector<Error> all_closes() {
    std::lock_guard lock(mutex);
    return closes;
  }
};

// True once everything the network thread had queued before the call has run.
inline bool drained(net::IoThread& io) {
  auto done = std::make_shared<std::promise<void>>();
  auto f = done->get_future();
  io.post([done] { done->set_value(); });
  return f.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
}

// A WebSocket server that keeps what it received, answers each message with what `reply` returns
// (nothing when it returns nullopt), and refuses the upgrade of /status/N with HTTP N.
struct LoopbackWsServer {
  using Reply = std::function<std::optional<std::string>(const std::string& message)>;

  std::unique_ptr<net::IoThread> io = net::IoThread::start();
  std::unique_ptr<net::HttpServer> server;
  std::mutex mutex;
  std::condition_variable changed;
  std::shared_ptr<net::WsPeer> peer;  // the last connection
  std::vector<std::string> received;
  bool closed = false;

  explicit LoopbackWsServer(Reply reply) {
    auto s = net::HttpServer::start(
        *io, net::HttpServer::Options{},
        [](const net::HttpRequest&) {
          net::HttpResponse r;
          r.status = 404;
          return r;
        },
        [this, reply = std::move(reply)](const net::HttpRequest& request, std::shared_ptr<net::WsPeer> p,
                                         net::WsHandlers& h) -> std::optional<net::HttpResponse> {
          if (request.path.rfind("/status/", 0) == 0) {
            net::HttpResponse refusal;
            refusal.status = std::stoi(request.path.substr(8));
            refusal.body = "refused";
            return refusal;
          }
          std::weak_ptr<net::WsPeer> weak = p;
          h.on_message = [this, weak, reply](std::string text) {
            {
              std::lock_guard lock(mutex);
              received.push_back(text);
            }
            changed.notify_all();
            if (auto q = weak.lock())
              if (auto answer = reply(text)) (void)q->send(*answer);
          };
          h.on_close = [this] {
            {
              std::lock_guard lock(mutex);
              closed = true;
            }
            changed.notify_all();
          };
          {
            std::lock_guard lock(mutex);
            peer = p;
          }
          changed.notify_all();
          return std::nullopt;
        });
    if (!s) throw std::runtime_error(s.error().message);
    server = std::move(*s);
  }
  ~LoopbackWsServer() {
    {
      std::lock_guard lock(mutex);
      peer.reset();  // before the network thread it belongs to goes
    }
    server.reset();
    io.reset();
  }
  LoopbackWsServer(const LoopbackWsServer&) = delete;
  LoopbackWsServer& operator=(const LoopbackWsServer&) = delete;

  std::string url(const std::string& path = "/devtools/browser/test") const {
    return "ws://127.0.0.1:" + std::to_string(server->port()) + path;
  }
  bool wait(const std::function<bool()>& done, std::chrono::milliseconds within = std::chrono::seconds(10)) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, within, done);
  }
  std::vector<std::string> all_received() {
    std::lock_guard lock(mutex);
    return received;
  }
};

}  // namespace ouro::testing
