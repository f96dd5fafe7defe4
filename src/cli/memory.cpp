#include "cli/memory.h"
#include "base/text.h"

#include "base/json.h"
#include "memory/embeddings.h"
#include "memory/memory.h"
#include "safety/known_secrets.h"
#include "store/database.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <iostream>

namespace ouro::cli {

namespace {

std::string date_of(double unix_seconds) { return memory::format_time(unix_seconds, "%Y-%m-%d %H:%M", true); }

json entry_json(const memory::Entry& e, bool scored) { return memory::to_json(e, scored); }

void print(const std::vector<memory::Entry>& entries, bool scored, bool as_json) {
  if (as_json) {
    json out = json::array();
    for (const auto& e : entries) out.push_back(entry_json(e, scored));
    std::cout << dump_json(out) << "\n";
    return;
  }
  for (const auto& e : entries) {
    std::string tags;
    for (const auto& t : e.tags) tags += (tags.empty() ? " [" : ", ") + t;
    if (!tags.empty()) tags += "]";
    std::string from = e.source_run.empty() ? "" : " · run " + e.source_run;
    std::string score = scored ? fmt::format(" · score {:.2f}", e.score) : "";
    std::cout << fmt::format("#{} · {} · {}{}{}{}\n  {}\n", e.id, date_of(e.updated_at), memory::kind_name(e.kind), from, score, tags,
                             clip_line(e.text, 300));
  }
}

}  // namespace

int cmd_memory(const MemoryFlags& flags) {
  std::string dir = flags.data_dir.empty() ? store::default_data_dir() : flags.data_dir;
  auto db = store::Database::open(dir + "/ouro.db");
  if (!db) {
    std::cerr << "ouro memory: cannot open the database in " << dir << ": " << db.error().message << "\n";
    return 1;
  }
  // Ranked by meaning where the settings file names an embeddings endpoint (memory/embeddings.h).
  const memory::Embeddings embeddings = memory::configured_embeddings("", dir + "/secrets.json");
  memory::Memory memory(**db, &embeddings);
  // What is shown is masked for the secrets of every run of this data directory.
  auto known = safety::KnownSecrets::open(dir + "/secret-digests");
  if (!known) {
    std::cerr << "ouro memory: " << known.error().message << "\n";
    return 1;
  }
  auto print = [&](std::vector<memory::Entry> entries, bool scored, bool as_json) {
    for (auto& e : entries) {
      e.text = (*known)->scrub_text(std::move(e.text));
      for (auto& t : e.tags) t = (*known)->scrub_text(std::move(t));
    }
    cli::print(entries, scored, as_json);
  };
  if (flags.action == "rm") {
    char* end = nullptr;
    errno = 0;
    long long id = std::strtoll(flags.query.c_str(), &end, 10);
    if (flags.query.empty() || *end || errno || id <= 0) {
      std::cerr << "ouro memory rm: the id is a whole number, as `ouro memory list` shows it (#12 → 12); got '" << flags.query.substr(0, 40) << "'\n";
      return 2;
    }
    auto gone = memory.forget(id);
    if (!gone) {
      std::cerr << "ouro " << gone.error().message << "\n";
      return 1;
    }
    if (!*gone) {
      std::cerr << "ouro memory rm: no memory #" << id << " (see ouro memory list)\n";
      return 1;
    }
    std::cerr << "memory #" << id << " is forgotten\n";
    return 0;
  }
  if (flags.action == "search") {
    auto found = memory.recall(flags.query, std::clamp(flags.limit, 1, memory::kMaxRecall), flags.tag);
    if (!found) {
      std::cerr << "ouro " << found.error().message << "\n";
      return 1;
    }
    // Which ranking answered, and why not by meaning when it is by words only.
    std::cerr << (found->ranking == "hybrid" ? "ranked by meaning and words (hybrid): " : "ranked by words only (BM25): ") << found->note << "\n";
    if (found->entries.empty() && !flags.as_json)
      std::cerr << (found->ranking == "hybrid" ? "nothing remembered is near that\n" : "nothing remembered shares words with that\n");
    print(found->entries, true, flags.as_json);
    return 0;
  }
  if (flags.action == "backfill") {
    auto filled = memory.backfill(memory::kMaxList * 100);
    if (!filled) {
      std::cerr << "ouro " << filled.error().message << "\n";
      return 1;
    }
    std::cerr << fmt::format("{} {} got vectors from {}\n", *filled, *filled == 1 ? "memory" : "memories", embeddings.embedder->model());
    return 0;
  }
  auto listed = memory.list(std::clamp(flags.limit, 1, memory::kMaxList));
  if (!listed) {
    std::cerr << "ouro " << listed.error().message << "\n";
    return 1;
  }
  auto total = memory.count();
  if (!flags.as_json && total) {
    std::string more = *total > static_cast<int64_t>(listed->size()) ? fmt::format(" (the {} most recent below)", listed->size()) : "";
    std::cerr << fmt::format("{} {}{}\n", *total, *total == 1 ? "memory" : "memories", more);
  }
  print(*listed, false, flags.as_json);
  return 0;
}

}  // namespace ouro::cli
