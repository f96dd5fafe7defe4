#include "net/io.h"
#include "base/priority.h"

#include "base/log.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <thread>

namespace ouro::net {

struct IoThread::Impl {
  boost::asio::io_context io;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard{io.get_executor()};
  std::thread thread;
};

IoThread::IoThread() : m_impl(std::make_unique<Impl>()) {}

std::unique_ptr<IoThread> IoThread::start() {
  std::unique_ptr<IoThread> t(new IoThread());
  t->m_impl->thread = std::thread([impl = t->m_impl.get()] {
    prefer_latency();  // every socket's messages pass here: they must not wait behind runs
    // The thread's exception boundary: a handler that throws loses its own work, never the
    // process or the other sockets; the loop goes on.
    while (true) {
      try {
        impl->io.run();
        return;
      } catch (const std::exception& e) {
        spdlog::error("network thread: a handler failed and was dropped: {}", redact(std::string(e.what()).substr(0, 300)));
      } catch (...) {
        spdlog::error("network thread: a handler failed with a non-standard exception and was dropped");
      }
    }
  });
  return t;
}

IoThread::~IoThread() {
  m_impl->guard.reset();
  m_impl->io.stop();
  if (m_impl->thread.joinable()) m_impl->thread.join();
}

boost::asio::io_context& IoThread::context() { return m_impl->io; }

void IoThread::post(std::function<void()> fn) { boost::asio::post(m_impl->io, std::move(fn)); }

bool IoThread::on_thread() const { return m_impl->thread.get_id() == std::this_thread::get_id(); }

}  // namespace ouro::net
