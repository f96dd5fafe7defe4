#include "store/database.h"
#include "base/clock.h"
#include "store/run_row.h"

#include "base/json.h"
#include "store/nodes.h"

#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

namespace ouro::store {

struct Database::Lock {
  std::mutex mutex;
  std::mutex read_mutex;  // the SQLite file's read connection (reader())
  std::mutex ready_mutex;
  std::set<std::string> ready;  // modules whose tables are up to date (with_read_sql)
  // The heartbeat thread of a PostgreSQL database; stopped before the connection closes.
  std::mutex stop_mutex;
  std::condition_variable stop_cv;
  bool stopping = false;
  std::thread heartbeat;
};

std::string default_data_dir() {
  if (const char* d = std::getenv("OURO_DATA_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x) return std::string(x) + "/ouroboros";
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.local/share/ouroboros";
}

namespace {

std::string settings_file() {
  if (const char* c = std::getenv("OURO_CONFIG"); c && *c) return c;
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x) return std::string(x) + "/ouroboros/config.json";
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.config/ouroboros/config.json";
}

// libpq's keyword for a password, added to a URL that has none (percent-encoded, RFC 3986).
std::string with_password(const std::string& url, const std::string& password) {
  if (password.empty() || redact_database_url(url) != url) return url;
  std::string enc;
  for (unsigned char c : password) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') enc += static_cast<char>(c);
    else enc += fmt::format("%{:02X}", c);
  }
  return url + (url.find('?') == std::string::npos ? "?" : "&") + "password=" + enc;
}

// Letters, digits and -._: only (anything else becomes _), at most 100 characters: the name goes
// into the connection's options (with_node) and the runs' owner column unquoted.
std::string node_id_default() {
  std::string id;
  if (const char* n = std::getenv("OURO_NODE_ID"); n && *n) {
    id = n;
  } else {
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0) std::snprintf(host, sizeof host, "localhost");
    id = fmt::format("{}:{}", host, getpid());
  }
  if (id.size() > 100) id.resize(100);
  for (char& c : id)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' || c == ':')) c = '_';
  return id;
}

// Version 3's statements, PostgreSQL only (they name the queued state through runs/state.h).
const std::string& version3_text() {
  static const std::string sql =
    "CREATE INDEX runs_queued ON runs (created_at) WHERE state = " + runs::sql_quoted(runs::State::Queued) + " AND owner IS NULL;"
    "CREATE TABLE run_inbox (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, run_id TEXT NOT NULL, body TEXT NOT NULL,"
     "  created_at DOUBLE PRECISION NOT NULL);"
     "CREATE INDEX run_inbox_by_run ON run_inbox (run_id);"
     "CREATE TABLE schedule_fires (job_id TEXT NOT NULL, due BIGINT NOT NULL, node TEXT NOT NULL, fired_at DOUBLE PRECISION NOT NULL,"
     "  PRIMARY KEY (job_id, due));"
     "CREATE FUNCTION ouro_event_fence() RETURNS trigger LANGUAGE plpgsql AS $$\n"
     "DECLARE me TEXT := current_setting('ouro.node', true); holder TEXT;\n"
     "BEGIN\n"
     "  IF me IS NOT NULL AND me <> '' THEN\n"
     "    SELECT owner INTO holder FROM runs WHERE id = NEW.run_id FOR SHARE;\n"
     "    IF holder IS NOT NULL AND holder <> me THEN\n"
     "      RAISE EXCEPTION 'run % is held by node %, not by this node (%): it was taken over', NEW.run_id, holder, me USING ERRCODE = 'OU001';\n"
     "    END IF;\n"
     "  END IF;\n"
     "  PERFORM pg_notify('ouro_events', NEW.run_id || ' ' || NEW.seq);\n"
     "  RETURN NEW;\n"
     "END $$;"
     "CREATE TRIGGER events_fence BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION ouro_event_fence();"
     "CREATE FUNCTION ouro_queue_notify() RETURNS trigger LANGUAGE plpgsql AS $$\n"
     "BEGIN PERFORM pg_notify('ouro_queue', NEW.id); RETURN NULL; END $$;"
     "CREATE TRIGGER runs_queued_notify AFTER INSERT OR UPDATE OF owner, state ON runs FOR EACH ROW"
     "  WHEN (NEW.state = " + runs::sql_quoted(runs::State::Queued) + " AND NEW.owner IS NULL) EXECUTE FUNCTION ouro_queue_notify();";
  return sql;
}

// The store's own tables. Version 1 is the schema SQLite files had before migrations were
// recorded (hence IF NOT EXISTS: such a file adopts it as is); version 2 adds the owning node
// of a run and the nodes' heartbeats, so several nodes can share one PostgreSQL database.
const std::vector<Migration>& store_migrations() {
  static const std::string_view kVersion3 = version3_text();
  static const std::vector<Migration> migrations = {
    {1,
     "CREATE TABLE IF NOT EXISTS kv ("
     "  key TEXT PRIMARY KEY,"
     "  value TEXT NOT NULL,"
     "  created_at INTEGER NOT NULL DEFAULT (unixepoch()),"
     "  updated_at INTEGER NOT NULL DEFAULT (unixepoch()));"
     "CREATE TABLE IF NOT EXISTS runs ("
     "  id TEXT PRIMARY KEY, task TEXT NOT NULL, state TEXT NOT NULL, options TEXT NOT NULL,"
     "  created_at REAL NOT NULL, updated_at REAL NOT NULL, iterations INTEGER NOT NULL DEFAULT 0,"
     "  final TEXT, partial INTEGER NOT NULL DEFAULT 0, usage TEXT, cost REAL, error TEXT);"
     "CREATE TABLE IF NOT EXISTS events ("
     "  id INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL,"
     "  data TEXT NOT NULL, ts REAL NOT NULL, UNIQUE (run_id, seq));"
     "CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
     "CREATE TABLE IF NOT EXISTS checkpoints (run_id TEXT PRIMARY KEY, env TEXT NOT NULL);",
     // https://www.postgresql.org/docs/15/datatype-numeric.html: REAL is 4 bytes there, so reals
     // are DOUBLE PRECISION and integers BIGINT; an identity column replaces AUTOINCREMENT.
     "CREATE TABLE IF NOT EXISTS kv ("
     "  key TEXT PRIMARY KEY,"
     "  value TEXT NOT NULL,"
     "  created_at BIGINT NOT NULL DEFAULT EXTRACT(EPOCH FROM now())::BIGINT,"
     "  updated_at BIGINT NOT NULL DEFAULT EXTRACT(EPOCH FROM now())::BIGINT);"
     "CREATE TABLE IF NOT EXISTS runs ("
     "  id TEXT PRIMARY KEY, task TEXT NOT NULL, state TEXT NOT NULL, options TEXT NOT NULL,"
     "  created_at DOUBLE PRECISION NOT NULL, updated_at DOUBLE PRECISION NOT NULL, iterations BIGINT NOT NULL DEFAULT 0,"
     "  final TEXT, partial BIGINT NOT NULL DEFAULT 0, usage TEXT, cost DOUBLE PRECISION, error TEXT);"
     "CREATE TABLE IF NOT EXISTS events ("
     "  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, run_id TEXT NOT NULL, seq BIGINT NOT NULL, type TEXT NOT NULL,"
     "  data TEXT NOT NULL, ts DOUBLE PRECISION NOT NULL, UNIQUE (run_id, seq));"
     "CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
     "CREATE TABLE IF NOT EXISTS checkpoints (run_id TEXT PRIMARY KEY, env TEXT NOT NULL);"},
    {2,
     "ALTER TABLE runs ADD COLUMN owner TEXT;"
     "ALTER TABLE runs ADD COLUMN heartbeat_at REAL;"
     "CREATE TABLE nodes (id TEXT PRIMARY KEY, started_at REAL NOT NULL, heartbeat_at REAL NOT NULL);",
     "ALTER TABLE runs ADD COLUMN owner TEXT;"
     "ALTER TABLE runs ADD COLUMN heartbeat_at DOUBLE PRECISION;"
     "CREATE INDEX runs_by_state ON runs (state);"
     "CREATE TABLE nodes (id TEXT PRIMARY KEY, started_at DOUBLE PRECISION NOT NULL, heartbeat_at DOUBLE PRECISION NOT NULL);"},
    // Version 3, PostgreSQL only (store/nodes.h): the run queue's index, the inbox that carries
    // answers and cancels to a run's node, the record that makes a schedule's due time fire once,
    // and the fence: an event of a run that another node holds is refused (each connection names
    // its node in the setting ouro.node), every stored event and queued run is announced.
    {3, "", kVersion3},
    // Version 4, PostgreSQL only: leases among the nodes (the scheduler's leader, store/nodes.h),
    // their expiry in Unix seconds of the server's clock.
    {4, "", "CREATE TABLE leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at DOUBLE PRECISION NOT NULL);"},
  };
  return migrations;
}


// The node's name in the connection's options (libpq's `options=-c ouro.node=…`,
// https://www.postgresql.org/docs/15/libpq-connect.html#LIBPQ-CONNECT-OPTIONS), so that it holds
// on every connection libpq makes, reconnections included: the events fence reads it. A URL
// with options of its own keeps them; the node is then named by set_config after connecting.
std::string with_node(const std::string& url, const std::string& node) {
  if (url.find("options=") != std::string::npos) return url;
  // node_id_default leaves letters, digits and -._: only, which need no quoting there.
  return url + (url.find('?') == std::string::npos ? "?" : "&") + "options=-c%20ouro.node%3D" + node;
}

// How many PostgreSQL databases this process has open as `node`, after adding delta.
int open_as_node(const std::string& node, int delta) {
  static std::mutex mutex;
  static std::map<std::string, int> open;
  std::lock_guard lock(mutex);
  int n = open[node] += delta;
  if (n <= 0) open.erase(node);
  return n;
}


}  // namespace

Result<std::string> configured_database(const std::string& sqlite_path) {
  std::string password;
  std::string target;
  if (const char* env = std::getenv("OURO_DATABASE"); env && *env) target = env;
  std::string file = settings_file();
  if (std::error_code ec; std::filesystem::exists(file, ec)) {
    std::ifstream in(file);
    std::stringstream body;
    body << in.rdbuf();
    // A file that does not parse is reported by the settings readers (llm, safety), which name
    // the field; here it only means no database is configured in it.
    auto parsed = parse_json(body.str(), file);
    if (parsed && parsed->is_object()) {
      if (auto d = parsed->find("database"); d != parsed->end()) {
        if (!d->is_string()) return errorf(Code::InvalidArgument, "{}: \"database\" must be a string (a postgresql:// URL or an SQLite file)", file);
        if (target.empty()) target = d->get<std::string>();
      }
      if (auto p = parsed->find("database_password"); p != parsed->end()) {
        if (!p->is_string()) return errorf(Code::InvalidArgument, "{}: \"database_password\" must be a string", file);
        password = p->get<std::string>();
      }
    }
  }
  if (target.empty()) return sqlite_path;
  return is_postgres_url(target) ? with_password(target, password) : target;
}

Result<std::unique_ptr<Database>> Database::open(const std::string& target_in) {
  std::string target = target_in;
  if (!is_postgres_url(target) && target != ":memory:") target = TRY(configured_database(target));
  std::unique_ptr<Database> db(new Database());
  db->m_lock = std::make_unique<Lock>();
  db->m_node_id = node_id_default();
  if (is_postgres_url(target)) {
    db->m_engine = Engine::Postgres;
    db->m_path = redact_database_url(target);
    // Every connection, the first and each one after a restart of the server, names its node
    // (the events fence reads it): in the URL's options, and by set_config for a URL whose own
    // options leave it out.
    std::string node = db->m_node_id;
    db->m_conn = TRY(postgres_connection(with_node(target, node), [node](Connection& c) -> Result<void> {
      TRY(c.exec("SELECT set_config('ouro.node', ?1, false)", {node}));
      return {};
    }));
    TRY(db->open_schema());
    TRY(db->heartbeat());
    open_as_node(node, +1);
    Lock* lock = db->m_lock.get();
    Database* self = db.get();
    lock->heartbeat = std::thread([lock, self] {
      std::unique_lock stop(lock->stop_mutex);
      while (!lock->stop_cv.wait_for(stop, std::chrono::duration<double>(kNodeHeartbeat), [lock] { return lock->stopping; })) {
        stop.unlock();
        // A lost connection is opened again by the next statement (store/sql.h); a failure here is
        // seen by the nodes' loop, whose own heartbeat fences this node's runs.
        (void)self->heartbeat();
        stop.lock();
      }
    });
    return db;
  }
  const std::string& path = target;
  db->m_path = path;
  if (path != ":memory:") {
    std::error_code ec;
    auto dir = std::filesystem::path(path).parent_path();
    bool existed = dir.empty() || std::filesystem::exists(dir, ec);
    std::filesystem::create_directories(dir, ec);
    if (ec) return errorf(Code::FailedPrecondition, "cannot create the data directory for {}: {} (set OURO_DATA_DIR to a writable place)", path, ec.message());
    // A data directory ouro creates holds runs, stored values and downloads: the user's alone.
    if (!existed) std::filesystem::permissions(dir, std::filesystem::perms::owner_all, std::filesystem::perm_options::replace, ec);
  }
  // SQLite counts every allocation under one global mutex unless told not to
  // (https://www.sqlite.org/c3ref/c_config_covering_index_scan.html, SQLITE_CONFIG_MEMSTATUS):
  // the API's reads and the runs' writes would take turns on it, and a run's thread that lost its
  // core holding it would hold up every reader. Nothing here reads those counts. It must be set
  // before SQLite initializes; later (another library opened SQLite first) it is refused and
  // harmless.
  static const int memstatus_off = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  (void)memstatus_off;
  if (sqlite3_open_v2(path.c_str(), &db->m_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr) != SQLITE_OK) {
    std::string msg = db->m_db ? sqlite3_errmsg(db->m_db) : "out of memory";
    return errorf(Code::FailedPrecondition, "cannot open the database {}: {} (set OURO_DATA_DIR to a writable place)", path, msg);
  }
  if (path != ":memory:") {
    std::error_code ec;  // best effort: a file we cannot chmod (not ours) still opens
    std::filesystem::permissions(path, std::filesystem::perms(0600), std::filesystem::perm_options::replace, ec);
  }
  sqlite3_busy_timeout(db->m_db, 5000);
  db->m_conn = sqlite_connection(db->m_db);
  TRY(db->m_conn->exec_script("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"));
  TRY(db->open_schema());
  // A second, read-only connection for the store's own reads (runs, events, settings): in WAL
  // mode readers do not wait for the writer (https://www.sqlite.org/wal.html, "Concurrency"), so
  // an API read never queues behind a run's writes. Not for ":memory:" (a second connection would
  // be another database); a file that cannot be opened twice reads through the one connection.
  if (path != ":memory:" &&
      sqlite3_open_v2(path.c_str(), &db->m_read_db, SQLITE_OPEN_READONLY | SQLITE_OPEN_FULLMUTEX, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(db->m_read_db, 5000);
    db->m_read_conn = sqlite_connection(db->m_read_db);
  } else if (db->m_read_db) {
    sqlite3_close_v2(db->m_read_db);
    db->m_read_db = nullptr;
  }
  return db;
}

Result<void> Database::open_schema() {
  if (auto done = migrate(*m_conn, "store", store_migrations()); !done)
    return make_error(done.error().code, fmt::format("cannot prepare the database {}: {}", m_path, done.error().message));
  return {};
}

Database::~Database() {
  if (m_lock && m_lock->heartbeat.joinable()) {
    {
      std::lock_guard stop(m_lock->stop_mutex);
      m_lock->stopping = true;
    }
    m_lock->stop_cv.notify_all();
    m_lock->heartbeat.join();
    // A clean end: this process is no node any more, so what it held (a finished conversation,
    // runs it stopped) is at once any live node's to take, not after kNodeDead. Best effort: a
    // database that cannot be reached lets the heartbeat age out instead.
    // Only the last of this process's databases with that name says so.
    if (open_as_node(m_node_id, -1) == 0) {
      std::lock_guard lock(m_lock->mutex);
      (void)m_conn->exec("DELETE FROM nodes WHERE id = ?1", {m_node_id});
    }
  }
  m_read_conn.reset();
  if (m_read_db) sqlite3_close_v2(m_read_db);
  m_conn.reset();  // before the handle it uses
  if (m_db) sqlite3_close_v2(m_db);
}

std::mutex& Database::mutex() { return m_lock->mutex; }

bool Database::schema_ready(std::string_view module) {
  std::lock_guard lock(m_lock->ready_mutex);
  return m_lock->ready.count(std::string(module)) > 0;
}

void Database::mark_schema_ready(std::string_view module) {
  std::lock_guard lock(m_lock->ready_mutex);
  m_lock->ready.insert(std::string(module));
}

std::pair<std::unique_lock<std::mutex>, Connection&> Database::reader() {
  if (m_read_conn) return {std::unique_lock(m_lock->read_mutex), *m_read_conn};
  return {std::unique_lock(m_lock->mutex), *m_conn};
}

Result<void> Database::heartbeat() {
  if (m_engine != Engine::Postgres) return {};
  std::lock_guard lock(m_lock->mutex);
  double now = wall_seconds();
  TRY(m_conn->exec("INSERT INTO nodes (id, started_at, heartbeat_at) VALUES (?1, ?2, ?2) "
                   "ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at",
                   {m_node_id, now}));
  return {};
}

Result<void> Database::kv_set(const std::string& key, const std::string& value_json) {
  std::lock_guard lock(m_lock->mutex);
  auto now = static_cast<int64_t>(wall_seconds());
  if (auto r = m_conn->exec("INSERT INTO kv(key, value, created_at, updated_at) VALUES(?1, ?2, ?3, ?3) "
                            "ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
                            {key, value_json, now});
      !r)
    return make_error(r.error().code, fmt::format("cannot store '{}': {}", key, r.error().message));
  return {};
}

Result<void> Database::kv_delete(const std::string& key) {
  std::lock_guard lock(m_lock->mutex);
  if (auto r = m_conn->exec("DELETE FROM kv WHERE key = ?1", {key}); !r)
    return make_error(r.error().code, fmt::format("cannot delete '{}': {}", key, r.error().message));
  return {};
}

Result<std::optional<std::string>> Database::kv_get(const std::string& key) {
  auto [lock, c] = reader();
  auto r = c.exec("SELECT value FROM kv WHERE key = ?1", {key});
  if (!r) return make_error(r.error().code, fmt::format("cannot read '{}': {}", key, r.error().message));
  if (r->empty()) return std::optional<std::string>();
  return std::optional<std::string>((*r)[0].text(0));
}

Result<std::vector<std::string>> Database::kv_keys() {
  auto [lock, c] = reader();
  auto r = c.exec("SELECT key FROM kv ORDER BY created_at, key");
  if (!r) return make_error(r.error().code, "cannot read the stored keys: " + r.error().message);
  std::vector<std::string> out;
  for (const Row& row : *r) out.push_back(row.text(0));
  return out;
}

}  // namespace ouro::store

namespace ouro::store {

Database::RunRow read_run(const Row& s) {
  Database::RunRow r;
  r.id = s.text(0);
  r.task = s.text(1);
  r.state = runs::parse_state(s.text(2)).value_or(runs::State::Failed);  // a state this ouro does not know: ended
  r.options = s.text(3);
  r.created_at = s.real(4);
  r.updated_at = s.real(5);
  r.iterations = s.integer(6);
  r.final_json = s.text(7);
  r.partial = s.int64(8) != 0;
  r.usage_json = s.text(9);
  r.cost = s.real_or_null(10);
  r.error = s.text(11);
  r.owner = s.text(12);
  return r;
}

Result<void> Database::insert_run(Connection& c, const std::string& node, const RunRow& r) {
  if (auto done = c.exec("INSERT INTO runs(id, task, state, options, created_at, updated_at, owner, heartbeat_at) "
                         "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                         {r.id, r.task, runs::name_of(r.state), r.options, r.created_at, r.updated_at, node, wall_seconds()});
      !done)
    return make_error(done.error().code, fmt::format("cannot record run {}: {}", r.id, done.error().message));
  return {};
}

Result<void> Database::insert_run(const RunRow& r) {
  std::lock_guard lock(m_lock->mutex);
  return insert_run(*m_conn, m_node_id, r);
}

Result<void> Database::update_run(const RunRow& r) {
  std::lock_guard lock(m_lock->mutex);
  return write_run(r);
}

Result<void> Database::write_run(const RunRow& r) {
  // The node that updates an active run holds it; a finished run keeps its last holder. On
  // PostgreSQL a run in progress that a live other node holds is not this node's to change
  // (store/nodes.h): it was taken over. A finished one is nobody's: any node may continue the
  // conversation at once (the row's state is read before the update, so of two nodes continuing
  // one conversation together, the second finds it in progress and held).
  std::string fence = m_engine == Engine::Postgres ? " AND (owner IS NULL OR owner = ?10 OR state NOT IN " + runs::sql_in_progress() + " "
                                                     "OR NOT EXISTS (SELECT 1 FROM nodes n WHERE n.id = runs.owner AND n.heartbeat_at > ?12))"
                                                   : " AND ?10 IS NOT NULL AND ?12 IS NOT NULL";
  double live_after = wall_seconds() - std::chrono::duration<double>(kNodeDead).count();
  auto done = runs::in_progress(r.state)
                  ? m_conn->exec("UPDATE runs SET state = ?2, updated_at = ?3, iterations = ?4, final = ?5, partial = ?6, usage = ?7, cost = ?8, "
                                 "error = ?9, owner = ?10, heartbeat_at = ?11 WHERE id = ?1" + fence,
                                 {r.id, runs::name_of(r.state), r.updated_at, r.iterations, text_or_null(r.final_json), r.partial, text_or_null(r.usage_json),
                                  r.cost, text_or_null(r.error), m_node_id, wall_seconds(), live_after})
                  : m_conn->exec("UPDATE runs SET state = ?2, updated_at = ?3, iterations = ?4, final = ?5, partial = ?6, usage = ?7, cost = ?8, "
                                 "error = ?9, heartbeat_at = ?11 WHERE id = ?1" + fence,
                                 {r.id, runs::name_of(r.state), r.updated_at, r.iterations, text_or_null(r.final_json), r.partial, text_or_null(r.usage_json),
                                  r.cost, text_or_null(r.error), m_node_id, wall_seconds(), live_after});
  if (!done) return make_error(done.error().code, fmt::format("cannot update run {}: {}", r.id, done.error().message));
  if (done->affected == 0 && m_engine == Engine::Postgres) {
    auto held = m_conn->exec("SELECT owner FROM runs WHERE id = ?1", {r.id});
    if (held && !held->empty())
      return errorf(Code::FailedPrecondition, "cannot update run {}: node {} holds it now, not this node ({}): it was taken over", r.id,
                    (*held)[0].text(0), m_node_id);
  }
  return {};
}

Result<std::optional<Database::RunRow>> Database::get_run(const std::string& id) {
  auto [lock, c] = reader();
  auto r = c.exec(std::string("SELECT ") + kRunColumns + " FROM runs WHERE id = ?1", {id});
  if (!r) return make_error(r.error().code, fmt::format("cannot read run {}: {}", id, r.error().message));
  if (r->empty()) return std::optional<RunRow>();
  return std::optional<RunRow>(read_run((*r)[0]));
}

Result<std::vector<Database::RunRow>> Database::list_runs(int limit) {
  auto [lock, c] = reader();
  auto r = c.exec(std::string("SELECT ") + kRunColumns + " FROM runs ORDER BY created_at DESC LIMIT ?1", {limit});
  if (!r) return make_error(r.error().code, "cannot read the runs: " + r.error().message);
  std::vector<RunRow> out;
  for (const Row& row : *r) out.push_back(read_run(row));
  return out;
}

Result<std::map<std::string, int64_t>> Database::count_runs_by_state() {
  auto [lock, c] = reader();
  auto r = c.exec("SELECT state, count(*) FROM runs GROUP BY state");
  if (!r) return make_error(r.error().code, "cannot count the runs: " + r.error().message);
  std::map<std::string, int64_t> out;
  for (const Row& row : *r) out[row.text(0)] = row.int64(1);
  return out;
}

Result<int> Database::mark_interrupted() {
  std::lock_guard lock(m_lock->mutex);
  auto r = m_engine == Engine::Postgres
               ? m_conn->exec("UPDATE runs SET state = " + runs::sql_quoted(runs::State::Interrupted) + ", error = 'ouro stopped while the run was in progress' "
                              "WHERE state IN " + runs::sql_in_progress() + " AND (owner IS NULL OR owner = ?1 OR NOT EXISTS ("
                              "  SELECT 1 FROM nodes WHERE nodes.id = runs.owner AND nodes.heartbeat_at > ?2))",
                              {m_node_id, wall_seconds() - kStaleNodeSeconds})
               : m_conn->exec("UPDATE runs SET state = " + runs::sql_quoted(runs::State::Interrupted) + ", error = 'ouro stopped while the run was in progress' "
                              "WHERE state IN " + runs::sql_in_progress());
  if (!r) return make_error(r.error().code, "cannot mark interrupted runs: " + r.error().message);
  return static_cast<int>(r->affected);
}

Result<int64_t> Database::append_event(const std::string& run_id, int64_t seq, const std::string& type, const std::string& data_json, double ts) {
  std::lock_guard lock(m_lock->mutex);
  return insert_event(run_id, seq, type, data_json, ts);
}

Result<int64_t> Database::append_event_with_run(const RunRow& run, int64_t seq, const std::string& type, const std::string& data_json, double ts) {
  std::lock_guard lock(m_lock->mutex);
  Result<int64_t> written = make_error(Code::Internal, "not written");
  // PostgreSQL may end one of two transactions on the same run as a deadlock (the event's fence
  // shares the row's lock, the update takes it whole): tried again, as its error asks.
  for (int attempt = 0; attempt < 3; ++attempt) {
    written = m_conn->transaction([&]() -> Result<int64_t> {
      auto id = TRY(insert_event(run.id, seq, type, data_json, ts));
      TRY(write_run(run));
      return id;
    });
    if (written || written.error().code != Code::Aborted) break;
  }
  return written;
}

Result<int64_t> Database::insert_event(const std::string& run_id, int64_t seq, const std::string& type, const std::string& data_json, double ts) {
  auto r = m_conn->exec("INSERT INTO events(run_id, seq, type, data, ts) VALUES(?1, ?2, ?3, ?4, ?5) RETURNING id", {run_id, seq, type, data_json, ts});
  if (!r) return make_error(r.error().code, fmt::format("cannot append event {} of run {}: {}", seq, run_id, r.error().message));
  if (r->empty()) return errorf(Code::Internal, "cannot append event {} of run {}: the database returned no id", seq, run_id);
  return (*r)[0].int64(0);
}

Result<std::vector<Database::EventRow>> Database::events(const std::string& run_id, int64_t after, int limit) {
  auto [lock, c] = reader();
  auto r = run_id.empty() ? c.exec("SELECT id, run_id, seq, type, data, ts FROM events WHERE id > ?1 ORDER BY id LIMIT ?2", {after, limit})
                          : c.exec("SELECT id, run_id, seq, type, data, ts FROM events WHERE run_id = ?3 AND seq > ?1 ORDER BY seq LIMIT ?2",
                                         {after, limit, run_id});
  if (!r) return make_error(r.error().code, "cannot read events: " + r.error().message);
  std::vector<EventRow> out;
  out.reserve(r->size());
  for (const Row& row : *r) out.push_back(EventRow{row.int64(0), row.text(1), row.int64(2), row.text(3), row.text(4), row.real(5)});
  return out;
}

namespace {
// One text value by key: a keyed upsert and a keyed read (settings, checkpoints). Lock held.
Result<void> put_text(Connection& c, const char* sql, const std::string& key, const std::string& value, const std::string& what) {
  if (auto r = c.exec(sql, {key, value}); !r) return make_error(r.error().code, fmt::format("cannot save {}: {}", what, r.error().message));
  return {};
}
Result<std::optional<std::string>> get_text(Connection& c, const char* sql, const std::string& key, const std::string& what) {
  auto r = c.exec(sql, {key});
  if (!r) return make_error(r.error().code, fmt::format("cannot read {}: {}", what, r.error().message));
  if (r->empty()) return std::optional<std::string>();
  return std::optional<std::string>((*r)[0].text(0));
}
}  // namespace

Result<void> Database::set_setting(const std::string& key, const std::string& value_json) {
  std::lock_guard lock(m_lock->mutex);
  return put_text(*m_conn, "INSERT INTO settings(key, value) VALUES(?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value", key, value_json,
                  "setting " + key);
}

Result<void> Database::delete_setting(const std::string& key) {
  std::lock_guard lock(m_lock->mutex);
  if (auto r = m_conn->exec("DELETE FROM settings WHERE key = ?1", {key}); !r)
    return make_error(r.error().code, fmt::format("cannot delete setting {}: {}", key, r.error().message));
  return {};
}

Result<std::optional<std::string>> Database::get_setting(const std::string& key) {
  auto [lock, c] = reader();
  return get_text(c, "SELECT value FROM settings WHERE key = ?1", key, "setting " + key);
}

Result<void> Database::set_checkpoint(const std::string& run_id, const std::string& env_json) {
  std::lock_guard lock(m_lock->mutex);
  return put_text(*m_conn, "INSERT INTO checkpoints (run_id, env) VALUES (?1, ?2) ON CONFLICT(run_id) DO UPDATE SET env = excluded.env", run_id,
                  env_json, "the checkpoint of " + run_id);
}

Result<std::optional<std::string>> Database::checkpoint(const std::string& run_id) {
  auto [lock, c] = reader();
  return get_text(c, "SELECT env FROM checkpoints WHERE run_id = ?1", run_id, "checkpoint of " + run_id);
}

}  // namespace ouro::store
