// The sites the user allowed "always" (a site question answered for good), remembered per
// profile in its database (settings `allowed_sites`): added to every later run's allowed sites,
// and their tabs acted on without asking. The Command Center lists and revokes them; the
// terminal offers "always" too.
#pragma once

#include "base/json.h"
#include "store/database.h"

#include <string>
#include <vector>

namespace ouro::runs {

// The stored sites (unreadable entries are skipped).
std::vector<std::string> remembered_sites(store::Database& db);
// Adds one (at most 500 are kept); a failure is logged, not returned: the run goes on.
// conversation/turn: the run whose turn the answer came in, journaled for undo ("" : none).
void remember_site(store::Database& db, const std::string& site, const std::string& conversation = "", int turn = 0);
// Replaces the list (Settings' Revoke): InvalidArgument names an entry that is not a site.
Result<void> set_remembered_sites(store::Database& db, const json& sites);

// Whether a confirmation request is a site question, and its site ("" if not).
std::string site_question(const json& request);

}  // namespace ouro::runs
