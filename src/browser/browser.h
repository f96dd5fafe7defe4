// The browser kernel: a CDP connection to one Chromium (launched here or attached by ws:// URL) and
// live state for every page target — the tabs. Tabs get short stable ids (t1, t2, …) and are kept
// current from Target, Page, Runtime and Network events; tabs opened by the user or by a page's
// window.open appear by themselves. Page-side helpers run in an isolated world of every document.
//
// Pages are not trusted: JavaScript dialogs are answered at once (dismissed unless the tab's
// dialog policy says otherwise), popups beyond 20 per browser context are closed as they open,
// and what a page logs is capped in size and count. Each of these leaves a PageNotice.
//
// Threads: public methods may be called from any thread except the network thread, and may block
// until their deadline. Listeners run on the network thread and must not block.
//
// The implementation: browser.cpp (start, contexts, tabs), tab_tracker (tab state from CDP
// events, no I/O), events.cpp (carrying out what the tracker decides), page_log (console, errors,
// requests), eval.cpp (call into the page engine, eval_page), screencast.cpp (live views, timers),
// egress.cpp (the egress gate's pauses and the facts it decides on, interceptRequests' pauses),
// ownership.cpp (who holds a tab of a shared context; hidden tabs), frames.cpp (cross-origin
// frames' helpers worlds).
#pragma once

#include "base/json.h"
#include "browser/egress.h"
#include "browser/launcher.h"
#include "browser/types.h"
#include "cdp/connection.h"

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ouro::net { class IoThread; }

namespace ouro::browser {

using namespace std::chrono_literals;
using Millis = std::chrono::milliseconds;

// An observer of finished requests on a tab (interceptRequests). Runs on the network thread.
using RequestObserver = std::function<void(const std::string& tab_id, const RequestRecord&)>;

struct BrowserOptions {
  LaunchOptions launch;
  std::string connect_url;  // ws://… to attach instead of launching
};

class Browser {
 public:
  // Launches Chromium (or attaches) and waits until the first tab is ready.
  static Result<std::unique_ptr<Browser>> start(net::IoThread& io, const BrowserOptions& options);
  ~Browser();
  Browser(const Browser&) = delete;
  Browser& operator=(const Browser&) = delete;

  cdp::Connection& cdp();

  // --- Browser contexts ------------------------------------------------------------------------
  // A context is an isolated set of tabs with its own cookies and storage (an incognito-like
  // profile), for runs that must not see each other. "" names the default context (the profile).
  // `proxy` ("socks5://127.0.0.1:P"): every connection of the context goes through it, loopback
  // included (net/socks_proxy.h).
  Result<std::string> create_context(const std::string& proxy = {});
  // Closes the context's tabs and drops its data.
  void dispose_context(const std::string& context);
  // The context a tab lives in ("" for the default one), or NotFound.
  Result<std::string> tab_context(const std::string& tab_id) const;
  // A context's cookies as CDP's Cookie objects (Storage.getCookies); any thread but the network one.
  Result<json> cookies(const std::string& context, Millis timeout);
  // Puts cookies into a context (Storage.setCookies), each cut to the fields of CDP's CookieParam
  // (those without a name and a value are skipped; session cookies, expires ≤ 0, stay session
  // cookies). Returns how many were set; 0 sends nothing.
  Result<size_t> set_cookies(const std::string& context, const json& cookies, Millis timeout);

  // --- Tabs ---------------------------------------------------------------------------------
  // The tabs of one context, in the order they were opened (hidden ones only when asked for).
  std::vector<TabInfo> tabs(const std::string& context = {}, bool with_hidden = false) const;
  std::string active_tab(const std::string& context = {}) const;
  Result<TabInfo> tab_info(const std::string& tab_id) const;
  // Opens a tab at url in a context and waits for its load event (up to timeout; then it
  // returns anyway).
  Result<std::string> open_tab(const std::string& url, Millis timeout = 10s, const std::string& context = {});
  Result<void> close_tab(const std::string& tab_id);
  // Navigates and waits for the new document's load event; a navigation error (DNS, refused) fails.
  Result<TabInfo> navigate(const std::string& tab_id, const std::string& url, Millis timeout = 10s);
  Result<void> switch_tab(const std::string& tab_id);
  // Waits until the tab's status is "loaded"; DeadlineExceeded after timeout.
  Result<TabInfo> wait_for_load(const std::string& tab_id, Millis timeout = 10s);
  // Called after any change to tabs() or active_tab().
  void set_tabs_listener(std::function<void()> listener);

  // --- Dialogs and notices --------------------------------------------------------------------
  // How the tab answers its next dialog (or every dialog, with once = false); nullopt restores
  // the default (dismiss; beforeunload: accept). NotFound if the tab is gone.
  Result<void> set_dialog_policy(const std::string& tab_id, std::optional<DialogPolicy> policy);
  // Hears every notice (a dialog answered, a popup closed, a log flood cut), of every context: the
  // listener filters by PageNotice::context. It runs on the network thread, outside the browser's
  // lock, and must not block. Returns an id for remove_notice_listener.
  int add_notice_listener(std::function<void(const PageNotice&)> listener);
  // Once it returns, the listener is not running and will not run again (unless called from the
  // listener itself, which may finish).
  void remove_notice_listener(int id);
  // The latest notices of a context (at most max, oldest first); each context keeps the last 200.
  std::vector<PageNotice> notices(const std::string& context, size_t max = 50) const;

  // --- Page access --------------------------------------------------------------------------
  // Sends a CDP command on the tab's session. Fails with NotFound if the tab is gone, and with a
  // clear message if it closes or crashes while the command waits.
  Result<json> send(const std::string& tab_id, std::string_view method, json params, Millis timeout = 10s);
  // Sends without waiting for the reply (input events pipelined before a final awaited command).
  void send_async(const std::string& tab_id, std::string_view method, json params);
  // The one way into ouro's page engine (browser/page/*.js): calls the function the engine's table
  // names `function` (page/calls.js) in ouro's isolated world of the tab's top document — or, with
  // `frame` (a cross-origin frame's prefix, "f2", see below), of that frame — with `args`, a JSON
  // array, as its arguments: values, never code text. Answers the function's JSON result (null for
  // undefined), awaiting a promise. Retries while a navigation replaces the document, until the
  // deadline. Errors are values with a kind: the tab gone (NotFound, Cause::TargetGone), the
  // document replaced under the call past the deadline (Cause::ContextGone), the page navigated
  // (Cause::PageNavigated); the function's own exception is InvalidArgument with its message.
  Result<json> call(const std::string& tab_id, std::string_view function, json args = json::array(), const std::string& frame = "",
                    Millis timeout = 10s);
  // The same, answering CDP's remote object of the result (with its objectId: a node, for DOM
  // commands) and the session to use it in.
  Result<std::pair<json, std::string>> call_object(const std::string& tab_id, std::string_view function, json args = json::array(),
                                                   const std::string& frame = "", Millis timeout = 10s);

  // --- Cross-origin frames (frames.cpp) -------------------------------------------------------
  // The page engine cannot enter a cross-origin frame. Each one gets a prefix ("f2") and a helpers
  // world of its own — in the tab's session when it shares the tab's process, in its own CDP
  // session (attached on demand, flattened) when it runs out of process — and the refs issued
  // there carry the prefix ("f2e12"). A selector that begins with such a ref runs in that frame.
  // The frame a selector addresses: "f2" for "f2e12" or "f2e12 >> text=Buy", "" for the top.
  static std::string frame_of(std::string_view selector);
  // Enters the frame whose element is `owner_ref` in the world of `parent` ("" = the top
  // document): its prefix, the same one for as long as that frame lives.
  Result<std::string> enter_frame(const std::string& tab_id, const std::string& parent, const std::string& owner_ref, Millis timeout = 10s);
  // The frames entered in the tab, each after its parent.
  std::vector<std::string> entered_frames(const std::string& tab_id) const;
  // Where the frame's viewport begins in the tab's viewport, through every frame above it; with
  // `scroll`, each frame element outside its viewport is scrolled into view first (for input).
  Result<std::pair<double, double>> frame_offset(const std::string& tab_id, const std::string& frame, Millis timeout = 10s, bool scroll = true);
  // Waits until the frame and every frame above it (each its own renderer, perhaps) have drawn two
  // frames: the browser routes input to an out-of-process frame by what each last drew.
  Result<void> settle_frames(const std::string& tab_id, const std::string& frame, Millis timeout = 10s);
  // The selector of the frame's element in its parent world, outermost first (for framePath).
  Result<std::vector<std::string>> frame_path(const std::string& tab_id, const std::string& frame);
  // Runs model-written code in the page's main world (execInTab): an expression, statements whose
  // last value is the result, or a function body with `return`; awaits promises; caps the JSON.
  Result<json> eval_page(const std::string& tab_id, const std::string& code, Millis timeout = 10s, size_t cap = 100000);

  // --- Page tools (page_tools.cpp) -------------------------------------------------------------
  // The tools the tab's documents declared for agents (WebMCP: document.modelContext.registerTool),
  // as the DevTools Protocol's experimental WebMCP domain reports them (Chromium launched with
  // WebMCPTesting and DevToolsWebMCPSupport): [{name, description, inputSchema, annotations,
  // frameId, frameUrl}], at most kMaxPageTools, each field capped. Tools of out-of-process frames
  // are not seen. Unavailable, saying so, when the browser does not expose page tools.
  static constexpr size_t kMaxPageTools = 64;
  Result<json> page_tools(const std::string& tab_id, Millis timeout = 5s);
  // Calls a tool the tab's frame declared and waits for its answer: the output as the page gave it
  // (a string, or {content: [...]}). The tool's own failure is FailedPrecondition with its text; a
  // call still running at the deadline is cancelled (DeadlineExceeded).
  Result<json> call_page_tool(const std::string& tab_id, const std::string& frame_id, const std::string& name, const json& input,
                              Millis timeout = 10s);

  // --- Observations -------------------------------------------------------------------------
  std::vector<ConsoleEntry> console_log(const std::string& tab_id) const;
  std::vector<PageError> errors(const std::string& tab_id) const;
  std::vector<RequestRecord> requests(const std::string& tab_id) const;
  // The tab that saw request_id, or NotFound.
  Result<std::string> tab_of_request(const std::string& request_id) const;
  // Registers an observer; returns its id for remove_request_observer.
  int add_request_observer(const std::string& tab_id, RequestObserver observer);
  void remove_request_observer(int id);
  // Requests paused for the interceptRequests handlers an owner (a host) registered go to this
  // handler, on the network thread; it must answer each with Fetch.continueRequest & co.
  void set_pause_handler(const std::string& owner, std::function<void(const std::string& tab_id, const json& params)> handler);
  // The Fetch patterns of a tab's interceptRequests handlers (an array; empty for none), whose
  // pauses go to `owner`'s pause handler. With an egress gate on the tab every request pauses
  // anyway and goes through the gate first.
  Result<void> set_intercept_patterns(const std::string& tab_id, json patterns, const std::string& owner, Millis timeout = 10s);

  // --- Egress gate (egress.h, egress.cpp) -----------------------------------------------------
  // From now on every request of the context's tabs, their frames and workers is paused before
  // it leaves Chromium and handed to `gate` (nullptr: none). Service workers are bypassed in
  // those tabs, so no request escapes through one. When it returns, the open tabs are covered;
  // tabs opened later are covered before their first request.
  // WebSockets, which cannot be paused, are held to `websocket_allow` (URLPattern strings, e.g.
  // "wss://*.example.com:*/*") in the page and by blocked URLs; the gate is told of each.
  Result<void> set_egress_gate(const std::string& context, EgressGate gate, const std::vector<std::string>& websocket_allow = {});
  // Widens the WebSocket allowlist of a gated context, or (with `owner`) of the tabs that owner
  // claimed (for documents to come; the in-page guard of a document keeps the list it started with).
  Result<void> set_websocket_allowlist(const std::string& context, std::vector<std::string> url_patterns, const std::string& owner = {});
  // A tab bound by a secret's rule (docs/guides/safety.md, "Secrets"): from now on WebSockets of
  // its documents, frames and workers, and of the service workers held for it, go only to
  // `url_patterns` (within what its gate allows), whatever the allowlist becomes later. Sends
  // its commands without waiting (safe on the network thread): they go before any answer the
  // caller gives to a paused request afterwards.
  void limit_tab_websockets(const std::string& tab_id, const std::vector<std::string>& url_patterns);
  // The run acted in careful mode: from now on a message sent on a WebSocket of the gated tabs of
  // `context` (or of the tabs `owner` holds, when not empty) is refused in the page — a socket
  // cannot wait for the user's answer — except while an action the user approved works on its
  // tab (approve_activity); each refusal reaches the gate as a "WebSocket message". Documents and
  // workers that start later start so. Blocks until the open documents and workers are told
  // (10 s); not on the network thread. A tab that leaves the gate is given its writes back with
  // its next document.
  Result<void> refuse_socket_messages(const std::string& context, const std::string& owner = {});

  // --- Files in and out: downloads, uploads (files.cpp) ---------------------------------------
  // Downloads of the context's tabs land in `dir` (made if missing) under their suggested names
  // (made safe and unique). An empty dir keeps the browser's own behaviour (a browser we attached
  // to: the user's downloads stay theirs) and still reports them.
  Result<void> set_download_dir(const std::string& context, const std::string& dir);
  // The context's downloads, oldest first (the last 200): finished ones renamed into place.
  std::vector<Download> downloads(const std::string& context);
  // Waits (up to `timeout`) until a download of the context that is not in `seen` has finished
  // (completed or canceled) and returns it; DeadlineExceeded when none did.
  Result<Download> wait_for_download(const std::string& context, const std::set<std::string>& seen, Millis timeout);
  // Sets the files of the <input type=file> the selector finds (the page helpers' selector
  // language) to these paths, as a person choosing them would: change and input events fire.
  Result<void> set_input_files(const std::string& tab_id, const std::string& selector, const std::vector<std::string>& paths, Millis timeout = 10s);

  // --- Shared contexts (ownership.cpp) -------------------------------------------------------
  // In a context shared with the user (the profile's: "My browser"), a run acts only on tabs it
  // holds, one owner per tab. Claiming puts the tab under the owner's egress gate (when given;
  // its requests pause from the moment this returns), and a popup a claimed tab opens belongs to
  // the same owner before its first request. FailedPrecondition naming the holder when another
  // owner has the tab; NotFound when it is gone or hidden.
  Result<void> claim_tab(const std::string& tab_id, const std::string& owner, EgressGate gate = nullptr,
                         const std::vector<std::string>& websocket_allow = {});
  std::string tab_owner(const std::string& tab_id) const;  // "" when nobody holds it
  std::vector<std::string> owned_tabs(const std::string& owner) const;  // open ones, in order
  // Lets go of the owner's tabs: out of its gate, left open for the user. With `lingering`, each
  // stays under that gate (no longer asking: its questions are refused) until the user replaces
  // its document — a navigation the browser itself started (the address bar, a bookmark, reload
  // from the toolbar) — since what the run put into a page may still be working there. Another
  // owner cannot claim a lingering tab meanwhile. Requests paused under a gate when it goes are
  // refused, never let through.
  void release_tabs(const std::string& owner, EgressGate lingering = nullptr);
  // Refuses every request of the context's tabs (their frames and workers included) that is paused
  // under a gate and not answered yet. Any thread but the network thread.
  void refuse_paused(const std::string& context);
  // Tabs that still keep to a finished run's rule (release_tabs with `lingering`), by context.
  std::vector<std::string> lingering_tabs(const std::string& context) const;
  // Replaces these tabs' documents with about:blank, all at once: their scripts stop first, then
  // each navigates; waits until every new document is there or `within` has passed. Returns how
  // many did not get there (gone tabs count as blank). Any thread but the network thread.
  size_t blank(const std::vector<std::string>& tab_ids, Millis within);
  // Chrome's "Preload pages" (Settings → Performance) opens connections no request interception
  // sees (preconnects, DNS prefetch). A gated session in a browser without ouro's proxy turns it
  // off (prediction.cpp) until restore_network_prediction or ~Browser, which first blank the
  // gated tabs. `restore_to`: what to put back when it is off already because an earlier ouro was
  // killed while holding it. Returns the value that will be put back (kPredictionOff: none).
  // Not through the extension (it holds the setting itself), and not on the network thread.
  Result<int> hold_network_prediction(std::optional<int> restore_to = std::nullopt);
  Result<void> restore_network_prediction();
  // Its value now (0 or 1: on, kPredictionOff: never, 3: extended), as the settings page reads it.
  Result<int> network_prediction();
  // The value of `net.network_prediction_options` that means "never".
  static constexpr int kPredictionOff = 2;
  // Connected through ouro's extension (cdp/bridge.h).
  bool bridged() const;
  // Tabs whose URL starts with one of these (the Command Center's own pages, which carry its
  // token) are hidden from everyone: not in tabs(), never active, not claimable.
  void set_hidden_prefixes(std::vector<std::string> prefixes);
  bool hidden(const std::string& tab_id) const;
  // A run action working on a tab (click, type, execInTab, …): what the tab sends meanwhile and
  // for 1.5 s after end_activity counts as the action's (see egress.h). Returns an id.
  int begin_activity(const std::string& tab_id, const std::string& name);
  void end_activity(const std::string& tab_id, int id);
  // The user approved the action in progress on the tab (it asked them first): its writes on the
  // allowed sites are not asked about again, and its messages on the WebSockets of the tab's
  // document go out until it has settled. Blocks briefly (the page is told before the action
  // acts); not on the network thread.
  void approve_activity(const std::string& tab_id);
  // A live view of a tab (CDP Page.startScreencast): JPEG frames, base64, as the page repaints,
  // to `on_frame` on the network thread, until stop_screencast(id). Does not block: any thread.
  Result<int> start_screencast(const std::string& tab_id, std::function<void(const std::string& jpeg_base64)> on_frame);
  void stop_screencast(int id);

  // Runs fn on the network thread after delay (timeouts for paused requests).
  void after(Millis delay, std::function<void()> fn);

  // Remembers the URL the caller last acted on, so a later failure can say the page navigated.
  void note_interaction(const std::string& tab_id);
  // If the tab's URL changed since note_interaction: the "[PAGE NAVIGATED] …" sentence. With
  // `wait`, first waits that long for the change to arrive (a call that failed because its
  // document went away may be answered before the navigation event).
  std::optional<std::string> navigation_note(const std::string& tab_id, Millis wait = Millis(0)) const;

  // Why the browser is gone (crash, exit, lost connection), if it is.
  std::optional<Error> dead() const;
  // The Chromium process we launched (none when attached to a browser by URL).
  std::optional<int> process_id() const;

 private:
  Browser() = default;
  struct Impl;
  std::shared_ptr<Impl> m_impl;
};

}  // namespace ouro::browser
