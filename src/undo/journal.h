// Undo and redo of what a conversation's turns changed in ouro's own state (docs/guides/undo.md):
// memories written or forgotten, the key-value store, goals, schedules, saved scripts and
// settings. Each turn's changes are journaled as they happen (table `undo_turns`, on SQLite or
// PostgreSQL): per thing changed, what it was before the turn and what the turn left. Undo puts
// the last done turn's "before" back, newest change first; redo puts its "after" back. A turn
// that changes something after an undo drops what could have been redone, as editors do. What
// the browser sent to a site cannot be undone, and every answer says so.
//
// A change is {kind, key, before, after}: kind names its handler (kinds.cpp), key what it
// changed (a memory's id, a store key, a schedule's id, {name, version} of a script, a setting's
// name, "goals"), before/after its value in the handler's own form (null: did not exist).
#pragma once

#include "base/error.h"
#include "base/json.h"

#include <string>

namespace ouro::store { class Database; }

namespace ouro::undo {

// How many turns a conversation keeps for undo: $OURO_UNDO_DEPTH (1..1000), else 20.
int depth();

// Journals one change of turn `turn` of `conversation` (a run id). Changes to the same thing in
// one turn fold into one (the first before, the last after); a change that ends where it began
// is dropped. The conversation's undone turns are dropped; only the newest depth() turns stay.
Result<void> record(store::Database& db, const std::string& conversation, int turn, const json& change);

// record(), a failure logged rather than returned: undo helps, and a run goes on without it.
void note(store::Database& db, const std::string& conversation, int turn, const json& change);
// The same for a script version the turn saved (undo deletes it; redo puts it back).
void note_script(store::Database& db, const std::string& conversation, int turn, const std::string& name, int version);

// What undo or redo did: the turn, and one line per change ({kind, key, did}) in the order done.
struct Outcome {
  int turn = 0;
  json changes = json::array();
  // Said with every answer: what no undo reaches.
  std::string note;
  json to_json(const std::string& conversation, bool redo) const;
};

// Reverts the conversation's last done turn (NotFound when there is none: "nothing to undo"),
// through each kind's handler; FailedPrecondition naming the change when a handler cannot (the
// turn stays done, and what was reverted before it is put back).
Result<Outcome> undo(store::Database& db, const std::string& conversation);
// Applies again the oldest undone turn (NotFound: "nothing to redo").
Result<Outcome> redo(store::Database& db, const std::string& conversation);

// The conversation's stack: {conversation, depth, can_undo, can_redo, turns: [{turn, state, changes}]}.
// Read on the store's read connection (Database::with_read_sql): it does not wait for a writer.
Result<json> stack(store::Database& db, const std::string& conversation);

// The newest conversation with a turn to undo (redo: to redo), or "" when none.
Result<std::string> latest_conversation(store::Database& db, bool redo);

// The handler of one kind: puts `value` (a change's before or after) back for `key` when what is
// there now is still `expect` (the other side), and says what it did in a few words ("memory #12
// forgotten"). FailedPrecondition, naming the thing, when it changed since (another run, the user
// by hand): undo never overwrites what it did not write.
using Apply = Result<std::string> (*)(store::Database& db, const std::string& conversation, const json& key, const json& value, const json& expect);
// The handler for kind, or nullptr (kinds.cpp).
Apply handler(const std::string& kind);

}  // namespace ouro::undo
