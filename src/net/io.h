// The network thread: one Asio io_context run by one thread that owns every socket (docs/design/architecture.md
// principle 4). Other threads hand work to it with post(). Asio headers stay out of this header.
#pragma once

#include <functional>
#include <memory>

namespace boost::asio { class io_context; }

namespace ouro::net {

class IoThread {
 public:
  // Starts the thread. The context keeps running until the IoThread is destroyed.
  static std::unique_ptr<IoThread> start();
  ~IoThread();
  IoThread(const IoThread&) = delete;
  IoThread& operator=(const IoThread&) = delete;

  boost::asio::io_context& context();
  // Runs fn on the network thread; may be called from any thread.
  void post(std::function<void()> fn);
  // True when called on the network thread itself.
  bool on_thread() const;

 private:
  IoThread();
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace ouro::net
