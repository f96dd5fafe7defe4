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

struct BrowserOptions {
  LaunchOptions launch;
  std::string connect_url;  // ws://… to attach instead of launching
};

// Browser's surface is split by what callers need. Browser itself is the kernel every caller
// uses: its lifecycle, the tabs, and access to a page (CDP commands, the page engine, execInTab).
// What fewer callers need is a part, each declared in its own header and reached through Browser:
// contexts() (contexts.h), notices() (notices.h), frames() (frames.h), page_tools()
// (page_tools.h), records() (records.h), egress() (egress_control.h), files() (files.h),
// shared() (shared_tabs.h) and screencast() (screencast.h). A part lives as long as its Browser.
class Contexts;
class Notices;
class Frames;
class PageTools;
class Records;
class EgressControl;
class Files;
class SharedTabs;
class Screencast;

class Browser {
 public:
  // Launches Chromium (or attaches) and waits until the first tab is ready.
  static Result<std::unique_ptr<Browser>> start(net::IoThread& io, const BrowserOptions& options);
  ~Browser();
  Browser(const Browser&) = delete;
  Browser& operator=(const Browser&) = delete;

  cdp::Connection& cdp();
  // Why the browser is gone (crash, exit, lost connection), if it is.
  std::optional<Error> dead() const;
  // The Chromium process we launched (none when attached to a browser by URL).
  std::optional<int> process_id() const;
  // Connected through ouro's extension (cdp/bridge.h).
  bool bridged() const;
  // Runs fn on the network thread after delay (timeouts for paused requests).
  void after(Millis delay, std::function<void()> fn);

  // --- Tabs ---------------------------------------------------------------------------------
  // The tabs of one context ("" names the default one, the profile's), in the order they were
  // opened (hidden ones only when asked for).
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

  // --- Page access --------------------------------------------------------------------------
  // Sends a CDP command on the tab's session. Fails with NotFound if the tab is gone, and with a
  // clear message if it closes or crashes while the command waits.
  Result<json> send(const std::string& tab_id, std::string_view method, json params, Millis timeout = 10s);
  // Sends without waiting for the reply (input events pipelined before a final awaited command).
  void send_async(const std::string& tab_id, std::string_view method, json params);
  // The one way into ouro's page engine (browser/page/*.js): calls the function the engine's table
  // names `function` (page/calls.js) in ouro's isolated world of the tab's top document — or, with
  // `frame` (a cross-origin frame's prefix, "f2", see frames.h), of that frame — with `args`, a
  // JSON array, as its arguments: values, never code text. Answers the function's JSON result (null
  // for undefined), awaiting a promise. Retries while a navigation replaces the document, until the
  // deadline. Errors are values with a kind: the tab gone (NotFound, Cause::TargetGone), the
  // document replaced under the call past the deadline (Cause::ContextGone), the page navigated
  // (Cause::PageNavigated); the function's own exception is InvalidArgument with its message.
  Result<json> call(const std::string& tab_id, std::string_view function, json args = json::array(), const std::string& frame = "",
                    Millis timeout = 10s);
  // The same, answering CDP's remote object of the result (with its objectId: a node, for DOM
  // commands) and the session to use it in.
  Result<std::pair<json, std::string>> call_object(const std::string& tab_id, std::string_view function, json args = json::array(),
                                                   const std::string& frame = "", Millis timeout = 10s);
  // Runs model-written code in the page's main world (execInTab): an expression, statements whose
  // last value is the result, or a function body with `return`; awaits promises; caps the JSON.
  Result<json> eval_page(const std::string& tab_id, const std::string& code, Millis timeout = 10s, size_t cap = 100000);
  // Remembers the URL the caller last acted on, so a later failure can say the page navigated.
  void note_interaction(const std::string& tab_id);
  // If the tab's URL changed since note_interaction: the "[PAGE NAVIGATED] …" sentence. With
  // `wait`, first waits that long for the change to arrive (a call that failed because its
  // document went away may be answered before the navigation event).
  std::optional<std::string> navigation_note(const std::string& tab_id, Millis wait = Millis(0)) const;

  // --- The parts ----------------------------------------------------------------------------
  Contexts& contexts();
  Notices& notices();
  Frames& frames();
  PageTools& page_tools();
  Records& records();
  EgressControl& egress();
  Files& files();
  SharedTabs& shared();
  Screencast& screencast();

 private:
  friend class BrowserPart;
  Browser();
  struct Impl;
  struct Parts;
  std::shared_ptr<Impl> m_impl;
  std::unique_ptr<Parts> m_parts;
};

// What every part of Browser's surface holds: the Browser it belongs to and the state the files
// that implement it share (browser_impl.h). Parts are made by Browser only: their constructors
// take that state, which no one else can name.
class BrowserPart {
 public:
  BrowserPart(const BrowserPart&) = delete;
  BrowserPart& operator=(const BrowserPart&) = delete;

 protected:
  using Impl = Browser::Impl;
  BrowserPart(Browser& browser, std::shared_ptr<Impl> impl) : m_browser(browser), m_impl(std::move(impl)) {}
  ~BrowserPart() = default;
  Browser& m_browser;
  std::shared_ptr<Impl> m_impl;
};

}  // namespace ouro::browser
