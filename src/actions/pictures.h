// Pictures of pages while the run has secrets (docs/guides/safety.md, "Secrets"). A page can draw
// a value as pixels, which no masking of text finds, so a tab under a secret's rule — a secret was
// typed into it, or it shows (or showed) the secret's origin in this run (egress/secret_holds.h) —
// is not pictured at all: the call fails and says to read text instead, where the value shows as
// [SECRET:name]. Elsewhere, text and field values that hold a secret (any of its forms the
// scrubber finds) are covered with black boxes while the picture is taken; a frame of the page
// that shows one withholds the picture, and so does a page that moves the boxes meanwhile.
#pragma once

#include "actions/impl.h"

#include <functional>
#include <string>
#include <string_view>

namespace ouro::actions::impl {

// `capture` takes the picture (Page.captureScreenshot); it runs only when the picture may be
// taken, with the boxes up. PermissionDenied, naming `what` and the tab, when it may not.
Result<json> picture_of(Context& ctx, const std::string& tab, std::string_view what, const std::function<Result<json>()>& capture);

}  // namespace ouro::actions::impl
