// Scripts in the database (table `scripts`, through Database::with_sql, on SQLite or PostgreSQL): every save of a
// name is a new version, the older ones kept. Any thread (SQLite is behind the database's mutex).
#pragma once

#include "scripts/script.h"
#include "store/database.h"

namespace ouro::scripts {

// The script of a stored run (its events and, for its start pages, its options), not yet saved:
// from_events' rule. NotFound for an unknown run, FailedPrecondition for one that did not finish
// with setFinal().
Result<Script> from_run(store::Database& db, const std::string& run_id, const std::string& name,
                        const std::optional<std::vector<Param>>& params = std::nullopt);

// Stores the script as the next version of its name (1 for a new name); returns it with its
// version and created_at set. InvalidArgument for a bad name.
Result<Script> save(store::Database& db, Script script);

// One row per name: its latest version, and how many versions there are.
struct Listed {
  Script latest;
  int versions = 0;
};
Result<std::vector<Listed>> list(store::Database& db);

// A name's version (nullopt: the latest), or NotFound naming what exists. Read, as list() is, on
// the store's read connection (Database::with_read_sql): it does not wait for a writer.
Result<Script> get(store::Database& db, const std::string& name, std::optional<int> version = std::nullopt);

// A version's row exactly as stored (its columns as texts, in order), for undo; nullopt when none.
Result<std::optional<json>> version_row(store::Database& db, const std::string& name, int version);
// Puts back a row version_row returned (none: that version is deleted). InvalidArgument for another shape.
Result<void> put_version_row(store::Database& db, const std::string& name, int version, const std::optional<json>& row);

// Deletes every version of the name; returns how many. NotFound when there were none.
Result<int> remove(store::Database& db, const std::string& name);

}  // namespace ouro::scripts
