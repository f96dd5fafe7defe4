#include "memory/memory.h"
#include "base/clock.h"
#include "base/text.h"

#include "base/json.h"
#include "base/log.h"
#include "store/database.h"
#include "store/sql.h"

#include <algorithm>
#include <cmath>
#include <array>
#include <chrono>
#include <ctime>
#include <map>
#include <mutex>
#include <unordered_map>
#include <utility>

namespace ouro::memory {

std::string format_time(double unix_seconds, const char* format, bool local) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  char buf[64] = "?";
  if (local ? localtime_r(&t, &tm) : gmtime_r(&t, &tm)) std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}


namespace {

// --- Text -------------------------------------------------------------------------------------

// The code point at s[i] and its length in bytes (RFC 3629: no overlong forms, no surrogates,
// nothing past U+10FFFF); length 0 when s[i] does not start a valid sequence.
std::pair<char32_t, size_t> decode(std::string_view s, size_t i) {
  auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return {c, 1};
  size_t n;
  char32_t cp, min;
  if ((c & 0xE0) == 0xC0) n = 2, cp = c & 0x1F, min = 0x80;
  else if ((c & 0xF0) == 0xE0) n = 3, cp = c & 0x0F, min = 0x800;
  else if ((c & 0xF8) == 0xF0) n = 4, cp = c & 0x07, min = 0x10000;
  else return {0, 0};
  if (i + n > s.size()) return {0, 0};
  for (size_t k = 1; k < n; ++k) {
    auto cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) return {0, 0};
    cp = (cp << 6) | (cc & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {0, 0};
  return {cp, n};
}

// Text with every invalid UTF-8 byte replaced by U+FFFD: what is remembered ends up in prompts
// and JSON, which want valid UTF-8.
std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    auto [cp, n] = decode(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

size_t code_points(std::string_view s) { return utf8_length(s); }

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// A letter or digit as far as splitting a query goes. Anything else separates words. Beyond
// ASCII this leaves out the punctuation and symbol blocks; a symbol it lets through is harmless,
// since FTS5's tokenizer splits a quoted term again.
bool is_word_char(char32_t cp) {
  if (cp < 0x80) return (cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
  if (cp < 0xC0) return cp == 0xAA || cp == 0xB5 || cp == 0xBA;  // Latin-1 punctuation and symbols, but ª µ º
  if (cp == 0xD7 || cp == 0xF7) return false;                      // × ÷
  static constexpr std::array<std::pair<char32_t, char32_t>, 11> kSeparators{{
      {0x2000, 0x206F},    // general punctuation (dashes, quotes, spaces)
      {0x2190, 0x2BFF},    // arrows, mathematical and technical symbols, box drawing, shapes, dingbats
      {0x2E00, 0x2E7F},    // supplemental punctuation
      {0x3000, 0x303F},    // CJK symbols and punctuation
      {0xFE10, 0xFE6F},    // vertical, compatibility and small forms
      {0xFF00, 0xFF0F},    // fullwidth punctuation …
      {0xFF1A, 0xFF20},
      {0xFF3B, 0xFF40},
      {0xFF5B, 0xFF65},
      {0xFFF0, 0xFFFF},    // specials
      {0x1F000, 0x1FAFF},  // emoji and pictographs
  }};
  for (auto [lo, hi] : kSeparators)
    if (cp >= lo && cp <= hi) return false;
  return cp < 0xE0000;  // tags and private use planes
}

// Words that match nearly every entry; a task's "find the price of the cheapest…" should match
// on "price" and "cheapest". Sorted, for binary_search.
constexpr std::string_view kStopWords[] = {
    "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at",
    "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "d",
    "did", "do", "does", "doing", "don", "down", "during", "each", "few", "for", "from", "further", "had",
    "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i",
    "if", "in", "into", "is", "it", "its", "itself", "just", "ll", "m", "me", "more", "most", "my", "myself",
    "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves",
    "out", "over", "own", "please", "re", "s", "same", "she", "should", "so", "some", "such", "t", "than",
    "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this", "those",
    "through", "to", "too", "under", "until", "up", "ve", "very", "was", "we", "were", "what", "when",
    "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours",
    "yourself", "yourselves"};
static_assert(std::is_sorted(std::begin(kStopWords), std::end(kStopWords)));

bool is_stop_word(std::string_view lower) { return std::binary_search(std::begin(kStopWords), std::end(kStopWords), lower); }

// --- Rows -------------------------------------------------------------------------------------

constexpr size_t kMaxQueryTerms = 32;
constexpr size_t kMaxTermBytes = 64;
constexpr size_t kLineTextBytes = 200;

Kind parse_kind(std::string_view s) { return s == "run" ? Kind::Run : Kind::User; }

constexpr std::string_view kColumns = "m.id, m.text, m.tags, m.source_run, m.kind, m.created_at, m.updated_at, m.sources, m.key";
constexpr size_t kAfterColumns = 9;

Entry read_entry(const store::Row& s) {
  Entry e;
  e.id = s.int64(0);
  e.text = s.text(1);
  // Tags are a JSON array of strings. A value that is not (a database edited by hand) reads as
  // no tags rather than failing every read.
  if (auto tags = parse_json(s.text(2), "tags"); tags && tags->is_array())
    for (const auto& t : *tags)
      if (t.is_string()) e.tags.push_back(t.get<std::string>());
  e.source_run = s.text(3);
  e.kind = parse_kind(s.text(4));
  e.created_at = s.real(5);
  e.updated_at = s.real(6);
  if (!s.is_null(7))
    if (auto sources = parse_json(s.text(7), "sources"); sources && sources->is_array())
      for (const auto& t : *sources)
        if (t.is_string() && e.sources.size() < kMaxSources) e.sources.push_back(t.get<std::string>());
  e.key = s.text(8);
  return e;
}

// The tags as stored: trimmed, duplicates dropped (first kept), within the caps.
Result<std::vector<std::string>> checked_tags(const std::vector<std::string>& tags) {
  if (tags.size() > kMaxTags) return errorf(Code::InvalidArgument, "memory: remember: {} tags given; at most {} are kept per entry", tags.size(), kMaxTags);
  std::vector<std::string> out;
  for (size_t i = 0; i < tags.size(); ++i) {
    std::string tag(trim(tags[i]));
    if (tag.empty()) return errorf(Code::InvalidArgument, "memory: remember: tag {} is empty", i + 1);
    if (valid_utf8(tag) != tag) return errorf(Code::InvalidArgument, "memory: remember: tag {} is not valid UTF-8", i + 1);
    if (std::any_of(tag.begin(), tag.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7F; }))
      return errorf(Code::InvalidArgument, "memory: remember: tag {} holds control characters", i + 1);
    if (size_t n = code_points(tag); n > kMaxTagChars)
      return errorf(Code::InvalidArgument, "memory: remember: tag {} ('{}…') is {} characters long; at most {}", i + 1,
                    tag.substr(0, utf8_boundary(tag, 24)), n, kMaxTagChars);
    if (std::find(out.begin(), out.end(), tag) == out.end()) out.push_back(std::move(tag));
  }
  return out;
}

// One line of a memory section: white space and control characters folded into single spaces,
// then cut to at most max bytes at a word boundary when one is near, with "…" marking the cut.
std::string one_line(std::string_view text, size_t max) {
  std::string flat;
  flat.reserve(std::min(text.size(), max * 2));
  for (char c : text) {
    if (flat.size() > max * 2) break;  // enough to cut from; a long text need not be copied whole
    bool blank = is_space(c) || static_cast<unsigned char>(c) < 0x20 || c == 0x7F;
    if (!blank) flat += c;
    else if (!flat.empty() && flat.back() != ' ') flat += ' ';
  }
  while (!flat.empty() && flat.back() == ' ') flat.pop_back();
  if (flat.size() <= max) return flat;
  constexpr std::string_view kEllipsis = "…";
  size_t keep = utf8_boundary(flat, max > kEllipsis.size() ? max - kEllipsis.size() : 0);
  if (size_t space = flat.rfind(' ', keep); space != std::string::npos && space + 40 > keep && space > keep / 2) keep = space;
  return flat.substr(0, keep) + std::string(kEllipsis);
}

std::string date_of(double unix_seconds) { return format_time(unix_seconds, "%Y-%m-%d"); }

// The schema. FTS5 in external-content mode over `memories`: the index holds no copy of the
// text (a plain FTS5 table would), reads it from `memories` where list/get read it too, and is
// kept in step by triggers inside the same transaction as each write. A contentless index would
// also hold no copy, but SQLite before 3.43 (Debian 12 has 3.40) cannot delete from one, and
// forget() must. `UNIQUE (kind, text)` makes deduplication one atomic upsert, even with another
// process writing the same file; its index does keep a second copy of each text (at most 8 KB).
constexpr const char* kSqliteSchema =
    "CREATE TABLE IF NOT EXISTS memories ("
    "  id INTEGER PRIMARY KEY,"
    "  text TEXT NOT NULL,"
    "  tags TEXT NOT NULL DEFAULT '[]',"
    "  source_run TEXT,"
    "  kind TEXT NOT NULL CHECK (kind IN ('user', 'run')),"
    "  created_at REAL NOT NULL,"
    "  updated_at REAL NOT NULL,"
    "  UNIQUE (kind, text));"
    "CREATE INDEX IF NOT EXISTS memories_by_update ON memories(updated_at);"
    // porter over unicode61: English words by their stems ("prices" finds "price"); letters with
    // diacritics match their plain forms ("cafe" finds "café").
    "CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts USING fts5("
    "  text, tags, content='memories', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2');"
    "CREATE TRIGGER IF NOT EXISTS memories_fts_insert AFTER INSERT ON memories BEGIN"
    "  INSERT INTO memories_fts(rowid, text, tags) VALUES (new.id, new.text, new.tags);"
    "END;"
    "CREATE TRIGGER IF NOT EXISTS memories_fts_delete AFTER DELETE ON memories BEGIN"
    "  INSERT INTO memories_fts(memories_fts, rowid, text, tags) VALUES ('delete', old.id, old.text, old.tags);"
    "END;"
    "CREATE TRIGGER IF NOT EXISTS memories_fts_update AFTER UPDATE OF text, tags ON memories BEGIN"
    "  INSERT INTO memories_fts(memories_fts, rowid, text, tags) VALUES ('delete', old.id, old.text, old.tags);"
    "  INSERT INTO memories_fts(rowid, text, tags) VALUES (new.id, new.text, new.tags);"
    "END;";

// PostgreSQL's full-text search (https://www.postgresql.org/docs/15/textsearch.html): a stored
// generated tsvector over text (weight A) and tags (weight B) with a GIN index, in a text search
// configuration of ouro's, english stems (as porter does in SQLite) with unaccent in front where
// the extension can be had (https://www.postgresql.org/docs/15/unaccent.html: "cafe" finds
// "café"). The configuration is named explicitly, which keeps to_tsvector immutable as a
// generated column needs. Deduplication is a unique index on (kind, md5(text)): a btree entry
// holds at most about 2.7 KB, and texts go to 8 KB.
Result<void> create_postgres_schema(store::Connection& c) {
  bool unaccent = false;
  auto available = TRY(c.exec("SELECT 1 FROM pg_available_extensions WHERE name = 'unaccent'"));
  if (!available.empty()) {
    TRY(c.exec("SAVEPOINT unaccent"));
    // Trusted since PostgreSQL 13: a database owner may create it; a user who may not goes on without.
    unaccent = static_cast<bool>(c.exec("CREATE EXTENSION IF NOT EXISTS unaccent"));
    TRY(c.exec(unaccent ? "RELEASE SAVEPOINT unaccent" : "ROLLBACK TO SAVEPOINT unaccent"));
  }
  TRY(c.exec_script("CREATE TEXT SEARCH CONFIGURATION ouro_memory (COPY = pg_catalog.english)"));
  if (unaccent)
    TRY(c.exec_script("ALTER TEXT SEARCH CONFIGURATION ouro_memory ALTER MAPPING FOR hword, hword_part, word WITH unaccent, english_stem"));
  TRY(c.exec_script(
      "CREATE TABLE memories ("
      "  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
      "  text TEXT NOT NULL,"
      "  tags TEXT NOT NULL DEFAULT '[]',"
      "  source_run TEXT,"
      "  kind TEXT NOT NULL CHECK (kind IN ('user', 'run')),"
      "  created_at DOUBLE PRECISION NOT NULL,"
      "  updated_at DOUBLE PRECISION NOT NULL,"
      "  search tsvector GENERATED ALWAYS AS (setweight(to_tsvector('ouro_memory'::regconfig, text), 'A') ||"
      "                                      setweight(to_tsvector('ouro_memory'::regconfig, tags), 'B')) STORED);"
      "CREATE UNIQUE INDEX memories_unique ON memories (kind, md5(text));"
      "CREATE INDEX memories_by_update ON memories (updated_at);"
      "CREATE INDEX memories_search ON memories USING GIN (search);"));
  return {};
}

constexpr store::Migration kMigrations[] = {
    {1, kSqliteSchema, "", [](store::Connection& c) -> Result<void> {
       return c.engine() == store::Engine::Postgres ? create_postgres_schema(c) : Result<void>();
     }},
    // Where an entry's text came from (a JSON array of sites; NULL: from no page ouro traced).
    {2, "ALTER TABLE memories ADD COLUMN sources TEXT;", "ALTER TABLE memories ADD COLUMN sources TEXT;"},
    // Keys (remember(text, {key})) and vectors (float32 blobs of embedding_model's).
    {3,
     "ALTER TABLE memories ADD COLUMN key TEXT; ALTER TABLE memories ADD COLUMN embedding BLOB; "
     "ALTER TABLE memories ADD COLUMN embedding_model TEXT; CREATE INDEX memories_by_key ON memories(key) WHERE key IS NOT NULL;",
     "ALTER TABLE memories ADD COLUMN key TEXT; ALTER TABLE memories ADD COLUMN embedding BYTEA; "
     "ALTER TABLE memories ADD COLUMN embedding_model TEXT; CREATE INDEX memories_by_key ON memories(key) WHERE key IS NOT NULL;"},
};

// Entries of one key, the newest kept: two processes writing a key at once may both have
// inserted it. Once per connection, when the tables are first used.
constexpr const char* kMergeKeys =
    "DELETE FROM memories WHERE key IS NOT NULL AND EXISTS (SELECT 1 FROM memories n WHERE n.key = memories.key AND "
    "(n.updated_at > memories.updated_at OR (n.updated_at = memories.updated_at AND n.id > memories.id)))";

// Reciprocal rank fusion's constant (Cormack, Clarke and Büttcher, SIGIR 2009).
constexpr double kRrfK = 60;
// A vector match counts only this near the query, and no further than kSimilarityBand below the best.
constexpr double kMinSimilarity = 0.25;
constexpr double kSimilarityBand = 0.3;
// Entries whose vectors recall compares at most (the newest); recall gives this many a vector first.
constexpr int kMaxVectorScan = 20000;
constexpr int kRecallBackfill = 64;

// PostgreSQL's text holds no NUL byte (https://www.postgresql.org/docs/15/datatype-character.html);
// there a NUL becomes U+FFFD like any other byte that cannot be kept.
std::string storable(store::Engine engine, std::string text) {
  if (engine != store::Engine::Postgres || text.find('\0') == std::string::npos) return text;
  std::string out;
  for (char c : text) {
    if (c == '\0') out += "\xEF\xBF\xBD";
    else out += c;
  }
  return out;
}

// fts_query's FTS5 text as websearch_to_tsquery's input: the same quoted words joined by "or"
// (https://www.postgresql.org/docs/15/textsearch-controls.html#TEXTSEARCH-PARSING-QUERIES).
std::string websearch_query(const std::string& fts) {
  std::string out;
  for (size_t i = 0; i < fts.size();) {
    if (fts.compare(i, 4, " OR ") == 0) {
      out += " or ";
      i += 4;
    } else {
      out += fts[i++];
    }
  }
  return out;
}

}  // namespace

nlohmann::ordered_json to_json(const Entry& e, bool scored) {
  nlohmann::ordered_json j = {{"id", e.id},
                              {"text", e.text},
                              {"tags", e.tags},
                              {"kind", std::string(kind_name(e.kind))},
                              {"key", e.key.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(e.key)},
                              {"source_run", e.source_run.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(e.source_run)},
                              {"sources", e.sources},
                              {"created_at", std::llround(e.created_at * 1000)},
                              {"updated_at", std::llround(e.updated_at * 1000)}};
  if (scored) {
    j["score"] = e.score;
    j["similarity"] = e.similarity ? nlohmann::ordered_json(*e.similarity) : nlohmann::ordered_json(nullptr);
  }
  return j;
}

Result<Entry> entry_from_json(const json& j) {
  if (!j.is_object() || !get_field(j, "id").is_number_integer() || !get_field(j, "text").is_string())
    return make_error(Code::InvalidArgument, "memory: an entry is {id, text, tags, kind, …} as memory shows it");
  Entry e;
  e.id = j["id"].get<int64_t>();
  e.text = j["text"].get<std::string>();
  for (const auto& t : get_field(j, "tags"))
    if (t.is_string()) e.tags.push_back(t.get<std::string>());
  for (const auto& t : get_field(j, "sources"))
    if (t.is_string()) e.sources.push_back(t.get<std::string>());
  e.kind = parse_kind(get_str(j, "kind"));
  e.key = get_str(j, "key");
  e.source_run = get_str(j, "source_run");
  if (const json& c = get_field(j, "created_at"); c.is_number()) e.created_at = c.get<double>() / 1000;
  if (const json& u = get_field(j, "updated_at"); u.is_number()) e.updated_at = u.get<double>() / 1000;
  return e;
}

std::string_view kind_name(Kind kind) { return kind == Kind::Run ? "run" : "user"; }

std::string fts_query(std::string_view text) {
  std::vector<std::string> terms, stop_terms, seen;  // seen: lower-cased, for duplicates
  std::string term;
  size_t i = 0;
  auto finish_term = [&] {
    if (term.empty()) return;
    std::string lower = term;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; });
    if (std::find(seen.begin(), seen.end(), lower) == seen.end()) {
      auto& into = is_stop_word(lower) ? stop_terms : terms;
      if (into.size() < kMaxQueryTerms) into.push_back(term);
      seen.push_back(std::move(lower));
    }
    term.clear();
  };
  while (i < text.size() && terms.size() < kMaxQueryTerms) {
    auto [cp, n] = decode(text, i);
    if (n == 0) {  // an invalid byte separates words and is dropped
      finish_term();
      ++i;
      continue;
    }
    if (is_word_char(cp)) {
      // A very long "word" (a hash, base64) is cut to its head: the query stays small, and such a
      // word is rarely what a search is for.
      if (term.size() + n <= kMaxTermBytes) term.append(text.substr(i, n));
    } else {
      finish_term();
    }
    i += n;
  }
  finish_term();
  const auto& chosen = terms.empty() ? stop_terms : terms;
  std::string out;
  for (const auto& t : chosen) {
    if (!out.empty()) out += " OR ";
    // Inside double quotes FTS5 reads a string, never an operator, column filter or prefix; the
    // term holds letters and digits only, so it cannot close the quotes.
    out += '"';
    out += t;
    out += '"';
  }
  return out;
}

Result<void> Memory::ensure_schema(store::Connection& c) {
  const bool first = !c.migrated().count("memory");
  auto done = store::migrate(c, "memory", kMigrations);
  if (done) {
    if (first)
      if (auto merged = c.exec(kMergeKeys); merged && merged->affected > 0)
        spdlog::info("memory: {} older entries of keys written twice were merged into the newer", merged->affected);
    return {};
  }
  const std::string& msg = done.error().message;
  if (c.engine() == store::Engine::Sqlite && msg.find("fts5") != std::string::npos)
    return errorf(Code::FailedPrecondition, "memory: this SQLite library has no FTS5 full-text search ({}); memory needs a build with it", msg);
  return make_error(done.error().code, "memory: cannot create the memories tables: " + msg);
}

Result<int64_t> Memory::remember(const std::string& text, const RememberOptions& options) {
  auto r = TRY(remember_entry(text, options));
  return r.entry.id;
}

std::optional<Vector> Memory::vector_of(const std::string& text) {
  if (!m_embeddings || !m_embeddings->embedder) return std::nullopt;
  auto v = m_embeddings->embedder->embed({text});
  if (!v || v->size() != 1) {
    spdlog::warn("memory: an entry is stored without its vector (backfilled later): {}", v ? "no vector came back" : redact(v.error().message));
    return std::nullopt;
  }
  return std::move((*v)[0]);
}

namespace {

// The entry with this id on a connection the caller holds.
Result<std::optional<Entry>> entry_on(store::Connection& c, int64_t id) {
  auto r = TRY(c.exec(fmt::format("SELECT {} FROM memories m WHERE m.id = ?1", kColumns), {id}));
  if (r.empty()) return std::optional<Entry>();
  return std::optional<Entry>(read_entry(r[0]));
}

std::string sources_text(const std::vector<std::string>& list) {
  if (list.empty()) return "";
  json sources = json::array();
  for (const auto& site : list)
    if (sources.size() < kMaxSources) sources.push_back(valid_utf8(clip_line(site, 253)));
  return dump_json(sources);
}

store::Param vector_param(const std::optional<Vector>& v) { return v ? store::Param(store::Bytes{to_blob(*v)}) : store::Param(nullptr); }

// The vectors recall compared last, per database and model, by entry: read again only when the
// entry was written since (its updated_at moved). At most kMaxVectorScan entries per key.
struct Cached {
  double updated_at = 0;
  std::shared_ptr<const Vector> vector;
};
std::mutex g_vectors_mutex;
std::map<std::string, std::unordered_map<int64_t, Cached>> g_vectors;

std::string cache_key(const store::Database& db, const std::string& model) {
  return fmt::format("{}\n{}\n{}", static_cast<const void*>(&db), db.path(), model);
}

// The vectors of `scanned` (id, updated_at), from the cache or read in batches; entries whose
// blob does not read are left out.
Result<std::vector<std::pair<int64_t, std::shared_ptr<const Vector>>>> cached_vectors(store::Connection& c, const std::string& key,
                                                                                     const std::vector<std::pair<int64_t, double>>& scanned) {
  std::unordered_map<int64_t, Cached> known;
  {
    std::lock_guard lock(g_vectors_mutex);
    known = g_vectors[key];
  }
  std::vector<int64_t> missing;
  for (const auto& [id, at] : scanned)
    if (auto it = known.find(id); it == known.end() || it->second.updated_at != at) missing.push_back(id);
  constexpr size_t kBatch = 200;
  for (size_t from = 0; from < missing.size(); from += kBatch) {
    std::string ids;
    for (size_t i = from; i < std::min(missing.size(), from + kBatch); ++i) ids += (ids.empty() ? "" : ",") + std::to_string(missing[i]);
    auto rows = TRY(c.exec("SELECT id, updated_at, embedding FROM memories WHERE id IN (" + ids + ")"));
    for (const auto& row : rows)
      if (auto v = from_blob(row.bytes(2))) known[row.int64(0)] = Cached{row.real(1), std::make_shared<const Vector>(std::move(*v))};
  }
  std::vector<std::pair<int64_t, std::shared_ptr<const Vector>>> out;
  std::unordered_map<int64_t, Cached> kept;
  for (const auto& [id, at] : scanned)
    if (auto it = known.find(id); it != known.end() && it->second.updated_at == at) {
      out.emplace_back(id, it->second.vector);
      kept.emplace(id, it->second);
    }
  std::lock_guard lock(g_vectors_mutex);
  g_vectors[key] = std::move(kept);
  return out;
}

}  // namespace

Result<Remembered> Memory::remember_entry(const std::string& text_in, const RememberOptions& options) {
  std::string text = valid_utf8(trim(text_in));
  if (text.empty()) return errorf(Code::InvalidArgument, "memory: remember: nothing to remember (the text is empty)");
  if (text.size() > kMaxTextBytes)
    return errorf(Code::InvalidArgument,
                  "memory: remember: the text is {} bytes; at most {} (8 KB) are kept per entry — remember a summary, or keep the data itself with store()",
                  text.size(), kMaxTextBytes);
  std::vector<std::string> tags = TRY(checked_tags(options.tags));
  if (options.source_run.size() > kMaxSourceRunBytes)
    return errorf(Code::InvalidArgument, "memory: remember: source_run is {} bytes; at most {}", options.source_run.size(), kMaxSourceRunBytes);
  std::string key(trim(options.key));
  if (valid_utf8(key) != key || code_points(key) > kMaxKeyChars ||
      std::any_of(key.begin(), key.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7F; }))
    return errorf(Code::InvalidArgument, "memory: remember: the key must be valid UTF-8 text of at most {} characters without control characters", kMaxKeyChars);
  std::string tags_json = dump_json(json(tags));
  std::string source_run = valid_utf8(options.source_run);
  std::string sources_json = sources_text(options.sources);
  double now = wall_seconds();
  // The vector is asked for before the database's lock is taken: an endpoint may take seconds.
  std::optional<Vector> vector = vector_of(text);
  const std::string model = vector ? m_embeddings->embedder->model() : "";

  return m_db.with_sql([&](store::Connection& c) -> Result<Remembered> {
    TRY(ensure_schema(c));
    const store::Engine engine = c.engine();
    const bool pg = engine == store::Engine::Postgres;
    return c.transaction([&]() -> Result<Remembered> {
      Remembered out;
      if (!key.empty()) {
        // A keyed write replaces the entry of its key; an entry holding the same text already
        // (under no key or another) is merged into it.
        auto keyed = TRY(c.exec(fmt::format("SELECT {} FROM memories m WHERE m.key = ?1 ORDER BY m.updated_at DESC, m.id DESC", kColumns),
                                {storable(engine, key)}));
        auto same = TRY(c.exec(fmt::format("SELECT {} FROM memories m WHERE m.kind = ?1 AND m.text = ?2", kColumns),
                               {kind_name(options.kind), storable(engine, text)}));
        std::optional<Entry> target;
        if (!keyed.empty()) target = read_entry(keyed[0]);
        for (size_t i = 1; i < keyed.size(); ++i) TRY(c.exec("DELETE FROM memories WHERE id = ?1", {keyed[i].int64(0)}));
        if (!same.empty()) {
          Entry other = read_entry(same[0]);
          if (!target) target = other;
          else if (other.id != target->id) {
            TRY(c.exec("DELETE FROM memories WHERE id = ?1", {other.id}));
            out.displaced = other;
          }
        }
        if (target) {
          out.before = target;
          TRY(c.exec("UPDATE memories SET text = ?2, tags = ?3, source_run = ?4, kind = ?5, updated_at = ?6, sources = ?7, key = ?8, "
                     "embedding = ?9, embedding_model = ?10 WHERE id = ?1",
                     {target->id, storable(engine, text), tags_json, store::text_or_null(storable(engine, source_run)), kind_name(options.kind), now,
                      store::text_or_null(sources_json), storable(engine, key), vector_param(vector), store::text_or_null(model)}));
          out.entry = *TRY(entry_on(c, target->id));
          return out;
        }
      } else {
        auto same = TRY(c.exec(fmt::format("SELECT {} FROM memories m WHERE m.kind = ?1 AND m.text = ?2", kColumns),
                               {kind_name(options.kind), storable(engine, text)}));
        if (!same.empty()) out.before = read_entry(same[0]);
      }
      // Sources merge: the entry keeps every site either write traced its text to.
      auto r = c.exec(pg ? "INSERT INTO memories(text, tags, source_run, kind, created_at, updated_at, sources, key, embedding, embedding_model) "
                           "VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6, ?7, ?8, ?9) "
                           "ON CONFLICT(kind, md5(text)) DO UPDATE SET tags = excluded.tags, source_run = excluded.source_run, "
                           "  updated_at = GREATEST(memories.updated_at, excluded.updated_at), "
                           "  key = COALESCE(excluded.key, memories.key), "
                           "  embedding = COALESCE(excluded.embedding, memories.embedding), "
                           "  embedding_model = CASE WHEN excluded.embedding IS NULL THEN memories.embedding_model ELSE excluded.embedding_model END, "
                           "  sources = CASE WHEN memories.sources IS NULL THEN excluded.sources WHEN excluded.sources IS NULL THEN memories.sources "
                           "    ELSE (SELECT jsonb_agg(DISTINCT v)::text FROM (SELECT jsonb_array_elements_text(memories.sources::jsonb) v "
                           "          UNION SELECT jsonb_array_elements_text(excluded.sources::jsonb)) s) END "
                           "RETURNING id"
                         : "INSERT INTO memories(text, tags, source_run, kind, created_at, updated_at, sources, key, embedding, embedding_model) "
                           "VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6, ?7, ?8, ?9) "
                           "ON CONFLICT(kind, text) DO UPDATE SET tags = excluded.tags, source_run = excluded.source_run, "
                           "  updated_at = max(updated_at, excluded.updated_at), "
                           "  key = COALESCE(excluded.key, memories.key), "
                           "  embedding = COALESCE(excluded.embedding, memories.embedding), "
                           "  embedding_model = CASE WHEN excluded.embedding IS NULL THEN memories.embedding_model ELSE excluded.embedding_model END, "
                           "  sources = CASE WHEN memories.sources IS NULL THEN excluded.sources WHEN excluded.sources IS NULL THEN memories.sources "
                           "    ELSE (SELECT json_group_array(value) FROM (SELECT value FROM json_each(memories.sources) "
                           "          UNION SELECT value FROM json_each(excluded.sources))) END "
                           "RETURNING id",
                      {storable(engine, text), tags_json, store::text_or_null(storable(engine, source_run)), kind_name(options.kind), now,
                       store::text_or_null(sources_json), store::text_or_null(storable(engine, key)), vector_param(vector), store::text_or_null(model)});
      if (!r || r->empty())
        return make_error(r ? Code::Internal : r.error().code, "memory: remember: cannot store the entry: " + (r ? std::string("no id returned") : r.error().message));
      out.entry = *TRY(entry_on(c, (*r)[0].int64(0)));
      return out;
    });
  });
}

Result<Recalled> Memory::recall(const std::string& query, int top_k, const std::string& tag) {
  top_k = std::clamp(top_k, 1, kMaxRecall);
  Recalled out;
  // The query's vector, asked for outside the lock; old entries get theirs a batch at a time.
  std::optional<Vector> wanted;
  std::string model;
  if (!m_embeddings || !m_embeddings->embedder) {
    out.note = m_embeddings ? m_embeddings->why_not : "no embeddings provider is configured";
  } else if (trim(query).empty()) {
    out.note = "the query is empty";
  } else {
    auto v = m_embeddings->embedder->embed({std::string(trim(query))});
    if (!v || v->size() != 1) {
      out.note = "the embeddings endpoint failed: " + (v ? std::string("no vector came back") : redact(v.error().message));
    } else {
      wanted = std::move((*v)[0]);
      model = m_embeddings->embedder->model();
      if (auto filled = backfill(kRecallBackfill); !filled) spdlog::warn("memory: backfill: {}", redact(filled.error().message));
    }
  }
  std::string match = fts_query(query);
  auto ranked = m_db.with_sql([&](store::Connection& c) -> Result<std::vector<Entry>> {
    TRY(ensure_schema(c));
    const bool pg = c.engine() == store::Engine::Postgres;
    std::vector<Entry> by_words;
    if (!match.empty()) {
      std::string sql;
      if (pg) {
        // ts_rank_cd is higher-is-better; weights {D, C, B, A}: the text (A) weighs twice as much as the tags (B).
        sql = fmt::format(
            "SELECT {}, ts_rank_cd('{{0, 0, 0.5, 1.0}}', m.search, q) AS raw FROM memories m, websearch_to_tsquery('ouro_memory'::regconfig, ?1) q "
            "WHERE m.search @@ q{} ORDER BY raw DESC, m.updated_at DESC, m.id DESC LIMIT ?2",
            kColumns, tag.empty() ? "" : " AND (m.tags::jsonb) @> jsonb_build_array(?3::text)");
      } else {
        // bm25() is lower-is-better (negative); the text weighs twice as much as the tags. Equal
        // scores: the newer entry first.
        sql = fmt::format(
            "SELECT {}, bm25(memories_fts, 1.0, 0.5) AS raw FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid "
            "WHERE memories_fts MATCH ?1{} ORDER BY raw, m.updated_at DESC, m.id DESC LIMIT ?2",
            kColumns, tag.empty() ? "" : " AND EXISTS (SELECT 1 FROM json_each(m.tags) WHERE json_each.value = ?3)");
      }
      std::string q = pg ? websearch_query(storable(c.engine(), match)) : match;
      const int limit = wanted ? kMaxRecall : top_k;
      auto r = tag.empty() ? c.exec(sql, {q, limit}) : c.exec(sql, {q, limit, storable(c.engine(), tag)});
      if (!r) return make_error(r.error().code, "memory: recall: cannot search the memories: " + r.error().message);
      for (const store::Row& row : *r) {
        Entry e = read_entry(row);
        e.score = pg ? row.real(kAfterColumns) : -row.real(kAfterColumns);
        by_words.push_back(std::move(e));
      }
    }
    if (!wanted) return by_words;
    // By meaning: every entry with a vector of this model (the newest kMaxVectorScan), nearest
    // first. The vectors come from the process's cache; only new or rewritten entries' are read.
    std::string tag_filter = tag.empty() ? ""
                             : pg      ? " AND (m.tags::jsonb) @> jsonb_build_array(?3::text)"
                                       : " AND EXISTS (SELECT 1 FROM json_each(m.tags) WHERE json_each.value = ?3)";
    std::string sql = fmt::format("SELECT m.id, m.updated_at FROM memories m WHERE m.embedding_model = ?1 AND m.embedding IS NOT NULL{} "
                                  "ORDER BY m.updated_at DESC LIMIT ?2",
                                  tag_filter);
    auto r = tag.empty() ? c.exec(sql, {model, kMaxVectorScan}) : c.exec(sql, {model, kMaxVectorScan, storable(c.engine(), tag)});
    if (!r) return make_error(r.error().code, "memory: recall: cannot read the memories' vectors: " + r.error().message);
    std::vector<std::pair<int64_t, double>> scanned;
    for (const store::Row& row : *r) scanned.emplace_back(row.int64(0), row.real(1));
    auto vectors = TRY(cached_vectors(c, cache_key(m_db, model), scanned));
    std::vector<std::pair<double, int64_t>> nearest;
    for (const auto& [id, v] : vectors) nearest.emplace_back(cosine(*wanted, *v), id);
    std::sort(nearest.begin(), nearest.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    const double best = nearest.empty() ? 0 : nearest.front().first;
    std::erase_if(nearest, [&](const auto& n) { return n.first < kMinSimilarity || n.first < best - kSimilarityBand; });
    if (nearest.size() > static_cast<size_t>(kMaxRecall)) nearest.resize(kMaxRecall);
    std::vector<Entry> by_meaning;
    for (const auto& [similarity, id] : nearest)
      if (auto e = TRY(entry_on(c, id))) {
        e->similarity = similarity;
        by_meaning.push_back(std::move(*e));
      }
    // Reciprocal rank fusion: each list adds 1 / (k + rank) for the entries it holds.
    std::vector<Entry> fused;
    auto add = [&](const std::vector<Entry>& list) {
      for (size_t i = 0; i < list.size(); ++i) {
        auto it = std::find_if(fused.begin(), fused.end(), [&](const Entry& f) { return f.id == list[i].id; });
        if (it == fused.end()) {
          fused.push_back(list[i]);
          fused.back().score = 0;
          it = fused.end() - 1;
        }
        it->score += 1.0 / (kRrfK + static_cast<double>(i + 1));
        if (list[i].similarity) it->similarity = list[i].similarity;
      }
    };
    add(by_meaning);
    add(by_words);
    std::stable_sort(fused.begin(), fused.end(), [](const Entry& a, const Entry& b) { return a.score > b.score; });
    return fused;
  });
  if (!ranked) return tl::make_unexpected(ranked.error());
  out.entries = std::move(*ranked);
  if (out.entries.size() > static_cast<size_t>(top_k)) out.entries.resize(static_cast<size_t>(top_k));
  if (wanted) {
    out.ranking = "hybrid";
    out.note = "vector similarity (" + model + ") fused with BM25";
  }
  return out;
}

Result<int> Memory::backfill(int limit) {
  if (!m_embeddings || !m_embeddings->embedder)
    return errorf(Code::FailedPrecondition, "memory: backfill: {}", m_embeddings ? m_embeddings->why_not : "no embeddings provider is configured");
  const std::string model = m_embeddings->embedder->model();
  int done = 0;
  while (done < limit) {
    const int batch = std::min<int>(static_cast<int>(kMaxBatch), limit - done);
    auto todo = m_db.with_sql([&](store::Connection& c) -> Result<std::vector<std::pair<int64_t, std::string>>> {
      TRY(ensure_schema(c));
      // Not those the endpoint refused (marked "!model"): they are not asked for again.
      auto r = TRY(c.exec("SELECT id, text FROM memories WHERE (embedding IS NULL OR embedding_model IS NULL OR embedding_model <> ?1) "
                          "AND (embedding_model IS NULL OR embedding_model <> ?3) ORDER BY updated_at DESC, id DESC LIMIT ?2",
                          {model, batch, "!" + model}));
      std::vector<std::pair<int64_t, std::string>> out;
      for (const auto& row : r) out.emplace_back(row.int64(0), row.text(1));
      return out;
    });
    if (!todo) return tl::make_unexpected(todo.error());
    if (todo->empty()) break;
    std::vector<std::string> texts;
    for (const auto& [id, text] : *todo) texts.push_back(text);
    // One text the endpoint refuses must not stall the rest: then each is asked for alone, and
    // the ones refused are marked. An endpoint that is down stops the backfill for now.
    auto refused_text = [](const Error& e) { return e.code == Code::InvalidArgument || e.code == Code::DataLoss || e.code == Code::ResourceExhausted; };
    std::vector<std::optional<Vector>> vectors(texts.size());
    if (auto all = m_embeddings->embedder->embed(texts)) {
      for (size_t i = 0; i < texts.size(); ++i) vectors[i] = std::move((*all)[i]);
    } else if (!refused_text(all.error())) {
      return tl::make_unexpected(all.error());
    } else {
      for (size_t i = 0; i < texts.size(); ++i) {
        auto one = m_embeddings->embedder->embed({texts[i]});
        if (one && one->size() == 1) vectors[i] = std::move((*one)[0]);
        else if (!one && !refused_text(one.error())) return tl::make_unexpected(one.error());
      }
    }
    TRY(m_db.with_sql([&](store::Connection& c) -> Result<void> {
      return c.transaction([&]() -> Result<void> {
        for (size_t i = 0; i < todo->size(); ++i)
          TRY(c.exec("UPDATE memories SET embedding = ?2, embedding_model = ?3 WHERE id = ?1 AND text = ?4",
                     {(*todo)[i].first, vector_param(vectors[i]), vectors[i] ? model : "!" + model, (*todo)[i].second}));
        return {};
      });
    }));
    done += static_cast<int>(todo->size());
    if (todo->size() < static_cast<size_t>(batch)) break;
  }
  return done;
}

Result<void> Memory::put(int64_t id, const std::optional<Entry>& value) {
  std::optional<Vector> vector = value ? vector_of(value->text) : std::nullopt;
  const std::string model = vector ? m_embeddings->embedder->model() : "";
  return m_db.with_sql([&](store::Connection& c) -> Result<void> {
    TRY(ensure_schema(c));
    if (!value) {
      TRY(c.exec("DELETE FROM memories WHERE id = ?1", {id}));
      return {};
    }
    const store::Engine engine = c.engine();
    const Entry& e = *value;
    auto r = c.exec("INSERT INTO memories(id, text, tags, source_run, kind, created_at, updated_at, sources, key, embedding, embedding_model) "
                    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) ON CONFLICT(id) DO UPDATE SET text = excluded.text, tags = excluded.tags, "
                    "source_run = excluded.source_run, kind = excluded.kind, created_at = excluded.created_at, updated_at = excluded.updated_at, "
                    "sources = excluded.sources, key = excluded.key, embedding = excluded.embedding, embedding_model = excluded.embedding_model",
                    {id, storable(engine, e.text), dump_json(json(e.tags)), store::text_or_null(storable(engine, e.source_run)), kind_name(e.kind),
                     e.created_at, e.updated_at, store::text_or_null(sources_text(e.sources)), store::text_or_null(storable(engine, e.key)),
                     vector_param(vector), store::text_or_null(model)});
    if (!r)
      return make_error(r.error().code, fmt::format("memory: cannot put back memory #{}: {}{}", id, r.error().message,
                                                    r.error().code == Code::AlreadyExists ? " (an entry with the same text exists now)" : ""));
    return {};
  });
}

Result<std::optional<Entry>> Memory::by_key(const std::string& key) {
  return m_db.with_sql([&](store::Connection& c) -> Result<std::optional<Entry>> {
    TRY(ensure_schema(c));
    auto r = TRY(c.exec(fmt::format("SELECT {} FROM memories m WHERE m.key = ?1 ORDER BY m.updated_at DESC, m.id DESC LIMIT 1", kColumns),
                        {storable(c.engine(), std::string(trim(key)))}));
    if (r.empty()) return std::optional<Entry>();
    return std::optional<Entry>(read_entry(r[0]));
  });
}

Result<std::vector<Entry>> Memory::list(int limit, int offset) {
  limit = std::clamp(limit, 0, kMaxList);
  offset = std::max(offset, 0);
  return m_db.with_read_sql("memory", &Memory::ensure_schema, [&](store::Connection& c) -> Result<std::vector<Entry>> {
    auto r = c.exec(fmt::format("SELECT {} FROM memories m ORDER BY m.updated_at DESC, m.id DESC LIMIT ?1 OFFSET ?2", kColumns), {limit, offset});
    if (!r) return make_error(r.error().code, "cannot read the memories (memory: list): " + r.error().message);
    std::vector<Entry> out;
    for (const store::Row& row : *r) out.push_back(read_entry(row));
    return out;
  });
}

Result<std::optional<Entry>> Memory::get(int64_t id) {
  return m_db.with_sql([&](store::Connection& c) -> Result<std::optional<Entry>> {
    TRY(ensure_schema(c));
    auto r = c.exec(fmt::format("SELECT {} FROM memories m WHERE m.id = ?1", kColumns), {id});
    if (!r) return make_error(r.error().code, fmt::format("cannot read memory #{} (memory: get): {}", id, r.error().message));
    if (r->empty()) return std::optional<Entry>();
    return std::optional<Entry>(read_entry((*r)[0]));
  });
}

Result<bool> Memory::forget(int64_t id) {
  auto gone = TRY(forget_entry(id));
  return gone.has_value();
}

Result<std::optional<Entry>> Memory::forget_entry(int64_t id) {
  return m_db.with_sql([&](store::Connection& c) -> Result<std::optional<Entry>> {
    TRY(ensure_schema(c));
    auto before = c.exec(fmt::format("SELECT {} FROM memories m WHERE m.id = ?1", kColumns), {id});
    auto r = before ? c.exec("DELETE FROM memories WHERE id = ?1", {id}) : tl::make_unexpected(before.error());
    if (!r) return make_error(r.error().code, fmt::format("memory: forget: cannot delete memory #{}: {}", id, r.error().message));
    if (before->empty() || r->affected == 0) return std::optional<Entry>();
    return std::optional<Entry>(read_entry((*before)[0]));
  });
}

Result<int64_t> Memory::count() {
  return m_db.with_sql([&](store::Connection& c) -> Result<int64_t> {
    TRY(ensure_schema(c));
    auto r = c.exec("SELECT count(*) FROM memories");
    if (!r || r->empty()) return make_error(r ? Code::Internal : r.error().code, "memory: count: cannot count the memories" + (r ? std::string() : ": " + r.error().message));
    return (*r)[0].int64(0);
  });
}

std::string Memory::relevant_for(const std::string& task, int max_entries, size_t max_chars) {
  if (max_entries <= 0 || max_chars == 0) return "";
  auto recalled = recall(task, max_entries);
  if (!recalled) {
    spdlog::warn("memory: no memories for this task, since they cannot be searched: {}", redact(recalled.error().message));
    return "";
  }
  const auto* found = &recalled->entries;
  // An entry is left out rather than shown as a stub when less than this is left for its text.
  constexpr size_t kMinTextBytes = 24;
  std::string out;
  for (const Entry& e : *found) {
    std::string head = fmt::format("- #{} ({}): ", e.id, date_of(e.updated_at));
    size_t used = out.size() + (out.empty() ? 0 : 1) + head.size();
    if (used + kMinTextBytes > max_chars) break;
    std::string line = one_line(e.text, std::min(kLineTextBytes, max_chars - used));
    if (!out.empty()) out += '\n';
    out += head;
    out += line;
  }
  return out;
}

}  // namespace ouro::memory
