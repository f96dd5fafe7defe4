#include "actions/action_cache.h"

#include "commands/language.h"
#include "store/database.h"
#include "store/statement.h"

#include <boost/url/parse.hpp>

#include <chrono>

namespace ouro::actions {

namespace {

Result<void> ensure_schema(sqlite3* db) {
  return store::exec(db,
                     "CREATE TABLE IF NOT EXISTS action_cache (site TEXT NOT NULL, key TEXT NOT NULL, shape TEXT NOT NULL, "
                     "entry TEXT NOT NULL, used REAL NOT NULL, hits INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (site, key, shape))",
                     "create the action cache table");
}

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::system_clock::now().time_since_epoch()).count();
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

json ActionCacheStats::to_json() const {
  int64_t h = hits.load(), m = misses.load();
  return {{"hits", h}, {"misses", m}, {"hitRate", h + m ? json(static_cast<double>(h) / static_cast<double>(h + m)) : json(nullptr)}};
}

json ActionCache::Entry::to_json() const {
  return {{"shape", shape}, {"selector", selector}, {"role", role}, {"name", name}, {"confidence", confidence}};
}

Result<std::vector<ActionCache::Entry>> ActionCache::lookup(const std::string& site, const std::string& key) {
  return m_db.with_connection([&](sqlite3* db) -> Result<std::vector<Entry>> {
    TRY(ensure_schema(db));
    auto st = TRY(store::prepare(db, "SELECT shape, entry FROM action_cache WHERE site = ?1 AND key = ?2 ORDER BY used DESC LIMIT ?3"));
    store::bind(st.s, 1, site);
    store::bind(st.s, 2, key);
    sqlite3_bind_int(st.s, 3, kMaxShapesPerKey);
    std::vector<Entry> out;
    int rc;
    while ((rc = sqlite3_step(st.s)) == SQLITE_ROW) {
      auto j = parse_json(store::text(st.s, 1), "action cache entry");
      if (!j || !j->is_object()) continue;  // an unreadable row is skipped, and replaced when the target is bound again
      Entry e;
      e.shape = store::text(st.s, 0);
      e.selector = get_str(*j, "selector");
      e.role = get_str(*j, "role");
      e.name = get_str(*j, "name");
      e.confidence = j->value("confidence", 0.0);
      if (!e.selector.empty()) out.push_back(std::move(e));
    }
    TRY(store::finished_reading(db, rc, "the action cache"));
    return out;
  });
}

Result<void> ActionCache::put(const std::string& site, const std::string& key, const Entry& entry) {
  if (site.empty() || key.empty() || entry.selector.empty()) return {};
  return m_db.with_connection([&](sqlite3* db) -> Result<void> {
    TRY(ensure_schema(db));
    json j = entry.to_json();
    j.erase("shape");
    auto st = TRY(store::prepare(db, "INSERT OR REPLACE INTO action_cache (site, key, shape, entry, used, hits) VALUES (?1, ?2, ?3, ?4, ?5, 0)"));
    store::bind(st.s, 1, site);
    store::bind(st.s, 2, key);
    store::bind(st.s, 3, entry.shape);
    store::bind(st.s, 4, dump_json(j));
    sqlite3_bind_double(st.s, 5, now_ms());
    if (sqlite3_step(st.s) != SQLITE_DONE) return errorf(Code::Internal, "cannot keep an action cache entry: {}", sqlite3_errmsg(db));
    // Bounded: the least recently used go first.
    auto trim = TRY(store::prepare(db, "DELETE FROM action_cache WHERE rowid IN (SELECT rowid FROM action_cache ORDER BY used DESC LIMIT -1 OFFSET ?1)"));
    sqlite3_bind_int(trim.s, 1, kMaxEntries);
    if (sqlite3_step(trim.s) != SQLITE_DONE) return errorf(Code::Internal, "cannot trim the action cache: {}", sqlite3_errmsg(db));
    return {};
  });
}

Result<void> ActionCache::touch(const std::string& site, const std::string& key, const std::string& shape) {
  return m_db.with_connection([&](sqlite3* db) -> Result<void> {
    TRY(ensure_schema(db));
    auto st = TRY(store::prepare(db, "UPDATE action_cache SET used = ?4, hits = hits + 1 WHERE site = ?1 AND key = ?2 AND shape = ?3"));
    store::bind(st.s, 1, site);
    store::bind(st.s, 2, key);
    store::bind(st.s, 3, shape);
    sqlite3_bind_double(st.s, 4, now_ms());
    if (sqlite3_step(st.s) != SQLITE_DONE) return errorf(Code::Internal, "cannot update the action cache: {}", sqlite3_errmsg(db));
    return {};
  });
}

Result<void> ActionCache::drop(const std::string& site, const std::string& key, const std::string& shape) {
  return m_db.with_connection([&](sqlite3* db) -> Result<void> {
    TRY(ensure_schema(db));
    auto st = TRY(store::prepare(db, "DELETE FROM action_cache WHERE site = ?1 AND key = ?2 AND shape = ?3"));
    store::bind(st.s, 1, site);
    store::bind(st.s, 2, key);
    store::bind(st.s, 3, shape);
    if (sqlite3_step(st.s) != SQLITE_DONE) return errorf(Code::Internal, "cannot drop an action cache entry: {}", sqlite3_errmsg(db));
    return {};
  });
}

Result<int64_t> ActionCache::size() {
  return m_db.with_connection([&](sqlite3* db) -> Result<int64_t> {
    TRY(ensure_schema(db));
    auto st = TRY(store::prepare(db, "SELECT count(*) FROM action_cache"));
    if (sqlite3_step(st.s) != SQLITE_ROW) return errorf(Code::Internal, "cannot count the action cache: {}", sqlite3_errmsg(db));
    return static_cast<int64_t>(sqlite3_column_int64(st.s, 0));
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
