// The REPL as the rest of ouro sees it: evaluations of model-written JavaScript in a sandboxed
// worker process (see worker.h), with host calls answered by a callback. Engine types stop here:
// callers see strings, JSON and Results.
//
// Limits: each evaluation has a deadline (an infinite loop is stopped, state kept) and a memory
// budget watched by the worker; past a hard margin, or if the worker stops answering, the parent
// kills it. A dead worker is replaced at once and `env` is restored from the checkpoint taken
// after the last successful evaluation.
//
// Checkpoints are lossless typed JSON (the format: js/prelude.js; C++ readers: summary.h): Maps,
// Sets, Dates, BigInts, undefined, NaN/±Infinity/-0, typed arrays, RegExps, Errors, cycles and
// shared references come back as they were. Functions, symbols, getters, promises and the classes
// of class instances cannot: a restart puts a frozen stand-in {$lost: why} in their place (a class
// instance keeps its own data in a plain object), and `lost_values` lists them.
#pragma once

#include "base/json.h"
#include "jsrt/summary.h"

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ouro::jsrt {

using Millis = std::chrono::milliseconds;
using namespace std::chrono_literals;

// Answer to a host call: a value (json discarded = undefined) or an error whose message the code sees.
using HostReply = std::function<void(Result<json>)>;
// Called on the REPL's reader thread; must not block: answer later through `reply`, from any thread.
using HostCall = std::function<void(const std::string& function, json args, HostReply reply)>;

struct ReplOptions {
  std::vector<std::string> host_functions;  // names the prelude binds to host calls
  Millis timeout = 30s;                     // per evaluation
  size_t memory_mb = 128;                   // per evaluation, soft (the worker stops the script)
  size_t hard_margin_mb = 384;              // over memory_mb: the parent kills the worker
  std::string executable;                   // the ouro binary; default /proc/self/exe
  std::string initial_env;                  // env to start with: a checkpoint (typed or plain JSON); "" = {}
  Millis checkpoint_timeout = 5s;           // saving env after an evaluation (past it: no new checkpoint)
};

struct EvalResult {
  bool ok = false;
  json value;                  // discarded when the code's value was undefined
  std::string error_name;      // "TypeError", …
  std::string error_message;   // with the line, when known
  std::string error_stack;
  int error_line = 0;          // 1-based in the code as given; 0 when unknown
  int error_column = 0;        // 1-based; 0 when unknown
  std::string kind;            // "" | "timeout" | "memory" | "interrupted" | "crash"
  std::optional<json> final;   // setFinal's value, if called
  std::vector<std::string> logs;
  double ms = 0;
};

// "TypeError: x is not a function (line 2, column 5)": the error as a person or a model reads it
// (the name once, the place in the code when known).
std::string error_text(const EvalResult& r);
// " (line 2, column 5)", " (line 2)" or "": where in the code the error is, when known.
std::string error_place(const EvalResult& r);

class Repl {
 public:
  static Result<std::unique_ptr<Repl>> start(ReplOptions options, HostCall host,
                                             std::function<void(const std::string&)> on_log = {});
  ~Repl();

  // Runs code (statements; top-level await; the last expression is the value). One at a time.
  // An error in the code is an EvalResult with ok=false; Result errors mean the REPL itself failed.
  Result<EvalResult> eval(const std::string& code, std::optional<Millis> timeout = std::nullopt);
  // Stops the running evaluation (Ctrl-C); any thread. State survives.
  void interrupt();
  // The browser state behind `tabs` and `activeTab`; kept for restarted workers.
  void set_state(const json& state);
  // Delivers data to an interceptRequests handler.
  void send_event(const std::string& handler, const json& data);
  // `env` as of the last successful evaluation (the checkpoint), as typed JSON text: what to
  // store and give back as `ReplOptions::initial_env`. Any thread.
  std::string env_checkpoint() const;
  // The checkpoint's plain JSON (plain_view), for summaries and results; an error if the
  // checkpoint is not JSON (an `initial_env` that was not). Any thread.
  Result<json> env_plain() const;
  // What a restart cannot bring back of the checkpoint (functions, class instances' classes, …),
  // and what the last restore could not: the stand-ins are listed until the code replaces them.
  std::vector<LostValue> env_lost() const;
  // The worker's process id (tests kill it).
  int worker_pid() const;

 private:
  Repl() = default;
  struct Impl;
  std::shared_ptr<Impl> m_impl;
};

}  // namespace ouro::jsrt
