// The egress gate of a host's browser context (docs/guides/safety.md):
// the browser pauses every request of the context's tabs (browser/egress.h); here each one is
// attributed — the run's (its code, its actions, frames and workers it made) or the page's own —
// judged by the run's policy (safety/gate.h), and let through, refused, or asked about through
// the confirmation channel (Context::Hooks::confirm: the Command Center, the terminal, the API).
// No channel, or no answer in time, is a refusal. navigate/openTab ask the same gate before they
// start, so the model's call fails with the reason instead of a page that never loads.
//
// Questions go one at a time on a thread of their own, never on the network thread; the same
// question asked again while it waits shares its answer, and a refused kind of request (rule,
// method, host) is refused for the rest of the run without asking again. Decisions worth keeping
// — refusals, questions and their answers, the run's own navigations — go to Hooks::on_gate as
// `gate` events (at most 1,000 per run).
#pragma once

#include "host/context.h"
#include "browser/egress.h"
#include "safety/gate.h"

#include <memory>
#include <optional>
#include <string>

namespace ouro::egress {

// Puts the host's browser context under the gate with this policy; nullptr takes it away.
Result<void> install_egress_gate(host::Context& ctx, std::shared_ptr<safety::GatePolicy> policy);

// navigate/openTab: the gate's answer for a navigation the run asks for, before it starts
// (blocks while the user is asked). PermissionDenied with the reason when refused.
// `tab`: the tab it navigates (navigate): one bound by a secret's rule does not leave its sites.
Result<void> check_navigation(host::Context& ctx, const std::string& function, const std::string& url, const std::string& tab = {});

// A secret for `sites` was typed into a document of `origin` in `tab`: from now until the run's
// gate goes, that tab, every tab and frame that shows the origin, the popups they open and the
// scripts and workers of the origin talk only to the secret's sites (and, with two secrets, to the
// sites both allow) — egress/secret_holds.h. A navigation of a bound tab elsewhere is refused.
void restrict_to_secret_sites(host::Context& ctx, const std::string& tab, const safety::Url& origin, const safety::SiteList& sites);

// The origins of the run's secrets whose rule binds the tab, or whose page it shows (page_url):
// a picture of it is not taken (actions/pictures.h). nullopt when none, or with no gate.
std::optional<std::string> secret_origin_shown(const host::Context& ctx, const std::string& tab, const std::string& page_url);

// Holds a tab of a shared context for this host (egress/holds.h), under its gate when it has
// one; FailedPrecondition when another host holds it.
Result<void> claim_under_gate(host::Context& ctx, const std::string& tab_id);

// Adds a page's site to the run's allowed and named sites, and the page's URL to those the user
// gave (the user handed over a tab there, or let the run use one).
void allow_site(host::Context& ctx, const std::string& page_url);

// The run is about to put its data or choices into a page (`what`: "click", "navigate to a URL the
// user did not give"): from now on every tab it holds keeps to its allowed sites (safety/gate.h).
// Called before the call acts, so nothing it causes is judged as the page's own. Records one
// `gate` note the first time.
void mark_acted(host::Context& ctx, std::string_view what);
bool has_acted(const host::Context& ctx);

// Gate decisions recorded before the context had hooks (at its session's start: channels of a
// handed tab closed as it was claimed) go to the hooks installed now, once.
void deliver_early(host::Context& ctx);

// The rule of the run's egress proxy (net/socks_proxy.h), for connections below HTTP: any
// before the run acts, afterwards only to its allowed sites; refusals become `gate` events. Runs
// on the network thread without blocking.
std::function<bool(const std::string& host, uint16_t port)> connection_rule(host::Context& ctx);

// Called when that rule tightens (the run acts, its gate closes) so the proxy judges the
// connections already open again (net/socks_proxy.h recheck): one opened before the run acted
// would otherwise carry later requests to any site. Must return at once.
void watch_connections(host::Context& ctx, std::function<void()> recheck);

// The gate that a finished run leaves on the shared-context tabs it held once it has acted:
// its policy, nothing asked (a question is a no). nullptr when it has not acted.
browser::EgressGate lingering_gate(const host::Context& ctx);

// The run is over: from now on its gate refuses everything it is asked about (no question is
// asked any more), and what waits paused under it is refused now — before its context is
// disposed, whose tabs' sessions detaching would let paused requests through. Blocks briefly.
void close_gate(host::Context& ctx);

// When the run acted: every tab of its context, ready or not, goes to about:blank (10 s for them
// all), and one that cannot has its renderer crashed, so nothing the run put into a page runs on;
// false when a tab may still run. Tried once per gate (a second call returns the first's outcome).
// Blocks.
bool stop_pages(host::Context& ctx);

// The end of a run's hold on its tabs; the gate is the last thing to leave them. In a shared
// context its tabs are let go, lingering under lingering_gate() when it acted. Otherwise, when it
// acted, its pages are stopped (stop_pages) before the gate is taken off; pages that may still
// run keep the gate, closed. Blocks; not on the network thread.
void leave_tabs(host::Context& ctx);

// The gate's mode, when the context has a gate.
std::optional<safety::GateMode> gate_mode(const host::Context& ctx);
// The run's policy (nullptr without a gate), and a decision for the run's record (a `gate` event,
// redacted and scrubbed of secrets as every gate decision is).
std::shared_ptr<safety::GatePolicy> gate_policy(const host::Context& ctx);
void record_decision(host::Context& ctx, json decision);

// No self-approval (docs/guides/safety.md): the run submitted something on the page of `tab` (a
// form, a write-like control; `what` names it), and what it proposed on that page's site, if it
// did. Without a gate nothing is kept.
void note_proposal(host::Context& ctx, const std::string& tab, const std::string& what);
std::optional<std::string> proposal_on(host::Context& ctx, const std::string& tab);

// The URL of a cross-origin frame the run read in `tab` (by the prefix its refs carry, "f2"), so
// that what it gave is labelled with its own site (egress/writes.h). Without a gate nothing is kept.
void note_frame_url(host::Context& ctx, const std::string& tab, const std::string& prefix, const std::string& url);
std::string frame_url(host::Context& ctx, const std::string& tab, const std::string& prefix);

// What the gate has judged so far in this context (paused requests; a navigation asked about
// before it starts counts once more when it leaves).
struct GateStats {
  size_t requests = 0;    // judged
  size_t run_caused = 0;  // attributed to the run (its code, actions, frames, workers)
  size_t allowed = 0, asked = 0, refused = 0;
};
GateStats gate_stats(const host::Context& ctx);

// Whose request it is, from what the browser saw (browser/egress.h): for the record, and for
// writes sent by an action the user approved.
safety::RequestFacts attribute(const browser::OutgoingRequest& request);

// A request body as the user may see it in a question: secret-named fields masked, short.
std::string body_preview(const std::string& body);

}  // namespace ouro::egress
