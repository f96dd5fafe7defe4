// Browser pools, measured: the throughput of a scripted task — runs finished per minute
// with N runs submitted at once — on a pool of 1, 2 and 3 endpoints, each a local Chromium started
// with --remote-debugging-port=0 and reached over ws:// as a remote one would be, in one process
// run. The task (4 iterations on the fixture site: open a page, read its links, extract, answer)
// has a scripted model that takes --model-ms per answer, as a hosted model's latency would: what
// a pool adds is places (capacity per endpoint) for runs that mostly wait.
//
// Usage: pool_bench [--runs N] (default 12) [--capacity C] (default 2) [--model-ms MS] (default 1000)
#include "base/json.h"
#include "fixtures.h"
#include "remote_chromium.h"
#include "net/io.h"
#include "session/pool.h"
#include "server/runs.h"
#include "session/session.h"
#include "store/database.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

using namespace ouro;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;


int main(int argc, char** argv) {
  int runs = 12, capacity = 2, model_ms = 1000;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--runs") == 0) runs = std::max(1, std::atoi(argv[i + 1]));
    if (std::strcmp(argv[i], "--capacity") == 0) capacity = std::max(1, std::atoi(argv[i + 1]));
    if (std::strcmp(argv[i], "--model-ms") == 0) model_ms = std::max(0, std::atoi(argv[i + 1]));
  }
  testing::FixtureSite site;
  std::string dir = std::filesystem::temp_directory_path() / ("ouro-pool-bench-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::string script = dir + "/task.jsonl";
  {
    std::ofstream out(script);
    auto line = [&](const std::string& code) {
      out << json{{"delay_ms", model_ms}, {"text", "Next.\n```repl\n" + code + "\n```"}}.dump() << "\n";
    };
    line("await navigate(activeTab, " + json(site.url("/list")).dump() + "); 'open'");
    line("env.links = await getLinks(activeTab); env.links.length");
    line("env.items = await querySelectorAll(activeTab, 'li'); env.items.length");
    line("setFinal({ links: env.links.length, items: env.items.length })");
  }
  testing::RemoteChromium chromium[3] = {testing::RemoteChromium(dir + "/chromium0"), testing::RemoteChromium(dir + "/chromium1"),
                                         testing::RemoteChromium(dir + "/chromium2")};
  for (int i = 0; i < 3; ++i)
    if (chromium[i].port == 0) {
      std::fprintf(stderr, "pool_bench: a Chromium with --remote-debugging-port did not start\n");
      return 1;
    }
  std::printf("%d runs submitted at once, a scripted task of 4 iterations (model %d ms an answer), capacity %d per endpoint\n", runs, model_ms,
              capacity);
  std::printf("%-10s %8s %12s %14s %12s\n", "endpoints", "places", "wall (s)", "runs/minute", "failed");
  double base_rate = 0;
  for (int k = 1; k <= 3; ++k) {
    std::string data = dir + "/data" + std::to_string(k);
    std::filesystem::create_directories(data);
    std::shared_ptr<net::IoThread> io = net::IoThread::start();
    auto db_opened = store::Database::open(data + "/ouro.db");
    if (!db_opened) return 1;
    std::shared_ptr<store::Database> db = std::move(*db_opened);
    std::vector<session::PoolEndpoint> endpoints;
    for (int i = 0; i < k; ++i) endpoints.push_back({.url = "http://127.0.0.1:" + std::to_string(chromium[i].port), .capacity = capacity, .token_env = ""});
    auto pool = session::BrowserPool::create(io, db, data, endpoints);
    if (!pool) {
      std::fprintf(stderr, "pool_bench: %s\n", pool.error().message.c_str());
      return 1;
    }
    auto runtime = std::make_shared<session::Runtime>();
    runtime->io = io;
    runtime->db = db;
    runtime->data_dir = data;
    server::RunManager::Config rc;
    rc.data_dir = data;
    rc.ouro_binary = OURO_BINARY;
    rc.config_path = "/nonexistent";
    rc.pool = *pool;
    rc.max_active_runs = static_cast<size_t>(runs) + 8;
    int failed = 0;
    double seconds = 0;
    {
      server::RunManager manager(runtime, rc);
      std::vector<std::string> ids;
      auto t0 = Clock::now();
      for (int r = 0; r < runs; ++r) {
        auto created = manager.create({{"task", "List the links and items"},
                                       {"urls", {site.url("/")}},
                                       {"options", {{"provider", "script:" + script}, {"mode", "autonomous"}, {"remember", false}}}});
        if (!created) {
          std::fprintf(stderr, "pool_bench: %s\n", created.error().message.c_str());
          return 1;
        }
        ids.push_back((*created)["id"].get<std::string>());
      }
      for (const auto& id : ids) {
        for (auto until = Clock::now() + 600s; Clock::now() < until; std::this_thread::sleep_for(20ms)) {
          auto row = manager.get(id);
          std::string state = row ? row->value("state", "") : "failed";
          if (state == "done" || state == "failed" || state == "partial" || state == "cancelled") {
            if (state != "done") ++failed;
            break;
          }
        }
      }
      seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    }
    double rate = runs / seconds * 60;
    if (k == 1) base_rate = rate;
    std::printf("%-10d %8d %12.1f %14.1f %12d   (x%.2f)\n", k, k * capacity, seconds, rate, failed, rate / base_rate);
    std::fflush(stdout);
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return 0;
}
