// `ouro undo` and `ouro redo` from the terminal (cli/undo.h; docs/guides/undo.md) on a data
// directory of the test's own, without a browser: the conversation changed most recently found
// by itself, what was done said one line per change (one JSON line with --json) and followed by
// what no undo reaches, what it says masked for every run's secrets; nothing to do, a run with
// nothing to undo, or a data directory that cannot hold a database said on stderr, exit code 1.
#include "cli/undo.h"
#include "../support/scoped_env.h"
#include "../support/scoped_temp_dir.h"

#include "base/json.h"
#include "safety/known_secrets.h"
#include "store/database.h"
#include "undo/journal.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

namespace ouro::cli {
namespace {

using ouro::testing::ScopedEnv;
using ouro::testing::ScopedTempDir;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const std::string kNote =
    "Only ouro's own state was changed back. Anything the browser sent to a site during that turn (a form, a message, a purchase) "
    "stays sent: no undo reaches it.";

// What the command wrote on stdout and stderr, and its exit code.
struct Said {
  int code = -1;
  std::string out, err;
};

Said undo_command(const std::string& data_dir, bool redo, bool as_json, const std::string& run_id = "") {
  UndoFlags flags;
  flags.redo = redo;
  flags.run_id = run_id;
  flags.as_json = as_json;
  flags.data_dir = data_dir;
  std::ostringstream out, err;
  std::streambuf* old_out = std::cout.rdbuf(out.rdbuf());
  std::streambuf* old_err = std::cerr.rdbuf(err.rdbuf());
  Said said;
  said.code = cmd_undo(flags);
  std::cout.rdbuf(old_out);
  std::cerr.rdbuf(old_err);
  said.out = out.str();
  said.err = err.str();
  return said;
}

// A data directory of the test's own, and no database named by the environment or a settings
// file (store/database.h: either would be opened instead of <data dir>/ouro.db).
class UndoCommand : public ::testing::Test {
 protected:
  ScopedTempDir dir;
  ScopedEnv no_database{"OURO_DATABASE", nullptr};
  ScopedEnv no_settings{"OURO_CONFIG", (dir.path + "/config.json").c_str()};
};

TEST_F(UndoCommand, NothingToUndoOrRedoIsSaidWithExitCodeOne) {
  Said undone = undo_command(dir.path, false, false);
  EXPECT_EQ(undone.code, 1);
  EXPECT_EQ(undone.out, "");
  EXPECT_EQ(undone.err, "ouro undo: nothing to undo (no run's turn changed memory, the store, goals, schedules, scripts or settings)\n");
  Said redone = undo_command(dir.path, true, true);
  EXPECT_EQ(redone.code, 1);
  EXPECT_EQ(redone.out, "") << "no JSON when nothing was done";
  EXPECT_EQ(redone.err,
            "ouro redo: nothing to redo (no run's turn changed memory, the store, goals, schedules, scripts or settings, or nothing was "
            "undone since)\n");
}

TEST_F(UndoCommand, ARunWithNothingToUndoIsNamed) {
  Said undone = undo_command(dir.path, false, false, "rnosuchrun1");
  EXPECT_EQ(undone.code, 1);
  EXPECT_EQ(undone.out, "");
  EXPECT_EQ(undone.err,
            "ouro undo: nothing to undo in rnosuchrun1: its turns changed nothing undo reaches, or all are undone already (redo puts "
            "the last back)\n");
  Said redone = undo_command(dir.path, true, false, "rnosuchrun1");
  EXPECT_EQ(redone.code, 1);
  EXPECT_EQ(redone.err,
            "ouro redo: nothing to redo in rnosuchrun1: no turn of it is undone (a turn that changed something since drops what was "
            "undone)\n");
}

TEST_F(UndoCommand, ADataDirectoryThatCannotHoldADatabaseIsSaid) {
  const std::string file = dir.write("not-a-directory", "x");
  Said undone = undo_command(file, false, false);
  EXPECT_EQ(undone.code, 1);
  EXPECT_EQ(undone.out, "");
  EXPECT_EQ(undone.err.rfind("ouro undo: cannot open the database in " + file + ": ", 0), 0u) << undone.err;
}

TEST_F(UndoCommand, TheLatestTurnIsUndoneAndRedoneAndWhatItSaysIsMaskedForSecrets) {
  // A run's turn 2 stored a key that holds an earlier run's secret (its name is what undo says).
  const std::string key = "token vault-pass-8841";
  {
    auto db = store::Database::open(dir.path + "/ouro.db");
    ASSERT_TRUE(db) << db.error().message;
    ASSERT_TRUE((*db)->kv_set(key, "\"sent\""));
    auto journaled = undo::record(**db, "rconv000001", 2, {{"kind", "kv"}, {"key", key}, {"before", nullptr}, {"after", "\"sent\""}});
    ASSERT_TRUE(journaled) << journaled.error().message;
    auto known = safety::KnownSecrets::open(dir.path + "/secret-digests");
    ASSERT_TRUE(known) << known.error().message;
    ASSERT_TRUE((*known)->record("vault", "vault-pass-8841"));
  }
  auto stored = [&]() -> std::optional<std::string> {
    auto db = store::Database::open(dir.path + "/ouro.db");
    if (!db) return "(no database: " + db.error().message + ")";
    auto v = (*db)->kv_get(key);
    return v ? *v : std::optional<std::string>("(unreadable: " + v.error().message + ")");
  };

  Said undone = undo_command(dir.path, false, false);
  EXPECT_EQ(undone.code, 0) << undone.err;
  EXPECT_EQ(undone.err, "");
  EXPECT_EQ(undone.out.rfind("Undid turn 2 of run rconv000001:\n  store key '", 0), 0u) << undone.out;
  EXPECT_TRUE(has(undone.out, "[SECRET:vault]")) << undone.out;
  EXPECT_TRUE(has(undone.out, " removed\n" + kNote + "\n")) << undone.out;
  EXPECT_FALSE(has(undone.out, "8841")) << undone.out;
  EXPECT_TRUE(undone.out.ends_with("\n" + kNote + "\n")) << undone.out;
  EXPECT_EQ(std::count(undone.out.begin(), undone.out.end(), '\n'), 3) << "the turn, one line per change, the note: " << undone.out;
  EXPECT_EQ(stored(), std::nullopt) << "the key the turn stored is gone";

  Said redone = undo_command(dir.path, true, true);
  EXPECT_EQ(redone.code, 0) << redone.err;
  EXPECT_EQ(redone.err, "");
  EXPECT_EQ(std::count(redone.out.begin(), redone.out.end(), '\n'), 1) << "one line: " << redone.out;
  auto j = parse_json(redone.out, "ouro redo --json");
  ASSERT_TRUE(j && j->is_object()) << redone.out;
  EXPECT_EQ(get_str(*j, "conversation"), "rconv000001");
  EXPECT_EQ(get_int(*j, "redone"), 2);
  ASSERT_EQ(get_array(*j, "changes").size(), 1u) << redone.out;
  const json& change = get_array(*j, "changes")[0];
  EXPECT_EQ(get_str(change, "kind"), "kv");
  EXPECT_TRUE(has(get_str(change, "did"), "holds its earlier value")) << redone.out;
  EXPECT_FALSE(has(redone.out, "8841")) << "the key is masked too: " << redone.out;
  EXPECT_EQ(get_str(*j, "note"), kNote);
  EXPECT_EQ(stored(), "\"sent\"") << "the key holds what the turn stored again";
}

}  // namespace
}  // namespace ouro::cli
