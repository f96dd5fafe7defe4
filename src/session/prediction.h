// Chrome's "Preload pages" held off for a gated session in a browser that has no ouro proxy in
// front of it — the user's own Chrome, a remote browser (browser/prediction.cpp says why) — and,
// for the user's own profile, a note in the data directory that ouro did so: an ouro killed while
// holding it leaves the setting off, and the next one to hold it puts the user's value back.
#pragma once

#include "base/error.h"

namespace ouro::session {

struct Runtime;

// Turns it off for as long as the runtime's browser is connected (idempotent). `users_profile`:
// the profile is the user's (kept across runs), so the note is written.
Result<void> hold_prediction(Runtime& runtime, bool users_profile);
// Puts it back (after the gated tabs went blank) and removes the note; from ~Runtime.
void restore_prediction(Runtime& runtime);

}  // namespace ouro::session
