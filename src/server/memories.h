// Memory across tasks on the server's side (seed 004, "Memory System"): a finished turn's task and
// answer remembered for later runs, and the API's view of the entries (GET /api/memory,
// DELETE /api/memory/{id}). The entries themselves are memory::Memory's.
#pragma once

#include "base/json.h"

#include <string>

namespace ouro::store { class Database; }

namespace ouro::server {

// Remembers "Task: …\nResult: …" (the final as text; JSON as JSON) as a memory of kind Run whose
// source_run is run_id, cut to fit memory's 8 KB cap (the task to 1,000 bytes, the result to the
// rest). Call it only for a turn that finished with a final. Memory only helps later runs: a
// failure is logged as a warning and returned, never thrown, and must not fail the run.
Result<int64_t> remember_run(store::Database& db, const std::string& run_id, const std::string& task, const json& final);

// The text remember_run stores (exposed for tests): at most max_bytes, cut at character
// boundaries with "…" where something was cut.
std::string run_memory_text(const std::string& task, const json& final, size_t max_bytes);

// GET /api/memory?q=…&limit=…&offset=…&tag=…: with q, recall(q) best first (limit 1..50, default
// 10); without, the entries most recently updated first (limit 1..1000, default 100). Each entry:
// {id, text, tags, kind, source_run, created_at, updated_at (ms since the epoch), score?}; the
// answer {entries, total, query?}. `query` is the raw query string of the request (URL-encoded).
// InvalidArgument names a parameter of the wrong shape.
Result<json> memory_get(store::Database& db, const std::string& query);
// DELETE /api/memory/{id}: {deleted: id}; NotFound for an id with no entry, InvalidArgument for
// one that is not a whole number.
Result<json> memory_delete(store::Database& db, const std::string& id);

}  // namespace ouro::server
