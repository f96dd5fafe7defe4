#include "cli/pool.h"

#include "memory/embeddings.h"
#include "net/io.h"
#include "session/pool.h"
#include "session/session.h"
#include "store/database.h"

#include <fstream>
#include <iostream>
#include <sstream>

namespace ouro::cli {

bool wants_pool(const std::vector<std::string>& browsers, const std::string& pool_file) {
  return !pool_file.empty() || browsers.size() > 1 || (browsers.size() == 1 && session::serves_as_pool(browsers.front()));
}

Result<ServePool> start_pool(const std::vector<std::string>& browsers, const std::string& pool_file, const std::string& data_dir) {
  std::vector<session::PoolEndpoint> endpoints;
  if (!pool_file.empty()) {
    std::ifstream in(pool_file, std::ios::binary);
    if (!in) return errorf(Code::NotFound, "cannot read the pool file {}", pool_file);
    std::string text(1024 * 1024 + 1, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<size_t>(in.gcount()));
    if (text.size() > 1024 * 1024) return errorf(Code::InvalidArgument, "the pool file {} is over 1 MiB", pool_file);
    auto parsed = session::parse_pool_file(text);
    if (!parsed) return errorf(Code::InvalidArgument, "{}: {}", pool_file, parsed.error().message);
    endpoints = std::move(*parsed);
  }
  for (const auto& url : browsers) {
    auto e = session::parse_endpoint_url(url);
    if (!e) return errorf(Code::InvalidArgument, "--browser: {}", e.error().message);
    endpoints.push_back(*e);
  }
  std::shared_ptr<net::IoThread> io = net::IoThread::start();
  std::shared_ptr<store::Database> db = TRY(store::Database::open(data_dir + "/ouro.db"));
  ServePool out;
  out.pool = TRY(session::BrowserPool::create(io, db, data_dir, std::move(endpoints)));
  out.runtime = std::make_shared<session::Runtime>();
  out.runtime->io = io;
  out.runtime->db = db;
  out.runtime->data_dir = data_dir;
  out.runtime->embeddings = std::make_shared<memory::Embeddings>(memory::configured_embeddings("", data_dir + "/secrets.json"));
  json state = out.pool->to_json();
  std::cerr << "Browser pool: " << state["healthy"].get<int>() << " of " << state["endpoints"].size() << " endpoints healthy, "
            << state["capacity"].get<int>() << " places\n";
  for (const auto& e : state["endpoints"])
    std::cerr << "  " << e["url"].get<std::string>() << "  " << e["state"].get<std::string>() << ", capacity " << e["capacity"].get<int>()
              << (e["lastError"].is_string() ? "  (" + e["lastError"].get<std::string>() + ")" : "") << "\n";
  return out;
}

}  // namespace ouro::cli
