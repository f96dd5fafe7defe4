#include "store/nodes.h"
#include "base/clock.h"
#include "store/run_row.h"

#include <pqxx/pqxx>

#include <algorithm>
#include <chrono>

namespace ouro::store {

namespace {

double dead_before() { return wall_seconds() - std::chrono::duration<double>(kNodeDead).count(); }

Result<void> postgres_only(Database& db, const char* what) {
  if (db.engine() != Engine::Postgres) return errorf(Code::FailedPrecondition, "{} is for nodes sharing a PostgreSQL database", what);
  return {};
}

}  // namespace

Result<void> enqueue_run(Connection& c, const Database::RunRow& r) {
  if (auto done = c.exec("INSERT INTO runs(id, task, state, options, created_at, updated_at, owner, heartbeat_at) "
                         "VALUES(?1, ?2, ?6, ?3, ?4, ?5, NULL, NULL)",
                         {r.id, r.task, r.options, r.created_at, r.updated_at, runs::name_of(runs::State::Queued)});
      !done)
    return make_error(done.error().code, fmt::format("cannot queue run {}: {}", r.id, done.error().message));
  return {};
}

Result<void> enqueue_run(Database& db, const Database::RunRow& r) {
  TRY(postgres_only(db, "the shared run queue"));
  return db.with_sql([&](Connection& c) { return enqueue_run(c, r); });
}

Result<std::vector<Database::RunRow>> claim_queued(Database& db, int max) {
  TRY(postgres_only(db, "the shared run queue"));
  if (max <= 0) return std::vector<Database::RunRow>{};
  return db.with_sql([&](Connection& c) -> Result<std::vector<Database::RunRow>> {
    // The runs are picked once, in a materialized CTE: as `WHERE id IN (SELECT … LIMIT n FOR
    // UPDATE SKIP LOCKED)` the planner may scan the subquery again for each row it updates, and
    // each scan skips the rows this statement has just updated and locks the next n — one node
    // took the whole queue. The conditions are checked again on the locked row.
    auto r = c.exec(fmt::format("WITH picked AS MATERIALIZED ("
                                "  SELECT id AS picked_id FROM runs WHERE state = {0} AND owner IS NULL ORDER BY created_at LIMIT ?3 FOR UPDATE SKIP LOCKED)"
                                " UPDATE runs SET owner = ?1, heartbeat_at = ?2 FROM picked"
                                " WHERE runs.id = picked.picked_id AND runs.state = {0} AND runs.owner IS NULL RETURNING {1}",
                                runs::sql_quoted(runs::State::Queued), kRunColumns),
                    {db.node_id(), wall_seconds(), max});
    if (!r) return make_error(r.error().code, "cannot take runs from the queue: " + r.error().message);
    std::vector<Database::RunRow> out;
    for (const Row& row : *r) out.push_back(read_run(row));
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.created_at < b.created_at; });
    return out;
  });
}

Result<std::vector<TakenRun>> take_over(Database& db, int max, const std::set<std::string>& local) {
  TRY(postgres_only(db, "taking runs over"));
  if (max <= 0) return std::vector<TakenRun>{};
  std::string mine;
  for (const auto& id : local) mine += (mine.empty() ? "" : " ") + id;
  return db.with_sql([&](Connection& c) -> Result<std::vector<TakenRun>> {
    // Picked once, as claim_queued's are (no more than `max`).
    auto r = c.exec(fmt::format("WITH picked AS MATERIALIZED ("
                                "  SELECT r.id AS picked_id FROM runs r WHERE r.state IN {0} AND r.owner IS NOT NULL"
                                "   AND ((r.owner = ?1 AND NOT (r.id = ANY (string_to_array(?5, ' '))))"
                                "        OR (r.owner <> ?1 AND NOT EXISTS (SELECT 1 FROM nodes n WHERE n.id = r.owner AND n.heartbeat_at > ?3)))"
                                "   ORDER BY r.updated_at LIMIT ?4 FOR UPDATE OF r SKIP LOCKED)"
                                " UPDATE runs SET owner = ?1, heartbeat_at = ?2 FROM picked WHERE runs.id = picked.picked_id"
                                " RETURNING {1}, EXISTS (SELECT 1 FROM events e WHERE e.run_id = runs.id)",
                                runs::sql_in_progress(), kRunColumns),
                    {db.node_id(), wall_seconds(), dead_before(), max, mine});
    if (!r) return make_error(r.error().code, "cannot take over the runs of dead nodes: " + r.error().message);
    std::vector<TakenRun> out;
    for (const Row& row : *r) out.push_back(TakenRun{read_run(row), row.int64(kRunColumnCount) != 0});
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.row.created_at < b.row.created_at; });
    return out;
  });
}

Result<bool> claim_run(Database& db, const std::string& run_id, const std::vector<runs::State>& states) {
  TRY(postgres_only(db, "claiming a run"));
  std::string list;
  for (const auto& s : states) list += (list.empty() ? "" : " ") + runs::name_of(s);
  return db.with_sql([&](Connection& c) -> Result<bool> {
    auto r = c.exec("UPDATE runs SET owner = ?1, heartbeat_at = ?2 WHERE id = ?3 AND state = ANY (string_to_array(?4, ' '))"
                    " AND (owner IS NULL OR owner = ?1 OR NOT EXISTS (SELECT 1 FROM nodes n WHERE n.id = runs.owner AND n.heartbeat_at > ?5))",
                    {db.node_id(), wall_seconds(), run_id, list, dead_before()});
    if (!r) return make_error(r.error().code, fmt::format("cannot claim run {}: {}", run_id, r.error().message));
    return r->affected == 1;
  });
}

Result<int64_t> queue_depth(Database& db) {
  return db.with_sql([&](Connection& c) -> Result<int64_t> {
    auto r = c.engine() == Engine::Postgres ? c.exec("SELECT count(*) FROM runs WHERE state = " + runs::sql_quoted(runs::State::Queued) + " AND owner IS NULL")
                                            : c.exec("SELECT count(*) FROM runs WHERE state = " + runs::sql_quoted(runs::State::Queued));
    if (!r) return make_error(r.error().code, "cannot count the queued runs: " + r.error().message);
    return r->empty() ? 0 : (*r)[0].int64(0);
  });
}

Result<void> post_to_inbox(Database& db, const std::string& run_id, const json& message) {
  TRY(postgres_only(db, "the nodes' inbox"));
  return db.with_sql([&](Connection& c) -> Result<void> {
    auto r = c.exec("INSERT INTO run_inbox (run_id, body, created_at) SELECT ?1, ?2, ?3 WHERE EXISTS ("
                    "  SELECT 1 FROM runs WHERE id = ?1 AND owner IS NOT NULL AND state IN " + runs::sql_in_progress() + ")",
                    {run_id, dump_json(message), wall_seconds()});
    if (!r) return make_error(r.error().code, fmt::format("cannot pass the message to run {}'s node: {}", run_id, r.error().message));
    if (r->affected == 0) return errorf(Code::NotFound, "no run '{}' in progress on any node", run_id);
    if (auto n = c.exec("SELECT pg_notify('ouro_inbox', ?1)", {run_id}); !n)
      return make_error(n.error().code, fmt::format("cannot wake run {}'s node: {}", run_id, n.error().message));
    return {};
  });
}

Result<bool> relay_to_holder(Database& db, const std::string& run_id, const json& message) {
  TRY(postgres_only(db, "the nodes' inbox"));
  return db.with_sql([&](Connection& c) -> Result<bool> {
    auto r = c.exec("INSERT INTO run_inbox (run_id, body, created_at) SELECT ?1, ?2, ?3 WHERE EXISTS ("
                    "  SELECT 1 FROM runs r JOIN nodes n ON n.id = r.owner WHERE r.id = ?1 AND r.owner <> ?4 AND n.heartbeat_at > ?5)",
                    {run_id, dump_json(message), wall_seconds(), db.node_id(), dead_before()});
    if (!r) return make_error(r.error().code, fmt::format("cannot pass the message to run {}'s node: {}", run_id, r.error().message));
    if (r->affected == 0) return false;
    if (auto n = c.exec("SELECT pg_notify('ouro_inbox', ?1)", {run_id}); !n)
      return make_error(n.error().code, fmt::format("cannot wake run {}'s node: {}", run_id, n.error().message));
    return true;
  });
}

Result<std::vector<InboxMessage>> take_inbox(Database& db) {
  TRY(postgres_only(db, "the nodes' inbox"));
  return db.with_sql([&](Connection& c) -> Result<std::vector<InboxMessage>> {
    auto r = c.exec("DELETE FROM run_inbox WHERE run_id IN (SELECT id FROM runs WHERE owner = ?1) RETURNING id, run_id, body", {db.node_id()});
    if (!r) return make_error(r.error().code, "cannot read the inbox: " + r.error().message);
    std::vector<std::pair<int64_t, InboxMessage>> got;
    for (const Row& row : *r) got.push_back({row.int64(0), InboxMessage{row.text(1), parse_json(row.text(2)).value_or(json::object())}});
    std::sort(got.begin(), got.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<InboxMessage> out;
    for (auto& [id, m] : got) out.push_back(std::move(m));
    return out;
  });
}

// A lease row rather than an advisory lock (https://www.postgresql.org/docs/15/explicit-locking.html#ADVISORY-LOCKS):
// a session-level advisory lock lasts as long as its holder's connection, and a frozen node (a
// SIGSTOP, a long pause, a half-open TCP connection) keeps its connection — and so the lock — until
// the server's TCP keepalives give up on it (tcp_keepalives_idle and friends,
// https://www.postgresql.org/docs/15/runtime-config-connection.html), minutes by default; nobody
// leads meanwhile, and the frozen holder cannot tell on waking that it lost the lock with its
// connection. A lease expires on its own after kLeaseTerm, on the server's clock
// (clock_timestamp(), https://www.postgresql.org/docs/15/functions-datetime.html#FUNCTIONS-DATETIME-CURRENT),
// so the nodes' clocks need not agree; the holder counts its kLeaseHold from before it sent the
// renewal, which the server dated later, so its own end comes first. Every fire checks the lease in
// its transaction (lease_held), and a leader that woke late fires nothing.
Result<bool> hold_lease(Database& db, const std::string& name) {
  TRY(postgres_only(db, "a lease"));
  const double term = std::chrono::duration<double>(kLeaseTerm).count();
  return db.with_sql([&](Connection& c) -> Result<bool> {
    // INSERT … ON CONFLICT DO UPDATE is atomic under concurrency
    // (https://www.postgresql.org/docs/15/sql-insert.html#SQL-ON-CONFLICT): one node gets the row.
    auto r = c.exec("INSERT INTO leases (name, holder, expires_at) VALUES (?1, ?2, EXTRACT(EPOCH FROM clock_timestamp()) + ?3) "
                    "ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at "
                    "WHERE leases.holder = excluded.holder OR leases.expires_at <= EXTRACT(EPOCH FROM clock_timestamp())",
                    {name, db.node_id(), term});
    if (!r) return make_error(r.error().code, fmt::format("cannot hold the lease '{}': {}", name, r.error().message));
    return r->affected == 1;
  });
}

Result<void> release_lease(Database& db, const std::string& name) {
  TRY(postgres_only(db, "a lease"));
  return db.with_sql([&](Connection& c) -> Result<void> {
    if (auto r = c.exec("DELETE FROM leases WHERE name = ?1 AND holder = ?2", {name, db.node_id()}); !r)
      return make_error(r.error().code, fmt::format("cannot give up the lease '{}': {}", name, r.error().message));
    return {};
  });
}

Result<std::string> lease_holder(Database& db, const std::string& name) {
  TRY(postgres_only(db, "a lease"));
  return db.with_sql([&](Connection& c) -> Result<std::string> {
    auto r = c.exec("SELECT holder FROM leases WHERE name = ?1 AND expires_at > EXTRACT(EPOCH FROM clock_timestamp())", {name});
    if (!r) return make_error(r.error().code, fmt::format("cannot read the lease '{}': {}", name, r.error().message));
    return r->empty() ? std::string() : (*r)[0].text(0);
  });
}

Result<bool> lease_held(Connection& c, const std::string& node, const std::string& name) {
  // The row lock below would hold off the next leader for as long as this transaction stays
  // open; a node frozen inside it would keep it open indefinitely. The server ends a session
  // left idle in its transaction for kLeaseHold — by then it is no leader anyway
  // (https://www.postgresql.org/docs/15/runtime-config-client.html#GUC-IDLE-IN-TRANSACTION-SESSION-TIMEOUT).
  if (auto t = c.exec(fmt::format("SET LOCAL idle_in_transaction_session_timeout = {}", kLeaseHold.count())); !t)
    return make_error(t.error().code, "cannot bound the scheduler's transaction: " + t.error().message);
  auto r = c.exec("SELECT 1 FROM leases WHERE name = ?1 AND holder = ?2 AND expires_at > EXTRACT(EPOCH FROM clock_timestamp()) FOR SHARE",
                  {name, node});
  if (!r) return make_error(r.error().code, fmt::format("cannot read the lease '{}': {}", name, r.error().message));
  return !r->empty();
}

Result<bool> record_fire_once(Connection& c, const std::string& node, const std::string& job_id, int64_t due) {
  auto r = c.exec("INSERT INTO schedule_fires (job_id, due, node, fired_at) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (job_id, due) DO NOTHING",
                  {job_id, due, node, wall_seconds()});
  if (!r) return make_error(r.error().code, fmt::format("cannot record the fire of schedule {}: {}", job_id, r.error().message));
  if (r->affected == 0) return false;
  // A day of fires is kept: a leader that woke late names a recent due time, never one that old.
  if (auto old = c.exec("DELETE FROM schedule_fires WHERE job_id = ?1 AND due < ?2", {job_id, due - 86400}); !old)
    return make_error(old.error().code, fmt::format("cannot forget the old fires of schedule {}: {}", job_id, old.error().message));
  return true;
}

namespace {

class PostgresListener final : public Listener {
 public:
  PostgresListener(const std::string& url, std::vector<std::string> channels) : m_url(with_connect_timeout(url)), m_channels(std::move(channels)) {}
  ~PostgresListener() override { drop(); }

  Result<void> connect() {
    drop();
    try {
      m_conn = std::make_unique<pqxx::connection>(m_url);
      for (const auto& ch : m_channels) m_receivers.push_back(std::make_unique<Receiver>(*m_conn, ch, m_got));
    } catch (const std::exception& e) {
      drop();
      // libpq's message may quote the URL: only its kind is told.
      return errorf(Code::Unavailable, "cannot listen for other nodes on {}: the connection failed", redact_database_url(m_url));
    }
    return {};
  }

  Result<std::vector<Notification>> wait(std::chrono::milliseconds timeout) override {
    if (!m_conn) TRY(connect());
    try {
      auto us = std::chrono::duration_cast<std::chrono::microseconds>(timeout).count();
      m_conn->await_notification(static_cast<long>(us / 1000000), static_cast<long>(us % 1000000));
      m_conn->get_notifs();  // any that came together
    } catch (const std::exception&) {
      drop();
      return errorf(Code::Unavailable, "the connection that listens for other nodes on {} was lost", redact_database_url(m_url));
    }
    std::vector<Notification> out;
    out.swap(m_got);
    return out;
  }

 private:
  struct Receiver final : pqxx::notification_receiver {
    Receiver(pqxx::connection_base& c, const std::string& channel, std::vector<Notification>& got)
        : pqxx::notification_receiver(c, channel), m_got(got) {}
    void operator()(const std::string& payload, int) override { m_got.push_back({channel(), payload}); }
    std::vector<Notification>& m_got;
  };
  void drop() {
    m_receivers.clear();
    if (m_conn) {
      try {
        m_conn->disconnect();
      } catch (...) {  // a connection the server dropped: nothing to close
      }
    }
    m_conn.reset();
  }

  std::string m_url;
  std::vector<std::string> m_channels;
  std::unique_ptr<pqxx::connection> m_conn;
  std::vector<std::unique_ptr<Receiver>> m_receivers;
  std::vector<Notification> m_got;
};

}  // namespace

Result<std::unique_ptr<Listener>> Listener::open(const std::string& url, const std::vector<std::string>& channels) {
  if (!is_postgres_url(url)) return make_error(Code::FailedPrecondition, "only nodes sharing a PostgreSQL database listen for each other");
  auto l = std::make_unique<PostgresListener>(url, channels);
  TRY(l->connect());
  return std::unique_ptr<Listener>(std::move(l));
}

}  // namespace ouro::store
