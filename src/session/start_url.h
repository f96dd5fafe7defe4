// The pages a session opens first (--url, a run's urls): checked before a tab is touched, so a
// bare host says to add its scheme instead of the browser's "Cannot navigate to invalid URL".
#pragma once

#include "base/error.h"

#include <string_view>

namespace ouro::session {

// Ok for http, https, file, data and about URLs. InvalidArgument otherwise: a host written without
// its scheme ("127.0.0.1:8765", "example.com/a") names the URL to give instead; anything else says
// which URLs a tab opens. A javascript: URL is not a page and is refused.
Result<void> check_start_url(std::string_view url);

}  // namespace ouro::session
