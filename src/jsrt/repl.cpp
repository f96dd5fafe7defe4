#include "jsrt/repl.h"
#include "base/steady_clock.h"

#include "base/log.h"
#include "base/reaper.h"
#include "base/text.h"
#include "jsrt/channel.h"
#include "jsrt/protocol.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

extern char** environ;

namespace ouro::jsrt {

using Clock = ouro::SteadyClock;

namespace {

// One worker process and its pipe. Reply callbacks hold it by shared_ptr, so a reply for a worker
// that was replaced goes to the old (closed) pipe, never to a recycled descriptor.
struct WorkerProc {
  std::atomic<int> pid = -1;  // -1 once reaped; read by ~Repl when a reader misses its deadline
  int fd = -1;
  std::unique_ptr<Channel> chan;
  ~WorkerProc() {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    if (fd >= 0) close(fd);
  }
};

size_t rss_of(int pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/statm", pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[128];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = 0;
  unsigned long size = 0, resident = 0;
  sscanf(buf, "%lu %lu", &size, &resident);
  return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace

struct Repl::Impl : std::enable_shared_from_this<Repl::Impl> {
  ReplOptions options;
  HostCall host;
  std::function<void(const std::string&)> on_log;

  mutable std::mutex mutex;
  std::condition_variable cv;
  std::shared_ptr<WorkerProc> worker;
  bool ready = false;
  std::string fatal;
  std::string state_text = "{\"tabs\":[],\"activeTab\":null}";
  std::string checkpoint = "{}";
  // The checkpoint as read on first use: its plain view and what a restart cannot bring back.
  // Kept for checkpoints up to kCachedEnv bytes (summaries read it twice an iteration); a bigger
  // one is read on each use rather than held in memory for the whole run. Reset when it changes.
  static constexpr size_t kCachedEnv = 4u << 20;
  struct EnvViews {
    Result<json> plain;
    std::vector<LostValue> lost;
  };
  std::shared_ptr<const EnvViews> env_views;
  uint64_t checkpoint_version = 0;

  // The evaluation in flight.
  std::mutex eval_mutex;  // one evaluation at a time
  uint64_t next_eval = 1;
  uint64_t eval_id = 0;
  std::optional<EvalResult> result;
  std::optional<std::string> pending_env;
  std::optional<json> pending_final;
  std::vector<std::string> logs;
  std::string died;  // why the worker of the evaluation in flight died
  uint64_t began_id = 0;  // the last evaluation the worker said it began running

  // Every worker's reader thread, owned here and joined: the finished ones when the next worker
  // starts, the rest by ~Repl. Each ends when its worker's socket does.
  struct Reader {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
    std::weak_ptr<WorkerProc> worker;
  };
  std::mutex readers_mutex;
  std::vector<Reader> readers;

  // ~Repl joins the readers; one left here (a Repl that never finished starting) still has an owner.
  ~Impl() {
    for (auto& r : readers)
      if (r.thread.joinable()) join_when_done(std::move(r.thread));
  }

  void join_finished_readers() {
    std::vector<Reader> finished;
    {
      std::lock_guard lock(readers_mutex);
      for (auto it = readers.begin(); it != readers.end();) {
        if (it->done->load()) {
          finished.push_back(std::move(*it));
          it = readers.erase(it);
        } else {
          ++it;
        }
      }
    }
    for (auto& r : finished) r.thread.join();
  }

  // Joins every reader. One whose worker has not gone within the deadline (a stopped process that
  // waitpid waits for) gets its worker killed first; none makes this hang.
  void join_readers(std::chrono::milliseconds deadline) {
    std::vector<Reader> all;
    {
      std::lock_guard lock(readers_mutex);
      all.swap(readers);
    }
    auto until = Clock::now() + deadline;
    for (auto& r : all) {
      if (r.thread.get_id() == std::this_thread::get_id()) {
        join_when_done(std::move(r.thread));  // the Repl was let go on its own reader
        continue;
      }
      auto wait_until = [&](Clock::time_point t) {
        while (!r.done->load() && Clock::now() < t) std::this_thread::sleep_for(std::chrono::milliseconds(5));
        return r.done->load();
      };
      if (!wait_until(until))
        if (auto w = r.worker.lock(); w && w->pid > 0) kill(w->pid, SIGKILL);
      // A reader still inside a callback a second after its worker was killed is waiting on
      // something of its caller's: the reaper joins it when it gets there.
      if (r.done->load() || wait_until(Clock::now() + std::chrono::seconds(1))) r.thread.join();
      else join_when_done(std::move(r.thread));
    }
  }
  std::optional<Clock::time_point> interrupted_at;

  // How one attempt at an evaluation went: whether the worker began the code, and when it died
  // first, why ("the REPL worker was killed by signal 6 (Aborted)").
  struct Attempt {
    bool began = true;
    std::string death;
    std::string not_restored;  // ". Not restorable (…): env.fn (function parse), …" or ""
  };
  // One evaluation on the current worker (a new one if there is none).
  Result<EvalResult> eval_once(const std::string& code, Millis budget, Attempt& attempt);

  Result<void> spawn() {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
      return errorf(Code::Internal, "socketpair: {}", std::strerror(errno));
    std::string exe = options.executable.empty() ? "/proc/self/exe" : options.executable;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, sv[1], 3);
    const char* argv[] = {"ouro-repl-worker", "__jsrt-worker", "--fd", "3", nullptr};
    pid_t pid;
    int rc = posix_spawn(&pid, exe.c_str(), &fa, nullptr, const_cast<char**>(argv), environ);
    posix_spawn_file_actions_destroy(&fa);
    close(sv[1]);
    if (rc != 0) {
      close(sv[0]);
      return errorf(Code::Unavailable, "cannot start the REPL worker ({}): {}", exe, std::strerror(rc));
    }
    auto w = std::make_shared<WorkerProc>();
    w->pid = pid;
    w->fd = sv[0];
    w->chan = std::make_unique<Channel>(sv[0]);
    {
      std::lock_guard lock(mutex);
      worker = w;
      ready = false;
      fatal.clear();
    }
    std::weak_ptr<Impl> weak = shared_from_this();
    join_finished_readers();
    auto done = std::make_shared<std::atomic<bool>>(false);
    auto read = [weak, w] {
      while (true) {
        auto text = w->chan->read();
        auto self = weak.lock();
        if (!self) return;
        if (!text) return self->on_worker_exit(w);
        auto frame = decode_frame(*text);
        if (!frame) continue;
        // The reader thread's exception boundary: a frame we cannot handle is dropped.
        try {
          self->on_frame(w, std::move(*frame));
        } catch (const std::exception& e) {
          spdlog::error("repl: a message from the worker could not be handled: {}", e.what());
        }
      }
    };
    {
      std::lock_guard lock(readers_mutex);
      readers.push_back({std::thread([read, done] {
                           read();
                           done->store(true);
                         }),
                         done, w});
    }
    json fns = options.host_functions;
    TRY(w->chan->write(encode_frame({{"t", "init"}, {"functions", fns}})));
    std::unique_lock lock(mutex);
    // A hang guard, not a speed bet: a worker starts in well under a second, and on a machine busy
    // with many runs starting at once (their workers and browser tabs) in several seconds.
    constexpr auto kStartDeadline = 30s;
    if (!wait_for_ms(cv, lock, kStartDeadline, [&] { return ready || !fatal.empty() || worker != w; }))
      return make_error(Code::DeadlineExceeded, "the REPL worker did not start within 30 s: the machine may be overloaded (try again, or run fewer at once)");
    if (!fatal.empty()) return make_error(Code::Internal, "the REPL worker failed to start: " + fatal);
    if (worker != w) return make_error(Code::Internal, "the REPL worker exited during start-up");
    TRY(w->chan->write(encode_frame({{"t", "restore"}}, checkpoint)));
    TRY(w->chan->write(encode_frame({{"t", "state"}}, state_text)));
    return {};
  }

  // Any thread; parses outside the lock.
  std::shared_ptr<const EnvViews> read_env() {
    std::string text;
    uint64_t version;
    {
      std::lock_guard lock(mutex);
      if (env_views) return env_views;
      text = checkpoint;
      version = checkpoint_version;
    }
    auto views = std::make_shared<EnvViews>();
    auto typed = parse_json(text, "the env checkpoint");
    if (typed) {
      views->plain = plain_view(*typed);
      views->lost = lost_values(*typed);
    } else {
      views->plain = tl::make_unexpected(typed.error());
    }
    if (text.size() > kCachedEnv) return views;
    std::lock_guard lock(mutex);
    if (version == checkpoint_version) env_views = views;
    return views;
  }

  void on_worker_exit(const std::shared_ptr<WorkerProc>& w) {
    int status = 0;
    std::string how = "exited";
    if (w->pid > 0 && waitpid(w->pid, &status, 0) == w->pid) {
      w->pid = -1;
      if (WIFSIGNALED(status)) how = "was killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
      else how = "exited with status " + std::to_string(WEXITSTATUS(status));
    }
    std::lock_guard lock(mutex);
    if (worker != w) return;
    worker.reset();
    died = "the REPL worker " + how;
    cv.notify_all();
  }

  void on_frame(const std::shared_ptr<WorkerProc>& w, Frame f) {
    const std::string t = f.header.value("t", "");
    if (t == "call") {
      auto args = parse_json(f.payload.empty() ? "[]" : f.payload, "host call arguments");
      uint64_t id = f.header.value("id", uint64_t(0));
      HostReply reply = [w, id](Result<json> r) {
        json h = {{"t", "reply"}, {"id", id}, {"ok", r.has_value()}};
        std::string frame;
        if (!r) {
          // The code lets model code and tests decide by kind (e.code === "NotFound"), not by message text.
          json err = {{"message", r.error().message}, {"code", std::string(code_name(r.error().code))}};
          // A host error may name its JavaScript class (argument checks raise TypeError).
          if (r.error().details.is_object() && r.error().details.contains("name") && r.error().details["name"].is_string())
            err["name"] = r.error().details["name"];
          frame = encode_frame(h, dump_json(err));
        } else if (r->is_discarded()) {
          h["undefined"] = true;
          frame = encode_frame(h);
        } else {
          frame = encode_frame(h, dump_json(*r));
        }
        Result<void> sent = w->chan->write(frame);
        if (!sent && sent.error().code == Code::ResourceExhausted) {
          // Too large for the pipe: the call fails rather than never settling.
          json err = {{"message", "the result is too large for the REPL: " + sent.error().message}};
          sent = w->chan->write(encode_frame({{"t", "reply"}, {"id", id}, {"ok", false}}, dump_json(err)));
        }
        // Otherwise the worker is gone, and its reader thread reports that.
        if (!sent) spdlog::debug("repl: the reply to host call {} was not delivered: {}", id, sent.error().message);
      };
      if (!args) return reply(tl::make_unexpected(args.error()));
      host(f.header.value("fn", ""), std::move(*args), std::move(reply));
      return;
    }
    if (t == "log") {
      auto text = parse_json(f.payload);
      std::string line = text && text->is_string() ? text->get<std::string>() : f.payload;
      {
        std::lock_guard lock(mutex);
        logs.push_back(line);
      }
      if (on_log) on_log(line);
      return;
    }
    std::lock_guard lock(mutex);
    if (worker != w) return;
    if (t == "ready") {
      ready = true;
    } else if (t == "began") {
      began_id = f.header.value("id", uint64_t(0));
    } else if (t == "fatal") {
      fatal = f.header.value("message", "unknown failure");
    } else if (t == "final") {
      auto v = parse_json(f.payload, "setFinal value");
      pending_final = v ? *v : json(f.payload);
    } else if (t == "env") {
      pending_env = std::move(f.payload);
    } else if (t == "result" && f.header.value("id", uint64_t(0)) == eval_id) {
      EvalResult r;
      r.ok = f.header.value("ok", false);
      r.kind = f.header.value("kind", "");
      r.ms = f.header.value("ms", 0.0);
      if (r.ok) {
        if (f.header.value("undefined", false)) r.value = json(json::value_t::discarded);
        else {
          auto v = parse_json(f.payload, "evaluation result");
          r.value = v ? *v : json(nullptr);
        }
        if (pending_env) {
          checkpoint = std::move(*pending_env);
          env_views.reset();
          ++checkpoint_version;
        }
      } else {
        auto e = parse_json(f.payload.empty() ? "{}" : f.payload);
        json info = e && e->is_object() ? *e : json::object();
        // Model code chooses what it throws: any field may hold any type, and any size.
        r.error_name = clip_text(get_str(info, "name", "Error"), 100);
        r.error_message = clip_text(get_str(info, "message", "unknown error"), kMaxErrorChars);
        r.error_stack = clip_text(get_str(info, "stack"), kMaxErrorChars);
        if (info.contains("line") && info["line"].is_number_integer()) r.error_line = info["line"].get<int>();
        if (info.contains("column") && info["column"].is_number_integer()) r.error_column = info["column"].get<int>();
      }
      r.final = std::move(pending_final);
      pending_final.reset();
      pending_env.reset();
      result = std::move(r);
    }
    cv.notify_all();
  }
};

std::string error_text(const EvalResult& r) {
  std::string s = r.error_name.empty() || r.error_message.rfind(r.error_name, 0) == 0 ? r.error_message : r.error_name + ": " + r.error_message;
  return s + error_place(r);
}

std::string error_place(const EvalResult& r) {
  if (r.error_line <= 0 || !r.kind.empty()) return "";
  return r.error_column > 0 ? fmt::format(" (line {}, column {})", r.error_line, r.error_column) : fmt::format(" (line {})", r.error_line);
}

Result<std::unique_ptr<Repl>> Repl::start(ReplOptions options, HostCall host, std::function<void(const std::string&)> on_log) {
  std::unique_ptr<Repl> repl(new Repl());
  repl->m_impl = std::make_shared<Impl>();
  repl->m_impl->options = std::move(options);
  repl->m_impl->host = std::move(host);
  repl->m_impl->on_log = std::move(on_log);
  // A conversation continued from storage starts with the env its last turn left.
  if (!repl->m_impl->options.initial_env.empty()) repl->m_impl->checkpoint = repl->m_impl->options.initial_env;
  TRY(repl->m_impl->spawn());
  return repl;
}

Repl::~Repl() {
  std::shared_ptr<WorkerProc> w;
  {
    std::lock_guard lock(m_impl->mutex);
    w = std::move(m_impl->worker);
  }
  if (w) {
    // Closing our end ends the worker's read loop; the WorkerProc destructor reaps it.
    shutdown(w->fd, SHUT_RDWR);
  }
  w.reset();
  // The readers see the end of their sockets at once; 2 s is for a worker that is slow to go.
  m_impl->join_readers(std::chrono::seconds(2));
}

Result<EvalResult> Repl::eval(const std::string& code, std::optional<Millis> timeout) {
  Impl& s = *m_impl;
  std::lock_guard eval_lock(s.eval_mutex);
  Millis budget = timeout.value_or(s.options.timeout);
  // A worker that died before it began the code (between evaluations, or as this one was sent)
  // ran none of it: the code goes to its successor, once.
  Impl::Attempt first;
  auto r = m_impl->eval_once(code, budget, first);
  if (!first.began) {
    bool interrupted;
    {
      std::lock_guard lock(s.mutex);
      interrupted = s.interrupted_at.has_value();
    }
    if (interrupted && r) {
      // Stopped meanwhile: none of it ran, and none of it is to run.
      r->kind = "interrupted";
      r->error_message = "evaluation interrupted (" + first.death + " before it began; a new worker has env from the last checkpoint)" + first.not_restored;
      return r;
    }
    spdlog::warn("repl: {} before the evaluation began; it runs on a new worker", r ? first.death : r.error().message);
    Impl::Attempt second;
    r = m_impl->eval_once(code, budget, second);
  }
  return r;
}

Result<EvalResult> Repl::Impl::eval_once(const std::string& code, Millis budget, Attempt& attempt) {
  Impl& s = *this;
  std::shared_ptr<WorkerProc> w;
  uint64_t id;
  {
    std::lock_guard lock(s.mutex);
    w = s.worker;
    id = s.eval_id = s.next_eval++;
    s.result.reset();
    s.pending_env.reset();
    s.pending_final.reset();
    s.logs.clear();
    s.died.clear();
    s.interrupted_at.reset();
  }
  if (!w) {
    TRY(s.spawn());
    std::lock_guard lock(s.mutex);
    w = s.worker;
  }
  size_t baseline = rss_of(w->pid);
  size_t hard_cap = baseline + ((s.options.memory_mb + s.options.hard_margin_mb) << 20);
  json header = {{"t", "eval"},
                 {"id", id},
                 {"timeout_ms", budget.count()},
                 {"memory_mb", s.options.memory_mb},
                 {"checkpoint_ms", s.options.checkpoint_timeout.count()}};
  if (auto r = w->chan->write(encode_frame(header, code)); !r) {
    std::lock_guard lock(s.mutex);
    s.died = "the REPL worker is not answering";
  }
  // The worker enforces the deadlines itself (the evaluation's, then saving env's); we step in
  // only if it cannot (stuck in native code) or if memory runs past the hard margin.
  auto hard_deadline = Clock::now() + budget + s.options.checkpoint_timeout + 3s;
  std::string killed_for;
  std::unique_lock lock(s.mutex);
  while (!s.result && s.died.empty()) {
    s.cv.wait_for(lock, 50ms);
    if (s.result || !s.died.empty()) break;
    if (killed_for.empty()) {
      if (Clock::now() > hard_deadline) killed_for = "timeout";
      else if (s.interrupted_at && Clock::now() > *s.interrupted_at + 2s) killed_for = "interrupted";
      else if (rss_of(w->pid) > hard_cap) killed_for = "memory";
      if (!killed_for.empty() && w->pid > 0) kill(w->pid, SIGKILL);
    }
  }
  EvalResult out;
  if (s.result) {
    out = std::move(*s.result);
    out.logs = std::move(s.logs);
    return out;
  }
  // The worker died: report it, then bring a new one up with env as of the last checkpoint.
  attempt.began = !killed_for.empty() || s.began_id == id;
  attempt.death = s.died;
  out.ok = false;
  out.kind = killed_for.empty() ? "crash" : killed_for;
  out.error_name = "Error";
  out.error_message = (killed_for == "memory"        ? "the evaluation used memory past the hard limit and its worker was killed"
                       : killed_for == "timeout"     ? "the evaluation stopped answering past its deadline and its worker was killed"
                       : killed_for == "interrupted" ? "the evaluation did not stop when interrupted and its worker was killed"
                                                     : s.died + " during this evaluation") +
                      "; a new worker was started and env was restored from the checkpoint taken after the last successful evaluation";
  out.logs = std::move(s.logs);
  lock.unlock();
  if (auto r = s.spawn(); !r) return make_error(Code::Unavailable, out.error_message + ", but the new worker failed: " + r.error().message);
  // What the restore could not bring back, so the code can make it again.
  constexpr size_t kListed = 10;
  std::vector<LostValue> lost = s.read_env()->lost;
  if (lost.size() > kListed) {
    lost.resize(kListed);
    lost.push_back({"…", "more"});
  }
  if (!lost.empty()) attempt.not_restored = ". Not restorable (stand-ins are in their place): " + describe_lost(lost);
  out.error_message += attempt.not_restored;
  return out;
}

void Repl::interrupt() {
  std::shared_ptr<WorkerProc> w;
  {
    std::lock_guard lock(m_impl->mutex);
    w = m_impl->worker;
    if (!m_impl->interrupted_at) m_impl->interrupted_at = Clock::now();
  }
  if (!w) return;
  // A worker that cannot be written to is gone; the reader thread reports its exit.
  if (auto r = w->chan->write(encode_frame({{"t", "interrupt"}})); !r) spdlog::debug("repl: interrupt not delivered: {}", r.error().message);
}

void Repl::set_state(const json& state) {
  std::shared_ptr<WorkerProc> w;
  std::string text = dump_json(state);
  {
    std::lock_guard lock(m_impl->mutex);
    m_impl->state_text = text;
    w = m_impl->worker;
  }
  if (!w) return;
  // A failed write means the worker is gone; its successor gets state_text when it starts.
  if (auto r = w->chan->write(encode_frame({{"t", "state"}}, text)); !r) spdlog::debug("repl: state not delivered: {}", r.error().message);
}

void Repl::send_event(const std::string& handler, const json& data) {
  std::shared_ptr<WorkerProc> w;
  {
    std::lock_guard lock(m_impl->mutex);
    w = m_impl->worker;
  }
  if (!w) return;
  if (auto r = w->chan->write(encode_frame({{"t", "event"}, {"handler", handler}}, dump_json(data))); !r)
    spdlog::debug("repl: event for {} not delivered: {}", handler, r.error().message);
}

std::string Repl::env_checkpoint() const {
  std::lock_guard lock(m_impl->mutex);
  return m_impl->checkpoint;
}

Result<json> Repl::env_plain() const { return m_impl->read_env()->plain; }

std::vector<LostValue> Repl::env_lost() const { return m_impl->read_env()->lost; }

int Repl::worker_pid() const {
  std::lock_guard lock(m_impl->mutex);
  return m_impl->worker ? m_impl->worker->pid.load() : -1;
}

}  // namespace ouro::jsrt
