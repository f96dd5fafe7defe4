// The tabs, as CDP events describe them: which page targets exist, in which browser context, what
// each shows (URL, title, load status), which tab is active, what each page logged, and how each
// answers dialogs. It does no I/O: handle() takes one event and returns what the browser should
// do about it (commands to send, tabs to configure, sessions to fail, notices to publish), so it
// can be tested from recorded CDP messages. Not thread-safe: the Browser calls it under its mutex.
//
// Hostile pages are contained here: dialogs are answered at once (by the tab's policy), popups
// beyond a cap per browser context are closed as they attach, and logs are bounded (page_log.h).
// (Navigation storms are Chromium's to limit: see the launcher's flags.)
#pragma once

#include "base/error.h"
#include "base/steady_clock.h"
#include "browser/page_log.h"
#include "browser/types.h"
#include "cdp/connection.h"

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ouro::browser {

// The name of the isolated world the page helpers live in.
inline constexpr std::string_view kHelpersWorld = "__ouro";

struct Tab {
  std::string id, target_id, session_id;
  std::string context;        // "" for the default browser context
  std::string opener;         // target id of the page that opened it (a popup), else ""
  std::string url, title, status = "loading", favicon;
  std::string loader_id, loaded_loader_id;
  int isolated_ctx = 0;       // the helpers' execution context in the main frame, 0 if unknown
  int title_pending = 0;      // title reads in flight: waitForLoad returns after them
  std::string titled_loader;  // the document whose page helpers reported its title
  bool ready = false, closed = false, crashed = false;
  std::string last_interaction_url;
  // When the person last turned to it (ms since the epoch), 0 if never: its page reported coming
  // into view — its first report, or one after it was hidden — and not by ouro's own doing
  // (bring_into_view). A title change while it stays in view is not a turn to it.
  double seen_at = 0;
  bool in_view = false;  // its page's last report said visible
  std::string last_window_open;  // the URL its last window.open asked for (a popup attaches without one)
  std::optional<DialogPolicy> dialog_policy;
  PageLog log;
  // Navigations this tab began (started loading — not merely requested: until it starts, the tab
  // still says "loaded" for the page it leaves — or moved within the document), and
  // the count when the last trusted input was sent to it: a click's navigation starts after the
  // input's reply, so waitForLoad right after it waits briefly for one to begin (Browser).
  int navigations = 0;
  int navigations_at_input = 0;
  SteadyClock::time_point input_at{};

  TabInfo info() const;
};

// What an event asks of the browser. The browser carries it out after releasing its mutex.
struct TrackerActions {
  struct Command {
    std::string method;
    json params;
    std::string session_id;  // "" for the browser's own session
  };
  struct TitleRead {
    std::string tab_id;
    Command command;  // its reply goes to title_read()
  };
  std::vector<Command> commands;        // sent without waiting for the reply
  // Sessions of targets we do not follow (workers, browser UI): let run, then detached once the
  // run command is answered — detached first, a service or shared worker stays paused for ever.
  std::vector<std::string> release;
  std::optional<std::string> configure;  // a tab just attached (its id): enable domains, install helpers, run it
  std::vector<TitleRead> read_title;    // read title and icon (title_pending already counted)
  std::vector<std::pair<std::string, Error>> fail_sessions;  // commands waiting on them fail with the error
  std::vector<PageNotice> notices;
  std::optional<RequestRecord> finished_request;   // for the tab's request observers
  std::string tab;                                 // the tab the event concerned, if any
  bool tabs_changed = false;                       // tabs() or an active tab changed

  void merge(TrackerActions other);
};

class TabTracker {
 public:
  static constexpr size_t kPopupCap = 20;         // live popups per browser context
  static constexpr size_t kNoticesPerSecond = 20;  // per browser context; more are not published
  static constexpr size_t kTitleCap = 1000, kUrlCap = 8192;

  explicit TabTracker(size_t popup_cap = kPopupCap, LogLimits log_limits = {})
      : m_popup_cap(popup_cap), m_log_limits(log_limits) {}

  // One CDP event (from the browser session or a tab's session); now_ms stamps what it records.
  TrackerActions handle(const cdp::Event& ev, double now_ms);

  // Replies to what the browser did for a tab.
  // `document.readyState` read while configuring: a document that loaded before we attached (a
  // popup) reports no load event, so it counts as loaded now, and its title is read.
  TrackerActions document_state(const std::string& tab_id, const std::string& ready_state);
  // Configuration finished: the tab is listed from now on.
  TrackerActions configured(const std::string& tab_id);
  // A title read finished; value is {title, favicon?} or null when the read failed.
  TrackerActions title_read(const std::string& tab_id, const json& value);

  std::shared_ptr<Tab> find(const std::string& tab_id) const;
  std::shared_ptr<Tab> by_target(const std::string& target_id) const;
  std::shared_ptr<Tab> by_session(const std::string& session_id) const;
  const std::map<std::string, std::shared_ptr<Tab>>& all() const { return m_tabs; }
  // The tabs of a context in the order they were opened (ready or not).
  std::vector<std::shared_ptr<Tab>> in_context(const std::string& context) const;
  std::string active(const std::string& context) const;
  void set_active(const std::string& context, const std::string& tab_id);
  // Ouro is about to change which tab of `context` is in view (it activates or closes one): a
  // page of the context that comes into view in the next 1.5 s does so by ouro's doing, not the
  // person's, and leaves its seen_at as it was.
  void bring_into_view(const std::string& context, double now_ms);
  // Chromium's id of the default context (the first page's), "" until a page attached.
  const std::string& default_context() const { return m_default_context; }
  size_t popup_cap() const { return m_popup_cap; }

 private:
  TrackerActions browser_event(const cdp::Event& ev, double now_ms);
  TrackerActions attached(const json& params, double now_ms);
  TrackerActions detached(const json& params);
  TrackerActions session_event(Tab& tab, const cdp::Event& ev, double now_ms);
  TrackerActions dialog_opening(Tab& tab, const json& params, double now_ms);
  void mark_crashed(Tab& tab, const std::string& why, TrackerActions& out);
  void request_title(Tab& tab, TrackerActions& out);
  void notice(TrackerActions& out, PageNotice n);

  size_t m_popup_cap;
  LogLimits m_log_limits;
  std::map<std::string, std::shared_ptr<Tab>> m_tabs;  // by tab id
  std::map<std::string, std::string> m_by_target, m_by_session;
  std::map<std::string, std::string> m_active;  // context -> its active tab
  std::map<std::string, double> m_ours_until;    // context -> until when a page coming into view is ouro's doing
  std::map<std::string, RateWindow> m_notice_rate;  // by context
  std::string m_default_context;
  int m_next_tab = 1;
};

// The number of a tab id ("t12" -> 12), 0 for anything else.
int tab_number(const std::string& tab_id);

}  // namespace ouro::browser
