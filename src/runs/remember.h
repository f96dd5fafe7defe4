// Memory across tasks: a finished turn's task and answer remembered for later runs
// (docs/guides/memory.md). The entries themselves are memory::Memory's.
#pragma once

#include "base/json.h"
#include "memory/memory.h"

#include <string>

namespace ouro::store { class Database; }

namespace ouro::runs {

// Remembers "Task: …\nResult: …" (the final as text; JSON as JSON) as a memory of kind Run whose
// source_run is run_id, cut to fit memory's 8 KB cap (the task to 1,000 bytes, the result to the
// rest). Call it only for a turn that finished with a final. Memory only helps later runs: a
// failure is logged as a warning and returned, never thrown, and must not fail the run.
// With embeddings (may be null) the entry gets its vector. Returns what it changed (for undo).
Result<memory::Remembered> remember_run(store::Database& db, const std::string& run_id, const std::string& task, const json& final,
                                        const memory::Embeddings* embeddings = nullptr);

// The text remember_run stores (exposed for tests): at most max_bytes, cut at character
// boundaries with "…" where something was cut.
std::string run_memory_text(const std::string& task, const json& final, size_t max_bytes);

}  // namespace ouro::runs
