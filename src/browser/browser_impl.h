// The Browser's shared state, for the files that implement it (internal to the browser module).
// One mutex guards the tracker and everything below it; callbacks into other code (listeners,
// observers, handlers) run without it.
#pragma once

#include "browser/browser.h"
#include "browser/contexts.h"
#include "browser/egress_control.h"
#include "browser/files.h"
#include "browser/frames.h"
#include "browser/notices.h"
#include "browser/page_tools.h"
#include "browser/records.h"
#include "browser/screencast.h"
#include "browser/shared_tabs.h"
#include "base/steady_clock.h"
#include "browser/tab_tracker.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <set>

namespace ouro::embedded {
extern const std::string_view helpers_js;
extern const std::string_view affordances_js;
extern const std::string_view binding_js;
extern const std::string_view heal_js;
extern const std::string_view calls_js;
extern const std::string_view serialize_js;
extern const std::string_view egress_guard_js;
}  // namespace ouro::embedded

namespace ouro::browser {

// What ouro's isolated world of every document runs: the page helpers and the page-affordances
// engine (selectors, snapshot, find, extract) they resolve selectors with, and the command binder
// (a command's target words → an element) that reads the engine's facts, and what identifies an
// action's target for a replay to find it again (heal.js); last, the table of the functions
// Browser::call reaches by name (calls.js).
inline const std::string& page_helpers_source() {
  static const std::string source =
      std::string(embedded::affordances_js) + "\n;\n" + std::string(embedded::binding_js) + "\n;\n" +
      std::string(embedded::heal_js) + "\n;\n" + std::string(embedded::helpers_js) + "\n;\n" + std::string(embedded::calls_js);
  return source;
}

// The settings page ouro opens for itself (prediction.cpp), by its URL.
bool is_private_settings_url(std::string_view url);
// The script one visit of that page runs (prediction.cpp): reads `net.network_prediction_options`
// through chrome.settingsPrivate, writes `set_to` unless it is null or the value is not `only_if`
// (when given), reads it back, and answers the JSON text {before, after, writes, enforcement}.
std::string prediction_change_expression(std::optional<int> set_to, std::optional<int> only_if);

// Runtime.callFunctionOn's parameters for a call of the page engine's function `function` with
// `args` (a JSON array) in execution context `context` (eval.cpp).
json page_call_params(std::string_view function, const json& args, int context, bool by_value);

using Clock = ouro::SteadyClock;

// Network.setBlockedURLs rules that let WebSockets reach these URL patterns only (egress.cpp).
json websocket_rules(const std::vector<std::string>& allow);

struct Browser::Impl : std::enable_shared_from_this<Browser::Impl> {
  static constexpr size_t kNoticesKept = 200;  // per context

  net::IoThread* io = nullptr;
  std::unique_ptr<ChromiumProcess> process;
  // Closed by ~Browser but kept while the Impl lives: work that still holds the Impl (a reply
  // callback, a posted task) may use it, and a closed connection fails at once.
  std::unique_ptr<cdp::Connection> conn;
  bool attached = false;  // connected to someone else's browser: never close it
  // The user's Chrome through ouro's extension (cdp/bridge.h): a tab a page opens cannot be held
  // before its first request there, so gated tabs open none (page/egress_guard.js).
  bool bridged = false;

  mutable std::mutex mutex;
  std::condition_variable changed;  // any tab state changed: waiters re-check
  TabTracker tracker;
  std::optional<Error> dead;
  std::function<void()> listener;
  std::map<int, std::pair<std::string, RequestObserver>> observers;
  int next_observer = 1;
  std::map<std::string, std::deque<PageNotice>> notices;  // by context, the last kNoticesKept

  // Held while notice listeners run, so removing one waits for a call in progress.
  std::recursive_mutex notice_call_mutex;
  std::map<int, std::function<void(const PageNotice&)>> notice_listeners;  // guarded by notice_call_mutex
  int next_notice_listener = 1;

  // Paused requests (egress.cpp): egress gates by context, interceptRequests' handlers by owner,
  // interceptRequests' patterns by tab, what is known about requests, run actions in progress,
  // the frames the run's code made, and the tabs' frame and worker sessions we follow.
  std::map<std::string, EgressGate> gates;
  std::map<std::string, std::function<void(const std::string&, const json&)>> pause_handlers;  // by owner key
  std::map<std::string, json> intercept_patterns;
  std::map<std::string, std::string> intercept_owner;  // tab -> the pause handler's owner key
  struct Initiator {
    json initiator;
    std::string loader_id, frame_id;
    bool worker = false;      // told of in a worker's session
    bool run_worker = false;  // that worker is the run's (Child::run_made)
  };
  std::map<std::string, Initiator> initiators;  // by Network requestId (= Fetch networkId)
  // Why a frame navigates (Page.frameRequestedNavigation), by "frameId URL" ("* URL" for a new
  // window), until its request pauses; the last kInitiatorsKept.
  std::map<std::string, std::string> nav_reasons;
  std::deque<std::string> nav_reason_order;
  std::deque<std::string> initiator_order;      // oldest first, for the cap
  std::map<std::string, cdp::Event> waiting;    // paused before requestWillBeSent, by networkId
  // Requests paused under a gate and not answered yet, by Fetch requestId: refused (never let
  // through) when their tab leaves the gate.
  struct Pending {
    std::string session;
    std::shared_ptr<std::atomic<bool>> answered;
  };
  std::map<std::string, Pending> pending;
  // Refuses the pending and waiting requests of these sessions (mutex not held).
  void refuse_pending(const std::set<std::string>& sessions);
  // A lingering tab's document was replaced by the user: out of the gate (mutex not held).
  void end_lingering(const std::string& tab_id);
  // Tabs under a gate (a run's, or a finished run's lingering one).
  std::vector<std::string> gated_tabs() const;
  struct Activity {
    std::map<int, std::string> running;  // id -> action name
    std::string last;                    // the latest action's name
    bool approved = false;               // the user approved the action in progress (layer 1)
    bool page_approved = false;          // the page's guard lets socket messages through for it
    std::string loader;                  // the main frame's document when the first one began
    Clock::time_point until{};           // settling after the last one ended
  };
  std::map<std::string, Activity> activity;  // by tab id
  int next_activity = 1;
  std::set<std::string> run_frames;
  std::deque<std::string> run_frame_order;
  struct Child {
    std::string tab, type, target;
    bool run_made = false;  // a worker that attached while the run's code (execInTab) worked or settled
    // A worker: it opened a socket (so it runs); socket messages are to be refused in it when it
    // opens its first (it attached after its tab refused them, or was not running yet).
    bool socket_seen = false;
    bool refuse_at_first_socket = false;
  };
  std::map<std::string, Child> children;  // child session -> its tab, target type and target id
  // Cross-origin frames entered (frames.cpp), by tab and prefix; the last prefix number by tab;
  // the frame targets being attached on demand (their attach event is ours, not the tracker's).
  struct FrameWorld {
    std::string frame_id, parent, owner_ref, session;
    int ctx = 0;
    uint64_t used = 0;
  };
  std::map<std::string, std::map<std::string, FrameWorld>> frame_worlds;
  std::map<std::string, int> frame_seq;
  std::set<std::string> frame_attaching;
  uint64_t frame_clock = 0;
  bool frame_event(const cdp::Event& ev);  // network thread; true when handled
  Result<std::pair<std::string, std::string>> frame_owner(const std::string& tab_id, const std::string& frame);  // {parent, owner ref}
  Result<std::pair<json, std::string>> eval_in_frame(const std::string& tab_id, const std::string& frame, std::string_view function,
                                                     const json& args, Millis timeout, bool by_value);
  std::map<std::string, json> websocket_patterns;  // by context: Network.setBlockedURLs urlPatterns
  std::map<std::string, json> websocket_limits;    // by tab: a secret's rule (limit_tab_websockets)
  // Messages on sockets refused in the page (refuse_socket_messages), by context or "owner:" +
  // owner; the key that lets an approved action's messages through (random, ours only); the
  // guard's switch script by page or frame session (removed when it leaves the gate).
  std::set<std::string> socket_writes_refused;
  // The guard's switch (page/egress_guard.js): messages on sockets refused from here on. A realm
  // without the guard has nothing to switch.
  static constexpr std::string_view kRefuseSocketWrites = "try { __ouroSocketWrites('refuse'); } catch (e) {}";
  std::string socket_key;
  std::map<std::string, std::string> socket_scripts;
  bool socket_writes_refused_for(const std::string& session_id) const;  // mutex held
  std::string socket_refusal_key(const Tab& tab) const;                // mutex held
  // Adds the guard's switch to a page or frame session (kept in socket_scripts). Mutex not held.
  void add_socket_switch(const std::string& session_id, std::function<void(Result<json>)> done);
  // Refuses socket messages in a running worker of a gated tab (`websockets`: its tab's rules):
  // through its guard, or by installing the guard, refusing, where it has none yet. Only in a
  // worker seen running (an evaluation while a worker starts hangs it).
  // Tried again while the worker's answer is not "refused"; a worker that still cannot refuse is
  // closed (fail closed). Mutex not held.
  void refuse_worker_writes(const std::string& session_id, const json& websockets, std::function<void(Result<json>)> done);
  void tell_socket_approval(const std::string& tab_id, bool approved, bool wait);  // mutex not held
  // The page, frame and worker sessions ({session, target type}) of the gated tabs of a context,
  // or of the tabs an owner holds. Mutex held.
  std::vector<std::pair<std::string, std::string>> gated_sessions(const std::string& context, const std::string& owner) const;
  json websockets_for_session(const std::string& session_id, const json& rules) const;  // mutex held
  // Downloads (files.cpp): by guid, in the order they began (the last kDownloadsKept).
  struct DownloadState {
    Download info;
    std::string context, dir, saved_as;  // saved_as: the guid-named file while it is not renamed
  };
  std::map<std::string, DownloadState> downloads;
  std::deque<std::string> download_order;
  std::map<std::string, std::string> download_dirs;  // by context ("" keeps the browser's own)
  // eval.cpp: a call of the page engine's function in the tab's page-helpers world; the value, or
  // CDP's remote object.
  Result<std::pair<json, std::string>> eval_in_helpers(const std::string& tab_id, std::string_view function, const json& args, Millis timeout,
                                                       bool by_value);
  bool download_event(const cdp::Event& ev);          // network thread; true when handled
  void settle_downloads(const std::string& context);  // mutex held; not on the network thread
  struct Viewer {
    std::string tab;
    std::function<void(const std::string&)> on_frame;
  };
  std::map<int, Viewer> viewers;
  int next_viewer = 1;

  // --- events (events.cpp; network thread, or the deadline thread for timed-out replies) -------
  void on_event(const cdp::Event& ev);
  // Does what the tracker decided: commands, configuration, title reads, failed sessions,
  // notices, then wakes listeners and waiters. Called without the mutex.
  void carry_out(TrackerActions actions);
  // Lets a target we do not follow run, then detaches from it (after the run is answered).
  void release_target(const std::string& session_id);
  void configure(const std::string& tab_id, const std::string& session_id);
  void publish(std::vector<PageNotice> list);
  // The listener runs before waiters wake, so the REPL has the new state before any reply that a
  // waiter sends.
  void notify_tabs();
  Error on_close(const Error& e);

  // --- prediction.cpp: Chrome's "Preload pages" setting, through its settings page ---------------
  // Our own background tabs (the settings page): URLs asked for, and their target -> session once
  // attached. Their events never reach the tracker.
  std::set<std::string> private_urls;
  std::map<std::string, std::string> private_targets;
  // How many settings-page visits are under way: every CDP event asks private_event, which takes
  // the mutex only while one is.
  std::atomic<int> private_visits{0};
  bool private_event(const cdp::Event& ev);  // network thread; true when handled
  // Opens the settings page in a private background tab, evaluates `expression` (a promise of a
  // JSON text) there, closes it; the parsed value. Not on the network thread.
  Result<json> on_settings_page(const std::string& expression, Millis within);
  // One visit: the setting's {before, after, enforcement}; writes set_to (when the value is
  // only_if, if given).
  Result<json> change_prediction(std::optional<int> set_to, std::optional<int> only_if, Millis within);
  std::mutex prediction_mutex;             // one hold or restore at a time
  std::optional<int> prediction_restore;   // held: the value to put back (guarded by prediction_mutex)

  // --- channels.cpp: live channels of the tabs ouro follows -----------------------------------
  struct LiveChannel {
    std::string session, kind, url;  // kind: WebSocket, WebTransport, EventSource, RTCPeerConnection
  };
  std::map<std::string, LiveChannel> live_channels;  // by requestId (transportId), open ones
  std::set<std::string> channel_overflow;            // sessions with more than could be followed
  bool channel_event(const cdp::Event& ev);          // network thread; observes only (false)
  void forget_channels(const std::string& session_id);
  // A tab just put under a gate: when its page holds channels opened before (or a peer
  // connection), `load` gives it a new document of its URL (under the gate), which ends them, and
  // the gate records each as closed. Unavailable when it could not be loaded. Not on the network
  // thread; without the mutex.
  Result<void> close_channels(const std::string& tab_id, const std::function<Result<TabInfo>(const std::string& url)>& load);

  // --- service_workers.cpp: the service workers of origins gated tabs have shown ---------------
  // What holds an origin's service workers in a context: the gate of the tab that last showed it
  // (its owner's, "" for the context's), kept until ouro lets go of the browser or its owner lets
  // go without having acted. By {context, origin}.
  struct WorkerHold {
    std::string tab, owner;
    EgressGate gate;
    json websockets = json::array();
  };
  std::map<std::pair<std::string, std::string>, WorkerHold> worker_holds;
  struct ServiceWorker {
    std::string context, origin;  // origin "scheme://host:port"
    std::string session;          // ours from the browser's session while held, else ""
  };
  std::map<std::string, ServiceWorker> service_workers;     // by target id, as discovered
  std::map<std::string, std::string> held_worker_sessions;  // session -> target id
  std::set<std::string> attaching_workers;                  // target ids asked for, not attached yet
  std::string context_name(const std::string& chromium_context) const;  // mutex held
  // A gated tab shows `url`: its origin's workers are held from now on. Mutex held; returns the
  // running workers to attach (attach_workers, without the mutex).
  std::vector<std::string> hold_workers_of(const Tab& tab, const std::string& url);
  void attach_workers(const std::vector<std::string>& targets);
  // Network thread: learns of service workers and holds those of held origins; true when handled.
  bool service_worker_event(const cdp::Event& ev);
  // A held worker's request: judged by its hold's gate (refused when none). False when the
  // session is not a held worker's.
  bool worker_request_paused(const cdp::Event& ev);
  // The owner let go of its tabs: with a lingering gate its holds keep to it; without (it never
  // acted), they end and the workers run unheld. Without the mutex.
  void release_worker_holds(const std::string& owner, const EgressGate& lingering);
  // Stops (terminates) the held workers; how many could not be. Not on the network thread.
  size_t stop_held_workers(Millis within);

  // --- page_tools.cpp: tools pages declare for agents (WebMCP) --------------------------------
  // By page session: whether its WebMCP domain answered (nullopt while the enable is on its way;
  // false: the browser has none), the frames' URLs, and the tools registered, in order.
  struct PageToolsOf {
    std::optional<bool> supported;
    std::map<std::string, std::string> frame_urls;  // frameId -> URL of its document
    std::vector<json> tools;                        // CDP WebMCP.Tool objects, frameUrl added
    bool overflow = false;                          // more were registered than are kept
  };
  std::map<std::string, PageToolsOf> page_tools;
  // Answers of tool invocations (WebMCP.toolResponded), by invocationId, the last few.
  std::map<std::string, json> tool_answers;
  std::deque<std::string> tool_answer_order;
  bool page_tool_event(const cdp::Event& ev);  // network thread; true when handled
  // Enables the domain on a page's session, or on a frame's own (out-of-process) session with
  // that frame's id and URL.
  void enable_page_tools(const std::string& session_id, const std::string& frame_id = {}, const std::string& frame_url = {});
  // The sessions whose tools are the tab's: its own, then its frames' (mutex held).
  std::vector<std::string> page_tool_sessions(const Tab& tab) const;

  // --- screencast.cpp ----------------------------------------------------------------------
  void on_screencast_frame(const cdp::Event& ev);

  // --- egress.cpp (network thread) ------------------------------------------------------------
  void on_request_paused(const cdp::Event& ev);
  // Events the gate learns from before the tracker sees them; true when fully handled here.
  bool egress_event(const cdp::Event& ev);
  void decide_paused(const cdp::Event& ev);
  // A WebSocket, which cannot be paused (blocked by URL or by the page's guard): the gate hears of it.
  // What the gate cannot pause, told to it after the fact: a WebSocket (type "WebSocket"), or a
  // new window the page's guard refused already (type "Window").
  void tell_unpaused(const std::string& session_id, std::string url, bool tagged, std::string_view type = "WebSocket");
  // The in-page guard's report: a refused WebSocket's URL, or {"kind": "window", "url": …}.
  void tell_guard_report(const std::string& session_id, const std::string& payload);
  void deliver_to_interceptor(const std::string& tab_id, const cdp::Event& ev);
  // Commands that put a tab's session under the gate (or take it out), pipelined before it runs.
  // target_type: "page", "iframe", "worker", … (workers get the egress guard from their page).
  void egress_commands(const std::string& session_id, bool gated, const json& intercept, const json& websockets,
                       std::function<void(Result<json>)> last, const std::string& target_type = "page");
  bool gated(const std::string& context) const { return gates.count(context) > 0; }  // mutex held
  // Puts tab sessions (with their interceptRequests patterns) under the gate or out of it, and
  // waits until they are. Without the mutex.
  Result<void> gate_sessions(const std::vector<std::pair<std::string, json>>& sessions, bool on, const json& websockets);
  // The gate a tab is under: its owner's (a shared context's claimed tab), else its context's;
  // nullptr when none. With its WebSocket rules. Mutex held.
  const EgressGate* gate_of(const Tab& tab) const;
  json websockets_of(const Tab& tab) const;
  bool gated(const Tab& tab) const { return gate_of(tab) != nullptr; }

  // --- ownership.cpp (mutex held) -------------------------------------------------------------
  // Tabs of shared contexts claimed by an owner (a run), with the owner's gate.
  struct Owned {
    std::string owner;
    EgressGate gate;
    json websockets = json::array();  // Network.setBlockedURLs rules
    bool lingering = false;           // its owner has finished; kept gated until the user replaces the document
    std::string release_loader;       // the loader of the user's navigation that will replace it
  };
  std::map<std::string, Owned> owned;  // by tab id
  std::vector<std::string> hidden_prefixes;
  bool is_hidden(const Tab& tab) const;
  // A popup of a claimed tab belongs to the opener's owner (called before it first runs).
  void inherit_owner(const Tab& tab);

  // --- for public methods (mutex held) ------------------------------------------------------
  Result<std::shared_ptr<Tab>> find_tab(const std::string& id) const;
  // Waits on `changed` until pred() or the deadline; pred runs with the mutex held.
  template <typename Pred>
  bool wait_until(std::unique_lock<std::mutex>& lock, Clock::time_point deadline, Pred pred) {
    return ouro::wait_until(changed, lock, deadline, [&] { return dead || pred(); });
  }
};

}  // namespace ouro::browser
