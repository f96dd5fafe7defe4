// Memory across tasks: short texts that the user (remember() from code) or finished runs (their
// task and final answer) leave behind, found again by their words. The entries live in ouro's
// database (table `memories`): on SQLite with an FTS5 index ranked by BM25, on PostgreSQL with a
// tsvector column ranked by ts_rank_cd; duplicates merged with the newer winning. What comes
// back is meant as metadata for a prompt: short, dated, and bounded.
#pragma once

#include "base/error.h"

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
  double created_at = 0, updated_at = 0;  // Unix seconds; updated_at moves when the text is remembered again
  double score = 0;  // recall() only: relevance, > 0, higher is better (BM25); 0 elsewhere
};

// An entry as JSON, the one shape every face shows it in (the HTTP API, `ouro memory --json`,
// recall() in the REPL): {id, text, tags, kind, source_run (null when none), sources, created_at,
// updated_at, score (when scored)}. Times are milliseconds since the Unix epoch, as run and script
// times are in the API and as JavaScript's Date takes them; the table keeps its seconds.
nlohmann::ordered_json to_json(const Entry& e, bool scored);

struct RememberOptions {
  std::vector<std::string> tags;  // at most kMaxTags, each 1..kMaxTagChars after trimming
  std::string source_run;
  Kind kind = Kind::User;
  // The sites its text came from (at most kMaxSources kept); remembered again, an entry keeps the
  // sources of both writes: a label is never washed off by writing the text once more.
  std::vector<std::string> sources = {};
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
  explicit Memory(store::Database& db) : m_db(db) {}

  // Stores text (leading and trailing white space trimmed; invalid UTF-8 replaced by U+FFFD) and
  // returns its id. Text remembered before with the same kind is not stored twice: that entry's
  // updated_at moves to now, its tags and source_run become these ("newer wins"), and its id is
  // returned. InvalidArgument for empty text, text over kMaxTextBytes, or tags over their caps.
  Result<int64_t> remember(const std::string& text, const RememberOptions& options = {});

  // The entries that share words with query, best first (BM25 over text and tags; porter stemming,
  // so "prices" finds "price"; diacritics ignored). top_k is clamped to 1..kMaxRecall. With a tag,
  // only entries carrying exactly that tag. Any query text is safe (see fts_query); a query
  // without words gives an empty list, not an error.
  Result<std::vector<Entry>> recall(const std::string& query, int top_k = 10, const std::string& tag = "");

  // Entries most recently updated first; limit clamped to 0..kMaxList, a negative offset is 0.
  Result<std::vector<Entry>> list(int limit = 50, int offset = 0);
  // The entry with this id, or nullopt.
  Result<std::optional<Entry>> get(int64_t id);
  // Deletes the entry; false when there was none with this id.
  Result<bool> forget(int64_t id);
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
  Result<void> ensure_schema(store::Connection& c);

  store::Database& m_db;
};

}  // namespace ouro::memory
