#include "server/memories.h"
#include "base/text.h"

#include "base/log.h"
#include "memory/memory.h"
#include "store/database.h"

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <optional>

namespace ouro::server {

namespace {


// One parameter of a URL query string, percent-decoded ('+' is a space, as forms send it);
// nullopt when absent. A malformed escape is kept as it is.
std::optional<std::string> param(const std::string& query, const std::string& key) {
  size_t pos = 0;
  while (pos <= query.size()) {
    size_t amp = query.find('&', pos);
    std::string part = query.substr(pos, amp == std::string::npos ? std::string::npos : amp - pos);
    if (part == key || part.rfind(key + "=", 0) == 0) {
      std::string raw = part.size() > key.size() ? part.substr(key.size() + 1) : "", out;
      for (size_t i = 0; i < raw.size(); ++i) {
        auto hex = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1; };
        if (raw[i] == '+') {
          out += ' ';
        } else if (raw[i] == '%' && i + 2 < raw.size() && hex(raw[i + 1]) >= 0 && hex(raw[i + 2]) >= 0) {
          out += static_cast<char>(hex(raw[i + 1]) * 16 + hex(raw[i + 2]));
          i += 2;
        } else {
          out += raw[i];
        }
      }
      return out;
    }
    if (amp == std::string::npos) break;
    pos = amp + 1;
  }
  return std::nullopt;
}

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

// Memory's messages begin "memory: "; the API's name what was asked.
Error for_api(Error e) {
  if (e.message.rfind("memory: ", 0) == 0) e.message = e.message.substr(8);
  return e;
}

}  // namespace

Result<json> memory_get(store::Database& db, const std::string& query) {
  memory::Memory memory(db);
  auto q = param(query, "q");
  auto tag = param(query, "tag").value_or("");
  if (q && !q->empty()) {
    int64_t limit = 10;
    if (auto l = param(query, "limit")) limit = TRY(whole("limit", *l, 1, memory::kMaxRecall));
    auto found = memory.recall(*q, static_cast<int>(limit), tag);
    if (!found) return tl::make_unexpected(for_api(found.error()));
    json entries = json::array();
    for (const auto& e : *found) entries.push_back(entry_json(e, true));
    auto total = memory.count();
    return json{{"entries", entries}, {"total", total ? json(*total) : json(nullptr)}, {"query", *q}};
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
  return json{{"entries", entries}, {"total", total ? json(*total) : json(nullptr)}};
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
