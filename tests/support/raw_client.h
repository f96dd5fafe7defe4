// A raw TCP client on 127.0.0.1 for server tests: sends exactly the bytes given (malformed
// requests, headers without their body, a WebSocket handshake) and reads with deadlines, so a
// test can tell "answered while I was still sending" from "answered after reading everything".
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace ouro::testing {

struct RawResponse {
  int status = 0;                              // 0: no status line arrived
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  bool complete = false;                       // the whole body (Content-Length) arrived
};

// A WebSocket frame from a server (RFC 6455 §5.2; servers do not mask).
struct WsFrame {
  int opcode = 0;  // 0 continuation, 1 text, 8 close
  bool fin = true;  // the last frame of its message
  std::string payload;
  uint16_t close_code() const;
  std::string close_reason() const;
};

class RawClient {
 public:
  // Connects to 127.0.0.1:port; throws std::runtime_error when it cannot.
  explicit RawClient(uint16_t port);
  ~RawClient();
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  // Sends everything, or returns false when the server closed or reset the connection.
  bool send(std::string_view bytes);
  // Reads one HTTP response (header and Content-Length body, none for a HEAD request), until
  // the deadline.
  RawResponse read_response(std::chrono::milliseconds deadline = std::chrono::seconds(5), bool head = false);
  // True when the server closes the connection (EOF or reset) within the deadline; what
  // arrives before is discarded.
  bool closed_within(std::chrono::milliseconds deadline);
  // What arrives (after what read_response left) until the server closes the connection or the
  // deadline: a body delimited by the close (a streamed response).
  std::string read_to_close(std::chrono::milliseconds deadline = std::chrono::seconds(5));
  // Reads one WebSocket frame, until the deadline.
  std::optional<WsFrame> read_frame(std::chrono::milliseconds deadline = std::chrono::seconds(5));
  // Reads one whole message (its frames joined) or a control frame, until the deadline.
  std::optional<WsFrame> read_message(std::chrono::milliseconds deadline = std::chrono::seconds(5));
  // Sends a WebSocket upgrade for `target` with the given extra header lines and reads the
  // server's answer (101 when accepted).
  RawResponse upgrade(const std::string& target, const std::string& extra_headers = "");

 private:
  // Appends what arrives to m_pending until `want` bytes are there, EOF or the deadline.
  bool fill(size_t want, std::chrono::steady_clock::time_point until);
  int m_fd = -1;
  uint16_t m_port = 0;
  std::string m_pending;
  bool m_eof = false;
};

}  // namespace ouro::testing
