// The action cache (like Stagehand's act cache: remember what worked): how a
// plain-words target ("the Sign in button") was resolved on a site, kept per page shape, so the
// same command on the same kind of page finds its element again by a selector, without ranking
// and without a model. A kept resolution is used only when its selector finds exactly one visible
// element with the same role and accessible name (browser/page/binding.js `recall`); one that
// fails is dropped and the target is bound afresh. Targets that depend on position (ordinals,
// `near`, `within`, "all") are never kept: on another page of the same shape they would name a
// different element.
//
// Stored in the profile's database (table `action_cache`), at most kMaxEntries rows, the least
// recently used going first. Keys never hold typed text: only the verb and the target's words.
#pragma once

#include "base/error.h"
#include "base/json.h"

#include <atomic>
#include <string>
#include <vector>

namespace ouro::store { class Database; }
namespace ouro::commands { struct Target; }

namespace ouro::actions {

class ActionCache {
 public:
  static constexpr int kMaxEntries = 5000;
  static constexpr int kMaxShapesPerKey = 8;  // kinds of page one command is kept for, per site

  explicit ActionCache(store::Database& db) : m_db(db) {}

  // A kept resolution: the page shape it was made on and how to find its element again.
  struct Entry {
    std::string shape;
    std::string selector;
    std::string role;
    std::string name;
    double confidence = 0;
    json to_json() const;  // what binding.js's recall reads
  };

  // The kept resolutions of `key` on `site`, most recently used first (at most kMaxShapesPerKey).
  Result<std::vector<Entry>> lookup(const std::string& site, const std::string& key);
  // Keeps (or replaces) the resolution of `key` on `site` for entry.shape.
  Result<void> put(const std::string& site, const std::string& key, const Entry& entry);
  // Marks a kept resolution used now.
  Result<void> touch(const std::string& site, const std::string& key, const std::string& shape);
  // Forgets one that failed.
  Result<void> drop(const std::string& site, const std::string& key, const std::string& shape);
  // How many are kept (for tests and `ouro doctor`-like reports).
  Result<int64_t> size();

 private:
  store::Database& m_db;
};

// The cache key of a command's target: the verb and the target's words, or "" when the target
// is not kept (a ref, a selector, an ordinal, `near`, `within`, all). Case and spacing folded.
std::string action_cache_key(const std::string& verb, const commands::Target& target);

// The site a page belongs to for the cache: scheme://host[:port] ("" for URLs without a host,
// such as about:blank and data:, which are never cached).
std::string action_cache_site(const std::string& url);

}  // namespace ouro::actions
