#include "memory/embeddings.h"

#include "base/clock.h"
#include "base/log.h"
#include "base/settings_file.h"
#include "base/text.h"
#include "llm/keyring.h"
#include "llm/settings.h"
#include "net/http_post.h"

#include <atomic>
#include <cmath>
#include <limits>
#include <mutex>
#include <cstdlib>
#include <cstring>

namespace ouro::memory {

namespace {

constexpr size_t kMaxAnswerBytes = 32 * 1024 * 1024;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

const llm::Preset* preset_named(const std::string& name) {
  for (const auto& p : llm::presets())
    if (name == p.name) return &p;
  return nullptr;
}

class HttpEmbedder final : public Embedder {
 public:
  HttpEmbedder(EmbeddingsSettings s, std::function<std::string(std::string)> scrub)
      : m_settings(std::move(s)), m_scrub(std::move(scrub)), m_model(redact(m_settings.provider) + "/" + m_settings.model) {}

  const std::string& model() const override { return m_model; }

  Result<std::vector<Vector>> embed(const std::vector<std::string>& texts) const override {
    // An endpoint that is down is not waited on again by every recall and run start for a while.
    if (double until = m_down_until.load(); steady_ms() < until) {
      std::lock_guard lock(m_mutex);
      return errorf(Code::Unavailable, "{} (not asked again for {} s)", m_last_error, static_cast<int>((until - steady_ms()) / 1000) + 1);
    }
    std::vector<Vector> out;
    for (size_t from = 0; from < texts.size(); from += kMaxBatch) {
      std::vector<std::string> batch(texts.begin() + static_cast<std::ptrdiff_t>(from),
                                     texts.begin() + static_cast<std::ptrdiff_t>(std::min(texts.size(), from + kMaxBatch)));
      auto got = request(batch);
      if (!got && (got.error().code == Code::Unavailable || got.error().code == Code::DeadlineExceeded)) {
        std::lock_guard lock(m_mutex);
        m_last_error = got.error().message;
        m_down_until = steady_ms() + kQuietMs;
      }
      if (!got) return tl::make_unexpected(got.error());
      for (auto& v : *got) out.push_back(std::move(v));
    }
    return out;
  }

 private:
  std::string endpoint() const {
    std::string base = m_settings.base_url;
    while (!base.empty() && base.back() == '/') base.pop_back();
    return base + "/embeddings";
  }

  Result<std::vector<Vector>> request(std::vector<std::string> texts) const {
    for (auto& t : texts) {
      if (m_scrub) t = m_scrub(std::move(t));
      t = clip_head(t, kMaxEmbedTextBytes);
      if (t.empty()) t = " ";  // an endpoint may refuse an empty input
    }
    const std::string url = endpoint();
    const std::string shown = redact(url);
    net::PostOptions o;
    if (!m_settings.api_key.empty()) o.headers.push_back("Authorization: Bearer " + m_settings.api_key);
    o.timeout = m_settings.timeout;
    o.max_answer_bytes = kMaxAnswerBytes;
    auto answer = net::post(url, dump_json(json{{"model", m_settings.model}, {"input", texts}}), o);
    if (!answer) return errorf(answer.error().code, "embeddings: {}: {}", shown, redact(answer.error().message));
    const long status = answer->status;
    if (status == 401 || status == 403)
      return errorf(Code::PermissionDenied, "embeddings: {} refused the key (HTTP {}): set OURO_EMBEDDINGS_API_KEY or `ouro auth set {}`", shown,
                    status, m_settings.provider);
    // A text refused (4xx but for the key, a timeout or a rate limit) is the text's fault; the rest is the endpoint's.
    const bool refused = status >= 400 && status < 500 && status != 408 && status != 429;
    if (status < 200 || status >= 300)
      return errorf(refused ? Code::InvalidArgument : Code::Unavailable, "embeddings: {} answered HTTP {}: {}", shown, status,
                    redact(clip_line(answer->body, 200)));
    return parse(answer->body, texts.size(), shown);
  }

  // {"data": [{"index": i, "embedding": [numbers]}, …]}: one per input, all of one length.
  static Result<std::vector<Vector>> parse(const std::string& body, size_t expected, const std::string& shown) {
    auto doc = parse_json(body, "the embeddings answer");
    if (!doc) return errorf(Code::DataLoss, "embeddings: {} answered something that is not JSON", shown);
    const json& data = get_field(*doc, "data");
    if (!data.is_array() || data.size() != expected)
      return errorf(Code::DataLoss, "embeddings: {} answered {} vectors for {} texts (expected {{\"data\": [{{\"embedding\": […]}}]}})", shown,
                    data.is_array() ? data.size() : 0, expected, expected);
    std::vector<Vector> out(expected);
    size_t dims = 0;
    for (size_t i = 0; i < data.size(); ++i) {
      const json& item = data[i];
      size_t at = i;
      if (const json& index = get_field(item, "index"); index.is_number_unsigned()) at = index.get<size_t>();
      const json& e = get_field(item, "embedding");
      if (at >= expected || !out[at].empty() || !e.is_array() || e.empty() || e.size() > kMaxDimensions)
        return errorf(Code::DataLoss, "embeddings: {} answered a vector that is missing, repeated, empty or over {} dimensions", shown, kMaxDimensions);
      if (dims == 0) dims = e.size();
      if (e.size() != dims) return errorf(Code::DataLoss, "embeddings: {} answered vectors of different lengths ({} and {})", shown, dims, e.size());
      Vector v;
      v.reserve(dims);
      for (const auto& x : e) {
        if (!x.is_number() || !std::isfinite(x.get<double>()) || std::abs(x.get<double>()) > std::numeric_limits<float>::max())
          return errorf(Code::DataLoss, "embeddings: {} answered a vector holding a non-number or one out of range", shown);
        v.push_back(static_cast<float>(x.get<double>()));
      }
      out[at] = std::move(v);
    }
    return out;
  }

  static constexpr double kQuietMs = 30000;
  EmbeddingsSettings m_settings;
  std::function<std::string(std::string)> m_scrub;
  std::string m_model;
  mutable std::atomic<double> m_down_until{-1e300};  // steady ms: a wall clock set back would stretch the pause
  mutable std::mutex m_mutex;
  mutable std::string m_last_error;  // m_mutex
};

}  // namespace

Result<std::optional<EmbeddingsSettings>> resolve_embeddings(const json& file, const std::string& secrets_path) {
  json section = file.is_object() ? get_field(file, "embeddings") : json(nullptr);
  if (!section.is_null() && !section.is_object())
    return make_error(Code::InvalidArgument, "\"embeddings\" in the settings file is {\"provider\": \"openai\", \"model\": \"text-embedding-3-small\"}");
  auto field = [&](const char* env_name, const char* key) -> Result<std::string> {
    if (std::string v = env(env_name); !v.empty()) return v;
    const json& v = get_field(section, key);
    if (v.is_null()) return std::string();
    if (!v.is_string()) return errorf(Code::InvalidArgument, "\"embeddings\".\"{}\" in the settings file is a string", key);
    return v.get<std::string>();
  };
  EmbeddingsSettings s;
  s.provider = TRY(field("OURO_EMBEDDINGS_PROVIDER", "provider"));
  s.model = TRY(field("OURO_EMBEDDINGS_MODEL", "model"));
  s.base_url = TRY(field("OURO_EMBEDDINGS_BASE_URL", "base_url"));
  s.api_key = TRY(field("OURO_EMBEDDINGS_API_KEY", "api_key"));
  if (s.provider.empty() && s.model.empty() && s.base_url.empty()) return std::optional<EmbeddingsSettings>();
  s.source = !env("OURO_EMBEDDINGS_MODEL").empty() || !env("OURO_EMBEDDINGS_PROVIDER").empty() ? "OURO_EMBEDDINGS_*" : "the settings file";
  if (s.provider.empty()) s.provider = s.base_url.empty() ? "openai" : s.base_url;
  std::string key_env;
  if (s.provider.rfind("http://", 0) == 0 || s.provider.rfind("https://", 0) == 0) {
    if (s.base_url.empty()) s.base_url = s.provider;
  } else if (const llm::Preset* p = preset_named(s.provider); p && std::string_view(p->kind) == "openai") {
    if (s.base_url.empty()) s.base_url = p->base_url;
    key_env = p->key_env;
  } else {
    return errorf(Code::InvalidArgument,
                  "embeddings provider '{}' does not serve OpenAI's /embeddings: use openai, openrouter, together, ollama, lmstudio, vllm, "
                  "llamacpp, or a base URL (http://127.0.0.1:11434/v1)", clip_line(s.provider, 60));
  }
  if (s.model.empty()) return errorf(Code::InvalidArgument, "embeddings: no model for provider '{}': set \"embeddings\".\"model\"", s.provider);
  if (s.api_key.empty() && !key_env.empty()) s.api_key = env(key_env.c_str());
  if (s.api_key.empty() && !key_env.empty()) {
    if (auto k = llm::keyring_lookup(s.provider)) s.api_key = *k;
    else if (!secrets_path.empty())
      if (auto f = llm::key_file_lookup(secrets_path, s.provider)) s.api_key = *f;
  }
  return std::optional<EmbeddingsSettings>(std::move(s));
}

std::shared_ptr<const Embedder> http_embedder(EmbeddingsSettings settings, std::function<std::string(std::string)> scrub) {
  return std::make_shared<HttpEmbedder>(std::move(settings), std::move(scrub));
}

Embeddings configured_embeddings(const std::string& settings_path, const std::string& secrets_path) {
  Embeddings out;
  std::string path = !settings_path.empty() ? settings_path : !env("OURO_CONFIG").empty() ? env("OURO_CONFIG") : llm::default_config_path();
  auto file = read_settings_file(path);
  if (!file) {
    out.why_not = "the settings file cannot be read: " + redact(file.error().message);
    return out;
  }
  auto resolved = resolve_embeddings(file->data, secrets_path);
  if (!resolved) {
    out.why_not = "the embeddings settings are wrong: " + resolved.error().message;
    return out;
  }
  if (*resolved) out.embedder = http_embedder(std::move(**resolved), [](std::string t) { return redact(t); });
  return out;
}

std::string to_blob(const Vector& v) {
  std::string out(v.size() * 4, '\0');
  for (size_t i = 0; i < v.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &v[i], 4);
    for (int b = 0; b < 4; ++b) out[i * 4 + static_cast<size_t>(b)] = static_cast<char>((bits >> (8 * b)) & 0xFF);
  }
  return out;
}

std::optional<Vector> from_blob(std::string_view blob) {
  if (blob.empty() || blob.size() % 4 != 0 || blob.size() / 4 > kMaxDimensions) return std::nullopt;
  Vector v(blob.size() / 4);
  for (size_t i = 0; i < v.size(); ++i) {
    uint32_t bits = 0;
    for (int b = 0; b < 4; ++b) bits |= static_cast<uint32_t>(static_cast<unsigned char>(blob[i * 4 + static_cast<size_t>(b)])) << (8 * b);
    std::memcpy(&v[i], &bits, 4);
    if (!std::isfinite(v[i])) return std::nullopt;
  }
  return v;
}

double cosine(const Vector& a, const Vector& b) {
  if (a.size() != b.size() || a.empty()) return 0;
  double dot = 0, na = 0, nb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    dot += static_cast<double>(a[i]) * b[i];
    na += static_cast<double>(a[i]) * a[i];
    nb += static_cast<double>(b[i]) * b[i];
  }
  if (na <= 0 || nb <= 0) return 0;
  return dot / (std::sqrt(na) * std::sqrt(nb));
}

}  // namespace ouro::memory
