#include "llm/errors.h"
#include "llm/streaming.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>

namespace ouro::llm {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool has_any(const std::string& text, std::initializer_list<const char*> words) {
  return std::any_of(words.begin(), words.end(), [&](const char* w) { return text.find(w) != std::string::npos; });
}

size_t collect(char* data, size_t size, size_t n, void* user) {
  auto* out = static_cast<std::string*>(user);
  if (out->size() < (4u << 20)) out->append(data, size * n);
  return size * n;
}

}  // namespace

std::string classify_http(int status, const std::string& message) {
  std::string m = lower(message);
  // Context overflow: OpenAI's context_length_exceeded, Anthropic's "prompt is too long" and
  // "input length and `max_tokens` exceed context limit", vLLM's and llama.cpp's "maximum context
  // length" / "exceeds the context window", 413.
  if (status == 413 || has_any(m, {"context_length_exceeded", "context length", "context window", "prompt is too long",
                                   "maximum context", "context limit", "too many tokens", "reduce the length"}))
    return error_kind::kContextOverflow;
  if (status == 401 || status == 403) return error_kind::kBadKey;
  if (has_any(m, {"model_not_found", "does not exist", "unknown model", "no such model", "not a valid model", "invalid model",
                  "model not found"}) ||
      (status == 404 && m.find("model") != std::string::npos))
    return error_kind::kUnknownModel;
  if (status == 404) return error_kind::kUnknownModel;  // a wrong base URL or model: the list tells which
  if (status == 429) return error_kind::kRateLimited;
  if (status == 529 || m.find("overloaded") != std::string::npos) return error_kind::kOverloaded;
  if (status >= 500) return error_kind::kServerError;
  // vLLM's "tool choice requires --enable-auto-tool-choice", llama.cpp's "tools param requires --jinja".
  if (m.find("tool") != std::string::npos) return error_kind::kToolsRefused;
  return error_kind::kRejected;
}

std::string kind_of(const Error& e) {
  if (e.details.is_object() && e.details.contains("kind") && e.details["kind"].is_string()) return e.details["kind"].get<std::string>();
  return "";
}

std::vector<std::string> list_models(const HttpCall& call, std::chrono::milliseconds timeout, size_t max) {
  std::string url = call.url;
  for (const char* tail : {"/chat/completions", "/messages"})
    if (url.size() > std::strlen(tail) && url.compare(url.size() - std::strlen(tail), std::string::npos, tail) == 0) {
      url = url.substr(0, url.size() - std::strlen(tail)) + "/models";
      break;
    }
  if (url == call.url) return {};
  CURL* curl = curl_easy_init();
  if (!curl) return {};
  struct curl_slist* headers = nullptr;
  for (const auto& h : call.headers)
    if (lower(h).rfind("content-type", 0) != 0 && lower(h).rfind("accept", 0) != 0) headers = curl_slist_append(headers, h.c_str());
  std::string body;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  CURLcode rc = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  if (rc != CURLE_OK || status != 200) return {};
  auto j = parse_json(body, "models list");
  std::vector<std::string> out;
  if (!j || !j->is_object()) return out;
  for (const char* key : {"data", "models"}) {
    auto it = j->find(key);
    if (it == j->end() || !it->is_array()) continue;
    for (const auto& m : *it) {
      std::string id = m.is_object() ? (m.contains("id") && m["id"].is_string() ? m["id"].get<std::string>()
                                        : m.contains("name") && m["name"].is_string() ? m["name"].get<std::string>() : "")
                                     : m.is_string() ? m.get<std::string>() : "";
      if (!id.empty() && id.size() < 200) out.push_back(id);
      if (out.size() >= max) return out;
    }
  }
  return out;
}

}  // namespace ouro::llm
