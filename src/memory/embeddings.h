// Embeddings for memory by meaning (docs/guides/memory.md): an OpenAI-compatible `/embeddings`
// endpoint (https://platform.openai.com/docs/api-reference/embeddings: hosted keys, or a local
// server such as Ollama's or llama.cpp's) configured as models are, and the vectors as memory
// keeps them (float32 blobs, ranked in ouro: neither SQLite nor Debian 12's PostgreSQL has a
// vector index).
#pragma once

#include "base/error.h"
#include "base/json.h"

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ouro::memory {

using Vector = std::vector<float>;

// Caps on what an endpoint may answer: more dimensions, or a longer answer, is an error.
constexpr size_t kMaxDimensions = 8192;
constexpr size_t kMaxBatch = 64;  // texts per request
constexpr size_t kMaxEmbedTextBytes = 8 * 1024;

// Turns texts into vectors. Thread-safe.
class Embedder {
 public:
  virtual ~Embedder() = default;
  // One vector per text, in order, all of one length. Texts pass `scrub` first (the run's secrets,
  // as prompts do) when the embedder was given one.
  virtual Result<std::vector<Vector>> embed(const std::vector<std::string>& texts) const = 0;
  // "provider/model": vectors of different models are never compared.
  virtual const std::string& model() const = 0;
};

struct EmbeddingsSettings {
  std::string provider;  // as written: "openai", "ollama", "http://…/v1"
  std::string base_url;  // …/v1; the request goes to base_url + "/embeddings"
  std::string model;
  std::string api_key;   // may be empty (a local server)
  std::string source;    // where it was configured: "OURO_EMBEDDINGS_MODEL", "the settings file"
  std::chrono::milliseconds timeout{10000};
};

// The embeddings a face uses: OURO_EMBEDDINGS_PROVIDER / OURO_EMBEDDINGS_MODEL /
// OURO_EMBEDDINGS_BASE_URL / OURO_EMBEDDINGS_API_KEY, else the settings file's
// "embeddings": {"provider", "model", "base_url"?, "api_key"?}. The provider is one of the model
// presets that speak OpenAI's API (openai, ollama, llamacpp, …) or a base URL; the key is the
// preset's environment variable, else the one `ouro auth set PROVIDER` stored. nullopt when none
// is configured; InvalidArgument naming the field when the configuration is wrong.
Result<std::optional<EmbeddingsSettings>> resolve_embeddings(const json& settings_file, const std::string& secrets_path);

// An embedder over that endpoint. scrub (may be empty) is applied to every text sent.
std::shared_ptr<const Embedder> http_embedder(EmbeddingsSettings settings, std::function<std::string(std::string)> scrub = {});

// What a face has: the embedder, or why there is none (said by recall when it falls back).
struct Embeddings {
  std::shared_ptr<const Embedder> embedder;
  std::string why_not = "no embeddings provider is configured (docs/guides/memory.md: \"embeddings\" in the settings file)";
};
// resolve_embeddings + http_embedder, reading the settings file at path ("" : OURO_CONFIG, else
// the default). A configuration error is not fatal: memory ranks by words and says why.
Embeddings configured_embeddings(const std::string& settings_path = "", const std::string& secrets_path = "");

// Vectors as stored: little-endian float32, 4 bytes per dimension.
std::string to_blob(const Vector& v);
// nullopt when the blob is not a whole number of floats, or holds a NaN or infinity.
std::optional<Vector> from_blob(std::string_view blob);
// Cosine similarity in [-1, 1]; 0 when the lengths differ or a vector is all zeros.
double cosine(const Vector& a, const Vector& b);

}  // namespace ouro::memory
