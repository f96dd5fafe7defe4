#include "egress/holds.h"

#include <algorithm>

#include "egress/gate.h"
#include "browser/browser.h"
#include "browser/shared_tabs.h"
#include "safety/sites.h"

namespace ouro::egress {

using host::Context;

std::string site_key(const safety::Url& url) {
  bool default_port = (url.scheme == "http" && url.port == 80) || (url.scheme == "https" && url.port == 443) || url.port == 0;
  return safety::site_pattern(url.host, default_port ? 0 : url.port);
}

Result<void> take_tab(Context& ctx, const std::string& tab_id) { return claim_under_gate(ctx, tab_id); }

Result<void> hold_tab(Context& ctx, const std::string& tab_id, const std::string& function) {
  std::string holder = ctx.browser().shared().tab_owner(tab_id);
  if (holder == ctx.owner()) return {};
  if (!holder.empty()) {
    auto lingering = ctx.browser().shared().lingering_tabs(ctx.browser_context());
    if (std::find(lingering.begin(), lingering.end(), tab_id) != lingering.end())
      return errorf(Code::FailedPrecondition,
                    "{}: tab {} still keeps to the rule of {}, which acted on its page and has finished; the user can reload it from the "
                    "address bar to free it, or open a tab of your own with openTab(url)",
                    function, tab_id, holder);
  }
  if (!holder.empty())
    return errorf(Code::FailedPrecondition,
                  "{}: tab {} is in use by {} (a tab works for one run at a time); open a tab of your own with openTab(url), or "
                  "read this one without acting on it",
                  function, tab_id, holder);
  // One of the user's own tabs that the run neither opened nor was handed.
  auto info = TRY(ctx.browser().tab_info(tab_id));
  auto mode = gate_mode(ctx);
  auto hooks = ctx.hooks();
  bool asked = false;
  // A site the user allowed "always" is not asked about again.
  bool trusted = false;
  if (auto u = safety::parse_url(info.url); u && !ctx.trusted_sites().empty()) {
    safety::SiteList sites;
    for (const auto& p : ctx.trusted_sites()) (void)sites.add(p);  // checked when they were stored
    trusted = sites.matches(*u);
  }
  if (!trusted && mode == safety::GateMode::Careful && hooks && hooks->confirm) {
    json request = {{"action", "use-tab"},
                    {"tab", tab_id},
                    {"url", info.url.substr(0, 500)},
                    {"title", info.title.substr(0, 200)},
                    {"function", function},
                    {"site", safety::parse_url(info.url).map([](const safety::Url& u) { return site_key(u); }).value_or("")},
                    {"reason", "the run wants to act (" + function + ") on your tab " + tab_id + ", which it did not open and was not given"}};
    if (!hooks->confirm(request))
      return errorf(Code::PermissionDenied,
                    "{}: the user did not let this run act on their tab {} ({}); do not retry — read it, open a tab of your own with "
                    "openTab(url), or report back with setFinal()",
                    function, tab_id, info.url.substr(0, 200));
    asked = true;
  }
  TRY(claim_under_gate(ctx, tab_id));
  // The user said yes to this tab: its site is one the run may work on.
  if (asked)
    allow_site(ctx, info.url);
  return {};
}

Result<std::string> open_held_tab(Context& ctx, const std::string& url) {
  auto id = TRY(ctx.browser().open_tab("about:blank", ctx.limits().load_timeout, ctx.browser_context()));
  if (auto held = take_tab(ctx, id); !held) {
    (void)ctx.browser().close_tab(id);
    return tl::make_unexpected(held.error());
  }
  if (!url.empty() && url != "about:blank") TRY(ctx.browser().navigate(id, url, ctx.limits().load_timeout));
  return id;
}

}  // namespace ouro::egress
