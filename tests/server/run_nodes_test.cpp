// Several `ouro serve` nodes on one real PostgreSQL (docs/guides/postgresql.md, "Several nodes"):
// runs created through any node wait in one queue and each is executed by exactly one node; a
// node killed with SIGKILL, or frozen past the dead-node time, loses no run (another takes its
// runs over from their last checkpoint, one gap-free event sequence each, none executed twice);
// events stream and questions are answered through a node other than the one executing the run;
// two nodes racing for the same queued runs never take one twice; the database refuses what a
// node writes to a run another holds. The scheduler has one leader among the nodes: each due time
// of a job fires once, a run-now asked through another node fires once, and when the leader is
// killed another takes over within the stated time and applies each job's missed policy.
#include "postgres_server.h"
#include "serve_process.h"

#include "net/io.h"
#include "store/nodes.h"

#include <gtest/gtest.h>

#include <signal.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

namespace ouro::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

class Nodes : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = engine_unavailable(store::Engine::Postgres); !why.empty()) GTEST_SKIP() << why;
    auto made = fresh_database(store::Engine::Postgres);
    ASSERT_TRUE(made) << made.error().message;
    url = *made;
  }
  // A node on the test's database: its own data directory, name and number of places.
  std::unique_ptr<ServeProcess> node(const std::string& name, int places = 3) {
    auto s = std::make_unique<ServeProcess>(temp_dir(), std::vector<std::pair<std::string, std::string>>{
                                                             {"OURO_DATABASE", url}, {"OURO_NODE_ID", name}, {"OURO_MAX_RUNS", std::to_string(places)},
                                                             {"OURO_SCHEDULE_MIN_INTERVAL_S", "1"}});
    EXPECT_FALSE(s->base.empty()) << name << " did not start: " << s->log();
    return s;
  }
  std::unique_ptr<store::Database> open_db(const char* as = "test") {
    setenv("OURO_NODE_ID", as, 1);
    auto db = store::Database::open(url);
    unsetenv("OURO_NODE_ID");
    EXPECT_TRUE(db) << db.error().message;
    return db ? std::move(*db) : nullptr;
  }
  std::string url;
};

// Three iterations, the model taking a while on the later ones, so a kill lands inside runs.
std::string counting_script() {
  return script_file({
      {{"text", repl_reply("env.n = 1;\n'one'")}},
      {{"delay_ms", 400}, {"text", repl_reply("env.n += 1;\n'two'")}},
      {{"delay_ms", 400}, {"text", repl_reply("setFinal({n: env.n + 1})")}},
  });
}

json run_body(const std::string& script, int i) {
  return {{"task", "Count to three, #" + std::to_string(i)}, {"options", {{"provider", "script:" + script}, {"context", "clean"}, {"mode", "autonomous"}}}};
}

// Every run's events: one gap-free sequence from 1, exactly one complete, no iteration begun
// twice after the last resume point (a run executed twice at once would write two of each).
void expect_one_clean_sequence(store::Database& db, const std::string& id) {
  auto events = db.events(id, 0);
  ASSERT_TRUE(events) << events.error().message;
  int completes = 0;
  for (size_t i = 0; i < events->size(); ++i) {
    ASSERT_EQ((*events)[i].seq, static_cast<int64_t>(i + 1)) << "run " << id << ": event " << i << " of " << events->size();
    if ((*events)[i].type == "complete") ++completes;
  }
  EXPECT_EQ(completes, 1) << "run " << id << " completed once";
}

// A conversation's events: one gap-free sequence from 1 with `turns` completes.
void expect_one_clean_sequence_of_turns(store::Database& db, const std::string& id, int turns) {
  auto events = db.events(id, 0);
  ASSERT_TRUE(events) << events.error().message;
  int completes = 0;
  for (size_t i = 0; i < events->size(); ++i) {
    ASSERT_EQ((*events)[i].seq, static_cast<int64_t>(i + 1)) << "run " << id;
    if ((*events)[i].type == "complete") ++completes;
  }
  EXPECT_EQ(completes, turns) << "run " << id;
}

std::string owner_of(store::Database& db, const std::string& id) {
  auto r = db.with_sql([&](store::Connection& c) { return c.exec("SELECT owner FROM runs WHERE id = ?1", {id}); });
  return r && !r->empty() ? (*r)[0].text(0) : "";
}

TEST_F(Nodes, ThreeNodesShareTheRunsAndAKilledOnesAreTakenOver) {
  auto t0 = Clock::now();
  std::vector<std::unique_ptr<ServeProcess>> nodes;
  for (const char* n : {"node-a", "node-b", "node-c"}) nodes.push_back(node(n));
  for (auto& n : nodes) ASSERT_FALSE(n->base.empty());
  auto db = open_db();
  ASSERT_TRUE(db);
  std::string script = counting_script();
  constexpr int kRuns = 30;
  std::vector<std::string> ids;
  for (int i = 0; i < kRuns; ++i) {
    Http created = nodes[i % 3]->post("/api/runs", run_body(script, i));
    ASSERT_EQ(created.status / 100, 2) << created.raw;
    EXPECT_EQ(created.body.value("state", ""), "queued");
    ids.push_back(created.body.value("id", ""));
  }
  // Shown as queued while waiting, on any node: 30 runs and 9 places.
  int queued_seen = 0;
  for (const auto& id : ids) queued_seen += nodes[1]->get("/api/runs/" + id).body.value("state", "") == "queued";
  EXPECT_GT(queued_seen, 0);
  // node-a is killed as soon as it is seen holding a run in the middle of its work (at once: a
  // run seen with its first checkpoint finishes within a second, and a pass over all the runs
  // takes about that long on a loaded machine).
  std::set<std::string> killed_runs;
  auto deadline = Clock::now() + 60s;
  while (killed_runs.empty() && Clock::now() < deadline) {
    for (const auto& id : ids) {
      auto row = db->get_run(id);
      if (row && *row && (*row)->state == runs::State::Running && owner_of(*db, id) == "node-a") {
        auto ev = db->events(id, 0);
        bool checkpointed = ev && std::any_of(ev->begin(), ev->end(), [](const auto& e) { return e.type == "checkpoint"; });
        bool complete = ev && std::any_of(ev->begin(), ev->end(), [](const auto& e) { return e.type == "complete"; });
        if (checkpointed && !complete) {
          nodes[0]->kill9();
          killed_runs.insert(id);
          break;
        }
      }
    }
    if (killed_runs.empty()) std::this_thread::sleep_for(50ms);
  }
  ASSERT_FALSE(killed_runs.empty()) << "node-a never held a run in the middle of its work";
  auto killed_at = Clock::now();
  // The one seen may have finished between the look and the kill: only what node-a still held
  // after its death must go on elsewhere.
  killed_runs.clear();
  for (const auto& id : ids) {
    if (auto row = db->get_run(id); row && *row && owner_of(*db, id) == "node-a" && (*row)->state != runs::State::Done) killed_runs.insert(id);
  }
  // Every run ends done with the same final, on the nodes left; node-a's through a takeover.
  for (const auto& id : ids) {
    json done = nodes[1 + (id.back() % 2)]->wait_state(id, {"done", "failed", "partial", "cancelled", "interrupted"}, 90s);
    ASSERT_EQ(done.value("state", ""), "done") << id << ": " << done.dump();
    EXPECT_EQ(done["final"], json({{"n", 3}})) << id;
    expect_one_clean_sequence(*db, id);
  }
  for (const auto& id : killed_runs) {
    EXPECT_NE(owner_of(*db, id), "node-a") << id << " was finished by a live node";
  }
  // Each owner finished its share; the killed node none after its death.
  std::map<std::string, int> by_owner;
  for (const auto& id : ids) ++by_owner[owner_of(*db, id)];
  std::string shares;
  for (auto& [o, n] : by_owner) shares += o + "=" + std::to_string(n) + " ";
  EXPECT_GE(by_owner["node-b"], 1) << shares;
  EXPECT_GE(by_owner["node-c"], 1) << shares;
  std::cout << "[ nodes ] " << kRuns << " runs on 3 nodes, one killed: " << shares << "; " << killed_runs.size()
            << " taken over; all done "
            << std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - killed_at).count() << " ms after the kill, "
            << std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count() << " ms in all\n";
}

// The takeover time: from SIGKILL to the dead node's run going on elsewhere (its "resumed"
// event), bounded by the dead-node time plus the poll and a margin for a loaded machine.
TEST_F(Nodes, ADeadNodesRunGoesOnElsewhereWithinTheStatedTime) {
  // node-a alone takes the run; node-b comes up while it works.
  auto a = node("node-a", 1);
  ASSERT_FALSE(a->base.empty());
  auto db = open_db();
  ASSERT_TRUE(db);
  // The second answer waits for the test's go-ahead: node-a holds the run in the middle of its work
  // however long node-b takes to come up; the node that takes it over finds the file there.
  const std::string go = temp_dir() + "/go";
  std::filesystem::remove(go);
  std::string script = script_file({
      {{"text", repl_reply("env.n = 1;\n'one'")}},
      {{"delay_ms", 120000}, {"until_file", go}, {"text", repl_reply("env.n += 1;\n'two'")}},
      {{"text", repl_reply("setFinal({n: env.n + 1})")}},
  });
  std::string id = a->post("/api/runs", run_body(script, 1)).body.value("id", "");
  ASSERT_TRUE(a->wait_events(id, [](const auto& ev) {
    return std::any_of(ev.begin(), ev.end(), [](const json& e) { return e["type"] == "checkpoint"; });
  }, 60s));
  auto b = node("node-b", 1);
  ASSERT_FALSE(b->base.empty());
  ASSERT_EQ(owner_of(*db, id), "node-a");
  a->kill9();
  auto killed = Clock::now();
  std::ofstream(go) << "go";
  ASSERT_TRUE(b->wait_events(id, [](const auto& ev) {
    return std::any_of(ev.begin(), ev.end(), [](const json& e) { return e["type"] == "resumed"; });
  }, 60s)) << "node-b's log:\n" << b->log() << "\nthe run's events: " << json(b->events(id)).dump();
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - killed).count();
  std::cout << "[ nodes ] takeover after SIGKILL: " << ms << " ms (dead after " << store::kNodeDead.count() << " ms, poll "
            << store::kNodePoll.count() << " ms)\n";
  EXPECT_LT(ms, (store::kNodeDead + store::kNodePoll + 10s).count());
  json done = b->wait_state(id, {"done", "failed", "partial", "cancelled"});
  EXPECT_EQ(done.value("state", ""), "done") << done.dump();
  EXPECT_EQ(done["final"], json({{"n", 3}}));
  expect_one_clean_sequence(*db, id);
}

// A node frozen (SIGSTOP) longer than the dead-node time is taken over; when it wakes it must not
// add to the run it lost: the run ends once, its events one sequence.
TEST_F(Nodes, AFrozenNodeThatWakesDoesNotRunItsLostRunAgain) {
  auto a = node("node-a", 1);
  ASSERT_FALSE(a->base.empty());
  auto db = open_db();
  ASSERT_TRUE(db);
  // The second answer waits for the test's go-ahead: node-a holds the run in the middle of its work
  // however long node-b takes to come up; the node that takes it over finds the file there.
  const std::string go = temp_dir() + "/go";
  std::filesystem::remove(go);
  std::string script = script_file({
      {{"text", repl_reply("env.n = 1;\n'one'")}},
      {{"delay_ms", 120000}, {"until_file", go}, {"text", repl_reply("env.n += 1;\n'two'")}},
      {{"text", repl_reply("setFinal({n: env.n + 1})")}},
  });
  std::string id = a->post("/api/runs", run_body(script, 1)).body.value("id", "");
  ASSERT_TRUE(a->wait_events(id, [](const auto& ev) {
    return std::any_of(ev.begin(), ev.end(), [](const json& e) { return e["type"] == "checkpoint"; });
  }, 60s));
  auto b = node("node-b", 1);
  ASSERT_FALSE(b->base.empty());
  ASSERT_EQ(owner_of(*db, id), "node-a");
  kill(-a->pid, SIGSTOP);  // the node, its Chromium and REPL workers: as a long pause would
  std::ofstream(go) << "go";  // read by node-b's model when it goes on; node-a sleeps through it
  ASSERT_TRUE(b->wait_events(id, [](const auto& ev) {
    return std::any_of(ev.begin(), ev.end(), [](const json& e) { return e["type"] == "resumed"; });
  }, 60s)) << "node-b's log:\n" << b->log() << "\nthe run's events: " << json(b->events(id)).dump();
  kill(-a->pid, SIGCONT);
  json done = b->wait_state(id, {"done", "failed", "partial", "cancelled"});
  EXPECT_EQ(done.value("state", ""), "done") << done.dump();
  EXPECT_EQ(done["final"], json({{"n", 3}}));
  std::this_thread::sleep_for(1500ms);  // what the woken node might still write would show now
  expect_one_clean_sequence(*db, id);
  EXPECT_EQ(owner_of(*db, id), "node-b");
  EXPECT_EQ(db->get_run(id).value()->state, runs::State::Done) << "the woken node did not change the run it lost";
  EXPECT_EQ(a->get("/api/runs/" + id).body.value("state", ""), "done") << "and it still answers";
}

TEST_F(Nodes, EventsStreamAndQuestionsAreAnsweredThroughAnotherNode) {
  // node-a alone takes the question's run; it is watched and answered through node-b.
  auto a = node("node-a", 1);
  ASSERT_FALSE(a->base.empty());
  auto db = open_db();
  ASSERT_TRUE(db);
  std::string path = script_file({{{"text", repl_reply("const a = await askUser('Which colour?', { choices: ['red', 'blue'] });\nsetFinal('picked ' + a)")}}});
  std::string id = a->post("/api/runs", {{"task", "Pick a colour"}, {"options", {{"provider", "script:" + path}}}}).body.value("id", "");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(a->wait_events(id, [](const auto& ev) { return !ev.empty(); }, 60s));
  auto b = node("node-b", 1);
  ASSERT_FALSE(b->base.empty());
  auto io = net::IoThread::start();
  std::string ws = "ws://" + b->base.substr(7) + "/api/events?token=" + b->token + "&run=" + id;
  Watcher w(*io, ws);
  ASSERT_TRUE(w.wait_for([](auto& ev) { return Watcher::has(ev, "user-question"); }, 30s)) << "the question reached node-b's subscriber";
  EXPECT_EQ(owner_of(*db, id), "node-a");
  json q = w.last("user-question");
  Http answered = b->post("/api/runs/" + id + "/answer", {{"id", q["id"]}, {"answer", "blue"}});
  EXPECT_EQ(answered.status, 200) << answered.raw;
  ASSERT_TRUE(w.wait_for([](auto& ev) { return Watcher::has(ev, "complete"); }, 30s)) << "the end reached node-b's subscriber";
  json done = b->wait_state(id, {"done", "failed", "partial", "cancelled"});
  EXPECT_EQ(done["final"], "picked blue") << done.dump();
  std::lock_guard lock(w.mutex);
  for (size_t i = 0; i < w.events.size(); ++i) EXPECT_EQ(w.events[i].value("seq", 0), static_cast<int64_t>(i + 1)) << "streamed gap-free, once each";
}

TEST_F(Nodes, TwoNodesRacingForTheQueueNeverTakeARunTwice) {
  auto setter = open_db("setter");
  auto x = open_db("racer-x");
  auto y = open_db("racer-y");
  ASSERT_TRUE(setter && x && y);
  constexpr int kRuns = 300;
  for (int i = 0; i < kRuns; ++i) {
    store::Database::RunRow r;
    r.id = "q" + std::to_string(i);
    r.task = "t";
    r.state = runs::State::Queued;
    r.created_at = r.updated_at = i;
    ASSERT_TRUE(store::enqueue_run(*setter, r));
  }
  std::map<std::string, int> taken;
  std::mutex m;
  auto race = [&](store::Database& db) {
    while (true) {
      auto got = store::claim_queued(db, 3);
      ASSERT_TRUE(got) << got.error().message;
      if (got->empty()) return;
      std::lock_guard lock(m);
      for (const auto& r : *got) ++taken[r.id];
    }
  };
  std::thread tx([&] { race(*x); });
  race(*y);
  tx.join();
  EXPECT_EQ(taken.size(), static_cast<size_t>(kRuns));
  for (auto& [id, n] : taken) EXPECT_EQ(n, 1) << id << " taken twice";
  EXPECT_EQ(store::queue_depth(*setter).value(), 0);
}

TEST_F(Nodes, TheDatabaseRefusesWritesToARunAnotherNodeHolds) {
  auto a = open_db("fence-a");
  auto b = open_db("fence-b");
  ASSERT_TRUE(a && b);
  store::Database::RunRow r;
  r.id = "fenced";
  r.task = "t";
  r.state = runs::State::Running;
  ASSERT_TRUE(a->insert_run(r));
  ASSERT_TRUE(a->append_event("fenced", 1, "started", "{}", 1));
  // a's heartbeat is made old, as a node frozen past the dead-node time: b takes the run over
  // (again if a's own heartbeat came in between).
  Result<std::vector<store::TakenRun>> taken;
  for (int i = 0; i < 5 && !(taken && !taken->empty()); ++i) {
    ASSERT_TRUE(a->with_sql([](store::Connection& c) { return c.exec("UPDATE nodes SET heartbeat_at = 0 WHERE id = 'fence-a'"); }));
    taken = store::take_over(*b, 5, {});
    ASSERT_TRUE(taken) << taken.error().message;
  }
  ASSERT_EQ(taken->size(), 1u);
  EXPECT_TRUE((*taken)[0].begun);
  // a's heartbeat comes back (it woke): its writes to the run are still refused.
  ASSERT_TRUE(a->heartbeat());
  auto appended = a->append_event("fenced", 2, "iteration", "{}", 2);
  ASSERT_FALSE(appended);
  EXPECT_EQ(appended.error().code, Code::FailedPrecondition) << appended.error().message;
  r.state = runs::State::Cancelled;
  auto updated = a->update_run(r);
  ASSERT_FALSE(updated);
  EXPECT_EQ(updated.error().code, Code::FailedPrecondition) << updated.error().message;
  EXPECT_TRUE(b->append_event("fenced", 2, "iteration", "{}", 2));
  EXPECT_EQ(b->get_run("fenced").value()->state, runs::State::Running);
  // Taken once: a second look finds nothing (b is alive and holds it).
  EXPECT_TRUE(store::take_over(*a, 5, {}).value().empty());
}

// --- The scheduler's leader -------------------------------------------------------------------

std::string scheduler_leader(store::Database& db) { return store::lease_holder(db, store::kSchedulerLease).value_or(""); }

int64_t scalar(store::Database& db, const std::string& sql, std::initializer_list<store::Param> params) {
  auto r = db.with_sql([&](store::Connection& c) { return c.exec(sql, params); });
  EXPECT_TRUE(r) << r.error().message;
  return r && !r->empty() ? (*r)[0].int64(0) : -1;
}

// A job's fires, the runs it started and its own count of them, read in one statement (one
// snapshot: a fire and its run are stored in one transaction).
struct Fired {
  int64_t fires = 0, runs = 0, counted = 0;
};
Fired fired(store::Database& db, const std::string& job) {
  auto r = db.with_sql([&](store::Connection& c) {
    return c.exec("SELECT (SELECT count(*) FROM schedule_fires WHERE job_id = ?1),"
                  " (SELECT count(*) FROM runs WHERE (ouro_try_jsonb(options) ->> 'schedule') = ?1),"
                  " (SELECT runs FROM schedules WHERE id = ?1)",
                  {job});
  });
  EXPECT_TRUE(r) << r.error().message;
  if (!r || r->empty()) return {};
  return {(*r)[0].int64(0), (*r)[0].int64(1), (*r)[0].int64(2)};
}

// Polls pred every 50 ms until it holds or the deadline passes.
bool eventually(const std::function<bool()>& pred, std::chrono::seconds timeout = 60s) {
  for (auto until = Clock::now() + timeout; Clock::now() < until; std::this_thread::sleep_for(50ms))
    if (pred()) return true;
  return pred();
}

json schedule_body(const std::string& when_key, const std::string& when, const std::string& missed = "run-once") {
  std::string script = script_file({{{"text", repl_reply("setFinal('tick')")}}});
  return {{"task", "Tick"}, {when_key, when}, {"tz", "UTC"}, {"missed", missed},
          {"options", {{"provider", "script:" + script}, {"context", "clean"}, {"mode", "autonomous"}}}};
}

// "2026-11-27 00:10:05": a Unix time as an `at` in UTC.
std::string utc_at(int64_t t) {
  std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

int64_t wall_now() { return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count(); }

// Two nodes, and which of them leads the scheduler (names empty when neither came to).
struct Led {
  std::unique_ptr<ServeProcess> leader, other;
  std::string leader_name, other_name;
};
class SchedulerNodes : public Nodes {
 protected:
  Led two_nodes_one_leading(store::Database& db) {
    Led out;
    out.leader = node("node-a");
    out.other = node("node-b");
    if (out.leader->base.empty() || out.other->base.empty()) return out;
    std::string leader;
    EXPECT_TRUE(eventually([&] { return !(leader = scheduler_leader(db)).empty(); }, 30s)) << "no node took the lead";
    if (leader == "node-b") std::swap(out.leader, out.other);
    else EXPECT_EQ(leader, "node-a");
    if (leader == "node-a" || leader == "node-b") {
      out.leader_name = leader;
      out.other_name = leader == "node-a" ? "node-b" : "node-a";
    }
    return out;
  }
};

// Two nodes, one leader: an every-second job created through the other node fires only on the
// leader, once per due time (as many fires as runs, as the job counts); a run-now asked through
// the node that does not lead is fired once, by the leader.
TEST_F(SchedulerNodes, OneNodeLeadsTheSchedulerAndEachDueTimeFiresOnce) {
  auto db = open_db();
  ASSERT_TRUE(db);
  Led nodes = two_nodes_one_leading(*db);
  ASSERT_FALSE(nodes.leader_name.empty());
  const std::string leader = nodes.leader_name, follower_name = nodes.other_name;
  ServeProcess& follower = *nodes.other;

  Http created = follower.post("/api/schedules", schedule_body("every", "1s"));
  ASSERT_EQ(created.status, 201) << created.raw;
  const std::string job = created.body.value("id", "");
  ASSERT_TRUE(eventually([&] { return fired(*db, job).fires >= 5; }, 60s)) << "five fires; " << follower.log();
  Fired f = fired(*db, job);
  EXPECT_EQ(f.fires, f.runs) << "one run per fire";
  EXPECT_EQ(f.fires, f.counted) << "the job counts each fire once";
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM schedule_fires WHERE job_id = ?1 AND node <> ?2", {job, leader}), 0)
      << "only the leader fired";
  EXPECT_EQ(scheduler_leader(*db), leader) << "the lead stayed where it was";
  // Operators see which node leads and what it fired in /metrics.
  std::string on_leader = nodes.leader->get("/metrics").raw, on_follower = follower.get("/metrics").raw;
  EXPECT_NE(on_leader.find("\nouro_scheduler_leader 1\n"), std::string::npos) << on_leader;
  EXPECT_NE(on_follower.find("\nouro_scheduler_leader 0\n"), std::string::npos) << on_follower;
  EXPECT_NE(on_follower.find("\nouro_schedule_fires_total{result=\"started\"} 0\n"), std::string::npos) << on_follower;
  EXPECT_EQ(on_leader.find("\nouro_schedule_fires_total{result=\"started\"} 0\n"), std::string::npos) << on_leader;

  // Run now, asked through the node that does not lead, for a job not due for an hour.
  Http later = follower.post("/api/schedules", schedule_body("at", utc_at(wall_now() + 3600)));
  ASSERT_EQ(later.status, 201) << later.raw;
  const std::string once = later.body.value("id", "");
  Http asked = follower.post("/api/schedules/" + once + "/run", json::object());
  ASSERT_EQ(asked.status / 100, 2) << asked.raw;
  ASSERT_TRUE(eventually([&] { return fired(*db, once).runs == 1; }, 30s)) << "the run-now fired; " << follower.log();
  // The leader looks again twice (the every-second job fires twice more): nothing more of the run-now.
  const int64_t seen = fired(*db, job).fires;
  ASSERT_TRUE(eventually([&] { return fired(*db, job).fires >= seen + 2; }, 30s));
  Fired r = fired(*db, once);
  EXPECT_EQ(r.fires, 1);
  EXPECT_EQ(r.runs, 1);
  EXPECT_EQ(r.counted, 1);
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM schedule_fires WHERE job_id = ?1 AND node = ?2", {once, leader}), 1) << "fired by the leader";
  EXPECT_EQ(scalar(*db, "SELECT run_requested FROM schedules WHERE id = ?1", {once}), 0);
  f = fired(*db, job);
  EXPECT_EQ(f.fires, f.runs);
  std::cout << "[ nodes ] scheduler led by " << leader << ": " << f.fires << " fires of an every-second job, " << f.runs
            << " runs; run-now through " << follower_name << " fired once\n";

  // Stopped cleanly (Ctrl-C), the leader gives the lease up: the other leads at its next look.
  nodes.leader->stop();
  const auto stopped = Clock::now();
  ASSERT_TRUE(eventually([&] { return scheduler_leader(*db) == follower_name; }, 30s)) << follower.log();
  const auto handover = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - stopped).count();
  std::cout << "[ nodes ] scheduler handover after a clean stop: " << handover << " ms\n";
  EXPECT_LT(handover, (store::kLeaseRenew + 2s).count()) << "sooner than the lease's term: it was given up";
  const int64_t before = fired(*db, job).fires;
  ASSERT_TRUE(eventually([&] { return fired(*db, job).fires >= before + 2; }, 30s)) << "the new leader fires; " << follower.log();
  EXPECT_GE(scalar(*db, "SELECT count(*) FROM schedule_fires WHERE job_id = ?1 AND node = ?2", {job, follower_name}), 2);
}

// The leader killed with SIGKILL: the other node leads within the lease's term and a poll; a
// once-job that fell due while no node led runs once under run-once and not at all under skip;
// the every-second job fires once for the seconds it missed, then on.
TEST_F(SchedulerNodes, WhenTheSchedulerLeaderDiesAnotherTakesOverAndFiresWhatFellDueOnce) {
  auto db = open_db();
  ASSERT_TRUE(db);
  Led nodes = two_nodes_one_leading(*db);
  ASSERT_FALSE(nodes.leader_name.empty());
  ServeProcess& dying = *nodes.leader;
  ServeProcess& survivor = *nodes.other;
  const std::string survivor_name = nodes.other_name;
  Http every = survivor.post("/api/schedules", schedule_body("every", "1s"));
  ASSERT_EQ(every.status, 201) << every.raw;
  const std::string tick = every.body.value("id", "");
  ASSERT_TRUE(eventually([&] { return fired(*db, tick).fires >= 2; }, 60s)) << dying.log();

  dying.kill9();
  const auto killed = Clock::now();
  const int64_t killed_wall = wall_now();
  const int64_t last_before = scalar(*db, "SELECT COALESCE(max(due), 0) FROM schedule_fires WHERE job_id = ?1", {tick});
  // Two once-jobs due two to three seconds after the kill (time for two POSTs to a busy node): the
  // dead node's lease, renewed at most a second before the kill, outlives that by a second or more.
  const int64_t due = killed_wall + 3;
  Http run_once = survivor.post("/api/schedules", schedule_body("at", utc_at(due), "run-once"));
  Http skip = survivor.post("/api/schedules", schedule_body("at", utc_at(due), "skip"));
  ASSERT_EQ(run_once.status, 201) << run_once.raw;
  ASSERT_EQ(skip.status, 201) << skip.raw;

  ASSERT_TRUE(eventually([&] { return scheduler_leader(*db) == survivor_name; }, 60s)) << survivor.log();
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - killed).count();
  const int64_t took_wall = wall_now();
  std::cout << "[ nodes ] scheduler takeover after SIGKILL: " << ms << " ms (lease term " << store::kLeaseTerm.count() << " ms, renewed every "
            << store::kLeaseRenew.count() << " ms)\n";
  EXPECT_LT(ms, (store::kLeaseTerm + store::kLeaseRenew + 5s).count());
  ASSERT_GT(took_wall, due) << "the once-jobs fell due while no node led";

  const std::string once_id = run_once.body.value("id", ""), skip_id = skip.body.value("id", "");
  ASSERT_TRUE(eventually([&] { return fired(*db, once_id).runs == 1; }, 30s)) << "the missed once-job ran; " << survivor.log();
  ASSERT_TRUE(eventually([&] {
    return scalar(*db, "SELECT count(*) FROM schedules WHERE id = ?1 AND last_skip IS NOT NULL", {skip_id}) == 1;
  }, 30s)) << "the skip job's miss was recorded";
  // Two more passes of the new leader: nothing more of either.
  const int64_t seen = fired(*db, tick).fires;
  ASSERT_TRUE(eventually([&] { return fired(*db, tick).fires >= seen + 2; }, 30s)) << survivor.log();
  Fired o = fired(*db, once_id);
  EXPECT_EQ(o.fires, 1);
  EXPECT_EQ(o.runs, 1);
  Fired s = fired(*db, skip_id);
  EXPECT_EQ(s.fires, 0);
  EXPECT_EQ(s.runs, 0);
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM schedule_fires WHERE job_id = ?1 AND node = ?2", {once_id, survivor_name}), 1);
  // The every-second job: the seconds no node led fired at most once between them (the catch-up).
  EXPECT_LE(scalar(*db, "SELECT count(*) FROM schedule_fires WHERE job_id = ?1 AND due > ?2 AND due <= ?3", {tick, last_before, took_wall}), 1);
  Fired t = fired(*db, tick);
  EXPECT_EQ(t.fires, t.runs);
  EXPECT_EQ(t.fires, t.counted);
}

// The leader frozen (SIGSTOP, as a long pause would): the other node takes the lead when the lease
// expires; the frozen one, woken, finds it has lost the lead and fires nothing more — every fire
// still has one run.
TEST_F(SchedulerNodes, AFrozenLeaderThatWakesFiresNothing) {
  auto db = open_db();
  ASSERT_TRUE(db);
  Led nodes = two_nodes_one_leading(*db);
  ASSERT_FALSE(nodes.leader_name.empty());
  Http every = nodes.other->post("/api/schedules", schedule_body("every", "1s"));
  ASSERT_EQ(every.status, 201) << every.raw;
  const std::string tick = every.body.value("id", "");
  ASSERT_TRUE(eventually([&] { return fired(*db, tick).fires >= 2; }, 60s)) << nodes.leader->log();

  kill(-nodes.leader->pid, SIGSTOP);  // the node, its Chromium and REPL workers
  const auto frozen = Clock::now();
  const double frozen_wall = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  ASSERT_TRUE(eventually([&] { return scheduler_leader(*db) == nodes.other_name; }, 60s)) << nodes.other->log();
  std::cout << "[ nodes ] scheduler takeover from a frozen leader: "
            << std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - frozen).count() << " ms\n";
  int64_t seen = fired(*db, tick).fires;
  ASSERT_TRUE(eventually([&] { return fired(*db, tick).fires >= seen + 2; }, 30s)) << nodes.other->log();
  kill(-nodes.leader->pid, SIGCONT);
  // The woken node looks at least once within a second and a half; three more fires take longer.
  seen = fired(*db, tick).fires;
  ASSERT_TRUE(eventually([&] { return fired(*db, tick).fires >= seen + 3; }, 30s)) << nodes.other->log();
  EXPECT_EQ(scheduler_leader(*db), nodes.other_name) << "the woken node did not take the lead back";
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM schedule_fires WHERE job_id = ?1 AND node = ?2 AND fired_at > ?3", {tick, nodes.leader_name, frozen_wall}), 0)
      << "the woken node fired nothing";
  Fired t = fired(*db, tick);
  EXPECT_EQ(t.fires, t.runs);
  EXPECT_EQ(t.fires, t.counted);
  EXPECT_EQ(nodes.leader->get("/api/schedules").status, 200) << "and it still answers";
}

// Two leaders at once — the old one woke from a pause after its lease expired and another took
// it: the old one's fire is refused by the lease check in its transaction, and even two nodes
// recording the same due times at once each get a due time once.
TEST_F(SchedulerNodes, TwoSchedulersNeverFireOneDueTimeTwice) {
  static_assert(store::kLeaseHold < store::kLeaseTerm, "a leader stops before its lease can be taken");
  auto x = open_db("sched-x");
  auto y = open_db("sched-y");
  ASSERT_TRUE(x && y);
  ASSERT_TRUE(store::hold_lease(*x, store::kSchedulerLease).value());
  EXPECT_FALSE(store::hold_lease(*y, store::kSchedulerLease).value()) << "held by x";
  EXPECT_TRUE(store::hold_lease(*x, store::kSchedulerLease).value()) << "renewed";
  // x pauses past its lease; y takes it.
  ASSERT_TRUE(x->with_sql([](store::Connection& c) { return c.exec("UPDATE leases SET expires_at = 0"); }));
  ASSERT_TRUE(store::hold_lease(*y, store::kSchedulerLease).value());
  EXPECT_EQ(scheduler_leader(*x), "sched-y");
  auto held = [](store::Database& db) {
    return db.with_sql([&](store::Connection& c) { return c.transaction([&] { return store::lease_held(c, db.node_id(), store::kSchedulerLease); }); });
  };
  EXPECT_FALSE(held(*x).value()) << "x woke: it does not lead";
  EXPECT_TRUE(held(*y).value());
  EXPECT_FALSE(store::hold_lease(*x, store::kSchedulerLease).value()) << "nor can it take the lead back";

  constexpr int kDues = 300;
  std::map<int64_t, int> wins;
  std::mutex m;
  auto race = [&](store::Database& db) {
    for (int64_t due = 0; due < kDues; ++due) {
      auto won = db.with_sql([&](store::Connection& c) {
        return c.transaction([&] { return store::record_fire_once(c, db.node_id(), "job", 1000000 + due); });
      });
      ASSERT_TRUE(won) << won.error().message;
      std::lock_guard lock(m);
      wins[due] += *won ? 1 : 0;
    }
  };
  std::thread tx([&] { race(*x); });
  race(*y);
  tx.join();
  ASSERT_EQ(wins.size(), static_cast<size_t>(kDues));
  for (auto& [due, n] : wins) EXPECT_EQ(n, 1) << "due " << due << " fired " << n << " times";
  ASSERT_TRUE(store::release_lease(*y, store::kSchedulerLease));
  EXPECT_EQ(scheduler_leader(*x), "");
}

// A leader frozen inside its fire's transaction holds the lease row's lock: the server ends its
// session after kLeaseHold, so the next leader waits no longer than that, and the frozen fire is
// never committed.
TEST_F(SchedulerNodes, ALeaderFrozenInsideItsFireHoldsOffTheNextOnlyBriefly) {
  auto x = open_db("sched-x");
  auto y = open_db("sched-y");
  auto setter = open_db("setter");
  ASSERT_TRUE(x && y && setter);
  ASSERT_TRUE(store::hold_lease(*x, store::kSchedulerLease).value());
  std::promise<bool> locked;
  std::promise<void> wake;
  Result<void> committed;
  std::thread frozen([&] {
    committed = x->with_sql([&](store::Connection& c) -> Result<void> {
      TRY(c.begin());
      auto held = store::lease_held(c, x->node_id(), store::kSchedulerLease);
      locked.set_value(held && *held);
      wake.get_future().wait();  // frozen here, its transaction open
      TRY(store::record_fire_once(c, x->node_id(), "frozen-job", 42));
      return c.commit();
    });
  });
  ASSERT_TRUE(locked.get_future().get()) << "x led when it froze";
  const auto t0 = Clock::now();
  // x's lease is made to run out now; the change waits for x's lock to go.
  ASSERT_TRUE(setter->with_sql([](store::Connection& c) { return c.exec("UPDATE leases SET expires_at = 0"); }));
  ASSERT_TRUE(store::hold_lease(*y, store::kSchedulerLease).value());
  const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
  wake.set_value();
  frozen.join();
  EXPECT_FALSE(committed) << "the frozen fire was not committed";
  std::cout << "[ nodes ] a leader frozen in its transaction held the next one off for " << waited << " ms\n";
  EXPECT_LT(waited, (store::kLeaseHold + 3s).count());
  EXPECT_EQ(scalar(*setter, "SELECT count(*) FROM schedule_fires WHERE job_id = 'frozen-job'", {}), 0);
  EXPECT_EQ(scheduler_leader(*setter), "sched-y");
}

// A conversation on PostgreSQL goes on at once from another process: the finished run is no
// node's (the first `ouro run`'s hold does not outlive its turn).
TEST_F(Nodes, AConversationContinuesAtOnceFromAnotherProcess) {
  std::string data = temp_dir();
  std::string env = "OURO_DATABASE='" + url + "'";
  auto first = ouro_shell(data, "run 'Note the total' --context clean --provider script:" +
                                    script_file({{{"text", repl_reply("env.total = 41;\nsetFinal('noted')")}}}), "", env);
  ASSERT_EQ(first.code, 0) << first.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(first.err, m, std::regex("run (r[0-9a-z]{10}) · follow up with"))) << first.err;
  std::string id = m[1];
  auto second = ouro_shell(data, "run 'Add one to it' --continue " + id + " --provider script:" +
                                     script_file({{{"text", repl_reply("setFinal(env.total + 1)")}}}), "", env);
  EXPECT_EQ(second.code, 0) << second.err;
  EXPECT_EQ(second.out, "42\n") << second.err;
  auto db = open_db();
  ASSERT_TRUE(db);
  expect_one_clean_sequence_of_turns(*db, id, 2);
}

// --- The database restarts or hangs under the nodes (store/sql.h: deadlines and reconnection) ------

// Three nodes on a cluster of their own (the test stops it), runs in flight on all of them.
class NodesWhenTheDatabaseFails : public Nodes {
 protected:
  void SetUp() override {
    if (auto why = engine_unavailable(store::Engine::Postgres); !why.empty()) GTEST_SKIP() << why;
    auto started = PostgresServer::start();
    ASSERT_TRUE(started) << started.error().message;
    cluster = std::move(*started);
    auto made = cluster->create_database();
    ASSERT_TRUE(made) << made.error().message;
    url = *made;
  }

  // `fault` takes the database away for 10 s and `heal` brings it back; then every node is ready
  // again within 15 s of the database, and every run is done once with one gap-free sequence.
  void survive(const std::function<void()>& fault, const std::function<void()>& heal) {
    std::vector<std::unique_ptr<ServeProcess>> nodes;
    for (const char* n : {"node-a", "node-b", "node-c"}) nodes.push_back(node(n));
    for (auto& n : nodes) ASSERT_FALSE(n->base.empty());
    std::string script = script_file({
        {{"text", repl_reply("env.n = 1;\n'one'")}},
        {{"delay_ms", 500}, {"text", repl_reply("env.n += 1;\n'two'")}},
        {{"delay_ms", 500}, {"text", repl_reply("env.n += 1;\n'three'")}},
        {{"delay_ms", 500}, {"text", repl_reply("env.n += 1;\n'four'")}},
        {{"delay_ms", 500}, {"text", repl_reply("setFinal({n: env.n + 1})")}},
    });
    std::vector<std::string> ids;
    for (int i = 0; i < 6; ++i) {
      Http created = nodes[i % 3]->post("/api/runs", run_body(script, i));
      ASSERT_EQ(created.status / 100, 2) << created.raw;
      ids.push_back(created.body.value("id", ""));
    }
    // The fault lands while runs work: once one has a checkpoint.
    auto db = open_db();
    ASSERT_TRUE(db);
    bool working = false;
    for (auto deadline = Clock::now() + 60s; !working && Clock::now() < deadline;) {
      for (const auto& id : ids) {
        auto ev = db->events(id, 0);
        working = working || (ev && std::any_of(ev->begin(), ev->end(), [](const auto& e) { return e.type == "checkpoint"; }));
      }
      if (!working) std::this_thread::sleep_for(50ms);
    }
    ASSERT_TRUE(working) << "no run reached a checkpoint";
    db.reset();
    fault();
    std::this_thread::sleep_for(10s);  // the outage itself, not an ordering
    for (auto& n : nodes) EXPECT_EQ(n->get("/readyz").status, 503) << "not ready while the database is away";
    heal();
    auto back = Clock::now();
    long slowest_ms = 0;
    for (auto& n : nodes) {
      while (n->get("/readyz").status != 200 && Clock::now() - back < 15s) std::this_thread::sleep_for(100ms);
      long ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - back).count();
      ASSERT_LT(ms, 15000) << "a node was not ready 15 s after the database came back: " << n->log();
      slowest_ms = std::max(slowest_ms, ms);
    }
    db = open_db();
    ASSERT_TRUE(db);
    for (const auto& id : ids) {
      json done = nodes[1]->wait_state(id, {"done", "failed", "partial", "cancelled", "interrupted"}, 120s);
      ASSERT_EQ(done.value("state", ""), "done") << id << ": " << done.dump() << "\n" << nodes[0]->log() << nodes[1]->log() << nodes[2]->log();
      EXPECT_EQ(done["final"], json({{"n", 5}})) << id;
      EXPECT_FALSE(done.value("node", "").empty()) << "the run says which node holds it";
      expect_one_clean_sequence(*db, id);
    }
    // Each node logged the lost listening connection once, not every try.
    for (auto& n : nodes) {
      std::string log = n->log();
      size_t count = 0;
      for (size_t at = log.find("cannot listen"); at != std::string::npos; at = log.find("cannot listen", at + 1)) ++count;
      EXPECT_LE(count, 2u) << log;
    }
    std::cout << "[ nodes ] every node ready " << slowest_ms << " ms after the database came back; 6 runs done once\n";
  }
  std::unique_ptr<PostgresServer> cluster;
};

TEST_F(NodesWhenTheDatabaseFails, AServerRestartLosesNoRunAndEveryNodeIsReadyAgain) {
  survive([&] { ASSERT_TRUE(cluster->stop()); }, [&] { ASSERT_TRUE(cluster->start_again()); });
}

TEST_F(NodesWhenTheDatabaseFails, AHungServerLosesNoRunAndEveryNodeIsReadyAgain) {
  survive([&] { ASSERT_TRUE(cluster->pause()); }, [&] { ASSERT_TRUE(cluster->resume()); });
}

// Metrics a cluster can add up: the cluster-wide run counts come from one node only, so their
// sum over the nodes is the database's count for every state.
TEST_F(Nodes, MetricsSummedOverTheNodesEqualTheDatabasesCounts) {
  std::vector<std::unique_ptr<ServeProcess>> nodes;
  for (const char* n : {"node-a", "node-b", "node-c"}) nodes.push_back(node(n));
  for (auto& n : nodes) ASSERT_FALSE(n->base.empty());
  std::string script = script_file({{{"text", repl_reply("setFinal({n: 1})")}}});
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i) {
    Http created = nodes[i % 3]->post("/api/runs", run_body(script, i));
    ASSERT_EQ(created.status / 100, 2) << created.raw;
    ids.push_back(created.body.value("id", ""));
  }
  for (const auto& id : ids) ASSERT_EQ(nodes[0]->wait_state(id, {"done", "failed"}).value("state", ""), "done");
  auto db = open_db();
  ASSERT_TRUE(db);
  auto counts = db->count_runs_by_state();
  ASSERT_TRUE(counts) << counts.error().message;
  // A leader exists within the lease's term; until then no node reports.
  std::map<std::string, double> sum;
  int reporters = 0;
  for (auto deadline = Clock::now() + 20s; reporters != 1 && Clock::now() < deadline;) {
    sum.clear();
    reporters = 0;
    for (auto& n : nodes) {
      Http m = request("GET", n->base + "/metrics", n->token);
      ASSERT_EQ(m.status, 200) << m.raw;
      std::istringstream lines(m.raw);
      for (std::string line; std::getline(lines, line);) {
        if (line.empty() || line[0] == '#') continue;
        size_t space = line.rfind(' ');
        sum[line.substr(0, space)] += std::stod(line.substr(space + 1));
      }
    }
    reporters = static_cast<int>(sum["ouro_cluster_reporter"]);
    if (reporters != 1) std::this_thread::sleep_for(200ms);
  }
  ASSERT_EQ(reporters, 1) << "exactly one node exports the cluster-wide figures";
  for (const char* st : {"queued", "running", "awaiting_user", "done", "partial", "failed", "cancelled", "interrupted"}) {
    double expected = counts->count(st) ? static_cast<double>(counts->at(st)) : 0;
    EXPECT_EQ(sum[std::string("ouro_runs{state=\"") + st + "\"}"], expected) << st;
  }
  EXPECT_EQ(sum["ouro_database_up"], 3);
  EXPECT_EQ(sum["ouro_run_queue_depth"], 0);
  EXPECT_EQ(sum["ouro_run_queue_wait_seconds_count"], 5) << "every run's wait for a place, observed once, on the node that ran it";
}

}  // namespace
}  // namespace ouro::testing
