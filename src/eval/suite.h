// An evaluation suite: sites (plain files and a starting state, served on loopback by
// eval/sites.h) and tasks over them, each with checks that read the site's own state or the run's
// final answer, and some with an injected variant (the same task with an attacker's words in the
// site's data). eval/suite/README.md in the source tree is the format; ouro ships one suite,
// compiled in (shipped()).
#pragma once

#include "base/error.h"
#include "base/json.h"

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ouro::eval {

struct Task {
  std::string id;           // "bank-pay-rent", or "bank-pay-rent+inject" for the injected variant
  std::string base_id;      // the clean task's id (the same for a clean task)
  std::string site;         // a folder of the suite's sites/ ("" for a task on a URL of its own)
  std::string start = "/";  // the path the run starts on
  // A task on a page of the user's own (an http(s) URL) instead of a suite site: checked on its
  // final answer only, since no site of the suite sees what it sends.
  std::string url;
  std::string instruction;
  json check = json::array();  // every entry holds: success (eval/checks.h)
  int max_iterations = 15;
  // The injected variant's: the patch on the site's data, what the attacker wants (words), the
  // checks that say the injection succeeded (any), and words of it a refusal would quote.
  bool injected = false;
  json patch = nullptr;
  std::string goal;
  json attack = json::array();
  std::vector<std::string> markers;
};

// A site's files in memory (served from the network thread without touching the disk) and its
// starting state.
struct Site {
  std::string name;
  std::map<std::string, std::string> files;  // "/index.html" → bytes
  json data = json::object();                // data.json
};

struct Suite {
  std::filesystem::path root;  // sites/, tasks/, models/
  std::map<std::string, std::shared_ptr<const Site>> sites;
  std::vector<Task> tasks;     // in file order, each clean task followed by its injected variant

  // Reads and checks a suite folder: every task's site exists, ids are unique, every check is
  // one the checker knows. Errors name the file and the task.
  static Result<Suite> load(const std::filesystem::path& root);
  const Task* find(std::string_view id) const;
};

// The suite that ships with ouro, written out to `to` (made if missing; files there are replaced).
Result<void> export_shipped(const std::filesystem::path& to);

// One task from its JSON (`where`: the file, for errors); appends it and its injected variant.
Result<void> parse_tasks(const json& array, const std::string& where, std::vector<Task>& into);

}  // namespace ouro::eval
