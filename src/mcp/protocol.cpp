#include "mcp/protocol.h"

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

struct Protocol::Call final : CallContext {
  json id;
  std::string key;  // id.dump(): "1" and "\"1\"" are different requests
  json token;       // progressToken, or null
  Protocol* owner = nullptr;
  std::atomic<bool> cancel{false};
  std::mutex progress_mutex;
  double last_progress = -1;
  // Held while the hook is replaced or runs, so a tool that clears its hook (on_cancel({})) before
  // destroying what the hook touches never races a cancellation in progress.
  std::mutex hook_mutex;
  std::function<void()> hook;

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
    owner->send({{"jsonrpc", "2.0"}, {"method", "notifications/progress"}, {"params", params}});
  }
  bool cancelled() const override { return cancel; }
  void on_cancel(std::function<void()> h) override {
    std::lock_guard lock(hook_mutex);
    if (cancel) {
      if (h) h();
      return;
    }
    hook = std::move(h);
  }
  void do_cancel() {
    std::lock_guard lock(hook_mutex);
    if (cancel.exchange(true)) return;
    if (hook) hook();
    hook = nullptr;
  }
};

struct Protocol::State {
  Tools& tools;
  Info info;
  std::function<void(const std::string&)> send;
  std::mutex mutex;  // guards calls
  std::condition_variable idle;
  std::map<std::string, std::shared_ptr<Call>> calls;  // in flight or waiting, by id
  std::unique_ptr<ThreadPool> pool;
  State(Tools& t, Info i, std::function<void(const std::string&)> s) : tools(t), info(std::move(i)), send(std::move(s)) {}
};

Protocol::Protocol(Tools& tools, Info info, std::function<void(const std::string& line)> send)
    : m(std::make_unique<State>(tools, std::move(info), std::move(send))) {
  m->pool = std::make_unique<ThreadPool>(kWorkers, kMaxWaiting);
}

Protocol::~Protocol() {
  cancel_all();
  m->pool.reset();  // runs what waits (each sees its call cancelled) and joins
}

void Protocol::send(const json& msg) { m->send(dump_json(msg)); }

void Protocol::on_overlong_line() {
  send(error_response(nullptr, kParseError, "Parse error: the message is longer than " + std::to_string(kMaxLineBytes >> 20) + " MiB"));
}

void Protocol::on_line(std::string_view line) {
  try {
    // Deeply nested text is refused before nlohmann's recursive parser sees it.
    if (nested_deeper_than(line, kMaxJsonDepth)) {
      send(error_response(nullptr, kParseError, "Parse error: the message is nested too deeply"));
      return;
    }
    auto parsed = parse_json(line, "the message");
    if (!parsed) {
      send(error_response(nullptr, kParseError, "Parse error: " + parsed.error().message));
      return;
    }
    handle(*parsed);
  } catch (const std::exception& e) {
    spdlog::warn("mcp: a message could not be handled: {}", e.what());
    send(error_response(nullptr, kInternalError, std::string("Internal error: ") + e.what()));
  }
}

void Protocol::handle(const json& msg) {
  if (msg.is_array()) {
    send(error_response(nullptr, kInvalidRequest, "Invalid Request: batches are not supported (MCP 2025-06-18 removed JSON-RPC batching)"));
    return;
  }
  if (!msg.is_object()) {
    send(error_response(nullptr, kInvalidRequest, "Invalid Request: a message is a JSON object, got " + type_of(msg)));
    return;
  }
  const json& id = get_field(msg, "id");
  bool has_id = msg.contains("id");
  json reply_id = has_id && valid_id(id) ? id : json(nullptr);
  if (get_str(msg, "jsonrpc") != "2.0") {
    if (has_id || msg.contains("method")) send(error_response(reply_id, kInvalidRequest, "Invalid Request: \"jsonrpc\" must be \"2.0\""));
    return;
  }
  if (!msg.contains("method")) {
    // A response (result or error) to a request of ours: this server sends none, so it is dropped.
    if (msg.contains("result") || msg.contains("error")) return;
    send(error_response(reply_id, kInvalidRequest, "Invalid Request: no \"method\""));
    return;
  }
  if (!msg["method"].is_string()) {
    send(error_response(reply_id, kInvalidRequest, "Invalid Request: \"method\" must be a string, got " + type_of(msg["method"])));
    return;
  }
  const std::string method = msg["method"].get<std::string>();
  const json& params = get_field(msg, "params");
  if (msg.contains("params") && !params.is_object()) {
    if (has_id) send(error_response(reply_id, kInvalidParams, "Invalid params: \"params\" must be an object, got " + type_of(params)));
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
        spdlog::info("mcp: call {} cancelled by the client{}", call->key, get_str(params, "reason").empty() ? "" : ": " + clip_text(get_str(params, "reason"), 200));
        call->do_cancel();
      }
    }
    return;  // notifications/initialized and anything else
  }
  if (!valid_id(id)) {
    send(error_response(nullptr, kInvalidRequest, "Invalid Request: \"id\" must be a string or an integer, got " + type_of(id)));
    return;
  }

  if (method == "initialize") {
    const json& requested = get_field(params, "protocolVersion");
    if (!requested.is_string()) {
      send(error_response(id, kInvalidParams, "Invalid params: initialize needs \"protocolVersion\" (a string)"));
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
    spdlog::info("mcp: initialized by {} {} (revision {}, answered {})", clip_text(get_str(client, "name", "a client"), 100), clip_text(get_str(client, "version"), 40),
              clip_text(requested.get<std::string>(), 40), version);
    send(response(id, std::move(result)));
  } else if (method == "ping") {
    send(response(id, json::object()));
  } else if (method == "tools/list") {
    send(response(id, {{"tools", m->tools.list()}}));
  } else if (method == "tools/call") {
    start_call(id, params);
  } else {
    send(error_response(id, kMethodNotFound, "Method not found: " + clip_text(method, 100)));
  }
}

void Protocol::start_call(const json& id, const json& params) {
  const json& name = get_field(params, "name");
  if (!name.is_string()) {
    send(error_response(id, kInvalidParams, "Invalid params: tools/call needs \"name\" (a string)"));
    return;
  }
  const json& arguments = get_field(params, "arguments");
  if (params.contains("arguments") && !arguments.is_object() && !arguments.is_null()) {
    send(error_response(id, kInvalidParams, "Invalid params: \"arguments\" must be an object, got " + type_of(arguments)));
    return;
  }
  auto call = std::make_shared<Call>();
  call->id = id;
  call->key = id.dump();
  call->owner = this;
  const json& token = get_field(get_field(params, "_meta"), "progressToken");
  if (token.is_string() || token.is_number_integer() || token.is_number_unsigned()) call->token = token;
  {
    std::lock_guard lock(m->mutex);
    if (m->calls.count(call->key)) {
      send(error_response(id, kInvalidRequest, "Invalid Request: request id " + clip_text(call->key, 100) + " is already in use by a call in progress"));
      return;
    }
    m->calls[call->key] = call;
  }
  std::string tool = name.get<std::string>();
  json args = arguments.is_object() ? arguments : json::object();
  bool queued = m->pool->try_post([this, call, tool = std::move(tool), args = std::move(args)] {
    json result;
    if (call->cancelled()) {
      result = error_result("cancelled");
    } else {
      try {
        result = m->tools.call(tool, args, *call);
      } catch (const std::exception& e) {
        result = error_result(tool + " failed inside ouro (" + std::string(e.what()) + ")");
      }
    }
    finish(call, std::move(result));
  });
  if (!queued) {
    finish(call, error_result(fmt::format("the server is busy: {} calls are running and {} more are waiting; try again when some have finished",
                                          kWorkers, kMaxWaiting)));
  }
}

void Protocol::finish(const std::shared_ptr<Call>& call, json result) {
  // Cancellation: "Receivers of a cancellation notification SHOULD … not send a response".
  if (!call->cancelled()) send(response(call->id, std::move(result)));
  std::lock_guard lock(m->mutex);
  m->calls.erase(call->key);
  if (m->calls.empty()) m->idle.notify_all();
}

void Protocol::cancel_all() {
  std::vector<std::shared_ptr<Call>> calls;
  {
    std::lock_guard lock(m->mutex);
    for (auto& [key, call] : m->calls) calls.push_back(call);
  }
  for (auto& c : calls) c->do_cancel();
}

void Protocol::drain() {
  std::unique_lock lock(m->mutex);
  m->idle.wait(lock, [&] { return m->calls.empty(); });
}

}  // namespace ouro::mcp
