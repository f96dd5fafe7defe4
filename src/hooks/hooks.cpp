#include "hooks/hooks.h"
#include "base/steady_clock.h"
#include "base/clock.h"
#include "net/http_post.h"

#include "base/settings_file.h"

#include "base/log.h"
#include "safety/redact.h"
#include "base/text.h"

#include <boost/url/parse.hpp>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

extern char** environ;

namespace ouro::hooks {

namespace {

// A webhook as the log names it: scheme and host only — its path, query or user part often is
// its secret (a Slack hook's path, ?token=…).
std::string site_of(const std::string& url) {
  auto u = boost::urls::parse_uri(url);  // RFC 3986 §3
  if (!u || !u->has_authority()) return "a webhook";
  return std::string(u->scheme()) + "://" + std::string(u->encoded_host_and_port());
}


using Clock = ouro::SteadyClock;

constexpr size_t kMaxData = 64 * 1024;  // a payload's `data`, as JSON text
constexpr size_t kMaxOutput = 4096;     // what a command prints or a webhook answers, kept for the log
// A deciding point's data goes whole (a hook may change it), up to this; its answer too.
constexpr size_t kMaxDecidingData = 4 * 1024 * 1024;
constexpr size_t kMaxAnswer = 8 * 1024 * 1024;
constexpr std::chrono::milliseconds kDecidingTimeout{1000};
constexpr int64_t kMaxTimeoutMs = 60000;

// The variables a command gets from ouro's environment (whatever else it holds stays here).
constexpr const char* kPassedVariables[] = {"PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR", "USER"};

bool looks_secret(std::string_view name) {
  auto ends_with = [&](std::string_view s) { return name.size() >= s.size() && name.substr(name.size() - s.size()) == s; };
  return ends_with("_API_KEY") || name.rfind("OURO_SECRET_", 0) == 0 || name.find("TOKEN") != std::string_view::npos ||
         name.find("PASSWORD") != std::string_view::npos;
}

// The environment a command runs in: the passed variables (never one that looks like a key),
// a PATH even when ouro had none, and OURO_HOOK naming the point.
std::vector<std::string> command_environment(Point point) {
  std::vector<std::string> env;
  bool has_path = false;
  for (char** e = environ; e && *e; ++e) {
    std::string_view entry(*e);
    auto eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view name = entry.substr(0, eq);
    if (looks_secret(name)) continue;
    if (std::find(std::begin(kPassedVariables), std::end(kPassedVariables), name) == std::end(kPassedVariables)) continue;
    has_path = has_path || name == "PATH";
    env.emplace_back(entry);
  }
  if (!has_path) env.emplace_back("PATH=/usr/local/bin:/usr/bin:/bin");
  env.push_back(std::string("OURO_HOOK=") + point_name(point));
  return env;
}

// An event's data for a payload: as it is when its JSON is small enough, else its small fields
// with the big ones clipped, and `truncated`.
json bounded_data(const json& data) {
  std::string text = dump_json(data);
  if (text.size() <= kMaxData) return data;
  json out = json::object();
  if (data.is_object()) {
    for (auto it = data.begin(); it != data.end(); ++it) {
      std::string field = dump_json(*it);
      out[it.key()] = field.size() <= 4096 ? *it : json(clip_text(field, 2048));
    }
    if (dump_json(out).size() > kMaxData) out = json::object();
  }
  out["truncated"] = true;
  out["bytes"] = text.size();
  return out;
}

struct Outcome {
  enum Kind { Ok, Failed, TimedOut } kind = Ok;
  std::string detail;  // what went wrong, with the output's tail
  std::string output;  // what it printed or answered (up to the caller's limit)
  Outcome() = default;
  Outcome(Kind k, std::string d, std::string o = {}) : kind(k), detail(std::move(d)), output(std::move(o)) {}
};

std::string tail_of(const std::string& output) {
  std::string t = output;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
  return t.empty() ? "" : ": " + clip_text(t, 500);
}

// Runs argv with the payload on its stdin, in a process group of its own, until it exits or the
// deadline passes (then the group is killed). Called on a worker thread.
// The earlier of `deadline` and the pipeline's hard deadline (set when it stops, so a delivery
// under way is cut short too); `cut` says whether the hard one came first.
Clock::time_point effective(Clock::time_point deadline, const std::atomic<int64_t>& hard, bool* cut = nullptr) {
  int64_t h = hard.load();
  if (h == 0 || Clock::time_point(Clock::duration(h)) >= deadline) return deadline;
  if (cut) *cut = true;
  return Clock::time_point(Clock::duration(h));
}

Outcome run_command(const Hook& hook, Point point, const std::string& payload, Clock::time_point own_deadline, const std::atomic<int64_t>& hard,
                    size_t max_output = kMaxOutput) {
  // Everything the child needs is prepared before fork: after it, only async-signal-safe calls.
  std::vector<std::string> env = command_environment(point);
  std::vector<char*> argv, envp;
  for (const auto& a : hook.command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  // stdin is a socket so a command that exits without reading it fails our send with EPIPE
  // (MSG_NOSIGNAL) rather than raising SIGPIPE.
  int in[2], out[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0) return {Outcome::Failed, std::string("socketpair: ") + std::strerror(errno)};
  if (pipe2(out, O_CLOEXEC) != 0) {
    int err = errno;
    close(in[0]);
    close(in[1]);
    return {Outcome::Failed, std::string("pipe: ") + std::strerror(err)};
  }
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    signal(SIGPIPE, SIG_DFL);
    dup2(in[1], 0);
    dup2(out[1], 1);
    dup2(out[1], 2);
    syscall(SYS_close_range, 3U, ~0U, 0U);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  int fork_errno = errno;
  close(in[1]);
  close(out[1]);
  if (pid < 0) {
    close(in[0]);
    close(out[0]);
    return {Outcome::Failed, std::string("fork: ") + std::strerror(fork_errno)};
  }
  setpgid(pid, pid);  // also here, so the group exists before we might kill it
  fcntl(in[0], F_SETFL, O_NONBLOCK);
  fcntl(out[0], F_SETFL, O_NONBLOCK);
  int in_fd = in[0], out_fd = out[0];
  size_t sent = 0;
  std::string output;
  int status = 0;
  bool exited = false, timed_out = false;
  while (!exited) {
    if (in_fd >= 0 && sent < payload.size()) {
      ssize_t n = send(in_fd, payload.data() + sent, payload.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) sent += static_cast<size_t>(n);
      else if (n < 0 && errno != EAGAIN && errno != EINTR) sent = payload.size();  // it does not read its stdin: fine
    }
    if (in_fd >= 0 && sent >= payload.size()) {
      close(in_fd);  // end of the payload
      in_fd = -1;
    }
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) {
      exited = true;
      break;
    }
    auto now = Clock::now();
    auto deadline = effective(own_deadline, hard);
    if (now >= deadline) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      timed_out = true;
      break;
    }
    pollfd fds[2];
    nfds_t count = 0;
    if (out_fd >= 0) fds[count++] = {out_fd, POLLIN, 0};
    if (in_fd >= 0) fds[count++] = {in_fd, POLLOUT, 0};
    int wait_ms = static_cast<int>(std::min<int64_t>(20, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1));
    poll(fds, count, wait_ms);
    if (out_fd >= 0) {
      char buf[4096];
      ssize_t n;
      while ((n = read(out_fd, buf, sizeof buf)) > 0)
        if (output.size() < max_output) output.append(buf, std::min(static_cast<size_t>(n), max_output - output.size()));
      if (n == 0) {
        close(out_fd);
        out_fd = -1;
      }
    }
  }
  if (out_fd >= 0) {
    char buf[4096];
    ssize_t n;
    while ((n = read(out_fd, buf, sizeof buf)) > 0)
      if (output.size() < max_output) output.append(buf, std::min(static_cast<size_t>(n), max_output - output.size()));
    close(out_fd);
  }
  if (in_fd >= 0) close(in_fd);
  if (timed_out) return {Outcome::TimedOut, "killed after its timeout of " + std::to_string(hook.timeout.count()) + " ms" + tail_of(output)};
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && output.empty())
    return {Outcome::Failed, "could not be started (exit status 127: is " + hook.command[0] + " an executable?)"};
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0) return {Outcome::Failed, "exited with status " + std::to_string(WEXITSTATUS(status)) + tail_of(output)};
  if (WIFSIGNALED(status)) return {Outcome::Failed, "killed by signal " + std::to_string(WTERMSIG(status)) + tail_of(output)};
  return {Outcome::Ok, "", std::move(output)};
}

// POSTs the payload. Called on a worker thread; gives up at the hook's deadline or once the
// pipeline's hard deadline (it stops) has passed.
Outcome post_webhook(const Hook& hook, const std::string& payload, Clock::time_point deadline, const std::atomic<int64_t>& hard,
                     size_t max_output = kMaxOutput) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(effective(deadline, hard) - Clock::now()).count();
  if (left <= 0) return {Outcome::TimedOut, "no time left before ouro stopped"};
  net::PostOptions o;
  o.timeout = std::chrono::milliseconds(left);
  o.max_answer_bytes = max_output;
  o.truncate = true;
  o.abort = [deadline, &hard] { return Clock::now() >= effective(deadline, hard); };
  o.user_agent = "ouro-hooks";
  auto answer = net::post(hook.url, payload, o);
  if (!answer && answer.error().code == Code::DeadlineExceeded) return {Outcome::TimedOut, "no answer within " + std::to_string(hook.timeout.count()) + " ms"};
  if (!answer) return {Outcome::Failed, answer.error().message};
  if (answer->status < 200 || answer->status >= 300) return {Outcome::Failed, "answered HTTP " + std::to_string(answer->status) + tail_of(answer->body)};
  return {Outcome::Ok, "", std::move(answer->body)};
}

bool valid_webhook_url(const std::string& url) {
  std::string lower = url.substr(0, 8);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  size_t host = lower.rfind("http://", 0) == 0 ? 7 : lower.rfind("https://", 0) == 0 ? 8 : 0;
  if (host == 0 || url.size() <= host || url[host] == '/' || url[host] == ':') return false;
  return std::none_of(url.begin(), url.end(), [](unsigned char c) { return c <= ' ' || c == 0x7f; });
}

Result<Hook> parse_hook(const json& e, const std::string& field, const std::string& where, Point point) {
  if (!e.is_object())
    return errorf(Code::InvalidArgument, "{}: {} must be an object: {{\"command\": [\"/path/prog\", \"arg\"]}} or {{\"url\": \"http://…\"}}", where, field);
  for (auto it = e.begin(); it != e.end(); ++it)
    if (it.key() != "command" && it.key() != "url" && it.key() != "timeout_ms" && it.key() != "on_error")
      return errorf(Code::InvalidArgument, "{}: {}.{} is not a hook field (known: command, url, timeout_ms, on_error)", where, field, it.key());
  bool has_command = e.contains("command"), has_url = e.contains("url");
  if (has_command == has_url)
    return errorf(Code::InvalidArgument, "{}: {} needs exactly one of \"command\" (an argv array) and \"url\" (a webhook)", where, field);
  Hook h;
  if (has_command) {
    const json& c = e["command"];
    if (!c.is_array() || c.empty())
      return errorf(Code::InvalidArgument, "{}: {}.command must be a non-empty array of strings (argv; no shell)", where, field);
    for (const auto& a : c) {
      if (!a.is_string()) return errorf(Code::InvalidArgument, "{}: {}.command must be a non-empty array of strings (argv; no shell)", where, field);
      std::string s = a.get<std::string>();
      if (s.find('\0') != std::string::npos) return errorf(Code::InvalidArgument, "{}: {}.command holds a NUL character", where, field);
      h.command.push_back(std::move(s));
    }
    if (h.command[0].empty() || h.command[0][0] != '/')
      return errorf(Code::InvalidArgument, "{}: {}.command[0] must be an absolute path (no shell, no PATH search), got \"{}\"", where, field,
                    h.command[0]);
  } else {
    if (!e["url"].is_string() || !valid_webhook_url(e["url"].get<std::string>()))
      return errorf(Code::InvalidArgument, "{}: {}.url must be an http:// or https:// URL, got {}", where, field, clip_text(dump_json(e["url"]), 200));
    h.url = e["url"].get<std::string>();
  }
  if (e.contains("timeout_ms")) {
    const json& t = e["timeout_ms"];
    if (!t.is_number_integer() || t.get<int64_t>() < 1 || t.get<int64_t>() > kMaxTimeoutMs)
      return errorf(Code::InvalidArgument, "{}: {}.timeout_ms must be an integer from 1 to {} (milliseconds), got {}", where, field, kMaxTimeoutMs,
                    clip_text(dump_json(t), 100));
    h.timeout = std::chrono::milliseconds(t.get<int64_t>());
  } else if (deciding(point)) {
    h.timeout = kDecidingTimeout;
  }
  if (e.contains("on_error")) {
    const json& o = e["on_error"];
    if (!deciding(point))
      return errorf(Code::InvalidArgument, "{}: {}.on_error applies to hooks that decide (before_inbound, before_tool_call, before_outbound, "
                    "transform_response, session_start, session_end); a {} hook is only told", where, field, point_name(point));
    if (!o.is_string() || (o != "deny" && o != "allow"))
      return errorf(Code::InvalidArgument, "{}: {}.on_error must be \"deny\" or \"allow\", got {}", where, field, clip_text(dump_json(o), 100));
    h.deny_on_error = o == "deny";
  }
  return h;
}

}  // namespace

const char* point_name(Point p) {
  switch (p) {
    case Point::RunStart: return "run_start";
    case Point::IterationEnd: return "iteration_end";
    case Point::Gate: return "gate";
    case Point::RunEnd: return "run_end";
    case Point::BeforeInbound: return "before_inbound";
    case Point::BeforeToolCall: return "before_tool_call";
    case Point::BeforeOutbound: return "before_outbound";
    case Point::TransformResponse: return "transform_response";
    case Point::SessionStart: return "session_start";
    case Point::SessionEnd: return "session_end";
  }
  return "?";
}

bool deciding(Point p) {
  return p != Point::RunStart && p != Point::IterationEnd && p != Point::Gate && p != Point::RunEnd;
}

bool modifiable(Point p) {
  return p == Point::BeforeInbound || p == Point::BeforeToolCall || p == Point::BeforeOutbound || p == Point::TransformResponse;
}

namespace {
std::string point_names() {
  std::string out;
  for (Point p : kPoints) out += (out.empty() ? "" : ", ") + std::string(point_name(p));
  return out;
}
}  // namespace

bool HooksConfig::empty() const {
  return std::all_of(hooks.begin(), hooks.end(), [](const auto& kv) { return kv.second.empty(); });
}

Result<HooksConfig> hooks_config_from(const json& file, const std::string& where) {
  HooksConfig config;
  if (!file.is_object() || !file.contains("hooks")) return config;
  const json& all = file["hooks"];
  if (!all.is_object())
    return errorf(Code::InvalidArgument, "{}: \"hooks\" must be an object of hook lists ({})", where, point_names());
  for (auto it = all.begin(); it != all.end(); ++it) {
    auto point = std::find_if(kPoints.begin(), kPoints.end(), [&](Point p) { return it.key() == point_name(p); });
    if (point == kPoints.end())
      return errorf(Code::InvalidArgument, "{}: hooks.{} is not a hook point (known: {})", where, it.key(), point_names());
    if (!it->is_array()) return errorf(Code::InvalidArgument, "{}: hooks.{} must be an array of hooks", where, it.key());
    auto& list = config.hooks[*point];
    for (size_t i = 0; i < it->size(); ++i) {
      std::string label = it.key() + "[" + std::to_string(i) + "]";
      Hook h = TRY(parse_hook((*it)[i], "hooks." + label, where, *point));
      h.label = label;
      list.push_back(std::move(h));
    }
  }
  return config;
}

Result<HooksConfig> load_hooks_config(const std::string& path) {
  auto file = TRY(read_settings_file(path));
  return hooks_config_from(file.data, file.where());
}

Pipeline::Pipeline(HooksConfig config, Options options) : m_config(std::move(config)), m_options(options) {}

std::shared_ptr<Pipeline> Pipeline::create(HooksConfig config, Options options) {
  std::shared_ptr<Pipeline> p(new Pipeline(std::move(config), options));
  if (p->has_hooks())
    for (size_t i = 0; i < std::max<size_t>(1, options.workers); ++i) p->m_workers.emplace_back([raw = p.get()] { raw->worker(); });
  return p;
}

Pipeline::~Pipeline() {
  {
    std::lock_guard lock(m_mutex);
    m_stopping = true;
    m_hard_deadline = std::chrono::duration_cast<std::chrono::nanoseconds>((Clock::now() + m_options.shutdown_grace).time_since_epoch()).count();
  }
  m_wake.notify_all();
  for (auto& t : m_workers) t.join();
}

void Pipeline::fire(Point point, const std::string& run_id, const json& data, double ts) {
  auto hooks = m_config.hooks.find(point);
  if (hooks == m_config.hooks.end() || hooks->second.empty()) return;
  std::string payload;
  try {
    // The event was redacted when the run made it; redacting the whole payload again costs
    // little and keeps a key that slipped into a field out of a hook's hands.
    payload = dump_json(safety::redact_json(json{{"hook", point_name(point)}, {"run", run_id}, {"ts", ts}, {"data", bounded_data(data)}}));
  } catch (const std::exception& e) {
    spdlog::warn("hooks: cannot make the {} payload of run {}: {}", point_name(point), run_id, redact(e.what()));
    return;
  }
  uint64_t dropped = 0;
  {
    std::lock_guard lock(m_mutex);
    if (m_stopping) return;
    for (const Hook& h : hooks->second) {
      if (m_queue.size() >= m_options.queue_capacity) {
        dropped = ++m_stats.dropped;
        continue;
      }
      m_queue.push_back({point, &h, payload});
      ++m_stats.enqueued;
    }
  }
  // The first drop and then every hundredth, so a flood does not flood the log too.
  if (dropped == 1 || (dropped > 0 && dropped % 100 == 0))
    spdlog::warn("hooks: the queue is full ({} waiting); {} payload(s) dropped so far ({} of run {})", m_options.queue_capacity, dropped,
                 point_name(point), run_id);
  m_wake.notify_all();
}

void Pipeline::on_event(const std::string& run_id, const std::string& type, const json& data, double ts) {
  if (!has_hooks()) return;
  if (type == "iteration-start") {
    bool first;
    {
      std::lock_guard lock(m_mutex);
      first = m_started.insert(run_id).second;
    }
    if (first) {
      json start = json::object();
      if (data.is_object()) {
        if (data.contains("taskGoal")) start["task"] = data["taskGoal"];
        if (data.contains("iteration")) start["iteration"] = data["iteration"];
      }
      fire(Point::RunStart, run_id, start, ts);
    }
  } else if (type == "iteration-end") {
    fire(Point::IterationEnd, run_id, data, ts);
  } else if (type == "gate") {
    fire(Point::Gate, run_id, data, ts);
  } else if (type == "complete") {
    {
      std::lock_guard lock(m_mutex);
      m_started.erase(run_id);
    }
    fire(Point::RunEnd, run_id, data, ts);
  }
}

Pipeline::Stats Pipeline::stats() const {
  std::lock_guard lock(m_mutex);
  return m_stats;
}

bool Pipeline::wait_idle(std::chrono::milliseconds t) {
  std::unique_lock lock(m_mutex);
  return wait_for_ms(m_idle, lock, t, [&] { return m_queue.empty() && m_busy == 0; });
}

void Pipeline::worker() {
  std::unique_lock lock(m_mutex);
  while (true) {
    m_wake.wait(lock, [&] { return m_stopping || !m_queue.empty(); });
    if (m_queue.empty()) return;  // stopping, nothing left
    if (m_stopping && Clock::now().time_since_epoch().count() >= m_hard_deadline) {
      m_stats.dropped += m_queue.size();
      spdlog::warn("hooks: ouro is stopping; {} payload(s) not delivered", m_queue.size());
      m_queue.clear();
      m_idle.notify_all();
      return;
    }
    Job job = std::move(m_queue.front());
    m_queue.pop_front();
    ++m_busy;
    lock.unlock();
    deliver(job);
    lock.lock();
    --m_busy;
    if (m_queue.empty() && m_busy == 0) m_idle.notify_all();
  }
}

bool Pipeline::has(Point point) const {
  auto h = m_config.hooks.find(point);
  return h != m_config.hooks.end() && !h->second.empty();
}

namespace {

// A deciding hook's answer: nothing (allow), or a JSON object {"decision", "reason"?, "data"?}.
Result<json> parse_answer(const std::string& output) {
  size_t b = output.find_first_not_of(" \t\r\n"), e = output.find_last_not_of(" \t\r\n");
  if (b == std::string::npos) return json{{"decision", "allow"}};
  json j = json::parse(output.substr(b, e - b + 1), nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return errorf(Code::InvalidArgument, "answered something that is not a JSON object ({}); answer {{\"decision\": \"allow\" | \"deny\" | \"modify\"}} or nothing",
                  clip_text(output.substr(b), 200));
  const json& d = get_field(j, "decision");
  if (!d.is_string() || (d != "allow" && d != "deny" && d != "modify"))
    return errorf(Code::InvalidArgument, "answered without a decision: \"decision\" must be \"allow\", \"deny\" or \"modify\", got {}", clip_text(dump_json(d), 100));
  if (j.contains("reason") && !j["reason"].is_string()) return make_error(Code::InvalidArgument, "answered a \"reason\" that is not a string");
  if (d == "modify" && !j.contains("data")) return make_error(Code::InvalidArgument, "answered \"modify\" without the changed \"data\"");
  return j;
}

}  // namespace

Decision Pipeline::decide(Point point, const std::string& run_id, const json& data) {
  Decision out;
  out.data = data;
  auto hooks = m_config.hooks.find(point);
  if (hooks == m_config.hooks.end() || hooks->second.empty()) return out;
  const std::string name = point_name(point);
  for (const Hook& hook : hooks->second) {
    json part = {{"hook", hook.label}};
    auto started = Clock::now();
    Outcome outcome;
    try {
      // Redacted as told hooks' payloads are; sent whole (up to 4 MiB), since the hook may change it.
      std::string payload = dump_json(safety::redact_json(json{{"hook", name}, {"run", run_id}, {"ts", wall_seconds()}, {"data", out.data}}));
      if (payload.size() > kMaxDecidingData)
        outcome = {Outcome::Failed, "its payload is " + std::to_string(payload.size()) + " bytes, more than the 4 MiB a deciding hook is sent", ""};
      else
        outcome = hook.url.empty() ? run_command(hook, point, payload, started + hook.timeout, m_hard_deadline, kMaxAnswer)
                                   : post_webhook(hook, payload, started + hook.timeout, m_hard_deadline, kMaxAnswer);
    } catch (const std::exception& e) {
      outcome = {Outcome::Failed, std::string("failed inside ouro: ") + e.what(), ""};
    }
    part["ms"] = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count();
    std::string error;
    json answer;
    if (outcome.kind != Outcome::Ok) {
      error = outcome.detail;
    } else if (auto a = parse_answer(outcome.output); !a) {
      error = a.error().message;
    } else {
      answer = std::move(*a);
    }
    {
      std::lock_guard lock(m_mutex);
      if (outcome.kind == Outcome::TimedOut) ++m_stats.timed_out;
      else if (!error.empty()) ++m_stats.failed;
      else ++m_stats.delivered;
    }
    if (!error.empty()) {
      error = redact(error);
      spdlog::warn("hook {} ({}): {}{}", hook.label, hook.url.empty() ? hook.command[0] : site_of(hook.url), error,
                   hook.deny_on_error ? "; it denies when it fails (on_error: deny)" : "; the step goes on (a hook that fails does not block)");
      part["error"] = error;
      if (hook.deny_on_error && point != Point::SessionEnd) {
        part["decision"] = "deny";
        out.answers.push_back(std::move(part));
        out.kind = Decision::Kind::Deny;
        out.by = hook.label;
        out.reason = "the " + name + " hook " + hook.label + " failed and denies when it fails (on_error: deny): " + error;
        return out;
      }
      part["decision"] = "allow";
      out.answers.push_back(std::move(part));
      continue;
    }
    std::string decision = answer["decision"];
    std::string reason = clip_text(get_str(answer, "reason"), 1000);
    part["decision"] = decision;
    if (!reason.empty()) part["reason"] = reason;
    if (decision == "deny" && point == Point::SessionEnd) {
      part["ignored"] = "session_end hears the end; it cannot deny it";
    } else if (decision == "deny") {
      out.answers.push_back(std::move(part));
      out.kind = Decision::Kind::Deny;
      out.by = hook.label;
      out.reason = reason.empty() ? "the " + name + " hook " + hook.label + " denied it" : reason;
      return out;
    } else if (decision == "modify" && !modifiable(point)) {
      part["ignored"] = name + " takes allow or deny, not modify";
    } else if (decision == "modify") {
      out.data = answer["data"];
      out.kind = Decision::Kind::Modify;
      out.by = hook.label;
      if (!reason.empty()) out.reason = reason;
    }
    out.answers.push_back(std::move(part));
  }
  return out;
}

void Pipeline::deliver(const Job& job) {
  const Hook& hook = *job.hook;
  auto deadline = Clock::now() + hook.timeout;
  Outcome outcome;
  try {
    outcome = hook.url.empty() ? run_command(hook, job.point, job.payload, deadline, m_hard_deadline)
                               : post_webhook(hook, job.payload, deadline, m_hard_deadline);
  } catch (const std::exception& e) {
    outcome = {Outcome::Failed, std::string("failed inside ouro: ") + e.what()};
  }
  {
    std::lock_guard lock(m_mutex);
    if (outcome.kind == Outcome::Ok) ++m_stats.delivered;
    else if (outcome.kind == Outcome::TimedOut) ++m_stats.timed_out;
    else ++m_stats.failed;
  }
  bool cut_short = false;  // by ouro stopping, before the hook's own timeout
  (void)effective(deadline, m_hard_deadline, &cut_short);
  if (outcome.kind == Outcome::TimedOut && cut_short) outcome.detail = "cut short as ouro stops";
  if (outcome.kind != Outcome::Ok)
    spdlog::warn("hook {} ({}): {}", hook.label, hook.url.empty() ? hook.command[0] : site_of(hook.url), redact(outcome.detail));
}

}  // namespace ouro::hooks
