#include "cdp/connection.h"
#include "base/steady_clock.h"

#include "base/log.h"
#include "base/reaper.h"
#include "base/text.h"

#include <condition_variable>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace ouro::cdp {

using Clock = ouro::SteadyClock;

namespace {

// The Code whose code_name is `name`, else `otherwise`.
Code code_named(std::string_view name, Code otherwise) {
  for (int i = 0; i <= static_cast<int>(Code::Unauthenticated); ++i)
    if (code_name(static_cast<Code>(i)) == name) return static_cast<Code>(i);
  return otherwise;
}

// What Chromium's error text says went away, read here once so that no caller reads the text.
// Chromium's DevTools errors carry the JSON-RPC code -32000 for all of these, so the message is
// all there is: "Session with given id not found.", "No session with given id", "Cannot find
// context with specified id", "Execution context was destroyed.", "Inspected target navigated or
// closed" (content/browser/devtools and v8-inspector).
Cause cause_of(std::string_view message) {
  auto has = [&](std::string_view part) { return message.find(part) != std::string_view::npos; };
  if (has("Inspected target navigated or closed")) return Cause::PageNavigated;
  if (has("Cannot find context") || has("context was destroyed")) return Cause::ContextGone;
  if (has("ession") && (has("not found") || has("No session") || has("detached") || has("closed"))) return Cause::TargetGone;
  return Cause::None;
}

// The exception boundary of the CDP thread: whatever a message makes a handler throw is logged
// (what was being done and the exception's first few hundred characters, redacted) and dropped.
template <typename Fn>
void guarded(const std::string& what, Fn&& fn) noexcept {
  try {
    fn();
  } catch (const std::exception& e) {
    spdlog::error("cdp: {} was dropped: {}", what, redact(std::string_view(e.what()).substr(0, 300)));
  } catch (...) {
    spdlog::error("cdp: {} was dropped: an unknown exception", what);
  }
}

}  // namespace

struct Connection::Impl {
  struct Pending {
    std::string method;
    std::string session_id;
    Clock::time_point deadline;
    Callback done;
  };

  std::unique_ptr<Transport> transport;
  mutable std::mutex mutex;
  std::condition_variable wake;  // deadline thread
  std::map<uint64_t, Pending> pending;
  uint64_t next_id = 1;
  std::optional<Error> closed;
  // Sessions failed by fail_session, the most recent kEndedKept: a command that was racing the
  // end of its session is sent within moments of it, so older ones need not be remembered.
  static constexpr size_t kEndedKept = 1024;
  std::map<std::string, Error> ended;
  std::deque<std::string> ended_order;
  bool stopping = false;
  Clock::time_point sleep_until = Clock::time_point::max();  // when the deadline thread next wakes
  std::function<void(const Event&)> on_event;
  std::function<Error(const Error&)> on_close;
  std::thread deadline_thread;

  void handle_message(std::string text) {
    std::string what = "a message";
    guarded(what, [&] { dispatch(std::move(text), what); });
  }

  void dispatch(std::string text, std::string& what) {
    auto parsed = parse_json(text, "CDP message");
    if (!parsed) {
      spdlog::warn("cdp: {}", parsed.error().message.substr(0, 300));
      return;
    }
    json& msg = *parsed;
    auto id_it = msg.find("id");
    if (id_it == msg.end()) {
      Event ev{get_str(msg, "method"), json::object(), get_str(msg, "sessionId")};
      if (auto params = msg.find("params"); params != msg.end() && params->is_object()) ev.params = std::move(*params);
      what = "event " + ev.method.substr(0, 100);
      if (on_event) on_event(ev);
      return;
    }
    uint64_t id = id_it->is_number_unsigned() ? id_it->get<uint64_t>() : 0;
    Pending p;
    {
      std::lock_guard lock(mutex);
      auto it = pending.find(id);
      if (it == pending.end()) {
        spdlog::debug("cdp: reply for unknown command id {}", id_it->dump().substr(0, 40));
        return;
      }
      p = std::move(it->second);
      pending.erase(it);
    }
    what = "the reply to " + p.method;
    if (auto err = msg.find("error"); err != msg.end()) {
      int64_t code = get_int(*err, "code", 0);
      std::string message = get_str(*err, "message", "unknown error");
      if (err->contains("data")) message += " (" + dump_json(get_field(*err, "data")).substr(0, 2000) + ")";
      Code c = code == -32601 ? Code::Unimplemented : code == -32602 ? Code::InvalidArgument : Code::FailedPrecondition;
      // A transport that answers for the browser (the extension bridge, cdp/bridge.h) names
      // ouro's code of its refusal: a tab outside the group is PermissionDenied, a gone one NotFound.
      Cause cause = cause_of(message);
      if (std::string ouro = get_str(*err, "ouroCode"); !ouro.empty()) {
        c = code_named(ouro, c);
        if (c == Code::NotFound) cause = Cause::TargetGone;
      }
      p.done(tl::make_unexpected(Error{c, p.method + ": " + message, json{{"cdpCode", code}}, cause}));
      return;
    }
    auto result = msg.find("result");
    p.done(result != msg.end() ? std::move(*result) : json::object());
  }

  void handle_close(Error error) {
    {
      std::lock_guard lock(mutex);
      if (closed) return;
    }
    if (on_close) guarded("the close handler", [&] { error = on_close(error); });
    std::map<uint64_t, Pending> failed;
    {
      std::lock_guard lock(mutex);
      closed = error;
      failed.swap(pending);
    }
    for (auto& [id, p] : failed)
      guarded("the failure of " + p.method, [&] { p.done(tl::make_unexpected(Error{Code::Unavailable, p.method + " failed: " + error.message, nullptr})); });
  }

  // Stops delivery and the deadline thread, then cancels what is still pending.
  void shutdown() {
    {
      std::lock_guard lock(mutex);
      if (stopping) return;
      stopping = true;
      if (!closed) closed = Error{Code::Unavailable, "the connection to the browser was shut down", nullptr};
    }
    transport->close();
    wake.notify_all();
    if (deadline_thread.joinable()) {
      // A callback on the deadline thread may own the last reference to whoever closes us: that
      // thread cannot join itself, and finishes as soon as the callback returns (stopping is set).
      if (deadline_thread.get_id() == std::this_thread::get_id()) join_when_done(std::move(deadline_thread));
      else deadline_thread.join();
    }
    std::map<uint64_t, Pending> left;
    {
      std::lock_guard lock(mutex);
      left.swap(pending);
    }
    for (auto& [id, p] : left)
      guarded("the cancellation of " + p.method, [&] { p.done(tl::make_unexpected(Error{Code::Cancelled, p.method + ": the connection was shut down", nullptr})); });
  }

  void run_deadlines() {
    std::unique_lock lock(mutex);
    while (!stopping) {
      auto now = Clock::now();
      auto next = now + std::chrono::seconds(1);
      std::vector<Pending> expired;
      for (auto it = pending.begin(); it != pending.end();) {
        if (it->second.deadline <= now) {
          expired.push_back(std::move(it->second));
          it = pending.erase(it);
        } else {
          next = std::min(next, it->second.deadline);
          ++it;
        }
      }
      if (!expired.empty()) {
        lock.unlock();
        for (auto& p : expired)
          guarded("the timeout of " + p.method,
                  [&] { p.done(tl::make_unexpected(Error{Code::DeadlineExceeded, p.method + ": no reply from the browser in time", nullptr})); });
        lock.lock();
        continue;
      }
      sleep_until = next;
      (void)wait_once_until(wake, lock, next);
      sleep_until = Clock::time_point::max();
    }
  }
};

std::unique_ptr<Connection> Connection::create(std::unique_ptr<Transport> transport) {
  std::unique_ptr<Connection> c(new Connection());
  auto impl = std::make_shared<Impl>();
  impl->transport = std::move(transport);
  // The thread holds the state it runs on: it may be detached by a close from its own callback.
  impl->deadline_thread = std::thread([impl] { impl->run_deadlines(); });
  std::weak_ptr<Impl> weak = impl;
  impl->transport->start(
      [weak](std::string text) {
        if (auto s = weak.lock()) s->handle_message(std::move(text));
      },
      [weak](Error e) {
        if (auto s = weak.lock()) s->handle_close(std::move(e));
      });
  c->m_impl = std::move(impl);
  return c;
}

Connection::~Connection() { close(); }

void Connection::close() { m_impl->shutdown(); }

void Connection::set_event_handler(std::function<void(const Event&)> handler) { m_impl->on_event = std::move(handler); }
void Connection::set_close_handler(std::function<Error(const Error&)> handler) { m_impl->on_close = std::move(handler); }

void Connection::send(std::string_view method, json params, std::string_view session_id,
                      std::chrono::milliseconds timeout, Callback done) {
  json msg;
  uint64_t id;
  {
    std::unique_lock lock(m_impl->mutex);
    std::optional<Error> failed;
    if (m_impl->closed) failed = Error{Code::Unavailable, std::string(method) + " failed: " + m_impl->closed->message, nullptr};
    else if (auto it = session_id.empty() ? m_impl->ended.end() : m_impl->ended.find(std::string(session_id)); it != m_impl->ended.end())
      failed = Error{it->second.code, std::string(method) + ": " + it->second.message, nullptr, it->second.cause};
    if (failed) {
      Error e = std::move(*failed);
      lock.unlock();
      // Never inline: callers may hold locks that the callback takes.
      join_when_done(std::thread([done = std::move(done), e] { guarded("the failure of " + clip_head(e.message, 60, ClipMark::None), [&] { done(tl::make_unexpected(e)); }); }));
      return;
    }
    id = m_impl->next_id++;
    auto deadline = Clock::now() + timeout;
    m_impl->pending.emplace(id, Impl::Pending{std::string(method), std::string(session_id), deadline, std::move(done)});
    if (deadline < m_impl->sleep_until) m_impl->wake.notify_all();
  }
  msg["id"] = id;
  msg["method"] = method;
  msg["params"] = params.is_null() ? json::object() : std::move(params);
  if (!session_id.empty()) msg["sessionId"] = session_id;
  m_impl->transport->send(dump_json(msg));
}

Result<json> Connection::call(std::string_view method, json params, std::string_view session_id,
                              std::chrono::milliseconds timeout) {
  auto promise = std::make_shared<std::promise<Result<json>>>();
  auto future = promise->get_future();
  send(method, std::move(params), session_id, timeout, [promise](Result<json> r) { promise->set_value(std::move(r)); });
  return future.get();
}

void Connection::fail_session(const std::string& session_id, const Error& error) {
  std::vector<Impl::Pending> failed;
  {
    std::lock_guard lock(m_impl->mutex);
    if (!session_id.empty() && m_impl->ended.emplace(session_id, error).second) {
      m_impl->ended_order.push_back(session_id);
      if (m_impl->ended_order.size() > Impl::kEndedKept) {
        m_impl->ended.erase(m_impl->ended_order.front());
        m_impl->ended_order.pop_front();
      }
    }
    for (auto it = m_impl->pending.begin(); it != m_impl->pending.end();) {
      if (it->second.session_id == session_id) {
        failed.push_back(std::move(it->second));
        it = m_impl->pending.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& p : failed) p.done(tl::make_unexpected(Error{error.code, p.method + ": " + error.message, nullptr}));
}

std::optional<Error> Connection::close_reason() const {
  std::lock_guard lock(m_impl->mutex);
  return m_impl->closed;
}

std::size_t Connection::pending_count() const {
  std::lock_guard lock(m_impl->mutex);
  return m_impl->pending.size();
}

}  // namespace ouro::cdp
