// A run as one object, the same on every face (`ouro run`, the runs API and the Command Center,
// MCP's browser_task, a scheduled job): where it comes from (a new request, a conversation
// continued from storage, a run resumed from its last checkpoint), its row and the one place its
// state is written (runs/state.h), its event log, the waits for its person's answers
// (runs/answers.h), its lifecycle (runs/lifecycle.h) over a browser from the face's source, and
// the loop of its turns — each moved to another browser when the source can (a pool's failover).
//
// A face does what is its own around it: how it asks its person (Asker), how many runs at once
// and the conversation between turns (the API's Conversation), how it shows events (the log's
// sink), where browsers come from (BrowserSource).
//
// Threads: the face's run thread starts it and drives its turns; row(), state(), answers(),
// tabs() and cancel() from any.
#pragma once

#include "runs/answers.h"
#include "runs/lifecycle.h"
#include "runs/state.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace ouro::runs {

// Where a run's browser comes from: ouro's own, the user's Chrome through the extension, or a
// place on a browser pool.
class BrowserSource {
 public:
  virtual ~BrowserSource() = default;
  // A session with the options the run built (its gate, permissions, initial env).
  virtual Result<std::unique_ptr<session::Session>> open(session::SessionOptions so) = 0;
  struct Move {
    std::unique_ptr<session::Session> session;
    ResumePoint point;  // where the run goes on from: its last checkpoint
    std::string note;   // what the model is told
    std::string from, to;  // the dead browser and the new one, as the failover event names them
  };
  // The run's browser died (`why`): another, with the run's tabs and env back as its last
  // checkpoint had them (runs/failover.h). Unimplemented when this source has no other: the turn
  // ends with the loss.
  virtual Result<Move> fail_over(const std::string& run_id, const std::string& why, const session::SessionOptions& so);
  // The run works in the moved-to session now and the dead one is closed: its place may go.
  virtual void settled() {}
};

// A source of one kind of session (a face with one browser).
class SessionSource final : public BrowserSource {
 public:
  using Open = std::function<Result<std::unique_ptr<session::Session>>(session::SessionOptions)>;
  explicit SessionSource(Open open) : m_open(std::move(open)) {}
  Result<std::unique_ptr<session::Session>> open(session::SessionOptions so) override { return m_open(std::move(so)); }

 private:
  Open m_open;
};

// Between the turns of a conversation (the runs API keeps one open for follow-ups): each hook is
// optional; with none, a run is one turn.
struct Conversation {
  // A turn begins (its session taken back) / was recorded in `state`.
  std::function<void(const std::string& task)> turn_begins;
  std::function<void(const std::string& task, const agent::RunResult& r, State state)> turn_ended;
  // Told of the agent::Run while it works (nullptr once its work is done), for guidance and
  // cancel; `moved`: the turn goes on in another browser after a failover.
  std::function<void(agent::Run* working, bool moved)> running;
  // Sees each event as the agent emits it (before it is stored; a terminal renders it).
  std::function<void(const agent::Event&)> view;
  // True when the turn's end must not be recorded: this node lost the database, and the run
  // goes on from its last checkpoint where a node can reach it (store/nodes.h).
  std::function<bool(const agent::RunResult&)> abandon;
  // True when ouro stops: a cut-short turn is recorded interrupted (resumable).
  std::function<bool()> stopping;
  // After a recorded turn the run can go on from: the next message, or none to end.
  std::function<std::optional<std::string>(const agent::RunResult&)> next;
  // The conversation takes no more turns although `next` was not asked (the turn was cancelled,
  // its browser was lost or its events could not be stored).
  std::function<void()> leaving;
};

class Run : public std::enable_shared_from_this<Run> {
 public:
  // A new run of `request` ({task, urls?, options?}, checked by runs/spec.h) in `state`: queued
  // while it waits for a place, running when it starts at once. Its row is not stored yet:
  // insert(), or a face's own transaction over row().
  static Result<std::shared_ptr<Run>> create(store::Database& db, const json& request, State state);
  // A run as its stored row has it (a queued run a place came free for, one a node took).
  static std::shared_ptr<Run> from_row(store::Database& db, store::Database::RunRow row);
  // A conversation continued from storage: `text` opens its next turn. NotFound.
  static Result<std::shared_ptr<Run>> continued(store::Database& db, const std::string& id, const std::string& text);
  // A run from its last checkpoint, when it is in one of `states`: its row's usage, cost and
  // iterations folded back to the checkpoint's (the resumed turn reports the whole run's),
  // queued again until its thread starts.
  static Result<std::shared_ptr<Run>> resumed(store::Database& db, const std::string& id, const std::vector<State>& states);

  const std::string& id() const { return m_id; }
  // Its next turn's request, {task, urls, options}: a new run's as given, a continued one's
  // stored options with the message as its task, a resumed one's with the sites its tabs were
  // on. A face may add to it (`ouro run`'s flags) before start().
  const json& request() const { return m_request; }
  // Replaces it (checked as a new run's is), and the options its row keeps with it.
  Result<RunSpec> set_request(json request);
  // Made by resumed(): its first turn goes on from a checkpoint (true before and after start()).
  bool resuming() const { return m_resumed; }
  bool continuing() const { return m_origin.continued; }
  // The iteration a resumed run goes on from.
  int resume_from() const;
  int64_t last_seq() const { return m_last_seq; }
  // The conversation's turns so far.
  const std::vector<agent::Turn>& turns() const { return m_turns; }

  // --- Its row ---------------------------------------------------------------------------------
  store::Database::RunRow row() const;  // a copy: other threads write it
  State state() const;
  // Stores a new run's row.
  Result<void> insert();
  // Stores it as running, for a face that starts it at once (`ouro run`, MCP, an evaluation): a
  // new run's row inserted, a continued or resumed one's moved to running. Unavailable, saying
  // the run cannot be kept, when the database refuses. (The runs API stores a new run's row in a
  // transaction of its own and moves it with set_state.)
  Result<void> keep_running();
  // Stores the row as it is (a queued run given its place).
  Result<void> store_row();
  // The one place its state is written (the table in runs/state.h), stored with its row. An
  // illegal move is refused (FailedPrecondition, logged) and nothing is written.
  Result<void> set_state(State to);
  // A run that ends without an agent's result (it could not start, its thread failed): an error
  // event, the row failed with `why`, a complete event with `message` as its partial final.
  void fail(const std::string& why, const std::string& message);

  // --- Its events and its person -------------------------------------------------------------
  // Its event log, on its id from last_seq(), told to `hooks`; `order`: the face's ordering mutex
  // (runs/event_log.h), or the log's own. The rule on every face: a store that fails cancels the
  // run, and `stopped` (optional) hears of it first. The face adds its sink.
  const std::shared_ptr<EventLog>& open_log(std::shared_ptr<hooks::Pipeline> hooks = nullptr, std::mutex* order = nullptr,
                                            std::function<void()> stopped = {});
  const std::shared_ptr<EventLog>& log() const { return m_log; }
  Answers& answers() { return m_answers; }
  // An Asker that waits here for the API's answers (confirm(), answer()), and publishes what its
  // turn ended before (question-withdrawn). `always`: told of a site question approved "always".
  Asker waiting_asker(std::chrono::milliseconds confirm_timeout, std::chrono::milliseconds ask_timeout,
                      std::function<void(const json& request)> always = {});
  // The turn is over: what still waits is withdrawn, each a question-withdrawn event.
  void withdraw_questions();

  // --- Its life --------------------------------------------------------------------------------
  // Its lifecycle over `source`'s browsers; a start that fails is kept as failed (fail()) and
  // returned. A continued conversation's message is its user-message event.
  Result<void> start(const RunSpec& spec, Setup setup, std::shared_ptr<BrowserSource> source);
  Lifecycle& life() { return *m_life; }
  bool started() const { return m_life != nullptr; }
  // The conversation from its first turn (its request's task, or the resumed turn) until
  // `c.next` gives no message or the run cannot go on. Returns the last turn's result and state.
  struct Ended {
    agent::RunResult result;
    State state = State::Failed;
    bool recorded = false;  // false: abandoned (c.abandon), its row left in progress
  };
  Ended converse(const Asker& asker, Conversation c = {});
  // One turn, moved to another browser when the source can (failover).
  agent::RunResult turn(const std::string& task, const Asker& asker, const Conversation& c);
  // The turn's result kept: the row (runs/lifecycle.h finish_turn) and the conversation's turns.
  // Its state; failed when its end could not be stored, or nullopt when `leave` said the turn
  // is then not this node's to record (its row left in progress, as c.abandon).
  std::optional<State> finish_turn(const std::string& task, const agent::RunResult& r, bool ouro_stopping, const std::function<bool()>& leave);
  // `row` written with the turn's `complete` (`end`, when there is one) in one transaction: a
  // reader that sees the event reads the row it ends. False when the event could not be stored
  // (nor the row with it); a row written alone that fails is logged, as every row write.
  bool end_with(std::optional<Lifecycle::TurnEnd> end, const store::Database::RunRow& row);
  // The end when it could not be stored: the row alone, failed, saying why.
  void end_unstored(store::Database::RunRow row);
  // Its tabs now ({tabs, activeTab}); FailedPrecondition without a browser.
  Result<json> tabs() const;
  // Whether its browser is `browser` (the server's own).
  bool uses_browser(const void* browser) const;
  // Stops the turn in progress and every wait for an answer (any thread); a run not started yet
  // starts cancelled.
  void cancel();
  // Closes its session and then lets its source go (the place, the browser it used): the run's
  // thread does, at its end, so that the session's teardown is the run's.
  void close();

 private:
  explicit Run(store::Database& db) : m_db(db) {}
  void append(const std::string& type, const json& data);
  // The resume point's usage, cost and iterations over the row (a resume, a failover).
  void fold(const ResumePoint& point);

  store::Database& m_db;
  std::string m_id;
  json m_request = json::object();
  Origin m_origin;
  int64_t m_last_seq = 0;
  std::vector<agent::Turn> m_turns;
  std::string m_first_task;
  bool m_resumed = false;  // its first turn's: the request's task, or the resumed turn's
  enum class Row { New, Stored } m_row_kept = Row::Stored;  // under m_row_mutex; create() makes a row not stored yet
  mutable std::mutex m_row_mutex;  // m_row: the run's thread, the log's sink (awaiting_user) and readers
  store::Database::RunRow m_row;
  std::atomic<State> m_state{State::Queued};  // m_row.state, read without waiting for a write
  std::shared_ptr<EventLog> m_log;
  Answers m_answers;
  std::shared_ptr<BrowserSource> m_source;
  mutable std::mutex m_life_mutex;  // m_life's session while another thread reads its tabs (a failover swaps it)
  std::unique_ptr<Lifecycle> m_life;
  bool m_cancelled = false;  // under m_life_mutex: cancel() came before start()
};

}  // namespace ouro::runs
