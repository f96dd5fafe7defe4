#include "undo/journal.h"
#include "base/clock.h"

#include "base/log.h"
#include "base/text.h"
#include "scripts/store.h"
#include "store/database.h"
#include "store/sql.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <mutex>

namespace ouro::undo {

namespace {

constexpr store::Migration kMigrations[] = {
    {1,
     "CREATE TABLE IF NOT EXISTS undo_turns (conversation TEXT NOT NULL, turn INTEGER NOT NULL, "
     "state TEXT NOT NULL CHECK (state IN ('done', 'undone')), changes TEXT NOT NULL, updated_at REAL NOT NULL, "
     "PRIMARY KEY (conversation, turn))",
     "CREATE TABLE IF NOT EXISTS undo_turns (conversation TEXT NOT NULL, turn BIGINT NOT NULL, "
     "state TEXT NOT NULL CHECK (state IN ('done', 'undone')), changes TEXT NOT NULL, updated_at DOUBLE PRECISION NOT NULL, "
     "PRIMARY KEY (conversation, turn))"},
};

constexpr const char* kNote =
    "Only ouro's own state was changed back. Anything the browser sent to a site during that turn (a form, a message, a purchase) "
    "stays sent: no undo reaches it.";

Result<void> ensure_schema(store::Connection& c) { return store::migrate(c, "undo", kMigrations); }

struct Turn {
  int turn = 0;
  json changes = json::array();
};

// The conversation's newest done turn (undo) or oldest undone one (redo).
Result<std::optional<Turn>> next_turn(store::Database& db, const std::string& conversation, bool redo) {
  return db.with_sql([&](store::Connection& c) -> Result<std::optional<Turn>> {
    TRY(ensure_schema(c));
    auto r = TRY(c.exec(redo ? "SELECT turn, changes FROM undo_turns WHERE conversation = ?1 AND state = 'undone' ORDER BY turn ASC LIMIT 1"
                             : "SELECT turn, changes FROM undo_turns WHERE conversation = ?1 AND state = 'done' ORDER BY turn DESC LIMIT 1",
                        {conversation}));
    if (r.empty()) return std::optional<Turn>();
    Turn t;
    t.turn = r[0].integer(0);
    t.changes = parse_json(r[0].text(1)).value_or(json::array());
    if (!t.changes.is_array()) return errorf(Code::DataLoss, "turn {} of {} has a damaged undo record", t.turn, conversation);
    return std::optional<Turn>(std::move(t));
  });
}

Result<void> set_state(store::Database& db, const std::string& conversation, int turn, const char* state) {
  return db.with_sql([&](store::Connection& c) -> Result<void> {
    TRY(ensure_schema(c));
    TRY(c.exec("UPDATE undo_turns SET state = ?3, updated_at = ?4 WHERE conversation = ?1 AND turn = ?2", {conversation, turn, state, wall_ms()}));
    return {};
  });
}

// A turn in progress cannot be undone under it.
Result<void> idle(store::Database& db, const std::string& conversation) {
  auto row = TRY(db.get_run(conversation));
  if (row && runs::in_progress(row->state))
    return errorf(Code::FailedPrecondition, "run {} has a turn in progress: undo or redo after it ends (or cancel it)", conversation);
  return {};
}

// Puts each change's `side` back (before: undo, newest first; after: redo, oldest first). When a
// handler fails, what was put back already is returned to how it was, and the error names the change.
Result<Outcome> apply(store::Database& db, const std::string& conversation, const Turn& t, bool redo) {
  const char* side = redo ? "after" : "before";
  const char* other = redo ? "before" : "after";
  std::vector<size_t> order(t.changes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = redo ? i : order.size() - 1 - i;
  Outcome out;
  out.turn = t.turn;
  out.note = kNote;
  std::vector<size_t> done;
  for (size_t i : order) {
    const json& change = t.changes[i];
    const std::string kind = get_str(change, "kind");
    Apply h = handler(kind);
    Result<std::string> did = h ? h(db, conversation, get_field(change, "key"), get_field(change, side), get_field(change, other))
                                : errorf(Code::DataLoss, "no handler for changes of kind '{}'", clip_line(kind, 40));
    if (!did) {
      // What was put back already goes back to how it was.
      std::string stuck;
      for (auto it = done.rbegin(); it != done.rend(); ++it) {
        const json& back = t.changes[*it];
        Apply hb = handler(get_str(back, "kind"));
        auto again = hb ? hb(db, conversation, get_field(back, "key"), get_field(back, other), get_field(back, side))
                        : Result<std::string>(make_error(Code::DataLoss, "no handler"));
        if (!again) {
          spdlog::warn("undo: cannot put back a {} change of {}: {}", get_str(back, "kind"), conversation, redact(again.error().message));
          stuck += (stuck.empty() ? "" : "; ") + get_str(back, "kind") + " " + clip_line(dump_json(get_field(back, "key")), 60);
        }
      }
      return errorf(did.error().code == Code::DataLoss ? Code::DataLoss : Code::FailedPrecondition, "{} of turn {} stopped at a {} change: {}; {}",
                    redo ? "redo" : "undo", t.turn, kind, did.error().message,
                    stuck.empty() ? "nothing was changed" : "and these could not be put back as they were: " + stuck);
    }
    done.push_back(i);
    out.changes.push_back({{"kind", kind}, {"key", get_field(change, "key")}, {"did", *did}});
  }
  TRY(set_state(db, conversation, t.turn, redo ? "done" : "undone"));
  return out;
}

}  // namespace

int depth() {
  const char* v = std::getenv("OURO_UNDO_DEPTH");
  if (!v || !*v) return 20;
  char* end = nullptr;
  long n = std::strtol(v, &end, 10);
  if (*end || n < 1 || n > 1000) {
    spdlog::warn("OURO_UNDO_DEPTH={} is not a whole number from 1 to 1000: 20 turns are kept for undo", clip_line(v, 20));
    return 20;
  }
  return static_cast<int>(n);
}

json Outcome::to_json(const std::string& conversation, bool redo) const {
  return {{"conversation", conversation}, {redo ? "redone" : "undone", turn}, {"changes", changes}, {"note", note}};
}

Result<void> record(store::Database& db, const std::string& conversation, int turn, const json& change) {
  if (!change.is_object() || get_str(change, "kind").empty() || !handler(get_str(change, "kind")))
    return errorf(Code::InvalidArgument, "undo: a change is {{kind, key, before, after}} of a known kind; got {}", clip_line(dump_json(change), 80));
  const int keep = depth();
  return db.with_sql([&](store::Connection& c) -> Result<void> {
    TRY(ensure_schema(c));
    return c.transaction([&]() -> Result<void> {
      // A new change: what could have been redone is gone.
      TRY(c.exec("DELETE FROM undo_turns WHERE conversation = ?1 AND state = 'undone'", {conversation}));
      auto r = TRY(c.exec("SELECT changes FROM undo_turns WHERE conversation = ?1 AND turn = ?2", {conversation, turn}));
      json changes = r.empty() ? json::array() : parse_json(r[0].text(0)).value_or(json::array());
      if (!changes.is_array()) changes = json::array();
      const std::string kind = get_str(change, "kind");
      const json& key = get_field(change, "key");
      auto same = std::find_if(changes.begin(), changes.end(), [&](const json& c) { return get_str(c, "kind") == kind && get_field(c, "key") == key; });
      if (same == changes.end()) {
        changes.push_back({{"kind", kind}, {"key", key}, {"before", get_field(change, "before")}, {"after", get_field(change, "after")}});
      } else {
        (*same)["after"] = get_field(change, "after");
        if ((*same)["after"] == (*same)["before"]) changes.erase(same);
      }
      if (changes.empty()) {
        TRY(c.exec("DELETE FROM undo_turns WHERE conversation = ?1 AND turn = ?2", {conversation, turn}));
        return {};
      }
      TRY(c.exec("INSERT INTO undo_turns (conversation, turn, state, changes, updated_at) VALUES (?1, ?2, 'done', ?3, ?4) "
                 "ON CONFLICT (conversation, turn) DO UPDATE SET state = 'done', changes = excluded.changes, updated_at = excluded.updated_at",
                 {conversation, turn, dump_json(changes), wall_ms()}));
      TRY(c.exec("DELETE FROM undo_turns WHERE conversation = ?1 AND turn NOT IN "
                 "(SELECT turn FROM undo_turns WHERE conversation = ?1 ORDER BY turn DESC LIMIT ?2)",
                 {conversation, keep}));
      return {};
    });
  });
}

void note(store::Database& db, const std::string& conversation, int turn, const json& change) {
  if (auto r = record(db, conversation, turn, change); !r)
    spdlog::warn("run {}: a change of turn {} cannot be undone later: {}", conversation, turn, redact(r.error().message));
}

void note_script(store::Database& db, const std::string& conversation, int turn, const std::string& name, int version) {
  auto row = scripts::version_row(db, name, version);
  if (!row || !*row) return;
  note(db, conversation, turn, {{"kind", "script"}, {"key", {{"name", name}, {"version", version}}}, {"before", nullptr}, {"after", **row}});
}

// One undo or redo at a time in this process: two at once would both take the same turn.
std::mutex g_applying;

// The conversation's next turn to undo (its newest done one) or redo (its oldest undone one), applied.
Result<Outcome> step(store::Database& db, const std::string& conversation, bool redo) {
  std::lock_guard lock(g_applying);
  TRY(idle(db, conversation));
  auto t = TRY(next_turn(db, conversation, redo));
  if (!t)
    return redo ? errorf(Code::NotFound, "nothing to redo in {}: no turn of it is undone (a turn that changed something since drops what was undone)",
                         conversation)
                : errorf(Code::NotFound, "nothing to undo in {}: its turns changed nothing undo reaches, or all are undone already (redo puts the last back)",
                         conversation);
  return apply(db, conversation, *t, redo);
}

Result<Outcome> undo(store::Database& db, const std::string& conversation) { return step(db, conversation, false); }
Result<Outcome> redo(store::Database& db, const std::string& conversation) { return step(db, conversation, true); }

// A read: on the store's read connection (an API read does not wait for a run's writes).
Result<json> stack(store::Database& db, const std::string& conversation) {
  return db.with_read_sql("undo", &ensure_schema, [&](store::Connection& c) -> Result<json> {
    auto r = TRY(c.exec("SELECT turn, state, changes FROM undo_turns WHERE conversation = ?1 ORDER BY turn", {conversation}));
    json turns = json::array();
    bool can_undo = false, can_redo = false;
    for (const auto& row : r) {
      json changes = parse_json(row.text(2)).value_or(json::array());
      json kinds = json::array();
      if (changes.is_array())
        for (const auto& ch : changes) kinds.push_back({{"kind", get_str(ch, "kind")}, {"key", get_field(ch, "key")}});
      const std::string state = row.text(1);
      can_undo = can_undo || state == "done";
      can_redo = can_redo || state == "undone";
      turns.push_back({{"turn", row.integer(0)}, {"state", state}, {"changes", kinds}});
    }
    return json{{"conversation", conversation}, {"depth", depth()}, {"can_undo", can_undo}, {"can_redo", can_redo}, {"turns", turns}};
  });
}

Result<std::string> latest_conversation(store::Database& db, bool redo) {
  return db.with_sql([&](store::Connection& c) -> Result<std::string> {
    TRY(ensure_schema(c));
    auto r = TRY(c.exec(redo ? "SELECT conversation FROM undo_turns WHERE state = 'undone' ORDER BY updated_at DESC LIMIT 1"
                             : "SELECT conversation FROM undo_turns WHERE state = 'done' ORDER BY updated_at DESC LIMIT 1"));
    return r.empty() ? std::string() : r[0].text(0);
  });
}

}  // namespace ouro::undo
