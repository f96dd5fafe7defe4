#include "host/context.h"

namespace ouro::host {

json ActionCacheStats::to_json() const {
  int64_t h = hits.load(), m = misses.load();
  return {{"hits", h}, {"misses", m}, {"hitRate", h + m ? json(static_cast<double>(h) / static_cast<double>(h + m)) : json(nullptr)}};
}

}  // namespace ouro::host
