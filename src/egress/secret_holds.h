// The secret's rule of the egress gate (docs/guides/safety.md, "Secrets"): once a secret is typed
// into a document of origin O (RFC 6454: scheme, host and port), everything of O in the run's
// browser talks only to the secret's sites until the run's gate goes — not merely until the tab
// navigates. Bound by it:
//   * the tab the secret was typed into, for the rest of the run;
//   * every tab that shows a document of O, in its main frame or a frame, from then on (a tab
//     opened later that goes there, a frame of O embedded in another page);
//   * popups opened by a bound tab (the opener hands them data by URL and postMessage);
//   * requests sent by a script or worker of O (a service worker too) wherever they run.
// A tab stays bound once bound: the data its documents held may have gone into the next one
// (window.name, the URL it navigates to, an unload beacon), so the run opens a new tab for
// other sites. With two secrets, a bound request goes only where both allow.
#pragma once

#include "safety/gate.h"
#include "safety/sites.h"

#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ouro::egress {

// What the browser knows of where a request comes from (browser/egress.h OutgoingRequest).
struct RequestSource {
  std::string tab;         // the tab it belongs to, "" for none known
  std::string page_url;    // the tab's document
  std::string script_url;  // the script (or worker) that sent it, "" when none is known
  std::string opener_tab;  // the tab that opened this one (a popup), else ""
};

// Thread-safe: the network thread judges while an action binds.
class SecretHolds {
 public:
  // A secret for these sites was typed into a document of `origin` in `tab`.
  void add(const std::string& tab, const safety::Url& origin, const safety::SiteList& sites);
  bool empty() const;
  // Deny (rule "secret's sites") when the request is bound and goes elsewhere; binds the tab when
  // the request shows it is of a held origin. data:, blob: and about: URLs are never refused here.
  std::optional<safety::GateVerdict> judge(const RequestSource& from, const safety::RequestFacts& f);
  // Whether the tab is bound (a navigation of it elsewhere is refused before it starts).
  bool binds(const std::string& tab) const;
  // The held origins ("https://bank.example") the tab is bound by or whose page it shows now;
  // nullopt when none.
  std::optional<std::string> shown(const std::string& tab, const std::string& page_url) const;
  // The tabs bound since the last call, or bound by more holds (their WebSockets are limited anew).
  std::vector<std::string> take_newly_bound();
  // The sites of every hold that binds the tab (a request from it goes only where all allow).
  std::vector<safety::SiteList> sites_binding(const std::string& tab) const;

 private:
  struct Hold {
    safety::Url origin;
    safety::SiteList sites;
  };
  static constexpr size_t kMaxHolds = 16;
  std::vector<size_t> holds_of(const std::string& url) const;  // of the URL's origin; mutex held
  mutable std::mutex m_mutex;
  std::vector<Hold> m_holds;
  std::map<std::string, std::set<size_t>> m_tabs;  // tab -> the holds binding it
  std::set<std::string> m_newly_bound;
  void bind(const std::string& tab, size_t hold);  // mutex held
};

}  // namespace ouro::egress
