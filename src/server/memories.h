// The API's view of the memory entries (GET /api/memory, DELETE /api/memory/{id}). The entries
// themselves are memory::Memory's; a run's own entry is written by runs/remember.h.
#pragma once

#include "base/json.h"

#include <string>

namespace ouro::store { class Database; }

namespace ouro::memory { struct Embeddings; }

namespace ouro::server {

// GET /api/memory?q=…&limit=…&offset=…&tag=…: with q, recall(q) best first (limit 1..50, default
// 10); without, the entries most recently updated first (limit 1..1000, default 100). Each entry:
// {id, text, tags, kind, source_run, created_at, updated_at (ms since the epoch), score?}; the
// answer {entries, total, query?}. `query` is the raw query string of the request (URL-encoded).
// InvalidArgument names a parameter of the wrong shape. Texts and tags are masked for the secrets
// of every run of `data_dir` (safety/known_secrets.h) when it is a directory.
// embeddings (may be null): the server's, to rank by meaning; the answer says which ranking it used.
Result<json> memory_get(store::Database& db, const std::string& query, const std::string& data_dir, const memory::Embeddings* embeddings = nullptr);
// DELETE /api/memory/{id}: {deleted: id}; NotFound for an id with no entry, InvalidArgument for
// one that is not a whole number.
Result<json> memory_delete(store::Database& db, const std::string& id);

}  // namespace ouro::server
