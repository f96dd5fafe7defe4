#include "embeddings_server.h"

#include "base/json.h"
#include "net/http_server.h"
#include "net/io.h"

#include <cctype>
#include <cmath>
#include <functional>
#include <stdexcept>

namespace ouro::testing {

namespace {

constexpr size_t kDims = 64;
constexpr size_t kConcepts = 16;

// Words of one meaning share an axis (stems: a word matches when it starts with one of these).
const std::vector<std::vector<std::string>>& thesaurus() {
  static const std::vector<std::vector<std::string>> t = {
      {"car", "automobile", "vehicle", "sedan", "motor"},
      {"doctor", "physician", "dentist", "clinic", "gp"},
      {"cheap", "inexpensive", "affordable", "budget", "bargain", "low-cost"},
      {"flight", "plane", "airline", "fly", "flying", "airfare"},
      {"password", "passphrase", "credential", "login"},
      {"birthday", "born", "anniversary"},
      {"mother", "mom", "mum", "parent"},
      {"pizza", "pasta", "italian", "restaurant", "dinner"},
      {"dog", "puppy", "canine", "hound"},
      {"invoice", "bill", "receipt", "payment"},
      {"prefer", "favourite", "favorite", "likes", "fond"},
      {"aisle", "window", "seat", "seating"},
  };
  return t;
}

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::string w;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-') w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!w.empty()) out.push_back(std::move(w)), w.clear();
  }
  if (!w.empty()) out.push_back(std::move(w));
  return out;
}

}  // namespace

std::vector<float> EmbeddingsServer::embed(const std::string& text) {
  static const std::vector<std::string> stop = {"a", "an", "the", "my", "is", "of", "to", "for", "and", "i", "in", "on", "what", "which", "do", "at"};
  std::vector<float> v(kDims, 0.0f);
  for (const auto& w : words(text)) {
    if (std::find(stop.begin(), stop.end(), w) != stop.end()) continue;
    bool known = false;
    const auto& t = thesaurus();
    for (size_t c = 0; c < t.size() && !known; ++c)
      for (const auto& stem : t[c])
        if (w.rfind(stem, 0) == 0) {
          v[c] += 1.0f;
          known = true;
          break;
        }
    if (!known) v[kConcepts + std::hash<std::string>{}(w) % (kDims - kConcepts)] += 0.5f;
  }
  double norm = 0;
  for (float x : v) norm += static_cast<double>(x) * x;
  if (norm > 0)
    for (float& x : v) x = static_cast<float>(x / std::sqrt(norm));
  return v;
}

EmbeddingsServer::EmbeddingsServer() : m_io(net::IoThread::start()) {
  auto server = net::HttpServer::start(*m_io, {}, [this](const net::HttpRequest& r) {
    if (int status = m_fail.load(); status != 0) return net::json_error(status, "Failing", "told to fail");
    if (r.method != "POST" || r.path != "/v1/embeddings") return net::json_error(404, "NotFound", "POST /v1/embeddings");
    auto body = parse_json(r.body, "body");
    if (!body || !body->is_object()) return net::json_error(400, "InvalidArgument", "not JSON");
    json input = get_field(*body, "input");
    if (input.is_string()) input = json::array({input});
    if (!input.is_array()) return net::json_error(400, "InvalidArgument", "input is a string or a list of strings");
    {
      std::lock_guard lock(m_mutex);
      if (!m_refuse.empty())
        for (const auto& in : input)
          if (in.is_string() && in.get<std::string>().find(m_refuse) != std::string::npos)
            return net::json_error(400, "InvalidArgument", "this input cannot be embedded");
    }
    json data = json::array();
    for (size_t i = 0; i < input.size(); ++i) {
      const std::string text = input[i].is_string() ? input[i].get<std::string>() : "";
      {
        std::lock_guard lock(m_mutex);
        m_inputs.push_back(text);
      }
      data.push_back({{"object", "embedding"}, {"index", i}, {"embedding", embed(text)}});
    }
    net::HttpResponse res;
    res.content_type = "application/json";
    res.body = dump_json(json{{"object", "list"}, {"data", data}, {"model", get_str(*body, "model")}});
    return res;
  });
  if (!server) throw std::runtime_error("embeddings stand-in: " + server.error().message);
  m_server = std::move(*server);
}

EmbeddingsServer::~EmbeddingsServer() { m_server.reset(); }

std::string EmbeddingsServer::base_url() const { return "http://127.0.0.1:" + std::to_string(m_server->port()) + "/v1"; }

std::vector<std::string> EmbeddingsServer::inputs() const {
  std::lock_guard lock(m_mutex);
  return m_inputs;
}

}  // namespace ouro::testing
