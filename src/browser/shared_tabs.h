// Contexts shared with the user (ownership.cpp). In the profile's context ("My browser"), a run
// acts only on tabs it holds, one owner per tab; the Command Center's own tabs are hidden from all.
#pragma once

#include "browser/browser.h"

namespace ouro::browser {

class SharedTabs : public BrowserPart {
 public:
  SharedTabs(Browser& browser, std::shared_ptr<Impl> impl) : BrowserPart(browser, std::move(impl)) {}

  // Claiming puts the tab under the owner's egress gate (when given; its requests pause from the
  // moment this returns), and a popup a claimed tab opens belongs to the same owner before its
  // first request. FailedPrecondition naming the holder when another owner has the tab; NotFound
  // when it is gone or hidden.
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
  // Tabs that still keep to a finished run's rule (release_tabs with `lingering`), by context.
  std::vector<std::string> lingering_tabs(const std::string& context) const;
  // Ending what a run left running in its pages (blanking.cpp). Any thread but the network thread.
  // Replaces these tabs' documents with about:blank, all at once: their sockets and scripts stop
  // first (their other-site frames' too), then each navigates; waits until every new document is
  // there or `within` has passed. Returns the tabs that did not get there (gone and crashed tabs
  // count as blank).
  std::vector<std::string> blank(const std::vector<std::string>& tab_ids, Millis within);
  // Crashes these tabs' renderers (Page.crash, in each of their frames' renderers too): a page
  // that could not be blanked runs nothing more. Only for a context whose tabs are all the run's:
  // a renderer may hold other tabs of the same site in its context. Waits until each tab is
  // crashed or closed, or `within` has passed; returns how many are neither.
  size_t crash(const std::vector<std::string>& tab_ids, Millis within);
  // blank(), then crash() for those that did not go blank: whether every tab now runs nothing.
  bool stop_pages(const std::vector<std::string>& tab_ids, Millis blank_within, Millis crash_within);
  // Every open tab of a context, ready or not (a popup still starting runs its opener's code
  // already), hidden ones too: what stopping a context's pages must cover.
  std::vector<std::string> every_tab(const std::string& context) const;
  // Tabs whose URL starts with one of these (the Command Center's own pages, which carry its
  // token) are hidden from everyone: not in tabs(), never active, not claimable.
  void set_hidden_prefixes(std::vector<std::string> prefixes);
  bool hidden(const std::string& tab_id) const;
};

}  // namespace ouro::browser
