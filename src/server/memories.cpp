#include "server/memories.h"
#include "base/text.h"

#include "base/log.h"
#include "memory/memory.h"
#include "safety/known_secrets.h"
#include "net/http_server.h"
#include "store/database.h"

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <optional>

namespace ouro::server {

namespace {


std::optional<std::string> param(const std::string& query, std::string_view key) { return net::query_param(query, key); }

// A whole number in [lo, hi] from text, or InvalidArgument naming the parameter.
Result<int64_t> whole(const std::string& name, const std::string& text, int64_t lo, int64_t hi) {
  char* end = nullptr;
  errno = 0;
  long long n = text.empty() ? 0 : std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end || errno || n < lo || n > hi || !(std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '-'))
    return errorf(Code::InvalidArgument, "{} must be a whole number from {} to {}, got '{}'", name, lo, hi, text.substr(0, 40));
  return static_cast<int64_t>(n);
}

json entry_json(const memory::Entry& e, bool scored) { return memory::to_json(e, scored); }

// What the API shows of memory is masked for every run's secrets, as a run's recall() is.
Result<json> masked(json answer, const std::string& data_dir) {
  std::error_code error;
  if (data_dir.empty() || !std::filesystem::is_directory(data_dir, error)) return answer;
  auto known = TRY(safety::KnownSecrets::open((std::filesystem::path(data_dir) / "secret-digests").string()));
  known->scrub(answer["entries"]);
  return answer;
}

// Memory's messages begin "memory: "; the API's name what was asked.
Error for_api(Error e) {
  if (e.message.rfind("memory: ", 0) == 0) e.message = e.message.substr(8);
  return e;
}

}  // namespace

Result<json> memory_get(store::Database& db, const std::string& query, const std::string& data_dir, const memory::Embeddings* embeddings) {
  memory::Memory memory(db, embeddings);
  auto q = param(query, "q");
  auto tag = param(query, "tag").value_or("");
  if (q && !q->empty()) {
    int64_t limit = 10;
    if (auto l = param(query, "limit")) limit = TRY(whole("limit", *l, 1, memory::kMaxRecall));
    auto found = memory.recall(*q, static_cast<int>(limit), tag);
    if (!found) return tl::make_unexpected(for_api(found.error()));
    json entries = json::array();
    for (const auto& e : found->entries) entries.push_back(entry_json(e, true));
    auto total = memory.count();
    return masked(json{{"entries", entries}, {"total", total ? json(*total) : json(nullptr)}, {"query", *q}, {"ranking", found->ranking},
                       {"ranking_note", found->note}},
                  data_dir);
  }
  if (!tag.empty()) return make_error(Code::InvalidArgument, "tag filters a search: give q=words as well (GET /api/memory?q=…&tag=…)");
  int64_t limit = 100, offset = 0;
  if (auto l = param(query, "limit")) limit = TRY(whole("limit", *l, 1, memory::kMaxList));
  if (auto o = param(query, "offset")) offset = TRY(whole("offset", *o, 0, 1'000'000'000));
  auto listed = memory.list(static_cast<int>(limit), static_cast<int>(offset));
  if (!listed) return tl::make_unexpected(for_api(listed.error()));
  json entries = json::array();
  for (const auto& e : *listed) entries.push_back(entry_json(e, false));
  auto total = memory.count();
  return masked(json{{"entries", entries}, {"total", total ? json(*total) : json(nullptr)}}, data_dir);
}

Result<json> memory_delete(store::Database& db, const std::string& id_text) {
  auto id = whole("the memory id", id_text, 1, INT64_MAX);
  if (!id) return errorf(Code::InvalidArgument, "DELETE /api/memory/{{id}}: the id is a whole number (as GET /api/memory lists), got '{}'",
                         id_text.substr(0, 40));
  memory::Memory memory(db);
  auto gone = memory.forget(*id);
  if (!gone) return tl::make_unexpected(for_api(gone.error()));
  if (!*gone) return errorf(Code::NotFound, "no memory #{} (it may have been deleted already)", *id);
  return json{{"deleted", *id}};
}

}  // namespace ouro::server
