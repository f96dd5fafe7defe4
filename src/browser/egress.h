// What the browser tells the egress gate about a request a tab is about to send (CDP Fetch pause,
// Request stage), and how the gate answers. The browser gathers facts only; the rules live in
// safety/gate.h and the asking in egress/gate.cpp.
//
// Telling the run's requests from the page's own (browser/egress.cpp):
//   * tagged — the code execInTab runs carries a sourceURL starting with kExecTag; a request whose
//     initiator stack (async parents included: Runtime.setAsyncCallStackDepth) has such a frame
//     was sent by the model's code, however late (callbacks, awaits, timers).
//   * activity — while a run action (click, type, execInTab, …) works on a tab and for a short
//     settle time after it, requests of that tab are the action's effects (a clicked submit, a
//     page handler the click fired), except those of a document loaded since (new_document).
//   * run frames — frames the run's code attached (an iframe it inserted, seen by its tagged
//     Page.frameAttached stack or during an action) send the run's requests for their lifetime.
//   * workers — requests from a tab's worker targets; one that attached while the run's code
//     (execInTab) worked or settled is the run's.
//   * navigation reasons — a navigation's request carries why its frame navigates (a form
//     submission, a link, a script), from the Page.frameRequestedNavigation before it.
#pragma once

#include "base/json.h"

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ouro::browser {

// The sourceURL prefix of code the REPL runs in pages (execInTab).
inline constexpr std::string_view kExecTag = "ouro-exec://";

struct OutgoingRequest {
  std::string tab_id, url, method = "GET", resource_type;  // CDP Network.ResourceType
  std::string post_data;                                    // as Chromium reports it (may be cut)
  bool main_frame_navigation = false;  // a Document request of the tab's main frame
  bool from_worker = false;            // sent by a worker of the tab
  bool from_run_frame = false;         // sent by a frame (or a worker) the run's code created
  bool initiator_known = false;        // Network.requestWillBeSent was seen for it
  std::string initiator_type;          // parser, script, preload, other, …
  bool tagged = false;                 // ouro's exec code on the initiator's stack
  bool anonymous_code = false;         // code without a URL on the stack (eval, string timers)
  bool has_stack = false;              // the initiator had any JavaScript frames
  std::string script_url;              // the URL of the script that sent it (top frame with a URL)
  std::string page_url;                // the tab's document
  std::string opener_tab;              // the tab that opened this one (a popup), else ""
  std::string activity;                // the run action in progress or settling on the tab, "" if none
  bool new_document = false;           // a subresource of a main-frame document loaded since that action began
  bool activity_approved = false;      // the user approved that action before it ran
  bool cannot_pause = false;           // a WebSocket: already blocked or let through by its URL; told, not asked
  std::string refused_in_page;         // the page's guard refused it already (why): recorded, never sent
  std::vector<std::pair<std::string, std::string>> headers;  // as Chromium reports them (at most 64)
  // Why its frame navigates (CDP Page.frameRequestedNavigation's ClientNavigationReason:
  // "formSubmissionGet", "formSubmissionPost", "anchorClick", "scriptInitiated", …); "" when it
  // is not a navigation the page asked for (a subresource, or one ouro started).
  std::string navigation_reason;
  bool closed_at_claim = false;        // a channel the page opened before the run took the tab, ended now: recorded
};

// Answers a paused request: allow sends it on, otherwise it fails (net::ERR_BLOCKED_BY_CLIENT).
// May be called from any thread, once.
using EgressAnswer = std::function<void(bool allow)>;
// Decides about one request. Runs on the network thread: it must not block (ask elsewhere and
// answer later; the request waits paused meanwhile).
using EgressGate = std::function<void(const OutgoingRequest& request, EgressAnswer answer)>;

}  // namespace ouro::browser
