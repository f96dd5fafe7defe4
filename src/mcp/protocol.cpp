#include "mcp/protocol.h"
#include "base/steady_clock.h"

#include "base/log.h"
#include "base/text.h"
#include "base/thread_pool.h"

#include <fmt/format.h>

#include <algorithm>
#include <condition_variable>
#include <map>
#include <mutex>

namespace ouro::mcp {

void LineSplitter::feed(std::string_view bytes, const std::function<void(Line)>& out) {
  while (!bytes.empty()) {
    size_t nl = bytes.find('\n');
    std::string_view part = bytes.substr(0, nl);
    if (!m_skipping) {
      if (m_buffer.size() + part.size() > m_max) {
        m_buffer.clear();
        m_buffer.shrink_to_fit();
        m_skipping = true;
        out(Line{{}, true});
      } else {
        m_buffer.append(part);
      }
    }
    if (nl == std::string_view::npos) return;
    bytes.remove_prefix(nl + 1);
    if (m_skipping) {
      m_skipping = false;
      continue;
    }
    std::string line = std::move(m_buffer);
    m_buffer.clear();
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") != std::string::npos) out(Line{std::move(line), false});
  }
}

json text_result(const std::string& text, bool is_error) {
  json r = {{"content", json::array({{{"type", "text"}, {"text", text}}})}};
  if (is_error) r["isError"] = true;
  return r;
}

json error_result(const std::string& message) { return text_result(message, true); }

namespace {

json response(const json& id, json result) { return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}}; }

json error_response(const json& id, int code, const std::string& message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

// JSON-RPC 2.0 §4: "An identifier … MUST contain a String, Number, or NULL"; MCP narrows it to a
// string or an integer, never null.
bool valid_id(const json& id) { return id.is_string() || id.is_number_integer() || id.is_number_unsigned(); }

std::string type_of(const json& v) { return v.is_number_integer() || v.is_number_unsigned() ? "integer" : v.type_name(); }

}  // namespace

// A request of ours to the client, waiting for its answer.
struct Protocol::Pending {
  bool done = false;
  json answer;  // the whole response: {result} or {error}
};

struct Protocol::State {
  Tools& tools;
  Info info;
  std::function<void(const std::string&)> send;
  mutable std::mutex mutex;  // guards everything below
  std::condition_variable idle;
  std::condition_variable answers;  // a pending request was answered, a call cancelled, or closed
  std::map<std::string, std::shared_ptr<Call>> calls;  // in flight or waiting, by id
  std::map<std::string, std::shared_ptr<Pending>> pending;  // our requests to the client, by id
  uint64_t next_request = 1;
  bool closed = false;  // cancel_all ran: no request to the client can be answered any more
  bool initialized = false;
  std::string version;
  json client_capabilities = json::object();
  std::unique_ptr<ThreadPool> pool;
  State(Tools& t, Info i, std::function<void(const std::string&)> s) : tools(t), info(std::move(i)), send(std::move(s)) {}
};

struct Protocol::Call final : CallContext {
  json id;
  std::string key;  // id.dump(): "1" and "\"1\"" are different requests
  json token;       // progressToken, or null
  State* state = nullptr;
  Reply reply;      // where its progress, its requests to the client and its answer go
  std::atomic<bool> cancel{false};
  std::mutex progress_mutex;
  double last_progress = -1;
  // Held while the hook is replaced or runs, so a tool that clears its hook (on_cancel({})) before
  // destroying what the hook touches never races a cancellation in progress.
  std::mutex hook_mutex;
  std::function<void()> hook;
  bool cancelling = false;  // under hook_mutex

  void progress(double p, std::optional<double> total, const std::string& message) override {
    if (token.is_null() || cancel) return;
    {
      std::lock_guard lock(progress_mutex);
      if (p <= last_progress) return;  // "The progress value MUST increase with each notification"
      last_progress = p;
    }
    json params = {{"progressToken", token}, {"progress", p}};
    if (total) params["total"] = *total;
    if (!message.empty()) params["message"] = message;
    reply(dump_json(json{{"jsonrpc", "2.0"}, {"method", "notifications/progress"}, {"params", params}}), false);
  }
  bool cancelled() const override { return cancel; }
  void on_cancel(std::function<void()> h) override {
    std::lock_guard lock(hook_mutex);
    if (cancelling) {
      if (h) h();
      return;
    }
    hook = std::move(h);
  }
  json client_capabilities() const override {
    std::lock_guard lock(state->mutex);
    return state->client_capabilities;
  }

  Result<json> request(const std::string& method, const json& params, std::chrono::milliseconds timeout, std::function<bool()> abandon) override {
    if (cancel) return make_error(Code::Cancelled, "the tool call was cancelled");
    auto pending = std::make_shared<Pending>();
    std::string rid;
    {
      std::lock_guard lock(state->mutex);
      if (state->closed) return make_error(Code::Unavailable, "the client has disconnected");
      rid = "ouro-" + std::to_string(state->next_request++);
      state->pending[rid] = pending;
    }
    auto forget = [&] {
      std::lock_guard lock(state->mutex);
      state->pending.erase(rid);
    };
    // Cancellation (basic/utilities/cancellation) of a request of ours the client need not answer any more.
    auto withdraw = [&](const char* reason) {
      reply(dump_json(json{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", rid}, {"reason", reason}}}}), false);
    };
    if (!reply(dump_json(json{{"jsonrpc", "2.0"}, {"id", rid}, {"method", method}, {"params", params}}), false)) {
      forget();
      return errorf(Code::Unavailable, "{} could not be sent: the client's stream for this call is closed", method);
    }
    const auto deadline = SteadyClock::now() + timeout;
    std::unique_lock lock(state->mutex);
    bool abandoned = false;
    while (!pending->done && !cancel && !state->closed && SteadyClock::now() < deadline) {
      // `abandon` is the run's own cancellation, which nothing here is told of: looked at between waits.
      auto until = abandon ? std::min(deadline, SteadyClock::now() + std::chrono::milliseconds(200)) : deadline;
      ouro::wait_until(state->answers, lock, until, [&] { return pending->done || cancel || state->closed; });
      if (abandon && !pending->done && abandon()) {
        abandoned = true;
        break;
      }
    }
    json answer = std::move(pending->answer);
    bool done = pending->done, closed = state->closed;
    state->pending.erase(rid);
    lock.unlock();
    if (done) {
      if (answer.contains("result")) return answer["result"];
      const json& err = get_field(answer, "error");
      return make_error(Code::Unavailable,
                        fmt::format("the client answered {} with an error: {} (code {})", method, clip_text(get_str(err, "message", "no message"), 300),
                                    get_field(err, "code").dump()),
                        json{{"code", get_field(err, "code")}, {"data", get_field(err, "data")}});
    }
    if (cancel || abandoned) {
      withdraw("the tool call was cancelled");
      return make_error(Code::Cancelled, "the tool call was cancelled");
    }
    if (closed) return make_error(Code::Unavailable, "the client disconnected before it answered " + method);
    withdraw("timed out");
    return errorf(Code::DeadlineExceeded, "the client did not answer {} within {} s", method,
                  std::chrono::duration_cast<std::chrono::seconds>(timeout).count());
  }

  void do_cancel() {
    {
      // The hook (the run's own cancellation) goes first: a request to the client that wakes on
      // `cancel` then finds the run cancelled, and the run ends as cancelled, not as failed.
      std::lock_guard lock(hook_mutex);
      if (cancelling) return;
      cancelling = true;
      if (hook) hook();
      hook = nullptr;
      cancel = true;
    }
    // Wakes a request to the client this call waits on.
    { std::lock_guard lock(state->mutex); }
    state->answers.notify_all();
  }
};

Protocol::Protocol(Tools& tools, Info info, std::function<void(const std::string& line)> send)
    : m(std::make_unique<State>(tools, std::move(info), std::move(send))) {
  m->pool = std::make_unique<ThreadPool>(kWorkers, kMaxWaiting);
}

Protocol::~Protocol() {
  cancel_all();
  m->pool.reset();  // runs what waits (each sees its call cancelled) and joins
}

void Protocol::on_overlong_line() {
  m->send(dump_json(error_response(nullptr, kParseError, "Parse error: the message is longer than " + std::to_string(kMaxLineBytes >> 20) + " MiB")));
}

void Protocol::on_line(std::string_view line) {
  on_line(line, [this](const std::string& text, bool) {
    if (!text.empty()) m->send(text);
    return true;
  });
}

void Protocol::on_line(std::string_view line, Reply reply) {
  auto answer = [&](const json& msg) { reply(dump_json(msg), true); };
  try {
    // Deeply nested text is refused before nlohmann's recursive parser sees it.
    if (nested_deeper_than(line, kMaxJsonDepth)) {
      answer(error_response(nullptr, kParseError, "Parse error: the message is nested too deeply"));
      return;
    }
    auto parsed = parse_json(line, "the message");
    if (!parsed) {
      answer(error_response(nullptr, kParseError, "Parse error: " + parsed.error().message));
      return;
    }
    handle(*parsed, reply);
  } catch (const std::exception& e) {
    spdlog::warn("mcp: a message could not be handled: {}", e.what());
    answer(error_response(nullptr, kInternalError, std::string("Internal error: ") + e.what()));
  }
}

void Protocol::handle(const json& msg, const Reply& reply) {
  auto answer = [&](const json& out) { reply(dump_json(out), true); };
  if (msg.is_array()) {
    answer(error_response(nullptr, kInvalidRequest, "Invalid Request: batches are not supported (MCP 2025-06-18 removed JSON-RPC batching)"));
    return;
  }
  if (!msg.is_object()) {
    answer(error_response(nullptr, kInvalidRequest, "Invalid Request: a message is a JSON object, got " + type_of(msg)));
    return;
  }
  const json& id = get_field(msg, "id");
  bool has_id = msg.contains("id");
  json reply_id = has_id && valid_id(id) ? id : json(nullptr);
  if (get_str(msg, "jsonrpc") != "2.0") {
    if (has_id || msg.contains("method")) answer(error_response(reply_id, kInvalidRequest, "Invalid Request: \"jsonrpc\" must be \"2.0\""));
    return;
  }
  if (!msg.contains("method")) {
    // A response (result or error) to a request of ours.
    if (msg.contains("result") || msg.contains("error")) return on_answer(msg);
    answer(error_response(reply_id, kInvalidRequest, "Invalid Request: no \"method\""));
    return;
  }
  if (!msg["method"].is_string()) {
    answer(error_response(reply_id, kInvalidRequest, "Invalid Request: \"method\" must be a string, got " + type_of(msg["method"])));
    return;
  }
  const std::string method = msg["method"].get<std::string>();
  const json& params = get_field(msg, "params");
  if (msg.contains("params") && !params.is_object()) {
    if (has_id) answer(error_response(reply_id, kInvalidParams, "Invalid params: \"params\" must be an object, got " + type_of(params)));
    return;
  }

  if (!has_id) {  // a notification: never answered
    if (method == "notifications/cancelled") {
      const json& target = get_field(params, "requestId");
      std::shared_ptr<Call> call;
      {
        std::lock_guard lock(m->mutex);
        if (valid_id(target))
          if (auto it = m->calls.find(target.dump()); it != m->calls.end()) call = it->second;
      }
      // An unknown or finished request is ignored, as the specification asks.
      if (call) {
        spdlog::info("mcp: call {} cancelled by the client{}", clip_text(call->key, 100),
                     get_str(params, "reason").empty() ? "" : ": " + clip_text(get_str(params, "reason"), 200));
        call->do_cancel();
      }
    }
    return;  // notifications/initialized and anything else
  }
  if (!valid_id(id)) {
    answer(error_response(nullptr, kInvalidRequest, "Invalid Request: \"id\" must be a string or an integer, got " + type_of(id)));
    return;
  }

  if (method == "initialize") {
    const json& requested = get_field(params, "protocolVersion");
    if (!requested.is_string()) {
      answer(error_response(id, kInvalidParams, "Invalid params: initialize needs \"protocolVersion\" (a string)"));
      return;
    }
    std::string version = requested.get<std::string>();
    // Lifecycle, version negotiation: the same revision when supported, else the latest we speak.
    if (std::find(kSupportedVersions.begin(), kSupportedVersions.end(), version) == kSupportedVersions.end()) version = kProtocolVersion;
    json result = {{"protocolVersion", version},
                   {"capabilities", {{"tools", {{"listChanged", false}}}}},
                   {"serverInfo", {{"name", m->info.name}, {"version", m->info.version}}}};
    if (!m->info.instructions.empty()) result["instructions"] = m->info.instructions;
    const json& client = get_field(params, "clientInfo");
    const json& caps = get_field(params, "capabilities");
    {
      std::lock_guard lock(m->mutex);
      m->initialized = true;
      m->version = version;
      m->client_capabilities = caps.is_object() ? caps : json::object();
    }
    spdlog::info("mcp: initialized by {} {} (revision {}, answered {}{})", clip_text(get_str(client, "name", "a client"), 100), clip_text(get_str(client, "version"), 40),
                 clip_text(requested.get<std::string>(), 40), version, caps.is_object() && caps.contains("sampling") ? "; it offers sampling" : "");
    answer(response(id, std::move(result)));
    return;
  }
  if (method == "ping") {
    answer(response(id, json::object()));
    return;
  }
  bool initialized;
  {
    std::lock_guard lock(m->mutex);
    initialized = m->initialized;
  }
  if (!initialized) {
    answer(error_response(id, kNotInitialized, "Server not initialized: send initialize first (only ping may come before it)"));
  } else if (method == "tools/list") {
    answer(response(id, {{"tools", m->tools.list()}}));
  } else if (method == "tools/call") {
    start_call(id, params, reply);
  } else {
    answer(error_response(id, kMethodNotFound, "Method not found: " + clip_text(method, 100)));
  }
}

void Protocol::on_answer(const json& msg) {
  const json& id = get_field(msg, "id");
  std::shared_ptr<Pending> pending;
  {
    std::lock_guard lock(m->mutex);
    if (id.is_string())
      if (auto it = m->pending.find(id.get<std::string>()); it != m->pending.end()) pending = it->second;
    if (pending && !pending->done) {
      pending->done = true;
      pending->answer = msg.contains("result") ? json{{"result", msg["result"]}} : json{{"error", msg["error"]}};
    }
  }
  if (pending) m->answers.notify_all();
  else spdlog::info("mcp: dropped an answer to {}, which no call waits for", clip_text(id.dump(), 100));
}

void Protocol::start_call(const json& id, const json& params, const Reply& reply) {
  auto answer = [&](const json& out) { reply(dump_json(out), true); };
  const json& name = get_field(params, "name");
  if (!name.is_string()) {
    answer(error_response(id, kInvalidParams, "Invalid params: tools/call needs \"name\" (a string)"));
    return;
  }
  const json& arguments = get_field(params, "arguments");
  if (params.contains("arguments") && !arguments.is_object() && !arguments.is_null()) {
    answer(error_response(id, kInvalidParams, "Invalid params: \"arguments\" must be an object, got " + type_of(arguments)));
    return;
  }
  auto call = std::make_shared<Call>();
  call->id = id;
  call->key = id.dump();
  call->state = m.get();
  call->reply = reply;
  const json& token = get_field(get_field(params, "_meta"), "progressToken");
  if (token.is_string() || token.is_number_integer() || token.is_number_unsigned()) call->token = token;
  {
    std::lock_guard lock(m->mutex);
    if (m->calls.count(call->key)) {
      answer(error_response(id, kInvalidRequest, "Invalid Request: request id " + clip_text(call->key, 100) + " is already in use by a call in progress"));
      return;
    }
    m->calls[call->key] = call;
  }
  std::string tool = name.get<std::string>();
  json args = arguments.is_object() ? arguments : json::object();
  State* state = m.get();
  // Sends the answer (unless the call was cancelled: "Receivers of a cancellation notification
  // SHOULD … not send a response") and forgets the call.
  auto finish = [state, call](json result) {
    if (!call->cancelled()) call->reply(dump_json(response(call->id, std::move(result))), true);
    else call->reply(std::string(), true);
    std::lock_guard lock(state->mutex);
    state->calls.erase(call->key);
    if (state->calls.empty()) state->idle.notify_all();
  };
  bool queued = m->pool->try_post([state, call, finish, tool = std::move(tool), args = std::move(args)] {
    json result;
    if (call->cancelled()) {
      result = error_result("cancelled");
    } else {
      try {
        result = state->tools.call(tool, args, *call);
      } catch (const std::exception& e) {
        result = error_result(tool + " failed inside ouro (" + std::string(e.what()) + ")");
      }
    }
    finish(std::move(result));
  });
  if (!queued) {
    finish(error_result(fmt::format("the server is busy: {} calls are running and {} more are waiting; try again when some have finished",
                                    kWorkers, kMaxWaiting)));
  }
}

void Protocol::cancel_all() {
  std::vector<std::shared_ptr<Call>> calls;
  {
    std::lock_guard lock(m->mutex);
    for (auto& [key, call] : m->calls) calls.push_back(call);
  }
  // Each call is cancelled before the requests it waits on learn that the client is gone, so
  // what they were doing ends as cut short, never as failed by a missing answer.
  for (auto& c : calls) c->do_cancel();
  {
    std::lock_guard lock(m->mutex);
    m->closed = true;
  }
  m->answers.notify_all();
}

void Protocol::drain() {
  std::unique_lock lock(m->mutex);
  m->idle.wait(lock, [&] { return m->calls.empty(); });
}

bool Protocol::drain_for(std::chrono::milliseconds deadline) {
  std::unique_lock lock(m->mutex);
  return m->idle.wait_for(lock, deadline, [&] { return m->calls.empty(); });
}

std::string Protocol::protocol_version() const {
  std::lock_guard lock(m->mutex);
  return m->version;
}

size_t Protocol::calls_in_flight() const {
  std::lock_guard lock(m->mutex);
  return m->calls.size();
}

}  // namespace ouro::mcp
