// A stand-in for a hosted embeddings model on 127.0.0.1: OpenAI's POST /v1/embeddings
// (https://platform.openai.com/docs/api-reference/embeddings/create) answered with vectors that
// put words of one meaning on one axis (a small thesaurus: "car", "automobile" and "vehicle" are
// one concept), other words on hashed axes. A paraphrase that shares no word with a text is near
// it, as with a real model; unrelated texts are far apart. It keeps what it was sent, so tests
// can check what left ouro, and can be told to fail or to answer slowly.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ouro::net { class IoThread; class HttpServer; }

namespace ouro::testing {

class EmbeddingsServer {
 public:
  EmbeddingsServer();
  ~EmbeddingsServer();
  std::string base_url() const;  // http://127.0.0.1:PORT/v1
  // Every text it was asked to embed, in order.
  std::vector<std::string> inputs() const;
  // From now on every request gets this HTTP status (0: answer normally).
  void fail_with(int status) { m_fail = status; }
  // From now on a request holding a text with this word is refused with 400 (as a real endpoint
  // refuses a text it cannot take); "" ends that.
  void refuse_containing(const std::string& word) {
    std::lock_guard lock(m_mutex);
    m_refuse = word;
  }
  // The vector of a text, as the server computes it (for tests of ranking).
  static std::vector<float> embed(const std::string& text);

 private:
  std::shared_ptr<net::IoThread> m_io;
  std::unique_ptr<net::HttpServer> m_server;
  mutable std::mutex m_mutex;
  std::vector<std::string> m_inputs;
  std::atomic<int> m_fail{0};
  std::string m_refuse;  // m_mutex
};

}  // namespace ouro::testing
