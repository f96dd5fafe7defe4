// A raw HTTP server on 127.0.0.1 for provider tests: each connection plays the next scripted
// response byte for byte — chunks split anywhere (inside a line, inside a UTF-8 character),
// pauses, and connections dropped mid-stream — so the client meets real wire conditions.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ouro::testing {

struct Step {
  enum Kind { Write, Sleep, Close } kind;
  std::string bytes;
  std::chrono::milliseconds pause{0};
  static Step write(std::string b) { return {Write, std::move(b), {}}; }
  static Step sleep(std::chrono::milliseconds ms) { return {Sleep, "", ms}; }
  static Step close() { return {Close, "", {}}; }
};

class RawServer {
 public:
  RawServer();
  ~RawServer();
  std::string url() const;  // http://127.0.0.1:PORT
  // The next connection plays these steps, then closes.
  void push(std::vector<Step> steps);
  // Requests received so far (head and body), in order.
  std::vector<std::string> requests() const;

  // An SSE response head for status 200 (Connection: close; the body ends when the socket does).
  static std::string sse_head();
  static std::string error_response(int status, const std::string& body, const std::string& extra_headers = "");

 private:
  void serve();
  void handle(int connection);
  int m_listen = -1;
  int m_port = 0;
  bool m_stop = false;
  mutable std::mutex m_mutex;
  std::deque<std::vector<Step>> m_scripts;
  std::vector<std::string> m_requests;
  std::thread m_thread;
  std::vector<std::thread> m_connections;
};

}  // namespace ouro::testing
