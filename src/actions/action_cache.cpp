#include "actions/action_cache.h"
#include "base/clock.h"

#include "commands/language.h"
#include "store/database.h"
#include "store/sql.h"

#include <boost/url/parse.hpp>

#include <chrono>

namespace ouro::actions {

namespace {

constexpr store::Migration kMigrations[] = {
    {1,
     "CREATE TABLE IF NOT EXISTS action_cache (site TEXT NOT NULL, key TEXT NOT NULL, shape TEXT NOT NULL, "
     "entry TEXT NOT NULL, used REAL NOT NULL, hits INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (site, key, shape))",
     "CREATE TABLE IF NOT EXISTS action_cache (site TEXT NOT NULL, key TEXT NOT NULL, shape TEXT NOT NULL, "
     "entry TEXT NOT NULL, used DOUBLE PRECISION NOT NULL, hits BIGINT NOT NULL DEFAULT 0, PRIMARY KEY (site, key, shape));"
     "CREATE INDEX action_cache_by_use ON action_cache (used)"},
};

Result<void> ensure_schema(store::Connection& c) { return store::migrate(c, "action_cache", kMigrations); }

// A statement's failure as "cannot WHAT: why", keeping its code.
template <class T>
Result<T> named(Result<T> r, std::string_view what) {
  if (r) return r;
  return make_error(r.error().code, fmt::format("cannot {}: {}", what, r.error().message));
}

// Words folded for a key: lower case, runs of spaces made one, ends trimmed.
std::string fold(const std::string& s) {
  std::string out;
  bool space = false;
  for (unsigned char c : s) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += static_cast<char>(c < 0x80 ? std::tolower(c) : c);
  }
  return out;
}

}  // namespace

json ActionCache::Entry::to_json() const {
  return {{"shape", shape}, {"selector", selector}, {"role", role}, {"name", name}, {"confidence", confidence}};
}

Result<std::vector<ActionCache::Entry>> ActionCache::lookup(const std::string& site, const std::string& key) {
  return m_db.with_sql([&](store::Connection& c) -> Result<std::vector<Entry>> {
    TRY(ensure_schema(c));
    auto rows = TRY(named(c.exec("SELECT shape, entry FROM action_cache WHERE site = ?1 AND key = ?2 ORDER BY used DESC LIMIT ?3",
                                 {site, key, static_cast<int>(kMaxShapesPerKey)}),
                          "read the action cache"));
    std::vector<Entry> out;
    for (const store::Row& row : rows) {
      auto j = parse_json(row.text(1), "action cache entry");
      if (!j || !j->is_object()) continue;  // an unreadable row is skipped, and replaced when the target is bound again
      Entry e;
      e.shape = row.text(0);
      e.selector = get_str(*j, "selector");
      e.role = get_str(*j, "role");
      e.name = get_str(*j, "name");
      e.confidence = j->value("confidence", 0.0);
      if (!e.selector.empty()) out.push_back(std::move(e));
    }
    return out;
  });
}

Result<void> ActionCache::put(const std::string& site, const std::string& key, const Entry& entry) {
  if (site.empty() || key.empty() || entry.selector.empty()) return {};
  return m_db.with_sql([&](store::Connection& c) -> Result<void> {
    TRY(ensure_schema(c));
    json j = entry.to_json();
    j.erase("shape");
    TRY(named(c.exec("INSERT INTO action_cache (site, key, shape, entry, used, hits) VALUES (?1, ?2, ?3, ?4, ?5, 0) "
                     "ON CONFLICT (site, key, shape) DO UPDATE SET entry = excluded.entry, used = excluded.used, hits = 0",
                     {site, key, entry.shape, dump_json(j), wall_ms()}),
              "keep an action cache entry"));
    // Bounded: the least recently used go first. (SQLite wants a LIMIT before an OFFSET.)
    TRY(named(c.exec(c.engine() == store::Engine::Postgres
                         ? "DELETE FROM action_cache WHERE (site, key, shape) IN (SELECT site, key, shape FROM action_cache ORDER BY used DESC OFFSET ?1)"
                         : "DELETE FROM action_cache WHERE rowid IN (SELECT rowid FROM action_cache ORDER BY used DESC LIMIT -1 OFFSET ?1)",
                     {static_cast<int>(kMaxEntries)}),
              "trim the action cache"));
    return {};
  });
}

Result<void> ActionCache::touch(const std::string& site, const std::string& key, const std::string& shape) {
  return m_db.with_sql([&](store::Connection& c) -> Result<void> {
    TRY(ensure_schema(c));
    TRY(named(c.exec("UPDATE action_cache SET used = ?4, hits = hits + 1 WHERE site = ?1 AND key = ?2 AND shape = ?3", {site, key, shape, wall_ms()}),
              "update the action cache"));
    return {};
  });
}

Result<void> ActionCache::drop(const std::string& site, const std::string& key, const std::string& shape) {
  return m_db.with_sql([&](store::Connection& c) -> Result<void> {
    TRY(ensure_schema(c));
    TRY(named(c.exec("DELETE FROM action_cache WHERE site = ?1 AND key = ?2 AND shape = ?3", {site, key, shape}), "drop an action cache entry"));
    return {};
  });
}

Result<int64_t> ActionCache::size() {
  return m_db.with_sql([&](store::Connection& c) -> Result<int64_t> {
    TRY(ensure_schema(c));
    auto rows = TRY(named(c.exec("SELECT count(*) FROM action_cache"), "count the action cache"));
    return rows.empty() ? int64_t{0} : rows[0].int64(0);
  });
}

std::string action_cache_key(const std::string& verb, const commands::Target& t) {
  if (t.kind != commands::Target::Kind::Words || t.ordinal != 0 || t.all || !t.near.empty() || !t.within.empty()) return "";
  std::string name = fold(t.name);
  if (name.empty() || name.size() > 200) return "";
  std::string key = verb + "|" + (t.exact ? "=" : "~") + name;
  for (const auto& r : t.roles) key += "|" + r;
  return key;
}

std::string action_cache_site(const std::string& url) {
  auto u = boost::urls::parse_uri(url);
  if (!u || !u->has_authority() || u->host().empty()) return "";
  std::string scheme = u->scheme();
  if (scheme != "http" && scheme != "https") return "";
  std::string site = scheme + "://" + std::string(u->encoded_host());
  if (u->has_port()) site += ":" + std::string(u->port());
  for (auto& c : site) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return site;
}

}  // namespace ouro::actions
