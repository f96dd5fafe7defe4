// `ouro serve --browser URL --browser URL …` / `--browser-pool FILE`: the server's runs on a pool of
// remote browsers (session/pool.h) instead of a browser of its own.
#pragma once

#include "base/error.h"

#include <memory>
#include <string>
#include <vector>

namespace ouro::session { struct Runtime; }
namespace ouro::session { class BrowserPool; }

namespace ouro::cli {

struct ServePool {
  std::shared_ptr<session::Runtime> runtime;  // the network thread and database, no browser
  std::shared_ptr<session::BrowserPool> pool;
};

// Whether these flags ask for a pool: a pool file, --browser given more than once, or one
// --browser URL that is served as a pool of one (session::serves_as_pool: http://, browserless).
bool wants_pool(const std::vector<std::string>& browsers, const std::string& pool_file);

// Reads the pool file (at most 1 MiB; its errors name the file), adds each --browser URL (capacity
// 4), and connects them all (session/pool.h: unreachable ones start down and are retried). Prints
// each endpoint's state to stderr. The database is <data_dir>/ouro.db.
Result<ServePool> start_pool(const std::vector<std::string>& browsers, const std::string& pool_file, const std::string& data_dir);

}  // namespace ouro::cli
