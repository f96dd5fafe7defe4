#include "cli/undo.h"

#include "base/json.h"
#include "safety/known_secrets.h"
#include "store/database.h"
#include "undo/journal.h"

#include <fmt/format.h>

#include <iostream>

namespace ouro::cli {

int cmd_undo(const UndoFlags& flags) {
  const char* verb = flags.redo ? "redo" : "undo";
  std::string dir = flags.data_dir.empty() ? store::default_data_dir() : flags.data_dir;
  auto db = store::Database::open(dir + "/ouro.db");
  if (!db) {
    std::cerr << "ouro " << verb << ": cannot open the database in " << dir << ": " << db.error().message << "\n";
    return 1;
  }
  std::string id = flags.run_id;
  if (id.empty()) {
    auto latest = undo::latest_conversation(**db, flags.redo);
    if (!latest) {
      std::cerr << "ouro " << verb << ": " << latest.error().message << "\n";
      return 1;
    }
    if (latest->empty()) {
      std::cerr << "ouro " << verb << ": nothing to " << verb << " (no run's turn changed memory, the store, goals, schedules, scripts or settings"
                << (flags.redo ? ", or nothing was undone since" : "") << ")\n";
      return 1;
    }
    id = *latest;
  }
  auto done = flags.redo ? undo::redo(**db, id) : undo::undo(**db, id);
  if (!done) {
    std::cerr << "ouro " << verb << ": " << done.error().message << "\n";
    return 1;
  }
  // What it says of memories is masked for every run's secrets, as `ouro memory` is.
  auto known = safety::KnownSecrets::open(dir + "/secret-digests");
  if (!known) {
    std::cerr << "ouro " << verb << ": " << known.error().message << "\n";
    return 1;
  }
  (*known)->scrub(done->changes);
  if (flags.as_json) {
    std::cout << dump_json(done->to_json(id, flags.redo)) << "\n";
    return 0;
  }
  std::cout << fmt::format("{} turn {} of run {}:\n", flags.redo ? "Redid" : "Undid", done->turn, id);
  for (const auto& c : done->changes) std::cout << "  " << get_str(c, "did") << "\n";
  std::cout << done->note << "\n";
  return 0;
}

}  // namespace ouro::cli
