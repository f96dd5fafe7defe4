// One run's life, the same from every face (`ouro run`, the runs API and the Command Center, MCP's
// browser_task, a scheduled job): from a RunSpec to a stored result.
//
//   start:  the model (a provider, a replay of a saved script, a replay a model takes over from,
//           or none for `$ commands`), the egress gate's policy and the permissions (the settings
//           file's, the remembered sites, the run's own), a session from the face's source of
//           browsers (clean or the user's context), then either the browser restored from a
//           resume point or the start pages opened;
//   turn:   the agent over the session, each event appended to the run's EventLog (stored before
//           it is sent; hooks hear stored events only), a checkpoint after every iteration;
//   finish: the run's row (state, iterations, usage and cost summed over its turns), the env for
//           a follow-up, memory across tasks, and a replayed script rewritten where it healed.
//
// What stays with the faces: how they ask the person (Asker), how they show events (the log's
// sink), how many runs at once and conversations between turns (the API), and where browsers come
// from (a pool's lease, the user's Chrome through the extension: the source and move_to).
// Threads: a Lifecycle is used from its run's thread; cancel() from any.
#pragma once

#include "agent/run.h"
#include "llm/settings.h"
#include "runs/conversation.h"
#include "runs/event_log.h"
#include "runs/resume.h"
#include "runs/spec.h"
#include "safety/settings.h"
#include "session/session.h"
#include "store/database.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace ouro::scripts { class ReplayProvider; }
namespace ouro::hooks { class Pipeline; }

namespace ouro::runs {

// How the run asks its person (the terminal, the Command Center; nobody over MCP).
struct Asker {
  std::function<bool(const json& request)> confirm;                                // none: denied
  std::function<std::optional<std::string>(const json& question)> ask_user;       // none: no one to ask
  std::chrono::milliseconds confirm_timeout{60000};
  std::chrono::milliseconds ask_timeout{300000};  // how long ask_user waits (shown as a countdown)
};

struct Setup {
  store::Database* db = nullptr;        // where the run, its events and checkpoints are kept
  std::shared_ptr<EventLog> log;        // the run's events
  session::SessionOptions base;         // the face's: browser, REPL and action limits, uploads
  // The face's source of browsers: a session with the options the run built.
  std::function<Result<std::unique_ptr<session::Session>>(session::SessionOptions)> source;
  safety::SafetySettings file;          // the settings file's safety settings, read once for the run
  std::shared_ptr<hooks::Pipeline> hooks;  // the settings file's hooks, which the run's event log tells
  llm::SettingsFlags model_flags;       // the face's model settings (flags, a key); the run's options go over them
  json stored_settings = json::object();  // Settings kept in the database (the Command Center's)
  // A model the face brings, used when none is configured (MCP sampling: the client's own).
  std::unique_ptr<llm::Provider> client_model;
  // Stands around the run's model once it is made (`ouro eval --record` keeps every exchange).
  std::function<std::unique_ptr<llm::Provider>(std::unique_ptr<llm::Provider>)> wrap_model;
  std::string default_context = "clean";  // when the spec says neither mine nor clean
  int default_max_iterations = 25;
  bool stop_when_browser_lost = false;  // a pool's run stops at its next boundary to be moved
};

// Where the run starts from.
struct Origin {
  std::optional<ResumePoint> resume;  // after a crash: the last checkpoint
  bool continued = false;             // a run continued from storage (its tabs are not reopened)
  std::string env;                    // then: the env its last turn left (JSON text)
};

// The model a run would use: the spec's typed options (provider, model, sub_model, base_url and
// the model parameters) over the stored Settings over the face's flags. FailedPrecondition when
// none is configured; InvalidArgument naming "settings.<name>" for a wrong parameter in Settings
// (the spec's were checked when it was made).
Result<llm::Settings> resolve_model(const RunSpec& spec, const llm::SettingsFlags& flags, const json& stored);

class Lifecycle {
 public:
  // Fails with why the run cannot start; FailedPrecondition with details {kind: "no-model"} when it
  // needs a model and none is configured (nor brought by the face).
  static Result<std::unique_ptr<Lifecycle>> start(const RunSpec& spec, Setup setup, Origin origin, const std::string& run_id);
  ~Lifecycle();

  session::Session& session() { return *m_session; }
  bool has_session() const { return m_session != nullptr; }
  llm::Provider& provider() { return *m_provider; }
  scripts::ReplayProvider* replay() { return m_replay; }
  const llm::Settings& settings() const { return m_settings; }
  int max_iterations() const { return m_ro.max_iterations; }
  // The turn in progress or last run, counted from 1: where a face journals what it changes after it (undo/journal.h).
  int turn_number() const { return m_turn_number; }
  // The options its session was made with (a pool's failover makes another with them).
  const session::SessionOptions& session_options() const { return m_so; }
  // One line for a terminal: the model, or the script a replay follows.
  std::string banner() const;

  // One turn of the run (the first, or a follow-up with the earlier turns in its prompt).
  // `view` sees each event as the agent emits it (before it is stored; a terminal renders it);
  // `running` is told of the agent::Run while it works (nullptr after), for guidance and cancel.
  agent::RunResult turn(const std::string& task, const std::vector<agent::Turn>& earlier, int first_iteration, const Asker& asker,
                        const std::function<void(agent::Run*)>& running = {}, const std::function<void(const agent::Event&)>& view = {});
  // A pool's run whose endpoint died: its next turn() goes on in `to` from `point`. Returns the
  // dead session, for the caller to close where it does not hold others up.
  [[nodiscard]] std::unique_ptr<session::Session> move_to(std::unique_ptr<session::Session> to, const ResumePoint& point, std::string note);
  // Releases the session (closing it) now; the dead one after a move goes this way too.
  std::unique_ptr<session::Session> take_session() { return std::move(m_session); }

  // After a turn: memory, the rewritten script, the goals and the env for a follow-up, and the
  // row filled in (runs::Run stores it, after the env, through runs/state.h). The row's state is the turn's: "done" only when it finished with its answer; "failed" when its events
  // could not be stored; "interrupted" when it was cut short because ouro stops (`ouro_stopping`:
  // nobody cancelled it, and it resumes from its last checkpoint). The row's usage keeps each
  // turn's record in "turns": {state, started_at, ended_at, iterations, cost}. Returns the state.
  State finish_turn(store::Database::RunRow& row, const std::string& task, const agent::RunResult& r, bool ouro_stopping = false);

  // The turn's last event, `complete`, is not stored as the agent emits it (the view sees it
  // then) but kept here until the row it ends is written with it in one transaction
  // (runs::Run::finish_turn): whoever sees the event reads the turn's final in the row.
  struct TurnEnd {
    json data;
    double ts = 0;  // ms since the epoch
  };
  // Replaces the kept end (a turn whose browser could not be replaced ends with why).
  void set_turn_end(TurnEnd end);
  // The kept end, taken; nullopt when the turn emitted none (its browser was lost).
  std::optional<TurnEnd> take_turn_end();

  // Stops the turn in progress (any thread).
  void cancel();

 private:
  Lifecycle() = default;
  RunSpec m_spec;
  std::string m_id;
  store::Database* m_db = nullptr;
  std::shared_ptr<EventLog> m_log;
  std::shared_ptr<hooks::Pipeline> m_hooks;  // the settings file's; its deciding points are asked here
  llm::Settings m_settings;
  std::unique_ptr<llm::Provider> m_provider;
  scripts::ReplayProvider* m_replay = nullptr;
  std::unique_ptr<session::Session> m_session;
  session::SessionOptions m_so;
  agent::RunOptions m_ro;
  std::optional<ResumePoint> m_resume;
  std::string m_resume_note;
  std::mutex m_mutex;  // m_running, m_cancelled, m_goals, m_turn_end
  std::optional<TurnEnd> m_turn_end;
  agent::Run* m_running = nullptr;
  json m_goals = json::array();  // the conversation's goals as its last goal event left them
  bool m_cancelled = false;
  double m_turn_started = 0;  // when the turn in progress began (ms since the epoch)
  int m_turn_number = 1;      // the turn in progress, counted from 1 (its changes are journaled for undo)
};

// A row's usage JSON as a resume or a failover starts from: the usage is summed again from the
// checkpoint, so only the finished turns' records are kept — not the one that was cut short,
// which goes on.
std::string usage_for_resume(const std::string& usage_json);

// The state a turn's result gives its row.
State turn_state(const agent::RunResult& r, const std::string& store_error);

}  // namespace ouro::runs
