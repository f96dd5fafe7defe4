// What `ouro serve` tells operators: GET /metrics in Prometheus' text exposition format
// (https://prometheus.io/docs/instrumenting/exposition_formats/, "Text-based format", version
// 0.0.4), written directly.
//
// The primitives are cheap and thread-safe (relaxed atomics; a histogram's buckets fixed when it is
// made). Label values come from fixed sets (a run's state, a gate decision, a token kind) and
// never from input such as a URL, a task or an endpoint: a series' count is bounded by the code.
//
// `Metrics` counts from the runs' event stream (RunManager::subscribe of every run, from the
// server's start: counters start at zero with the process, as Prometheus expects) and reads the
// rest when scraped: this node's runs, takeovers, refusals, queue waits and heartbeat from
// RunManager, pool endpoints from RunManager::pool_state, REPL workers from /proc (the worker
// processes this process started). The cluster-wide figures (every run in the database by
// state, the shared queue) are exported by one node only — the scheduler's leader on PostgreSQL —
// so that a sum over the nodes' scrapes equals the database's counts.
#pragma once

#include "base/json.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ouro::server {

class Scheduler;

class RunManager;

// A number that only goes up. Any thread.
class Counter {
 public:
  void add(double v = 1);
  double value() const;

 private:
  std::atomic<uint64_t> m_bits{0};  // a double's bits: atomic<double>::fetch_add is C++20 but not lock-free everywhere
};

// Observations counted into fixed buckets (upper bounds, ascending), with their sum. Any thread.
class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds);
  void observe(double v);
  // The exposition lines of `name` (name_bucket{le=…} cumulative, +Inf, name_sum, name_count),
  // each with `labels` (`kind="api"`) first when given.
  void render(std::string& out, std::string_view name, std::string_view labels = {}) const;

 private:
  std::vector<double> m_bounds;
  std::unique_ptr<std::atomic<uint64_t>[]> m_counts;  // one per bound, then +Inf; not cumulative
  Counter m_sum;
};

// Escapes a label value or HELP text as the text format asks (backslash, double quote, newline).
std::string escape_label(std::string_view v);

class Metrics {
 public:
  // Counts every run's events from now on. `runs` must outlive it. Not on the network thread
  // (the subscription reads the store once).
  static std::unique_ptr<Metrics> start(RunManager& runs);
  ~Metrics();  // ends the subscription
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // One event as RunManager publishes it ({run, type, data, ts, …}); what the subscription
  // calls. Never blocks (a short lock for the per-run start times).
  void count(const json& event);
  // One answer of the API server (its HttpServer's on_answered), by the kind of its path: the
  // API, MCP, the probes (/healthz, /readyz, /metrics), the Command Center's page and files.
  // Never blocks; the network thread calls it.
  void answered(std::string_view path, double ms);
  // The whole exposition, read at the call, with this node's scheduler when it has one. Any
  // thread but the network thread (it lists runs).
  std::string render(const Scheduler* scheduler = nullptr);

 private:
  Metrics();
  RunManager* m_runs = nullptr;
  int m_subscription = 0;

  enum Outcome { Done, Partial, Failed, Cancelled, kOutcomes };
  std::array<Counter, kOutcomes> m_finished;
  enum Decision { Allowed, Refused, Asked, kDecisions };
  std::array<Counter, kDecisions> m_gate;
  enum TokenKind { Input, Output, CacheRead, CacheWrite, kTokenKinds };
  std::array<Counter, kTokenKinds> m_tokens;
  Counter m_cost;
  Counter m_iterations;
  Counter m_failovers;
  Histogram m_iteration_seconds;
  Histogram m_run_seconds;
  enum RequestKind { Api, Mcp, Probe, Page, kRequestKinds };
  std::array<Histogram, kRequestKinds> m_request_seconds;
  std::mutex m_mutex;  // m_turn_start
  std::unordered_map<std::string, double> m_turn_start;  // run id -> its turn's first event's ts (ms), at most 4,096
};

}  // namespace ouro::server
