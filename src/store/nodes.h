// Several `ouro serve` nodes on one PostgreSQL database (docs/guides/postgresql.md, "Several
// nodes"): the durable run queue, the takeover of a dead node's runs, the inbox that carries
// answers and cancels to the node that executes a run, and the notifications that wake nodes.
//
// The rules, in one place:
//  * A run created through any node is stored `queued` with no owner; a node takes it with one
//    atomic UPDATE over `SELECT … FOR UPDATE SKIP LOCKED`
//    (https://www.postgresql.org/docs/15/sql-select.html#SQL-FOR-UPDATE-SHARE), so no run is taken
//    twice, and only as many as it has free places for.
//  * Every node heartbeats every kHeartbeat; a node whose heartbeat has not succeeded for kFence
//    stops executing its runs; a node silent for kDead is dead, and the first live node to look
//    takes its active runs over (same atomic claim) and resumes them from their last checkpoint.
//    kDead > kFence + kHeartbeat, so a node cut off from the database has stopped before another
//    takes its runs.
//  * The database itself fences: each connection names its node (the `ouro.node` setting), and an
//    event of a run another node holds is refused (SQLSTATE OU001, FailedPrecondition), as is an
//    update of a run a live other node holds. A node that wakes from a pause longer than kDead
//    cannot add to a run that was taken from it; its run stops at its next event.
//  * The scheduler has one leader among the nodes: the holder of the lease row `scheduler` in the
//    table `leases`, taken when free or expired and renewed every kLeaseRenew; its expiry is the
//    database server's clock plus kLeaseTerm. A leader whose renewal has not succeeded for
//    kLeaseHold (its own steady clock, counted from before the renewal was sent) stops firing;
//    kLeaseHold < kLeaseTerm, so it has stopped before another node can take the lease. Each fire
//    is recorded in `schedule_fires (job_id, due)` in the transaction that checks the lease,
//    advances the job and queues its run: one (job, due) fires once, even with two leaders.
//  * Every stored event is announced on the channel `ouro_events` ("<run id> <seq>"), every run
//    put in the queue on `ouro_queue`, every inbox message on `ouro_inbox` (LISTEN/NOTIFY,
//    https://www.postgresql.org/docs/15/sql-notify.html); nodes also look every kPoll, in case a
//    notification was lost with a connection.
// PostgreSQL only: on SQLite (one node) these functions are not used.
#pragma once

#include "base/error.h"
#include "base/json.h"
#include "store/database.h"

#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace ouro::store {

inline constexpr std::chrono::milliseconds kNodeHeartbeat{1000};
inline constexpr std::chrono::milliseconds kNodeFence{4000};
inline constexpr std::chrono::milliseconds kNodeDead{8000};
inline constexpr std::chrono::milliseconds kNodePoll{2000};
inline constexpr std::chrono::milliseconds kLeaseRenew{1000};
inline constexpr std::chrono::milliseconds kLeaseHold{3000};
inline constexpr std::chrono::milliseconds kLeaseTerm{5000};
inline constexpr const char* kSchedulerLease = "scheduler";

// Puts a new run in the queue: stored `queued`, owned by no node (announced on ouro_queue).
Result<void> enqueue_run(Database& db, const Database::RunRow& row);

// The same, on a connection the caller holds (inside its transaction).
Result<void> enqueue_run(Connection& c, const Database::RunRow& row);

// Takes up to `max` queued runs, oldest first, for this node: each is now owned by it (still
// `queued` until it starts). Exactly one node gets each run.
Result<std::vector<Database::RunRow>> claim_queued(Database& db, int max);

// A run this node takes over: its row (owned by this node now) and whether it had begun (any
// stored event): a run that had not begins afresh, one that had resumes.
struct TakenRun {
  Database::RunRow row;
  bool begun = false;
};
// Takes up to `max` active runs (queued, running, awaiting the user) whose owner is dead (no
// heartbeat for kDead) — or is this node while `local` (what it executes now) lacks them: a
// run this node stopped when it lost the database, or left behind by an earlier process with the
// same OURO_NODE_ID.
Result<std::vector<TakenRun>> take_over(Database& db, int max, const std::set<std::string>& local);

// Takes one run in one of `states` for this node (a resume through the API): false when it is
// in another state or a live node holds it.
Result<bool> claim_run(Database& db, const std::string& run_id, const std::vector<runs::State>& states);

// Runs waiting in the queue (no node has taken them yet).
Result<int64_t> queue_depth(Database& db);

// The inbox: a message for the node that executes run_id (an answer, a confirmation, a cancel),
// announced on ouro_inbox. NotFound when no node holds the run.
Result<void> post_to_inbox(Database& db, const std::string& run_id, const json& message);
// The same for a message that another live node should handle whatever the run's state (a
// follow-up to a conversation that node keeps open between turns): false, and nothing posted,
// when no live node other than this one holds the run — this node may then take it.
Result<bool> relay_to_holder(Database& db, const std::string& run_id, const json& message);
struct InboxMessage {
  std::string run_id;
  json message;
};
// Takes (deletes) the messages for runs this node holds, oldest first.
Result<std::vector<InboxMessage>> take_inbox(Database& db);

// Leases: one holder among the nodes at a time, until the lease expires (kLeaseTerm after its last
// renewal, by the database server's clock). Takes the lease `name` for this node when it is free
// or expired, renews it when this node holds it: true when this node holds it now.
Result<bool> hold_lease(Database& db, const std::string& name);
// Gives the lease up when this node holds it (a clean stop: another node may take it at once).
Result<void> release_lease(Database& db, const std::string& name);
// The node holding the lease now; "" when none does (never taken, released or expired).
Result<std::string> lease_holder(Database& db, const std::string& name);
// Inside a transaction on c: whether `node` holds the lease now. The lease row is locked FOR SHARE
// until the transaction ends, so no other node takes it meanwhile
// (https://www.postgresql.org/docs/15/explicit-locking.html#LOCKING-ROWS); the server ends the
// session when the transaction waits for its client longer than kLeaseHold.
Result<bool> lease_held(Connection& c, const std::string& node, const std::string& name);

// Inside a transaction on c: records that the schedule job_id fired for its due time `due` (Unix
// seconds) on `node`. False when that (job, due) has fired already: the caller must not fire it.
Result<bool> record_fire_once(Connection& c, const std::string& node, const std::string& job_id, int64_t due);

// A connection of its own that LISTENs on channels (PostgreSQL's notifications are per
// connection). Not thread-safe: one thread waits on it.
class Listener {
 public:
  struct Notification {
    std::string channel, payload;
  };
  // Connects to url (store::configured_database's form, password and all) and listens.
  static Result<std::unique_ptr<Listener>> open(const std::string& url, const std::vector<std::string>& channels);
  virtual ~Listener() = default;
  // Waits up to `timeout` for notifications; what came (empty when none). Unavailable when the
  // connection is lost; the next call connects again.
  virtual Result<std::vector<Notification>> wait(std::chrono::milliseconds timeout) = 0;
};

}  // namespace ouro::store
