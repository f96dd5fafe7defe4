// The runs behind the API and the Command Center: several at once, each in a session of its own
// on the shared browser (its own browser context unless it asks for the profile's), every event
// appended to SQLite before it is sent to subscribers, confirmations answered by the user.
//
// Threads: each run has a thread of its own that also tears its session down (closing its
// browser context waits for Chromium); a reaper thread joins finished runs. Every method here
// may block briefly on SQLite or on the manager's mutex, so none is for the network thread.
#pragma once

#include "base/json.h"
#include "llm/settings.h"
#include "server/metrics.h"
#include "store/database.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <optional>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ouro::session { struct Runtime; struct SessionOptions; }
namespace ouro::agent { struct RunResult; }
namespace ouro::hooks { class Pipeline; }
namespace ouro::runs {
class EventLog;
class BrowserSource;
struct RunSpec;
struct Setup;
struct Conversation;
}  // namespace ouro::runs
namespace ouro::session { class BrowserPool; }

namespace ouro::server {

class BridgeHub;


class RunManager {
 public:
  struct Config {
    std::string data_dir;                     // holds secrets.json (the API key, mode 0600)
    std::string ouro_binary;                  // for the REPL worker; empty: /proc/self/exe
    std::string config_path;                  // the settings file (safety settings); empty: none
    std::chrono::seconds confirm_timeout{60};
    std::chrono::seconds ask_timeout{300};  // how long askUser waits for an answer
    // A finished run keeps its session (env, tabs) this long for a follow-up message; after
    // that, a message continues it from its stored env in a new session.
    std::chrono::seconds keep_idle{900};
    size_t max_idle_runs = 8;  // sessions kept waiting for a follow-up; the oldest goes first
    std::chrono::milliseconds action_timeout{5000};
    size_t max_active_runs = 8;  // runs in progress or tearing down; more: ResourceExhausted
    // Runs work in the user's own browser context ("mine") unless they ask for a clean one: the
    // profile is the user's (plain `ouro`, --profile, an attached --browser).
    bool mine_by_default = false;
    // Observe-only hooks told about each run's start, iterations, gate decisions and end (the
    // settings file's "hooks"); null: none. Shared: `ouro run` and tests make their own.
    std::shared_ptr<hooks::Pipeline> hooks;
    std::string workspace;  // --workspace NAME ("" = the default data directory), for GET /api/settings
    // `ouro serve --secret NAME@SITE` (the value from $OURO_SECRET_NAME): each run has these
    // secrets over the settings file's, as `ouro run --secret` does (cli/flags.cpp).
    std::vector<std::string> secret_flags;
    // A pool of remote browsers (session/pool.h): each run is placed on one of its endpoints, in a
    // context of its own, instead of the runtime's browser, and moves to another endpoint at its
    // next iteration boundary when its endpoint dies. null: the runtime's browser.
    std::shared_ptr<session::BrowserPool> pool;
    std::chrono::seconds pool_wait{600};  // how long a run waits queued while every endpoint is full
    // The extensions connected over /api/bridge: runs with options.browser "extension" use the
    // latest one's tabs (a tab group per run). null: such runs fail saying so.
    std::shared_ptr<BridgeHub> bridge;
    // "extension": runs without options.browser use the extension (ouro serve --browser
    // extension, which has no browser of its own); "": ouro's own browser.
    std::string default_browser;
    // Nodes sharing a PostgreSQL database (store/nodes.h): the URL a node listens on for the
    // others' notifications, password and all; "" = store::configured_database's.
    std::string database_url;
    // Told when each turn of a run starts and when it ends (`ouro serve` prints one line for
    // each). Called on the run's thread; it must not block. null: nobody is told.
    struct TurnNotice {
      std::string run_id, task;
      bool started = false;
      std::string state;  // at the end: done | partial | failed | cancelled | interrupted
      int iterations = 0;  // the run's, over its turns
      std::optional<double> cost;
      double seconds = 0;  // the turn's
      std::string error;
    };
    std::function<void(const TurnNotice&)> on_turn;
  };

  RunManager(std::shared_ptr<session::Runtime> runtime, Config config);
  ~RunManager();  // cancels what runs and waits for it, teardown included

  // POST /api/runs {task, urls?, options?: {provider, model, sub_model, base_url, max_iterations,
  // context, browser ('extension': the user's Chrome through the paired extension), profile, allowed_domains, mode, permissions}}: every field's type is checked (InvalidArgument naming the field and what was
  // expected, or the unknown option and the known ones).
  Result<json> create(const json& body);
  // The same, with `alongside` run in the transaction that stores the new run (its id given), before
  // it: the run is stored only when it returns true, and not at all when it returns false
  // (AlreadyExists) or fails (its error). How the scheduler records a fire and the run it starts
  // at once (server/scheduler.h). Null: as create(body).
  // `pairing`: the extension pairing whose side panel sent it — with no browser option it runs
  // in that panel's Chrome (browser 'extension'), unless this server's runs use a pool.
  using Alongside = std::function<Result<bool>(store::Connection& c, const std::string& run_id)>;
  Result<json> create(const json& body, const Alongside& alongside, const std::string& pairing = {});
  Result<json> get(const std::string& id);
  Result<json> list();
  Result<json> cancel(const std::string& id);
  // POST /api/runs/{id}/end: the conversation is over (the Command Center's New conversation):
  // a run waiting for a follow-up lets its session go now rather than after keep_idle, and in My
  // browser closes the tabs it opened that the person did not turn to. A later follow-up goes on
  // from storage. FailedPrecondition while a turn works.
  Result<json> end(const std::string& id);
  // The user's answer to a confirmation-req.
  // remember: "always" — the question's site (a navigation off the allowed sites, one of the
  // user's tabs) is allowed for every run from now on (settings `allowed_sites`).
  Result<json> confirm(const std::string& run_id, const std::string& confirmation_id, bool approved, bool remember = false);

  // POST /api/runs/{id}/messages {text}: while a turn works, guidance shown to the model at its
  // next iteration; after it, a new turn of the conversation (same env, tabs and store, the
  // earlier turns in its prompt), continued from storage when its session has gone.
  Result<json> message(const std::string& run_id, const std::string& text);

  // POST /api/runs/{id}/resume: an interrupted run (ouro stopped while it worked) goes on from
  // its last checkpoint — env, history, usage and tabs restored — in a new session, its events
  // continuing the same sequence. FailedPrecondition for runs that are not interrupted.
  Result<json> resume(const std::string& run_id);

  // The user's answer to a user-question (askUser): text, one of its choices when it has some.
  Result<json> answer(const std::string& run_id, const std::string& question_id, const std::string& text);

  // The tabs of a run in progress ({tabs, activeTab}), for the live view.
  Result<json> tabs_of(const std::string& run_id);
  // GET /api/pool: the browser pool's endpoints and their state; NotFound without a pool.
  Result<json> pool_state();

  // Settings: what the Command Center shows and changes. The key is stored apart (0600) and
  // only ever returned masked.
  Result<json> settings();
  Result<json> update_settings(const json& body);
  // The providers to choose from (local servers probed), and a one-token test of the settings
  // with the body's overrides (provider, model, sub_model, base_url, api_key) — for Settings.
  json providers();
  Result<json> test_connection(const json& body);

  // A run's stored events with seq > after (at most 100,000), or NotFound.
  Result<json> events(const std::string& run_id, int64_t after);

  // Runs waiting for a node to take them (PostgreSQL), or queued here (SQLite).
  Result<int64_t> queue_depth();

  // For /metrics (server/metrics.h). What this node did since it started: runs it took over from
  // dead nodes, runs refused because the queue was full (429), how long runs waited for a place,
  // and when its heartbeat last reached the database (PostgreSQL).
  struct NodeStats {
    Counter taken_over, refused;
    Histogram queue_wait{{0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900}};
    std::atomic<int64_t> last_heartbeat_ms{0};  // the one clock's steady ms (base/clock.h); 0 before the first
    // Whether this node has stopped its runs for want of the database (only the nodes thread
    // changes it). Clear: its heartbeats reach the database, or have failed for no longer than
    // store::kNodeFence; Fenced: none has for kNodeFence — its runs were stopped, and it takes
    // none until a heartbeat gets through again. Not the heartbeat's age: the fence is put up only
    // when a heartbeat fails past kNodeFence, and taken down only when one succeeds.
    enum class Fence { Clear, Fenced };
    std::atomic<Fence> fence{Fence::Clear};
  };
  NodeStats& node_stats() { return m_node_stats; }
  // This node's runs by state: those it executes now and those waiting here for a place.
  std::map<std::string, int64_t> local_states();
  // Every run in the database by state, every node's (dead ones' included).
  Result<std::map<std::string, int64_t>> stored_states();
  // Several nodes share the database (PostgreSQL).
  bool shared() const { return m_shared; }

  // Subscribes to the events of one run (run_id) or of all runs (empty): first every stored event
  // after `after` (a run's seq, or the global id for all runs), then live ones, in order, without
  // gaps or duplicates. The stored ones are read in pages on the calling thread, without holding
  // up runs that publish meanwhile (their events wait in the subscription until the replay is
  // done). `fn` must not block; it is never called twice at once, and returning false ends the
  // subscription. Fails when the stored events cannot be read.
  using EventSink = std::function<bool(const json& event)>;
  Result<int> subscribe(const std::string& run_id, int64_t after, EventSink fn);
  void unsubscribe(int id);

 private:
  struct Active;
  void execute(std::shared_ptr<Active> run);
  // execute's parts: the server's rules for where a run works, its setup, its browser's source,
  // and the conversation between its turns.
  Result<void> placement_rules(runs::RunSpec& spec, bool via_extension) const;
  Result<runs::Setup> run_setup(bool via_extension);
  std::shared_ptr<runs::BrowserSource> browser_source(const std::shared_ptr<Active>& active, bool via_extension);
  runs::Conversation conversation(const std::shared_ptr<Active>& active, bool first_start);
  void run_thread(std::shared_ptr<Active> run);
  // A run continued from storage (a message after its session went, or a resume): registered and
  // its thread started, unless ouro is stopping, the run is active already (busy_code, "run ID
  // busy_why"), or too many runs are busy. Its row is stored first when it is queued.
  Result<void> start_stored(std::shared_ptr<Active> run, Code busy_code, const char* busy_why);
  // Runs in progress (not idle between turns); and lets the oldest idle ones go past the cap.
  // m_mutex held.
  size_t busy_runs();
  void expire_idle(size_t keep);
  void reaper();
  void publish(Active& run, const std::string& type, const json& data, double ts);
  // Nodes on PostgreSQL (store/nodes.h): the thread that heartbeats, takes queued runs and the
  // runs of dead nodes, passes inbox messages to local runs and stored events of runs executing
  // elsewhere to local subscribers.
  void nodes_loop();
  void take_work();
  Result<void> start_queued(const store::Database::RunRow& row);
  // Starts the runs waiting on this node while places are free. Without m_mutex.
  void start_waiting();
  // A run went idle (its place is free): the reaper starts a waiting run. Without m_mutex.
  void place_freed();
  Result<json> start_resumed(const std::string& run_id, const std::vector<runs::State>& states);
  void apply_inbox();
  void deliver_stored(const std::string& run_id);
  void fence_local_runs();
  size_t free_places();
  void open_log(const std::shared_ptr<Active>& run);
  // A new run's row stored, with what goes alongside it in one transaction when there is such.
  Result<void> store_new_row(const std::string& run_id, const Alongside& alongside,
                             const std::function<Result<void>(store::Connection&)>& insert);
  // A new run into the queue nodes share / onto a place of this node's (or its waiting list).
  Result<json> enqueue_shared(const store::Database::RunRow& row, const Alongside& alongside);
  Result<json> place_here(const std::shared_ptr<Active>& active, const Alongside& alongside);
  llm::SettingsFlags model_flags();
  // The model a run's typed options choose over Settings and the flags (runs::resolve_model);
  // `api_key` only from a connection test. resolve_given types a body's options first.
  Result<llm::Settings> resolve(const runs::RunSpec& spec, const std::string& api_key = {});
  Result<llm::Settings> resolve_given(const json& options);
  Result<std::shared_ptr<session::Runtime>> bridge_runtime(const std::string& run_id, const std::string& task, const std::string& pairing);
  Result<json> stored_llm_settings();  // always an object
  std::string stored_api_key();        // "" when none is stored

  std::shared_ptr<session::Runtime> m_runtime;
  store::Database& m_db;
  Config m_config;
  std::mutex m_mutex;  // runs, the waiting list and the reaper's list; never held over a database write
  // Orders each event's append with its broadcast, and guards the subscribers: held while an event
  // is stored, so an API read (m_mutex) never waits for one.
  std::mutex m_events_mutex;
  size_t m_storing = 0;  // new runs whose rows are being stored (m_mutex)
  std::map<std::string, std::shared_ptr<Active>> m_runs;  // until the reaper has joined them
  std::map<std::string, std::string> m_placed;  // run id -> its pool endpoint (redacted), the latest 1,000 runs
  std::deque<std::string> m_placed_order;       // m_placed's ids, oldest first (the ids are random)
  struct Subscriber {
    // Replaying: subscribe() reads its stored events to it (without the events mutex), and what
    // is published meanwhile waits in `held`; Live: each event goes to it as it is published.
    enum class Feed { Replaying, Live };
    std::string run_id;
    EventSink fn;
    Feed feed = Feed::Replaying;
    std::vector<json> held;       // events published during the replay
    int64_t cursor = 0;           // a run's subscriber: the last seq it was given
  };
  // Gives a live subscriber of one run the event, after any stored ones between its cursor and
  // it (the run moved between nodes); m_mutex held. False: the subscription ends.
  bool deliver(Subscriber& sub, const json& event);
  std::map<int, Subscriber> m_subscribers;
  int m_next_subscriber = 1;
  // Open: runs are created, continued, resumed and taken from the queue; Stopping: the destructor
  // has begun — nothing starts any more, the nodes thread ends, and the reaper ends once every run
  // is gone. m_mutex.
  enum class Serving { Open, Stopping };
  Serving m_serving = Serving::Open;
  std::vector<std::shared_ptr<Active>> m_torn_down;  // run threads about to end, for the reaper
  // One node (SQLite): runs created while every place is taken, stored `queued` and started here,
  // oldest first, as places come free (by the reaper thread). m_mutex.
  std::deque<store::Database::RunRow> m_waiting;
  // How many times a place came free for the runs in m_waiting (a run went idle between turns, or
  // one was queued here while a place was free): the reaper keeps the count it last acted on, and
  // a larger one sends it to start waiting runs. m_mutex; m_reap is notified after it grows.
  uint64_t m_places_freed = 0;
  std::condition_variable m_reap;                    // something to reap, or stopping
  std::condition_variable m_reaped;                  // m_runs shrank
  std::thread m_reaper;
  bool m_shared = false;  // several nodes on PostgreSQL: runs go through the shared queue
  NodeStats m_node_stats;
  // Whether the nodes thread looks at the shared queue and at the runs of dead nodes at its next
  // turn (PostgreSQL). Due: something may have changed since it last looked — a run was queued,
  // a place came free here, another node announced a run, the listening connection came back,
  // the poll's time came (and at the start); Looked: it has looked since. take_work() marks it
  // Looked before it claims queued runs, so a change after that point makes it look again.
  enum class Look { Looked, Due };
  std::atomic<Look> m_look{Look::Due};
  std::thread m_nodes;
};

}  // namespace ouro::server
