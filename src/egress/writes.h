// A page's words are data, not orders (docs/design/provenance.md, docs/guides/safety.md): what a
// run reads from a page is noted with that page's site, and before a call writes a value into a
// page or sends it to a site (registry.h `writes`), the value is traced to the sites whose pages
// hold it (safety/provenance.h):
//   - from the site it is written on, or from no page: it goes on;
//   - from another site, when the task names both sites (its text or its URLs): it goes on,
//     recorded;
//   - otherwise, careful mode asks the user (the question names the page the value came from),
//     autonomous mode refuses; with no one to ask (a person driving the REPL) it goes on.
// Every decision about a value from another site is a `gate` event.
#pragma once

#include "host/context.h"

#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ouro::safety { class Provenance; }

namespace ouro::egress {

// What a call on `tab` returned: text of the tab's page, noted with the page's site — except what
// came from a cross-origin frame, noted with the frame's site: the whole result when the call
// addressed the frame (`frame`, its ref prefix: read(tab, "f2e5")), else each part that carries a
// ref of a frame (a snapshot's actions and forms, find's and extract's rows) and the frames a
// snapshot lists (whose URLs are kept for later reads).
void note_page_data(host::Context& ctx, const std::string& tab, const json& result, const std::string& frame = {});
// The URL of the cross-origin frame `frame` that `selector` addresses, asked of the frame itself
// (its document's location, in ouro's world there) when no snapshot told it; kept for the calls
// that follow. Nothing without a gate.
void learn_frame_url(host::Context& ctx, const std::string& tab, const std::string& frame, const std::string& selector);

// The same for what a frame or a page at `url` gave (a page tool declared in a frame: its site,
// not the tab's).
void note_data_from(host::Context& ctx, const std::string& url, const json& result);
// What a sub-call (llm_query) answered over the run's data (`args`, the call's): free text and
// numbers carry every site the run has read so far; a yes/no answer, or one of the choices the
// code gave (options.choices), is endorsed and carries nothing more than its own text traces to.
void note_derived(host::Context& ctx, const json& result, const json& args = json::array());
// The user's own words (an answer to askUser).
void note_user_words(host::Context& ctx, std::string_view text);

// Before `function` writes `values` ({parameter, text}) into the page of `tab` — into its
// cross-origin frame `frame` (the ref prefix its selector addresses) when given, or, for a `url`
// parameter, to the URL's site. PermissionDenied, naming the value's source page, when refused.
// Blocks while the user is asked.
Result<void> check_write(host::Context& ctx, const std::string& function, const std::string& tab,
                         const std::vector<std::pair<std::string, std::string>>& values, const std::string& frame = {});

// What a run wrote was traced to: the sites whose pages hold it as they are, and those whose
// data a sub-call's answer that holds it was computed from. A value the page it is written on
// holds is that page's; one only derived from it (with other sites' data) is not.
struct Traced {
  std::set<std::string> pages, derived;
  std::set<std::string> all() const;
};
Traced trace_value(const safety::Provenance& provenance, std::string_view value);

// The site (safety::site_of_host) of the http(s) page `tab` shows; "" for any other page.
std::string site_of_page(host::Context& ctx, const std::string& tab);

// The strings of a call's argument that it writes: a string as it is; an object's values and an
// array's items, recursively (an object's keys are selectors, not written); at most 64.
std::vector<std::string> written_strings(const json& arg);

}  // namespace ouro::egress
