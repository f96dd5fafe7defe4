// `ouro serve`: the composition of the server's faces — the runs API and its run manager, the
// scheduler, the Command Center, /mcp, the extension bridge — on one browser source, until Ctrl-C.
#pragma once

#include "cli/flags.h"

#include <string>

namespace ouro::cli {

Result<int> cmd_serve(CommonFlags flags, int port, bool open_page, int confirm_timeout_s = 60, const std::string& listen = {});
// Plain `ouro`'s browser: shown when there is a display, a kept profile and ouro's extension
// loaded (the side panel beside the page); nothing of this for a browser or pool it attaches to.
void plain_browser(CommonFlags& f);

}  // namespace ouro::cli
