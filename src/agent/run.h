// One agent run: the RLM loop (docs/design/agent-loop.md) over a session's browser and REPL. The
// model writes code, the REPL runs every block, the model sees metadata only, and the run ends by
// setFinal(), the iteration cap (partial results, labelled) or cancellation. Every step is an
// event on the sink.
#pragma once

#include "agent/context.h"
#include "agent/events.h"
#include "agent/goals.h"
#include "agent/state.h"
#include "llm/provider.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>

namespace ouro::session { class Session; }

namespace ouro::agent {

using namespace std::chrono_literals;

struct RunOptions {
  std::string task;
  // "rlm" (the default): the model writes code in the REPL. "tools": it calls the registry's
  // tools one step at a time through function calling.
  std::string agent = "rlm";
  std::string model;
  std::string sub_model;
  int max_iterations = 25;
  int max_sub_calls = 50;
  int sub_concurrency = 4;
  size_t history_budget_tokens = 6000;
  llm::ModelParams params;  // overrides of the model table: max_tokens, temperature, thinking
  std::chrono::milliseconds block_timeout = 180s;  // per code block; sub-calls and page loads count
  // Asks the user about a sensitive action ({id, action, selector, tab, url, element, reason});
  // true approves. It must give up (false) after confirm_timeout. Without one, sensitive actions
  // are denied.
  std::function<bool(const json& request)> confirm;
  std::chrono::milliseconds confirm_timeout = 60s;
  // Asks the user the model's question ({id, question, choices, secret, site}) and returns the
  // answer; nullopt when no one answered in time (it must give up by then) or there is no one.
  // Without one, askUser fails with "no one to ask".
  std::function<std::optional<std::string>(const json& question)> ask_user;
  std::chrono::milliseconds ask_timeout = 300s;
  // A follow-up turn of a conversation: the earlier turns (in the prompt, compacted past the
  // budget) and the number its first iteration carries (they count on across turns).
  std::vector<Turn> earlier;
  int first_iteration = 1;
  size_t conversation_budget_tokens = 2000;
  // The conversation's goals so far (agent/goals.h): [{id, text, status, note?}].
  json goals = json::array();
  // Resuming after a crash: the state of the last checkpoint — history, usage, the
  // iterations this turn has had — and what to tell the model about the restart (env restored,
  // values lost, tabs reopened). The run continues from the iteration after the checkpoint.
  std::optional<RunState> resume;
  std::string resume_note;
  // After each iteration: the run's state as a checkpoint keeps it (JSON text) and the REPL's env
  // (typed JSON), to be stored before the checkpoint event is. Its failure is reported, not fatal.
  std::function<Result<void>(int iteration, const std::string& state, const std::string& env)> on_checkpoint;
  // A replay: what the script recorded about the target an action names by a selector
  // ({details, step}; nullopt: nothing), so the host can find a changed target again. Unset: the
  // actions act on their selectors as given. Every run records its actions' targets (`target`
  // events) and a replay's healed ones (`heal` events).
  std::function<std::optional<json>(const std::string& action, const std::string& selector)> recorded;
  // A replay: looks at each block's result before it counts (its code-result metadata, with the
  // value's `shape` and, after setFinal, the final's `finalShape`: {kind, size}); a non-empty answer
  // is why the block failed — its final, if any, is not delivered.
  std::function<std::string(const json& metadata)> vet_block;
  // A run on a browser pool's endpoint (session/pool.h): when the browser is gone at an iteration
  // boundary (before an iteration starts, or after one ends and before its checkpoint), the run
  // stops there with RunResult::browser_lost set — no checkpoint of the iteration that saw the
  // loss and no complete event — so the caller can move it to another browser from the last good
  // checkpoint. Otherwise (false) every call fails "the browser is gone: …" and the model sees it.
  bool stop_when_browser_lost = false;
  // The settings file's before_tool_call hooks (runs/hook_points.h): each host call's arguments to
  // go on with, or its refusal, which the model sees as the call's error. Unset: none.
  std::function<Result<json>(const std::string& function, const json& args)> before_call;
  // Hears each change the run's calls make to ouro's own state, for undo (undo/journal.h). Unset: none.
  std::function<void(const json& change)> on_change;
};

struct RunResult {
  json final;                 // setFinal's value, or the labelled partial results
  bool partial = false;       // the cap was hit, the run was cancelled, or the model failed
  bool cancelled = false;
  int iterations = 0;
  llm::Usage usage;           // main and sub-calls together
  double cost_usd = 0;
  bool cost_known = true;
  std::string error;          // why the run stopped early, if it did
  size_t max_prompt_tokens = 0;
  json tabs;                  // in the user's browser: the tabs it held, left open ({id, url, title})
  std::vector<std::string> unread_guidance;  // messages that came too late for an iteration
  // With RunOptions::stop_when_browser_lost: why the browser went (the run stopped at the
  // boundary, its turn unfinished); empty otherwise.
  std::string browser_lost;
  json action_cache;          // act()'s action cache in this run's session: {hits, misses, hitRate}
  // Autonomy: the turn's actions (calls that acted on or wrote into a page) and the questions it
  // asked the user (confirmations); {actions, asked, unasked} where unasked = the share of
  // actions that needed no question (null with no action).
  size_t actions = 0, asked = 0;
  json to_json() const;       // {final, iterations, partial, usage, cost, actionCache?, …}
};

class Run {
 public:
  Run(session::Session& session, llm::Provider& provider, RunOptions options, EventSink sink);
  ~Run();

  // Runs to the end. Blocks; events arrive on the sink meanwhile. A task that starts with `$` is
  // the command language: act() runs it as the turn's one block, without the model.
  RunResult execute();
  // Stops the run soon (the model stream, a waiting page call and pending sub-calls); any thread.
  void cancel();
  // A message of the user's while the run works: shown to the model at its next iteration (at
  // most 20 wait; each cut at 4,000 characters). Any thread. Full when too many wait; Closed once
  // the run has handed back what it did not read (RunResult::unread_guidance): the caller keeps
  // the message for what comes next, as it would never be read here.
  enum class Guidance { Added, Full, Closed };
  Guidance add_guidance(const std::string& text);
  bool cancelled() const { return m_cancel.cancelled(); }

 private:
  void emit(const std::string& type, json data);
  // The checkpoint after iteration `it`: stored through on_checkpoint, then the checkpoint event.
  void checkpoint(int it);
  RunResult execute_commands(const std::string& commands);
  RunResult execute_tools();  // tool-calling mode (tool_loop.cpp)
  // One call of the main model, its tokens streamed as stream-token events of the iteration;
  // ms is how long it took. A failure's message says "the model call failed (kind): …".
  Result<llm::Response> call_model(int iteration, const llm::Request& request, double& ms);
  // The partial-results answer and the user's tabs, then the complete event.
  RunResult finish(RunResult result, bool have_final, json final);
  // Stopped at a boundary because the browser is gone (stop_when_browser_lost): no complete event.
  RunResult lost(RunResult result);
  Result<json> sub_call(const std::string& function, const json& args);
  // addGoal, updateGoal, listGoals (agent/goals.h): each change is a goal_added or goal_updated event.
  Result<json> goal_call(const std::string& function, const json& args);
  std::string goals_section();
  // The memories relevant to the task (memory/memory.h), found once per turn; the task is masked
  // for the run's secrets before it goes to an embeddings endpoint.
  std::string memory_entries();
  // images: data URLs (screenshot()), sent as image content to a vision sub-model. The answer's
  // text, or why there is none (the code sees it as "[SUB-CALL ERROR] …").
  Result<std::string> sub_query(const std::string& prompt, const json& data, int index, const json& images = json());
  std::string progress_text();
  bool ask_confirmation(const json& request);
  Result<std::string> ask_user(const json& question);
  void add_usage(const llm::Response& response);

  session::Session& m_session;
  llm::Provider& m_provider;
  RunOptions m_options;
  EventSink m_sink;
  llm::CancelToken m_cancel;
  std::mutex m_emit_mutex;
  uint64_t m_seq = 0;
  RunState m_state;  // every emitted event folded in (under m_emit_mutex)
  std::mutex m_usage_mutex;
  llm::Usage m_usage;
  double m_cost = 0;
  bool m_cost_known = true;
  std::atomic<int> m_sub_calls{0};
  std::atomic<int> m_confirmations{0};
  std::atomic<size_t> m_asked{0};        // confirmations put to the user this turn
  size_t m_actions_at_start = 0;         // the host's actions() when the turn began
  std::atomic<bool> m_commands_turn{false};  // a `$` turn: the user's commands approve their own actions
  std::atomic<int> m_questions{0};
  std::mutex m_guidance_mutex;
  std::vector<std::string> m_guidance;
  bool m_guidance_closed = false;  // m_guidance_mutex
  std::mutex m_history_mutex;
  std::vector<IterationRecord> m_history;
  std::mutex m_goals_mutex;
  Goals m_goals;  // m_goals_mutex
  struct Alive {
    std::shared_mutex mutex;
    Run* run = nullptr;
  };
  std::shared_ptr<Alive> m_alive = std::make_shared<Alive>();
  // Page notices (dialogs answered, popups closed, log floods cut) of this run's browser context,
  // queued by the browser's listener on the network thread and taken by the loop.
  struct NoticeBox {
    std::mutex mutex;
    std::vector<json> notices;
    size_t dropped = 0;
  };
  std::shared_ptr<NoticeBox> m_notices = std::make_shared<NoticeBox>();
  int m_notice_listener = 0;
  // Emits the queued notices as events; returns the lines the model reads ("" if none).
  std::string take_notices(int iteration);
};

}  // namespace ouro::agent
