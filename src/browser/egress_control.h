// The egress gate as callers set it (egress.cpp, prediction.cpp; the gate's types: egress.h): every
// request of a gated tab pauses before it leaves Chromium, interceptRequests' handlers see theirs,
// WebSockets are held to an allowlist, and the run's actions are told from the page's own traffic.
#pragma once

#include "browser/browser.h"

namespace ouro::browser {

class EgressControl : public BrowserPart {
 public:
  EgressControl(Browser& browser, std::shared_ptr<Impl> impl) : BrowserPart(browser, std::move(impl)) {}

  // From now on every request of the context's tabs, their frames and workers is paused before
  // it leaves Chromium and handed to `gate` (nullptr: none). Service workers are bypassed in
  // those tabs, so no request escapes through one. When it returns, the open tabs are covered;
  // tabs opened later are covered before their first request.
  // WebSockets, which cannot be paused, are held to `websocket_allow` (URLPattern strings, e.g.
  // "wss://*.example.com:*/*") in the page and by blocked URLs; the gate is told of each.
  Result<void> set_gate(const std::string& context, EgressGate gate, const std::vector<std::string>& websocket_allow = {});
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
  // Refuses every request of the context's tabs (their frames and workers included) that is paused
  // under a gate and not answered yet. Any thread but the network thread.
  void refuse_paused(const std::string& context);

  // Requests paused for the interceptRequests handlers an owner (a host) registered go to this
  // handler, on the network thread; it must answer each with Fetch.continueRequest & co.
  void set_pause_handler(const std::string& owner, std::function<void(const std::string& tab_id, const json& params)> handler);
  // The Fetch patterns of a tab's interceptRequests handlers (an array; empty for none), whose
  // pauses go to `owner`'s pause handler. With an egress gate on the tab every request pauses
  // anyway and goes through the gate first.
  Result<void> set_intercept_patterns(const std::string& tab_id, json patterns, const std::string& owner, Millis timeout = 10s);

  // A run action working on a tab (click, type, execInTab, …): what the tab sends meanwhile and
  // for 1.5 s after end_activity counts as the action's (see egress.h). Returns an id.
  int begin_activity(const std::string& tab_id, const std::string& name);
  void end_activity(const std::string& tab_id, int id);
  // The user approved the action in progress on the tab (it asked them first): its writes on the
  // allowed sites are not asked about again, and its messages on the WebSockets of the tab's
  // document go out until it has settled. Blocks briefly (the page is told before the action
  // acts); not on the network thread.
  void approve_activity(const std::string& tab_id);

  // Chrome's "Preload pages" (Settings → Performance) opens connections no request interception
  // sees (preconnects, DNS prefetch). A gated session in a browser without ouro's proxy turns it
  // off (prediction.cpp) until restore_network_prediction or ~Browser, which first blank the
  // gated tabs. `restore_to`: what to put back when it is off already because an earlier ouro was
  // killed while holding it. Returns the value that will be put back (kPredictionOff: none).
  // Not through the extension (it holds the setting itself), and not on the network thread.
  Result<int> hold_network_prediction(std::optional<int> restore_to = std::nullopt);
  Result<void> restore_network_prediction();
  // Its value now (0: on, kPredictionOff: never, 3: extended), as the settings page reads it:
  // Chrome's deprecated default 1 is read as 0, as Chrome treats it.
  Result<int> network_prediction();
  // The value of `net.network_prediction_options` that means "never".
  static constexpr int kPredictionOff = 2;
};

}  // namespace ouro::browser
