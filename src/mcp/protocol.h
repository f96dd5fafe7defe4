// The Model Context Protocol's server side, as pure message handling (MCP specification revision
// 2025-06-18: basic/lifecycle, basic/utilities/{ping,progress,cancellation}, server/tools; JSON-RPC
// 2.0). Lines in, lines out: no I/O of its own and no knowledge of the browser — the tools are
// behind the `Tools` interface, so the whole protocol is tested with a fake.
//
// What it does with each message:
//   - a line that is not JSON: -32700 with id null; a JSON array (batches were removed in
//     2025-06-18), a message without "jsonrpc": "2.0", a non-string method or an id that is
//     neither a string nor an integer: -32600;
//   - initialize: the client's revision when it is one of kSupportedVersions, else ours
//     (kProtocolVersion); capabilities {tools: {listChanged: false}};
//   - ping: {}; tools/list: the tools; tools/call: run on a bounded pool (kWorkers at once,
//     kMaxWaiting waiting; past that an error result at once), its result a CallToolResult;
//   - notifications/cancelled: the call's cancel hook runs and its response is never sent;
//   - a request for an unknown method: -32601; wrong params: -32602; notifications not known
//     are ignored (never answered);
//   - before initialize, any request but initialize and ping: -32002 "not initialized"
//     (basic/lifecycle: "the client SHOULD NOT send requests other than pings before the server
//     has responded to the initialize request");
//   - a response (result or error) answers a request of ours — a tool call asking the client
//     for sampling/createMessage (client/sampling) through CallContext::request; one whose id is
//     not waiting is dropped.
#pragma once

#include "base/json.h"

#include "base/error.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ouro::mcp {

inline constexpr const char* kProtocolVersion = "2025-06-18";
// Older revisions whose tools, progress and cancellation this server speaks the same way.
inline const std::vector<std::string> kSupportedVersions = {"2025-06-18", "2025-03-26", "2024-11-05"};

// JSON-RPC 2.0 error codes (section 5.1).
enum ErrorCode : int { kParseError = -32700, kInvalidRequest = -32600, kMethodNotFound = -32601, kInvalidParams = -32602, kInternalError = -32603,
                       kNotInitialized = -32002 };

// The longest line read (a message); longer ones are dropped with a parse error.
inline constexpr size_t kMaxLineBytes = 4u << 20;

// Splits a byte stream into newline-terminated lines (stdio transport: "messages are delimited by
// newlines and MUST NOT contain embedded newlines"), holding at most `max_line` bytes of one line:
// the rest of a longer line is skipped and reported once as overlong. Pure, incremental.
class LineSplitter {
 public:
  explicit LineSplitter(size_t max_line = kMaxLineBytes) : m_max(max_line) {}
  struct Line {
    std::string text;
    bool overlong = false;  // text is empty; the line was longer than max_line
  };
  // Feeds bytes; calls `out` once per complete line (a trailing '\r' removed, empty lines skipped).
  void feed(std::string_view bytes, const std::function<void(Line)>& out);

 private:
  size_t m_max;
  std::string m_buffer;
  bool m_skipping = false;
};

// What a running tool call may use: progress (sent only when the client gave a progressToken)
// and cancellation. Any thread.
class CallContext {
 public:
  virtual ~CallContext() = default;
  // notifications/progress; progress must increase from call to call. No-op without a token.
  virtual void progress(double progress, std::optional<double> total, const std::string& message) = 0;
  virtual bool cancelled() const = 0;
  // `hook` runs (once, on the reader's thread) when the client cancels the call; if it was
  // cancelled already it runs at once. Replaces an earlier hook; on_cancel({}) returns only after
  // a hook that is running has returned, so clear it before destroying what it touches. The hook
  // runs under the call's lock: it must be quick (an interrupt, a flag) and not call back here.
  virtual void on_cancel(std::function<void()> hook) = 0;
  // Sends the client a request about this call (sampling/createMessage) on the call's channel and
  // blocks until it is answered: the answer's "result", or an error — the client's JSON-RPC error
  // (Unavailable, its code and data in details), DeadlineExceeded after `timeout` (the request is
  // then cancelled at the client), Cancelled when this call is cancelled, Unavailable when the
  // connection closes or the message cannot be delivered, Cancelled too when `abandon` (checked
  // a few times a second, under the Protocol's lock: a flag read, nothing more) says so. A tool's
  // own thread only.
  virtual Result<json> request(const std::string& method, const json& params, std::chrono::milliseconds timeout,
                               std::function<bool()> abandon = {}) = 0;
  // What the client declared at initialize ("capabilities"); {} when it declared nothing.
  virtual json client_capabilities() const = 0;
};

// Clears a call's cancel hook when it goes out of scope, however the tool returns or throws:
// the hook never outlives what it touches.
class CancelHookScope {
 public:
  CancelHookScope(CallContext& ctx, std::function<void()> hook) : m_ctx(ctx) { m_ctx.on_cancel(std::move(hook)); }
  ~CancelHookScope() { m_ctx.on_cancel({}); }
  CancelHookScope(const CancelHookScope&) = delete;
  CancelHookScope& operator=(const CancelHookScope&) = delete;

 private:
  CallContext& m_ctx;
};

// The server's tools. Implementations run calls on pool threads, several at once.
class Tools {
 public:
  virtual ~Tools() = default;
  // The tools/list "tools" array: [{name, description, inputSchema}, …].
  virtual json list() = 0;
  // A CallToolResult: {content: […], isError?}. Failures of the tool (unknown tool, wrong
  // arguments, a page error) are results with isError true, never exceptions.
  virtual json call(const std::string& name, const json& arguments, CallContext& ctx) = 0;
  // The connection is ending (the client closed stdio, its HTTP session ended, the server stops):
  // the calls still running are cancelled next, by no one's request. Any thread.
  virtual void ending() {}
};

// CallToolResult helpers.
json text_result(const std::string& text, bool is_error = false);
json error_result(const std::string& message);

class Protocol {
 public:
  static constexpr size_t kWorkers = 4;
  static constexpr size_t kMaxWaiting = 64;

  struct Info {
    std::string name = "ouro";
    std::string version;
    std::string instructions;  // for the client's model; empty: none
  };
  // Where the messages about one incoming message go (Streamable HTTP answers each POST on its
  // own): progress notifications and requests to the client of a tool call (`last` false), then
  // its answer (`last` true). A request that ends with no answer (cancelled) gets an empty line
  // with `last` true. Returns false when the message could not be delivered (the client's
  // stream is gone). Any thread; must not call back into the Protocol.
  using Reply = std::function<bool(const std::string& line, bool last)>;

  // `send` writes one message (one line, no newline inside) and must be safe from any thread;
  // it carries whatever on_line(line) without a Reply produces. `tools` outlives the Protocol.
  Protocol(Tools& tools, Info info, std::function<void(const std::string& line)> send);
  // Cancels what runs and waits for the calls to end (their responses are not sent).
  ~Protocol();
  Protocol(const Protocol&) = delete;
  Protocol& operator=(const Protocol&) = delete;

  // Handles one line (one message). Answers to most requests are sent before it returns;
  // tools/call answers later, from a pool thread. Never throws.
  void on_line(std::string_view line);
  // The same, with what it produces going to `reply` instead of the constructor's `send`.
  void on_line(std::string_view line, Reply reply);
  // The reader saw a line over the limit.
  void on_overlong_line();
  // The client went away: cancels every call in flight and fails every request to the client
  // still waiting (Unavailable).
  void cancel_all();
  // Waits until no call is in flight or waiting (tests).
  void drain();
  // Waits at most `deadline`; false when calls were still running then (shutdown: they were
  // cancelled, and end at their own deadlines).
  [[nodiscard]] bool drain_for(std::chrono::milliseconds deadline);
  // After a successful initialize: the revision answered; empty before.
  std::string protocol_version() const;
  // Calls in flight or waiting.
  size_t calls_in_flight() const;

 private:
  struct Call;
  struct Pending;
  void handle(const json& msg, const Reply& reply);
  void start_call(const json& id, const json& params, const Reply& reply);
  void on_answer(const json& msg);

  struct State;
  std::unique_ptr<State> m;
};

}  // namespace ouro::mcp
