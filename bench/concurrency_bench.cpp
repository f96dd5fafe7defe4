// A machine's worth of runs, measured: N runs submitted at once (1, 4, 8, 16) to one RunManager
// on one launched Chromium, as `ouro serve` holds them — each opens a fixture page in a context of
// its own, reads it and finishes, with a scripted model that takes --model-ms per answer. The node
// executes --places runs at once (OURO_MAX_RUNS; the rest wait queued and start as places free
// up). Reported per N: wall time, runs per minute, how many did not finish `done`, and the peak memory (proportional set size, so pages Chromium's processes share
// are counted once) of this process (ouro's runtime), Chromium and the REPL workers, sampled
// every 100 ms from /proc.
//
// With --poll-ms MS (50 in `make bench`) a client polls the runs API over HTTP meanwhile, as the
// Command Center does (GET /api/runs, GET /api/runs/:id and its events, in turn, every MS), and
// each row adds how long those requests took: the median, the 99th percentile and the slowest as
// the client saw them, and the slowest as the server timed it (its Server-Timing header: from the
// request's header read to its answer). The client waits for a core at the API's priority.
//
// Usage: concurrency_bench [--model-ms MS] (default 500) [--places P] (default 8) [--max N] (16) [--poll-ms MS] (0: none)
#include "base/json.h"
#include "base/priority.h"
#include "base/proc_file.h"
#include "fixtures.h"
#include "server/api.h"
#include "server/runs.h"
#include "session/session.h"
#include "store/database.h"

#include <curl/curl.h>
#include <dirent.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <map>
#include <mutex>
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
  std::string text = read_proc_file("/proc/" + std::to_string(pid) + "/stat");
  auto close = text.rfind(')');
  if (close == std::string::npos || close + 2 > text.size()) return 0;
  std::istringstream rest(text.substr(close + 2));
  char state;
  pid_t ppid = 0;
  rest >> state >> ppid;
  return ppid;
}

std::string command_of(pid_t pid) {
  std::string name = read_proc_file("/proc/" + std::to_string(pid) + "/comm");
  return name.substr(0, name.find('\n'));
}

// Pss of a process in MB (/proc/PID/smaps_rollup), 0 when it is gone.
double pss_mb(pid_t pid) {
  std::istringstream in(read_proc_file("/proc/" + std::to_string(pid) + "/smaps_rollup"));
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

size_t discard(char*, size_t size, size_t n, void*) { return size * n; }

// The server's own time of an answer: its Server-Timing header's `app;dur=MS`.
size_t server_timing(char* data, size_t size, size_t n, void* out) {
  std::string line(data, size * n);
  static const std::string kField = "server-timing:";
  std::string lower = line.substr(0, kField.size());
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == kField) {
    if (auto at = line.find("dur="); at != std::string::npos) *static_cast<double*>(out) = std::atof(line.c_str() + at + 4);
  }
  return size * n;
}

struct Timed {
  double ms = -1;         // as the client saw it; negative when it failed
  double server_ms = -1;  // as the server says it took (Server-Timing)
};

// One GET with the API's token, timed.
Timed timed_get(CURL* curl, const std::string& url, const std::string& token) {
  Timed t;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, discard);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, server_timing);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &t.server_ms);
  curl_slist* headers = curl_slist_append(nullptr, ("Authorization: Bearer " + token).c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  auto t0 = Clock::now();
  CURLcode rc = curl_easy_perform(curl);
  double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  curl_slist_free_all(headers);
  if (rc == CURLE_OK && status == 200) t.ms = ms;
  return t;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

}  // namespace

int main(int argc, char** argv) {
  int model_ms = 500, places = 8, max_runs = 16, poll_ms = 0;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--model-ms") == 0) model_ms = std::max(0, std::atoi(argv[i + 1]));
    if (std::strcmp(argv[i], "--places") == 0) places = std::max(1, std::atoi(argv[i + 1]));
    if (std::strcmp(argv[i], "--max") == 0) max_runs = std::max(1, std::atoi(argv[i + 1]));
    if (std::strcmp(argv[i], "--poll-ms") == 0) poll_ms = std::max(0, std::atoi(argv[i + 1]));
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
  std::unique_ptr<server::ApiServer> api;
  if (poll_ms > 0) {
    auto started = server::ApiServer::start(*(*base)->runtime()->io, 0, manager, (*base)->runtime());
    if (!started) {
      std::fprintf(stderr, "concurrency_bench: cannot start the API: %s\n", started.error().message.c_str());
      return 1;
    }
    api = std::move(*started);
  }

  std::printf("runs submitted at once to one node with %d places (the rest wait queued); each opens a fixture page in a context of its own, reads it and\n"
              "finishes (2 iterations, scripted model %d ms an answer). Peak memory: proportional set size, sampled every 100 ms.\n",
              places, model_ms);
  if (api) std::printf("The API is polled every %d ms over HTTP meanwhile (runs, a run, its events in turn): request times in ms.\n", poll_ms);
  std::printf("%6s %9s %12s %7s %11s %13s %12s %10s%s\n", "runs", "wall (s)", "runs/minute", "failed", "ouro (MB)", "Chromium (MB)", "workers (MB)",
              "all (MB)", api ? "  requests  p50 (ms)  p99 (ms)  max (ms)  server max (ms)  errors" : "");
  for (int n : {1, 4, 8, 16}) {
    if (n > max_runs) break;
    std::atomic<bool> sampling{true};
    Memory peak;
    std::thread sampler([&] {
      run_in_background(kModelCodeNice);  // reading /proc for every process: the bench's own work, not the node's
      while (sampling) {
        Memory m = sample();
        if (m.total() > peak.total()) peak = m;
        std::this_thread::sleep_for(100ms);
      }
    });
    std::vector<std::string> ids;
    std::mutex ids_mutex;
    std::vector<double> took, served;
    int poll_errors = 0;
    std::atomic<bool> polling{api != nullptr};
    std::thread poller([&] {
      if (!api) return;
      // The client stands for a person's browser, on a machine of its own: it waits for a core at
      // the API's own priority, so that its wait behind the runs is not counted as the API's.
      prefer_latency();
      CURL* curl = curl_easy_init();
      const std::string root = "http://127.0.0.1:" + std::to_string(api->port());
      for (size_t k = 0; polling; ++k) {
        std::string url = root + "/api/runs";
        {
          std::lock_guard lock(ids_mutex);
          if (!ids.empty() && k % 3 != 0) url += "/" + ids[k % ids.size()] + (k % 3 == 2 ? "/events?after=0" : "");
          if (std::getenv("OURO_BENCH_SLOW") && k % 4 == 3) url = root + "/healthz";
        }
        Timed got = timed_get(curl, url, api->token());
        const double ms = got.ms;
        if (ms < 0) ++poll_errors;
        else took.push_back(ms);
        if (ms >= 0 && got.server_ms >= 0) served.push_back(got.server_ms);
        if (std::getenv("OURO_BENCH_SLOW") && ms > 100) std::fprintf(stderr, "slow: %.0f ms (the server: %.1f ms) %s\n", ms, got.server_ms, url.c_str() + root.size());
        std::this_thread::sleep_for(std::chrono::milliseconds(poll_ms));
      }
      curl_easy_cleanup(curl);
    });
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
      std::lock_guard lock(ids_mutex);
      ids.push_back((*created)["id"].get<std::string>());
    }
    for (const auto& id : ids) {
      for (auto until = Clock::now() + 600s;; std::this_thread::sleep_for(20ms)) {
        auto row = manager.get(id);
        std::string state = row ? row->value("state", "") : "failed";
        if (state == "done" || state == "failed" || state == "partial" || state == "cancelled" || Clock::now() > until) {
          if (state != "done") {
            ++failed;
            if (std::getenv("OURO_BENCH_SLOW") && row) std::fprintf(stderr, "failed: %s\n", row->dump().substr(0, 600).c_str());
          }
          break;
        }
      }
    }
    double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    sampling = false;
    sampler.join();
    polling = false;
    poller.join();
    std::printf("%6d %9.1f %12.1f %7d %11.0f %13.0f %12.0f %10.0f", n, seconds, n / seconds * 60, failed, peak.self_mb,
                peak.chromium_mb, peak.workers_mb, peak.total());
    if (api)
      std::printf("  %8zu %9.1f %9.1f %9.1f %16.1f %7d", took.size(), percentile(took, 0.5), percentile(took, 0.99),
                  took.empty() ? 0.0 : *std::max_element(took.begin(), took.end()),
                  served.empty() ? 0.0 : *std::max_element(served.begin(), served.end()), poll_errors);
    std::printf("\n");
    std::fflush(stdout);
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return 0;
}
