// A machine's worth of runs, measured: N runs submitted at once (1, 4, 8, 16) to one RunManager
// on one launched Chromium, as `ouro serve` holds them — each opens a fixture page in a context of
// its own, reads it and finishes, with a scripted model that takes --model-ms per answer. The node
// executes --places runs at once (OURO_MAX_RUNS; the rest wait queued and start as places free
// up). Reported per N: wall time, runs per minute, how many did not finish `done`, and the peak memory (proportional set size, so pages Chromium's processes share
// are counted once) of this process (ouro's runtime), Chromium and the REPL workers, sampled
// every 100 ms from /proc.
//
// Usage: concurrency_bench [--model-ms MS] (default 500) [--places P] (default 8) [--max N] (16)
#include "base/json.h"
#include "fixtures.h"
#include "server/runs.h"
#include "session/session.h"
#include "store/database.h"

#include <dirent.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

using namespace ouro;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

struct Memory {
  double self_mb = 0, chromium_mb = 0, workers_mb = 0;
  double total() const { return self_mb + chromium_mb + workers_mb; }
};

// The parent of a process (/proc/PID/stat's fourth field, after the command in parentheses).
pid_t parent_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  auto close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(text.substr(close + 2));
  char state;
  pid_t ppid = 0;
  rest >> state >> ppid;
  return ppid;
}

std::string command_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(in, name);
  return name;
}

// Pss of a process in MB (/proc/PID/smaps_rollup), 0 when it is gone.
double pss_mb(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/smaps_rollup");
  std::string key;
  double kb = 0;
  while (in >> key) {
    if (key == "Pss:") {
      in >> kb;
      break;
    }
    std::string rest;
    std::getline(in, rest);
  }
  return kb / 1024;
}

// This process and every descendant, by kind: Chromium's processes, the REPL workers (the ouro
// binary), and this process (the runtime: network thread, runs, database).
Memory sample() {
  std::map<pid_t, pid_t> parents;
  if (DIR* d = opendir("/proc")) {
    while (dirent* e = readdir(d)) {
      pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
      if (pid > 0) parents[pid] = parent_of(pid);
    }
    closedir(d);
  }
  const pid_t self = getpid();
  Memory m;
  for (const auto& [pid, ppid] : parents) {
    bool mine = false;
    for (pid_t p = pid, hops = 0; p > 1 && hops < 64; p = parents.count(p) ? parents[p] : 0, ++hops)
      if (p == self) {
        mine = true;
        break;
      }
    if (!mine) continue;
    double mb = pss_mb(pid);
    if (pid == self) m.self_mb += mb;
    else if (command_of(pid) == "ouro") m.workers_mb += mb;
    else m.chromium_mb += mb;
  }
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  int model_ms = 500, places = 8, max_runs = 16;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--model-ms") == 0) model_ms = std::max(0, std::atoi(argv[i + 1]));
    if (std::strcmp(argv[i], "--places") == 0) places = std::max(1, std::atoi(argv[i + 1]));
    if (std::strcmp(argv[i], "--max") == 0) max_runs = std::max(1, std::atoi(argv[i + 1]));
  }
  testing::FixtureSite site;
  std::string dir = std::filesystem::temp_directory_path() / ("ouro-concurrency-bench-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::string script = dir + "/task.jsonl";
  {
    std::ofstream out(script);
    auto line = [&](const std::string& code) {
      out << json{{"delay_ms", model_ms}, {"text", "Next.\n```repl\n" + code + "\n```"}}.dump() << "\n";
    };
    line("await navigate(activeTab, " + json(site.url("/list")).dump() + "); env.text = await getText(activeTab); env.text.length");
    line("setFinal({ chars: env.text.length })");
  }
  session::SessionOptions o;
  o.db_path = dir + "/ouro.db";
  o.repl.executable = OURO_BINARY;
  auto base = session::Session::start(o);
  if (!base) {
    std::fprintf(stderr, "concurrency_bench: cannot start a session: %s\n", base.error().message.c_str());
    return 1;
  }
  server::RunManager::Config rc;
  rc.data_dir = dir;
  rc.ouro_binary = OURO_BINARY;
  rc.config_path = "/nonexistent";
  rc.max_active_runs = static_cast<size_t>(places);
  rc.keep_idle = std::chrono::seconds(0);  // a finished run lets its context go at once: each row measures its own runs
  server::RunManager manager((*base)->runtime(), rc);

  std::printf("runs submitted at once to one node with %d places (the rest wait queued); each opens a fixture page in a context of its own, reads it and\n"
              "finishes (2 iterations, scripted model %d ms an answer). Peak memory: proportional set size, sampled every 100 ms.\n",
              places, model_ms);
  std::printf("%6s %9s %12s %7s %11s %13s %12s %10s\n", "runs", "wall (s)", "runs/minute", "failed", "ouro (MB)",
              "Chromium (MB)", "workers (MB)", "all (MB)");
  for (int n : {1, 4, 8, 16}) {
    if (n > max_runs) break;
    std::atomic<bool> sampling{true};
    Memory peak;
    std::thread sampler([&] {
      while (sampling) {
        Memory m = sample();
        if (m.total() > peak.total()) peak = m;
        std::this_thread::sleep_for(100ms);
      }
    });
    std::vector<std::string> ids;
    int failed = 0;
    auto t0 = Clock::now();
    for (int r = 0; r < n; ++r) {
      auto created = manager.create({{"task", "Read the list"},
                                     {"urls", {site.url("/")}},
                                     {"options", {{"provider", "script:" + script}, {"context", "clean"}, {"mode", "autonomous"}, {"remember", false}}}});
      if (!created) {
        std::fprintf(stderr, "concurrency_bench: %s\n", created.error().message.c_str());
        ++failed;
        continue;
      }
      ids.push_back((*created)["id"].get<std::string>());
    }
    for (const auto& id : ids) {
      for (auto until = Clock::now() + 600s;; std::this_thread::sleep_for(20ms)) {
        auto row = manager.get(id);
        std::string state = row ? row->value("state", "") : "failed";
        if (state == "done" || state == "failed" || state == "partial" || state == "cancelled" || Clock::now() > until) {
          if (state != "done") ++failed;
          break;
        }
      }
    }
    double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    sampling = false;
    sampler.join();
    std::printf("%6d %9.1f %12.1f %7d %11.0f %13.0f %12.0f %10.0f\n", n, seconds, n / seconds * 60, failed, peak.self_mb,
                peak.chromium_mb, peak.workers_mb, peak.total());
    std::fflush(stdout);
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return 0;
}
