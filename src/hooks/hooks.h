// Hooks (docs/guides/hooks.md): commands or webhooks the settings file names. Four points are told
// about a run (its start, each iteration's end, each egress-gate decision, its end) and never hold
// it up; six decide (before_inbound, before_tool_call, before_outbound, transform_response,
// session_start, session_end): the run waits for their answer, {"decision": "allow" | "deny" |
// "modify", "reason"?, "data"?}.
//
//   "hooks": {
//     "run_start":     [{"command": ["/usr/local/bin/notify", "started"], "timeout_ms": 2000}],
//     "iteration_end": [{"url": "http://127.0.0.1:9000/hook"}],
//     "gate": [...], "run_end": [...]
//   }
//
// Each delivery is one JSON object, {"hook", "run", "ts", "data"} — `data` is the run's event as
// it was stored (already redacted), cut to 64 KiB — on a command's stdin or as a webhook's POST
// body. A command runs without a shell, in a minimal environment (PATH, HOME, LANG, LC_ALL, TZ,
// TMPDIR, USER; never an API key or a secret), in a process group of its own that is killed when
// its timeout passes; its output is kept (4 KiB) for the log only. A webhook is http or https,
// with a connect and a total timeout, no redirects followed.
//
// Told hooks never hold up a run: the run's thread only enqueues (a bounded queue; when it is full
// the payload is dropped and counted), one or two worker threads deliver; what they answer changes
// nothing. Deciding hooks run in order on the run's thread (decide()), each for at most its
// timeout_ms (1000 by default): `deny` stops the step with its reason, `modify` hands the next hook
// (and then the run) the changed data; a hook that fails or times out is logged and skipped — or,
// with "on_error": "deny", denies (for hooks that enforce a policy).
#pragma once

#include "base/json.h"

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace ouro::hooks {

enum class Point { RunStart, IterationEnd, Gate, RunEnd, BeforeInbound, BeforeToolCall, BeforeOutbound, TransformResponse, SessionStart, SessionEnd };
inline constexpr std::array<Point, 10> kPoints = {Point::RunStart,      Point::IterationEnd,   Point::Gate,           Point::RunEnd,
                                                  Point::BeforeInbound, Point::BeforeToolCall, Point::BeforeOutbound, Point::TransformResponse,
                                                  Point::SessionStart,  Point::SessionEnd};
// "run_start", …, "session_end": the settings file's keys and the payload's `hook`.
const char* point_name(Point p);
// The points whose hooks the run waits for (decide()); the others are told (fire()).
bool deciding(Point p);
// Where `modify` is taken (the others allow or deny; session_end only hears).
bool modifiable(Point p);

struct Hook {
  std::vector<std::string> command;  // argv (command[0] an absolute path); empty for a webhook
  std::string url;                   // http:// or https://; empty for a command
  std::chrono::milliseconds timeout{5000};  // 1000 at a deciding point unless timeout_ms says
  bool deny_on_error = false;                // "on_error": "deny" (deciding points only)
  std::string label;  // "run_end[0]": how logs name it
};

// What the deciding hooks of a point made of a step.
struct Decision {
  enum class Kind { Allow, Deny, Modify } kind = Kind::Allow;
  std::string reason;         // a deny's (or a modify's) reason
  std::string by;             // the label of the hook that denied or last modified ("" for none)
  json data;                  // the data the run goes on with (changed by `modify`)
  json answers = json::array();  // each hook's part: {hook, decision | error, reason?, ms}
  bool decided() const { return !answers.empty(); }
  const char* kind_name() const { return kind == Kind::Deny ? "deny" : kind == Kind::Modify ? "modify" : "allow"; }
};

struct HooksConfig {
  std::map<Point, std::vector<Hook>> hooks;
  bool empty() const;
};

// The "hooks" object of a parsed settings file (absent: no hooks). A wrong shape is
// InvalidArgument naming the field ("the settings file F: hooks.run_end[0].timeout_ms must be …").
Result<HooksConfig> hooks_config_from(const json& file, const std::string& where);
// The same from the settings file at `path` (missing: no hooks).
Result<HooksConfig> load_hooks_config(const std::string& path);

// The queue and its workers. Thread-safe; every method may be called from any thread.
class Pipeline {
 public:
  struct Options {
    size_t queue_capacity = 256;  // payloads waiting; beyond it new ones are dropped
    // One by default: hooks see a run's events in the order they happened (run_start before
    // run_end). A hook that hangs holds the others back until its timeout; the run never waits.
    size_t workers = 1;
    // When the pipeline is destroyed, what is queued is still delivered for this long; after it,
    // running commands are killed and the rest is dropped.
    std::chrono::milliseconds shutdown_grace{3000};
  };
  struct Stats {
    uint64_t enqueued = 0, delivered = 0, failed = 0, timed_out = 0, dropped = 0;
  };

  // Starts the workers (none when the config has no hooks). Does no other I/O.
  static std::shared_ptr<Pipeline> create(HooksConfig config, Options options);
  static std::shared_ptr<Pipeline> create(HooksConfig config) { return create(std::move(config), Options{}); }
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  // Queues a delivery of `data` to each hook of `point`. Never blocks beyond a short mutex;
  // never throws; a full queue drops the payload (counted, logged).
  void fire(Point point, const std::string& run_id, const json& data, double ts);

  // A run's event as it was stored: maps event types to points — a turn's first
  // `iteration-start` → run_start (data: task, iteration), `iteration-end` → iteration_end,
  // `gate` → gate, `complete` → run_end; other types are ignored. Same guarantees as fire().
  void on_event(const std::string& run_id, const std::string& type, const json& data, double ts);

  // Runs the point's hooks in order on the calling thread, each waiting at most its timeout, and
  // says what they made of `data` (the deciding points' payload data; see docs/guides/hooks.md).
  // With no hook there, Allow with the data as given and no answers. Never throws.
  Decision decide(Point point, const std::string& run_id, const json& data);
  bool has(Point point) const;

  bool has_hooks() const { return !m_config.empty(); }
  Stats stats() const;
  // For tests and shutdown: waits until nothing is queued or being delivered (false after `t`).
  bool wait_idle(std::chrono::milliseconds t);

 private:
  struct Job {
    Point point;
    const Hook* hook;  // in m_config, which outlives the workers
    std::string payload;
  };
  Pipeline(HooksConfig config, Options options);
  void worker();
  void deliver(const Job& job);

  HooksConfig m_config;
  Options m_options;
  mutable std::mutex m_mutex;  // the queue, the stats, the runs in a turn
  std::condition_variable m_wake, m_idle;
  std::deque<Job> m_queue;
  size_t m_busy = 0;
  bool m_stopping = false;
  std::atomic<int64_t> m_hard_deadline{0};  // steady-clock ns; 0 = none (set when stopping)
  Stats m_stats;
  std::set<std::string> m_started;  // runs whose turn has fired run_start and not yet run_end
  std::vector<std::thread> m_workers;
};

}  // namespace ouro::hooks
