// How a snapshot's lists take in those of its cross-origin frames (reads.cpp asks the frames;
// this is the arithmetic, pure): each list keeps to its cap (`topK`, else 30 actions and 20 forms
// or collections); when the top document's own items would fill it, a third is kept for frames'
// items (frames may fill whatever the top leaves), unless a `text` ranks them all by score
// together; whatever is left out is counted in `more`; then the whole snapshot is cut
// from its lists' ends until it fits the engine's budget, each cut counted too.
#pragma once

#include "base/json.h"

#include <cstddef>
#include <vector>

namespace ouro::perception {

// The engine's own budget for one snapshot, in characters of its JSON.
inline constexpr size_t kSnapshotChars = 16000;

// The cap of list `key` ("actions", "forms", "collections") under the snapshot's options.
size_t list_cap(const json& opts, const char* key);
// Adds the frames' snapshot lists (`subs`) to the top document's (`top`), as above.
void merge_lists(json& top, const std::vector<json>& subs, const json& opts);
// Drops the last items of the lists (actions first) until `snap` fits `max_chars`.
void fit_snapshot(json& snap, size_t max_chars = kSnapshotChars);

}  // namespace ouro::perception
