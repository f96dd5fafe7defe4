// Memory across tasks: short texts that the user (remember() from code) or finished runs (their
// task and final answer) leave behind, found again by their words. The entries live in ouro's
// database (table `memories`): on SQLite with an FTS5 index ranked by BM25, on PostgreSQL with a
// tsvector column ranked by ts_rank_cd; duplicates merged with the newer winning. What comes
// back is meant as metadata for a prompt: short, dated, and bounded.
#pragma once

#include "base/error.h"
#include "memory/embeddings.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>


namespace ouro::store {
class Database;
class Connection;
}

namespace ouro::memory {

// An entry's time as text: strftime's format, in UTC or the local zone ("?" when it has none).
std::string format_time(double unix_seconds, const char* format, bool local = false);


// Who wrote an entry: the user's code (remember()), or a finished run (its task and final answer).
enum class Kind { User, Run };
// "user" | "run": how kinds are stored and shown.
std::string_view kind_name(Kind kind);

// Caps on what one entry may hold; remember() refuses more with InvalidArgument.
constexpr size_t kMaxTextBytes = 8 * 1024;
constexpr size_t kMaxTags = 16;
constexpr size_t kMaxTagChars = 64;  // characters (UTF-8 code points), not bytes
constexpr size_t kMaxSourceRunBytes = 128;
constexpr size_t kMaxSources = 16;
// recall() returns at most this many entries; list() at most kMaxList.
constexpr int kMaxRecall = 50;
constexpr int kMaxList = 1000;

struct Entry {
  int64_t id = 0;
  std::string text;
  std::vector<std::string> tags;
  std::string source_run;  // the run that wrote it, or empty
  // The sites of the pages its text came from (docs/design/provenance.md), when a run traced it to
  // any: a value recalled later keeps them. Empty: from no page ouro traced.
  std::vector<std::string> sources;
  Kind kind = Kind::User;
  std::string key;  // remember(text, {key}): the entry a later write of the key replaces; "" when none
  double created_at = 0, updated_at = 0;  // Unix seconds; updated_at moves when the text is remembered again
  double score = 0;  // recall() only: relevance, > 0, higher is better; 0 elsewhere
  std::optional<double> similarity;  // recall() with embeddings: the cosine similarity to the query
};

// An entry as JSON, the one shape every face shows it in (the HTTP API, `ouro memory --json`,
// recall() in the REPL): {id, text, tags, kind, key (null when none), source_run (null when none),
// sources, created_at, updated_at, score and similarity (when scored)}. Times are milliseconds since the Unix epoch, as run and script
// times are in the API and as JavaScript's Date takes them; the table keeps its seconds.
nlohmann::ordered_json to_json(const Entry& e, bool scored);
// An entry from to_json's shape (undo keeps entries so); InvalidArgument when it is not one.
Result<Entry> entry_from_json(const json& j);

struct RememberOptions {
  std::vector<std::string> tags;  // at most kMaxTags, each 1..kMaxTagChars after trimming
  std::string source_run;
  Kind kind = Kind::User;
  // The sites its text came from (at most kMaxSources kept); remembered again, an entry keeps the
  // sources of both writes: a label is never washed off by writing the text once more.
  std::vector<std::string> sources = {};
  // A name for the entry (at most kMaxKeyChars): remembering under a key replaces the entry of
  // that key, whatever its text was (the newer wins).
  std::string key = {};
};
constexpr size_t kMaxKeyChars = 200;

// What a write changed: the entry as it is now, as it was before (none: new), and an entry of the
// same text that a keyed write took the place of (merged into it).
struct Remembered {
  Entry entry;
  std::optional<Entry> before;
  std::optional<Entry> displaced;
};

// What recall found, and how it ranked: "hybrid" (vector similarity fused with BM25, each list by
// its reciprocal rank) or "bm25" (words only), with why in `note`.
struct Recalled {
  std::vector<Entry> entries;
  std::string ranking = "bm25";
  std::string note;
  // Read as the list of entries it is.
  size_t size() const { return entries.size(); }
  bool empty() const { return entries.empty(); }
  const Entry& operator[](size_t i) const { return entries[i]; }
  auto begin() const { return entries.begin(); }
  auto end() const { return entries.end(); }
};

// The FTS5 query that finds entries sharing words with `text`, whatever text holds: its words
// (letters and digits; English stop words dropped unless nothing else is left) each quoted, joined
// by OR, at most 32 distinct ones of at most 64 bytes each. Quotes, `*`, `^`, `:`, parentheses,
// NEAR/AND/OR/NOT, NUL bytes and invalid UTF-8 never reach FTS5's syntax. Empty when text has no
// words. Pure; exposed for tests.
std::string fts_query(std::string_view text);

// The entries of one database. Holds a reference: the Database must outlive it. Any thread; every
// call takes the database's lock, so calls from several threads (and several Memory objects over
// one Database) are serialized. The schema is created on first use, so constructing does no I/O.
// Failures are Result errors whose message names the operation ("memory: recall: …").
class Memory {
 public:
  // embeddings: the face's (memory/embeddings.h); none (or none configured) ranks by words only.
  explicit Memory(store::Database& db, const Embeddings* embeddings = nullptr) : m_db(db), m_embeddings(embeddings) {}

  // Stores text (leading and trailing white space trimmed; invalid UTF-8 replaced by U+FFFD) and
  // returns its id. Text remembered before with the same kind is not stored twice: that entry's
  // updated_at moves to now, its tags and source_run become these ("newer wins"), and its id is
  // returned. With a key, the entry of that key is replaced instead. The entry gets its vector
  // when an embedder is configured (an endpoint that fails leaves it to backfill()).
  // InvalidArgument for empty text, text over kMaxTextBytes, or tags or key over their caps.
  Result<int64_t> remember(const std::string& text, const RememberOptions& options = {});
  // The same, saying what it changed (for undo).
  Result<Remembered> remember_entry(const std::string& text, const RememberOptions& options = {});

  // The entries for query, best first. With an embedder: entries whose vectors are near the
  // query's (a paraphrase that shares no word) fused with BM25's list (ranking "hybrid"); without
  // one, or when the endpoint fails: BM25 over text and tags (porter stemming, so "prices" finds
  // "price"; diacritics ignored), saying why in the note. top_k is clamped to 1..kMaxRecall. With
  // a tag, only entries carrying exactly that tag. Any query text is safe (see fts_query).
  Result<Recalled> recall(const std::string& query, int top_k = 10, const std::string& tag = "");

  // Gives vectors to up to `limit` entries that have none for the embedder's model; returns how
  // many. FailedPrecondition without an embedder.
  Result<int> backfill(int limit = 1000);
  // Sets entry `id` to `value` exactly (none: deletes it), for undo and redo; its vector is made
  // again when an embedder is configured.
  Result<void> put(int64_t id, const std::optional<Entry>& value);
  // The entry of a key, or nullopt.
  Result<std::optional<Entry>> by_key(const std::string& key);

  // Entries most recently updated first; limit clamped to 0..kMaxList, a negative offset is 0.
  Result<std::vector<Entry>> list(int limit = 50, int offset = 0);
  // The entry with this id, or nullopt.
  Result<std::optional<Entry>> get(int64_t id);
  // Deletes the entry; false when there was none with this id.
  Result<bool> forget(int64_t id);
  // Deletes the entry and returns it (nullopt: there was none).
  Result<std::optional<Entry>> forget_entry(int64_t id);
  Result<int64_t> count();

  // The context builder's memory section for a task: at most max_entries of recall(task) as a
  // bulleted list, one line each — "- #12 (2024-05-01): text" with the text on one line and cut to
  // about 200 characters — and at most max_chars bytes in all. Empty when nothing matches. Memory
  // only helps a run, so a failure (a damaged database) is logged and gives an empty section.
  // The texts are what earlier runs and the user wrote; callers put them in the prompt as data.
  std::string relevant_for(const std::string& task, int max_entries = 5, size_t max_chars = 1500);

 private:
  // Brings the tables, index and triggers to the current version (store::migrate, once per
  // connection). Called with the database's lock held.
  static Result<void> ensure_schema(store::Connection& c);

  // The vector of text, or nullopt with the reason logged (the entry waits for backfill).
  std::optional<Vector> vector_of(const std::string& text);

  store::Database& m_db;
  const Embeddings* m_embeddings = nullptr;
};

}  // namespace ouro::memory
