#include "server/metrics.h"

#include "base/proc_file.h"
#include "base/clock.h"
#include "server/scheduler.h"

#include "server/runs.h"

#include <fmt/format.h>

#include <bit>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include <unistd.h>

namespace ouro::server {

void Counter::add(double v) {
  if (!(v > 0) || !std::isfinite(v)) return;  // a counter never goes down, and NaN would stick
  uint64_t old = m_bits.load(std::memory_order_relaxed);
  while (!m_bits.compare_exchange_weak(old, std::bit_cast<uint64_t>(std::bit_cast<double>(old) + v), std::memory_order_relaxed)) {
  }
}

double Counter::value() const { return std::bit_cast<double>(m_bits.load(std::memory_order_relaxed)); }

Histogram::Histogram(std::vector<double> bounds) : m_bounds(std::move(bounds)), m_counts(new std::atomic<uint64_t>[m_bounds.size() + 1]) {
  for (size_t i = 0; i <= m_bounds.size(); ++i) m_counts[i].store(0, std::memory_order_relaxed);
}

void Histogram::observe(double v) {
  if (!std::isfinite(v) || v < 0) return;
  size_t i = 0;
  while (i < m_bounds.size() && v > m_bounds[i]) ++i;
  m_counts[i].fetch_add(1, std::memory_order_relaxed);
  m_sum.add(v);
}

namespace {

// A sample value as the text format writes it: Go's float formatting accepts what {} gives, and
// +Inf/-Inf/NaN are spelled out.
std::string number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", v);
}

void header(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, escape_label(help), name, type);
}

void sample(std::string& out, std::string_view name, std::string_view labels, double v) {
  out += name;
  if (!labels.empty()) out += fmt::format("{{{}}}", labels);
  out += ' ';
  out += number(v);
  out += '\n';
}

}  // namespace

void Histogram::render(std::string& out, std::string_view name, std::string_view labels) const {
  const std::string first = labels.empty() ? std::string() : std::string(labels) + ",";
  uint64_t cumulative = 0;
  for (size_t i = 0; i <= m_bounds.size(); ++i) {
    cumulative += m_counts[i].load(std::memory_order_relaxed);
    std::string le = i < m_bounds.size() ? number(m_bounds[i]) : "+Inf";
    sample(out, std::string(name) + "_bucket", first + "le=\"" + le + "\"", static_cast<double>(cumulative));
  }
  sample(out, std::string(name) + "_sum", labels, m_sum.value());
  sample(out, std::string(name) + "_count", labels, static_cast<double>(cumulative));
}

std::string escape_label(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

namespace {
// Prometheus' default buckets (client libraries' DefBuckets): an answer's time, 5 ms to 10 s.
const std::vector<double> kRequestBounds = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
}  // namespace

Metrics::Metrics()
    : m_iteration_seconds({0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300}),
      m_run_seconds({1, 5, 10, 30, 60, 120, 300, 600, 1800, 3600}),
      m_request_seconds{Histogram(kRequestBounds), Histogram(kRequestBounds), Histogram(kRequestBounds), Histogram(kRequestBounds)} {}

void Metrics::answered(std::string_view path, double ms) {
  RequestKind kind = Page;
  if (path.rfind("/api/", 0) == 0) kind = Api;
  else if (path == "/mcp") kind = Mcp;
  else if (path == "/healthz" || path == "/readyz" || path == "/metrics") kind = Probe;
  m_request_seconds[kind].observe(ms / 1000.0);
}

std::unique_ptr<Metrics> Metrics::start(RunManager& runs) {
  std::unique_ptr<Metrics> m(new Metrics());
  m->m_runs = &runs;
  // From now on: past the last stored event (no replay of history), live events as published.
  Metrics* self = m.get();
  auto id = runs.subscribe("", std::numeric_limits<int64_t>::max(), [self](const json& e) {
    self->count(e);
    return true;
  });
  m->m_subscription = id ? *id : 0;
  return m;
}

Metrics::~Metrics() {
  if (m_subscription) m_runs->unsubscribe(m_subscription);
}

void Metrics::count(const json& e) {
  if (!e.is_object() || !e.contains("type") || !e["type"].is_string()) return;
  const std::string& type = e["type"].get_ref<const std::string&>();
  static const json kEmpty = json::object();
  const json& d = e.contains("data") && e["data"].is_object() ? e["data"] : kEmpty;
  auto num = [&](const json& j, const char* key) -> double {
    auto it = j.find(key);
    return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
  };
  const std::string run = e.contains("run") && e["run"].is_string() ? e["run"].get<std::string>() : "";
  const double ts = e.contains("ts") && e["ts"].is_number() ? e["ts"].get<double>() : 0;
  if (!run.empty() && type != "complete") {
    std::lock_guard lock(m_mutex);
    if (m_turn_start.size() < 4096) m_turn_start.try_emplace(run, ts);
  }
  if (type == "iteration-end") {
    m_iterations.add();
    m_iteration_seconds.observe(num(d, "ms") / 1000.0);
    if (auto u = d.find("usage"); u != d.end() && u->is_object()) {
      m_tokens[Input].add(num(*u, "input_tokens"));
      m_tokens[Output].add(num(*u, "output_tokens"));
      m_tokens[CacheRead].add(num(*u, "cache_read_tokens"));
      m_tokens[CacheWrite].add(num(*u, "cache_write_tokens"));
    }
    m_cost.add(num(d, "cost"));
  } else if (type == "gate") {
    auto decision = d.find("decision");
    if (decision != d.end() && decision->is_string()) {
      if (*decision == "allow") m_gate[Allowed].add();
      else if (*decision == "deny") m_gate[Refused].add();
    }
    if (auto asked = d.find("asked"); asked != d.end() && asked->is_boolean() && asked->get<bool>()) m_gate[Asked].add();
  } else if (type == "failover") {
    m_failovers.add();
  } else if (type == "complete") {
    bool cancelled = d.contains("cancelled") && d["cancelled"].is_boolean() && d["cancelled"].get<bool>();
    bool partial = d.contains("partial") && d["partial"].is_boolean() && d["partial"].get<bool>();
    bool failed = d.contains("error") && d["error"].is_string() && !d["error"].get_ref<const std::string&>().empty();
    m_finished[cancelled ? Cancelled : failed ? Failed : partial ? Partial : Done].add();
    std::lock_guard lock(m_mutex);
    if (auto it = m_turn_start.find(run); it != m_turn_start.end()) {
      if (ts >= it->second) m_run_seconds.observe((ts - it->second) / 1000.0);
      m_turn_start.erase(it);
    }
  }
}

namespace {

// The REPL worker processes this process started (`ouro __jsrt-worker`, its direct children).
int repl_workers() {
  int n = 0;
  const std::string me = std::to_string(::getpid());
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string pid = entry.path().filename().string();
    if (pid.empty() || !std::isdigit(static_cast<unsigned char>(pid[0]))) continue;
    const std::string line = read_proc_file((entry.path() / "stat").string());
    if (line.empty()) continue;
    // pid (comm) state ppid …: comm may hold spaces and parentheses; the last ')' ends it.
    size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 1));
    std::string state, ppid;
    rest >> state >> ppid;
    if (ppid != me) continue;
    if (read_proc_file((entry.path() / "cmdline").string()).find("__jsrt-worker") != std::string::npos) ++n;
  }
  return n;
}

}  // namespace

std::string Metrics::render(const Scheduler* scheduler) {
  std::string out;
  // Cluster-wide figures (every run in the database, every node's) are exported once: by the node
  // that leads the scheduler when several share PostgreSQL, by the only node on SQLite. Summed
  // over the nodes they equal the database's counts. Per-node figures describe this node alone.
  const bool shared = m_runs->shared();
  const bool leader = !shared || (scheduler && scheduler->stats().leading);
  // Counting every run is a scan of the runs table: only the reporter does it; the others learn
  // whether the database answers from the queue's count (an index).
  Result<std::map<std::string, int64_t>> stored = make_error(Code::Unavailable, "not the reporter");
  bool database_up = false;
  if (leader) database_up = (stored = m_runs->stored_states()).has_value();
  else database_up = m_runs->queue_depth().has_value();
  header(out, "ouro_database_up", "gauge", "1 when this node's last read of the database succeeded");
  sample(out, "ouro_database_up", "", database_up ? 1 : 0);
  header(out, "ouro_cluster_reporter", "gauge", "1 on the one node that exports the cluster-wide figures (ouro_runs, ouro_run_queue_depth)");
  sample(out, "ouro_cluster_reporter", "", leader ? 1 : 0);
  if (leader && stored) {
    std::map<std::string, int64_t> states;
    for (runs::State st : runs::kAllStates) states[runs::name_of(st)] = 0;
    for (const auto& [st, n] : *stored)
      if (states.count(st)) states[st] = n;
    header(out, "ouro_runs", "gauge", "Runs in the database by state, every node's (exported by one node: ouro_cluster_reporter)");
    for (const auto& [st, n] : states) sample(out, "ouro_runs", "state=\"" + st + "\"", static_cast<double>(n));
    header(out, "ouro_run_queue_depth", "gauge", "Runs waiting for a node to take them (exported by one node: ouro_cluster_reporter)");
    sample(out, "ouro_run_queue_depth", "", static_cast<double>(m_runs->queue_depth().value_or(states[runs::name_of(runs::State::Queued)])));
  }
  header(out, "ouro_node_runs", "gauge", "Runs this node executes now, or that wait here for a place, by state");
  for (const auto& [st, n] : m_runs->local_states()) sample(out, "ouro_node_runs", "state=\"" + st + "\"", static_cast<double>(n));
  RunManager::NodeStats& node = m_runs->node_stats();
  if (shared) {
    int64_t beat = node.last_heartbeat_ms.load();
    const auto now = static_cast<int64_t>(steady_ms());
    header(out, "ouro_node_heartbeat_age_seconds", "gauge", "Seconds since this node's heartbeat last reached the database (-1 before the first)");
    sample(out, "ouro_node_heartbeat_age_seconds", "", beat > 0 ? static_cast<double>(now - beat) / 1000.0 : -1);
    header(out, "ouro_node_fenced", "gauge", "1 while this node has stopped its runs because it cannot reach the database");
    sample(out, "ouro_node_fenced", "", node.fence.load() == RunManager::NodeStats::Fence::Fenced ? 1 : 0);
  }
  header(out, "ouro_runs_taken_over_total", "counter", "Runs of dead nodes this node took over");
  sample(out, "ouro_runs_taken_over_total", "", node.taken_over.value());
  header(out, "ouro_runs_refused_total", "counter", "Runs refused because too many wait already (HTTP 429)");
  sample(out, "ouro_runs_refused_total", "", node.refused.value());
  header(out, "ouro_run_queue_wait_seconds", "histogram", "From a run's creation to its first turn on this node");
  node.queue_wait.render(out, "ouro_run_queue_wait_seconds");

  header(out, "ouro_http_request_duration_seconds", "histogram",
         "From a request's header read to its answer (queueing for a worker included), by kind: api, mcp, probe (/healthz, /readyz, /metrics), page");
  const char* request_kinds[] = {"api", "mcp", "probe", "page"};
  for (int i = 0; i < kRequestKinds; ++i) m_request_seconds[i].render(out, "ouro_http_request_duration_seconds", fmt::format("kind=\"{}\"", request_kinds[i]));

  header(out, "ouro_runs_finished_total", "counter", "Turns of runs that ended since the server started, by outcome");
  const runs::State outcomes[] = {runs::State::Done, runs::State::Partial, runs::State::Failed, runs::State::Cancelled};
  for (int i = 0; i < kOutcomes; ++i) sample(out, "ouro_runs_finished_total", fmt::format("outcome=\"{}\"", runs::name(outcomes[i])), m_finished[i].value());
  header(out, "ouro_run_duration_seconds", "histogram", "From a turn's first event to its end");
  m_run_seconds.render(out, "ouro_run_duration_seconds");
  header(out, "ouro_iterations_total", "counter", "Iterations that ended since the server started");
  sample(out, "ouro_iterations_total", "", m_iterations.value());
  header(out, "ouro_iteration_duration_seconds", "histogram", "Duration of an iteration (model call and code)");
  m_iteration_seconds.render(out, "ouro_iteration_duration_seconds");

  header(out, "ouro_model_tokens_total", "counter", "Model tokens used by runs, by kind");
  const char* kinds[] = {"input", "output", "cache_read", "cache_write"};
  for (int i = 0; i < kTokenKinds; ++i) sample(out, "ouro_model_tokens_total", fmt::format("kind=\"{}\"", kinds[i]), m_tokens[i].value());
  header(out, "ouro_model_cost_dollars_total", "counter", "Estimated model cost of runs in US dollars (the model table's prices)");
  sample(out, "ouro_model_cost_dollars_total", "", m_cost.value());

  header(out, "ouro_gate_decisions_total", "counter", "Egress gate decisions recorded for runs: allowed, refused, and those asked of the user");
  const char* decisions[] = {"allowed", "refused", "asked"};
  for (int i = 0; i < kDecisions; ++i) sample(out, "ouro_gate_decisions_total", fmt::format("decision=\"{}\"", decisions[i]), m_gate[i].value());

  if (auto pool = m_runs->pool_state()) {
    int up = 0, down = 0;
    for (const auto& e : (*pool)["endpoints"]) (e.value("state", "") == "healthy" ? up : down) += 1;
    header(out, "ouro_pool_endpoints", "gauge", "Browser pool endpoints by state");
    sample(out, "ouro_pool_endpoints", "state=\"up\"", up);
    sample(out, "ouro_pool_endpoints", "state=\"down\"", down);
    header(out, "ouro_pool_capacity", "gauge", "Runs the browser pool's endpoints take at once");
    sample(out, "ouro_pool_capacity", "", pool->value("capacity", 0));
    header(out, "ouro_pool_failovers_total", "counter", "Runs moved off an endpoint that died");
    sample(out, "ouro_pool_failovers_total", "", m_failovers.value());
  }
  if (scheduler) {
    const Scheduler::Stats st = scheduler->stats();
    header(out, "ouro_scheduler_leader", "gauge", "1 when this node fires the schedules (the data directory's lock, or the lease on PostgreSQL)");
    sample(out, "ouro_scheduler_leader", "", st.leading ? 1 : 0);
    header(out, "ouro_schedule_fires_total", "counter", "Scheduled runs this node started, and due times it skipped");
    sample(out, "ouro_schedule_fires_total", "result=\"started\"", static_cast<double>(st.fired));
    sample(out, "ouro_schedule_fires_total", "result=\"skipped\"", static_cast<double>(st.skipped));
  }
  header(out, "ouro_repl_workers", "gauge", "REPL worker processes alive");
  sample(out, "ouro_repl_workers", "", repl_workers());
  return out;
}

}  // namespace ouro::server
