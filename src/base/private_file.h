// Files only their owner may read (keys, settings with secrets), written whole or not at all.
#pragma once

#include "base/error.h"

#include <string>

namespace ouro {

// Writes `content` to `path`: a new file is created with mode 0600 (never wider, not even for a
// moment), written, flushed and renamed over the old one, so a reader sees the old content or
// the new, never a part.
Result<void> write_private_file(const std::string& path, const std::string& content);

}  // namespace ouro
