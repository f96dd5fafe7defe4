// The user's own tabs (a run in "My browser", the profile's context, where the user browses
// too): a run reads every tab of the context but acts only on tabs it holds — those it opened,
// those it was handed when it started, popups of those, and other tabs of the user's it asked
// for (careful mode: the user says yes; autonomous: taken). A tab works for one run at a time:
// acting on a tab another run holds fails at once with the holder's name (no waiting, so two
// runs never deadlock over tabs). Held tabs are under the run's egress gate; when the run ends
// they are let go, out of the gate and left open.
#pragma once

#include "host/context.h"

#include <string>

namespace ouro::safety { struct Url; }

namespace ouro::egress {

// "example.com", "127.0.0.1:8080": the site a permission is remembered for.
std::string site_key(const safety::Url& url);

// Makes sure the host holds the tab before it acts there (asking the user when the tab is
// theirs); PermissionDenied / FailedPrecondition with what to do instead.
Result<void> hold_tab(host::Context& ctx, const std::string& tab_id, const std::string& function);

// Takes a tab the run was handed or opened, without asking (under the run's gate).
Result<void> take_tab(host::Context& ctx, const std::string& tab_id);

// Opens a tab the run holds from its first request: about:blank first, held, then the URL.
Result<std::string> open_held_tab(host::Context& ctx, const std::string& url);

}  // namespace ouro::egress
