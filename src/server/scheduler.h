// The scheduler of `ouro serve` (daemon mode): saved jobs (schedule/jobs.h) start ordinary runs
// through the RunManager when they fall due — with their task, URLs and options, and the job's
// id as the run's internal `schedule` option, so the run can read its previous run's final
// (previousFinal()). Jobs are added by the API (here) and by `ouro schedule` from another
// process (straight into the database), so the scheduler reads the table again at least every
// two seconds as well as when it is woken.
//
// Policies, as the README states them:
//  * missed runs — at start each job's `missed` policy is applied (schedule::decide_start):
//    run-once runs it once, however many fell due while ouro was down; skip runs none. A job
//    found more than a minute late while running (the machine slept) follows the same policy.
//  * overlap — a job whose last run is still in progress (queued, running, awaiting the user)
//    does not start another: the fire is skipped, logged, and its reason kept in `last_skip`.
//  * a bad row (unreadable timing, a zone no longer installed) is skipped and logged, once.
//
// Nodes sharing a PostgreSQL database (docs/guides/postgresql.md, "Several nodes"): every node
// runs a scheduler, and only the holder of the lease `scheduler` (store/nodes.h) fires. It renews
// the lease every kLeaseRenew and stops firing when it could not for kLeaseHold; the others try
// to take it every kLeaseRenew, and the one that does applies every job's missed policy, as at
// start, to what fell due while no node led. Each fire is recorded in `schedule_fires` in the one
// transaction that checks the lease, moves the job on and queues its run, so a (job, due time)
// fires once even when a leader wakes from a pause. A run-now asked through any node is fired by
// the leader. The file lock (Config::lock_path) is for SQLite only.
//
// Threads: one thread of its own, which sleeps on a condition variable until the earliest
// next_fire (at most `poll`). Its work (SQLite, RunManager::create) never runs on the network
// thread. The API methods may be called from any thread but the network thread.
#pragma once

#include "base/json.h"
#include "schedule/jobs.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>

namespace ouro::store { class Database; }

namespace ouro::server {

class RunManager;

// POST /api/schedules' body as a job spec: {task, urls?, options?, at|every|cron (exactly one),
// tz?, missed?, name?}; InvalidArgument naming the field that is wrong.
Result<schedule::JobSpec> job_spec_from_json(const json& body);

class Scheduler {
 public:
  struct Config {
    // How often the table is read again for jobs other processes added or asked to run.
    std::chrono::milliseconds poll{2000};
    // A job found due later than this while running (the machine slept) counts as missed.
    std::chrono::seconds late{60};
    // A file locked while this scheduler runs, so two servers on one data directory do not both
    // fire its jobs (the second serves without a scheduler and says so); "" = no lock.
    std::string lock_path;
  };

  // db and runs must outlive the scheduler. Nothing starts before start().
  Scheduler(store::Database& db, RunManager& runs, Config config);
  Scheduler(store::Database& db, RunManager& runs);
  ~Scheduler();  // stop()

  // Applies every job's missed policy (on the calling thread), then starts the thread. Once.
  // False when another process holds the lock (nothing starts; logged). On PostgreSQL it starts
  // the thread only, which competes for the lead and catches up when it gets it.
  bool start();
  // Stops the thread and waits for it (a fire in progress finishes first), and gives the
  // scheduler's lease up when this node leads (PostgreSQL), so another node takes over at once.
  // Idempotent.
  void stop();
  // The table changed: look at it now.
  void wake();

  // What /metrics shows of this node's scheduler. Any thread.
  struct Stats {
    bool leading = false;  // this node fires the schedules (it holds the lock, or the lease on PostgreSQL)
    uint64_t fired = 0;    // runs this node started for schedules since it started
    uint64_t skipped = 0;  // due times it skipped (missed: skip, a run still in progress, a failure)
  };
  Stats stats() const;

  // The API: GET /api/schedules, POST /api/schedules, DELETE /api/schedules/{id},
  // POST /api/schedules/{id}/run. Errors as values (InvalidArgument naming the field, NotFound).
  Result<json> list();
  Result<json> create(const json& body);
  Result<json> remove(const std::string& id);
  Result<json> run_now(const std::string& id);

 private:
  void loop();
  // The missed-run policy of every job, at start (or when this node begins to lead); `absent`
  // says who was not there to fire them ("ouro was not running").
  void catch_up(int64_t now, const char* absent);
  // Nodes on PostgreSQL: takes or renews the scheduler's lease; whether this node leads now (it
  // catches up when it has just begun to).
  bool lead();
  bool leading() const;
  // A skip's record: on PostgreSQL in a transaction that checks the lease (nothing is written by
  // a node that no longer leads).
  Result<void> save_skip(const schedule::Job& job, int64_t at, const std::string& why, std::optional<int64_t> next);
  // Fires what is due; returns how long to sleep.
  std::chrono::milliseconds pass();
  void fire(const schedule::Job& job, int64_t now);

  store::Database& m_db;
  RunManager& m_runs;
  Config m_config;
  std::mutex m_mutex;  // m_stop, m_woken
  std::condition_variable m_cv;
  bool m_stop = false;
  bool m_woken = false;
  bool m_started = false;
  int m_lock_fd = -1;
  const bool m_shared;  // nodes sharing PostgreSQL: only the lease's holder fires
  // Until when this node leads: kLeaseHold after it last sent a renewal that succeeded; none when
  // it does not lead. The scheduler thread's.
  std::optional<double> m_lead_until;  // the one clock's steady ms (base/clock.h)
  bool m_leading = false;  // what lead() last found (the scheduler thread's)
  std::atomic<bool> m_leads{false};  // for stats(): whether this node fires the schedules now
  std::atomic<uint64_t> m_fired{0}, m_skipped{0};
  std::set<std::string> m_reported;  // bad rows logged already (the scheduler thread's)
  // Fires whose row could not be updated (a busy or failing database): the run started and when
  // the job is next due, held here until the row says so, so a stale row never starts the job
  // again and again. The scheduler thread's.
  struct Unrecorded {
    std::string run_id;
    std::optional<int64_t> next;
  };
  std::map<std::string, Unrecorded> m_unrecorded;
  std::thread m_thread;
};

}  // namespace ouro::server
