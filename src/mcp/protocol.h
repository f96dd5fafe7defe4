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
//     are ignored (never answered), and so are responses (this server sends no requests).
#pragma once

#include "base/json.h"

#include <atomic>
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
enum ErrorCode : int { kParseError = -32700, kInvalidRequest = -32600, kMethodNotFound = -32601, kInvalidParams = -32602, kInternalError = -32603 };

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
  // `send` writes one message (one line, no newline inside) and must be safe from any thread;
  // `tools` outlives the Protocol.
  Protocol(Tools& tools, Info info, std::function<void(const std::string& line)> send);
  // Cancels what runs and waits for the calls to end (their responses are not sent).
  ~Protocol();
  Protocol(const Protocol&) = delete;
  Protocol& operator=(const Protocol&) = delete;

  // Handles one line (one message). Answers to most requests are sent before it returns;
  // tools/call answers later, from a pool thread. Never throws.
  void on_line(std::string_view line);
  // The reader saw a line over the limit.
  void on_overlong_line();
  // The client went away: cancels every call in flight.
  void cancel_all();
  // Waits until no call is in flight or waiting (tests; shutdown).
  void drain();

 private:
  struct Call;
  void handle(const json& msg);
  void start_call(const json& id, const json& params);
  void send(const json& msg);
  void finish(const std::shared_ptr<Call>& call, json result);

  struct State;
  std::unique_ptr<State> m;
};

}  // namespace ouro::mcp
