// What the run reads of a page, through the page engine (browser/page/, called with
// Browser::call): the MiniPCD snapshot, details of refs, find(), extract() and the helpers' reads,
// in the top document and in the cross-origin frames the engine cannot enter. The capabilities
// (actions/) check the REPL's arguments and call these.
#pragma once

#include "base/error.h"
#include "base/json.h"
#include "browser/browser.h"

#include <chrono>
#include <string>

namespace ouro::perception {

// Which browser reads go to, and how long one read may take (the host's exec timeout).
struct Reader {
  browser::Browser& browser;
  std::chrono::milliseconds timeout;
};

// snapshot(tab, opts): the page's affordances, with those of its cross-origin frames merged in
// (a third of each list's cap at most goes to frames; all of it within the engine's budget).
Result<json> snapshot(const Reader& r, const std::string& tab, json opts);
// details(tab, refs): one answer per ref (a ref or an array of them), in the order asked; refs
// of frames get the frame's offset and path.
Result<json> details(const Reader& r, const std::string& tab, json refs);
// find(tab, description, opts): the best matches by score, from the top document and its frames.
Result<json> find(const Reader& r, const std::string& tab, const std::string& description, json opts);
// extract(tab, opts): the rows of a collection, in the frame its ref names.
Result<json> extract(const Reader& r, const std::string& tab, json opts);

// The page helpers' function `fn` with `args`, in the frame `selector` addresses; NotFound
// ("{what}: no element matches selector …") when the selector matched nothing.
Result<json> read(const Reader& r, const std::string& tab, const char* fn, json args, const std::string& what, const std::string& selector);

}  // namespace ouro::perception
