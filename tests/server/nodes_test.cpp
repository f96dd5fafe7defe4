// Several `ouro serve` nodes on one real PostgreSQL (docs/guides/postgresql.md, "Several nodes"):
// runs created through any node wait in one queue and each is executed by exactly one node; a
// node killed with SIGKILL, or frozen past the dead-node time, loses no run (another takes its
// runs over from their last checkpoint, one gap-free event sequence each, none executed twice);
// events stream and questions are answered through a node other than the one executing the run;
// two nodes racing for the same queued runs never take one twice; the database refuses what a
// node writes to a run another holds.
#include "postgres_server.h"
#include "serve_process.h"

#include "net/io.h"
#include "store/nodes.h"

#include <gtest/gtest.h>

#include <signal.h>

#include <map>
#include <set>
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
                                                             {"OURO_DATABASE", url}, {"OURO_NODE_ID", name}, {"OURO_MAX_RUNS", std::to_string(places)}});
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
  // node-a is killed once it holds runs in the middle of their work.
  std::set<std::string> killed_runs;
  auto deadline = Clock::now() + 60s;
  while (killed_runs.empty() && Clock::now() < deadline) {
    for (const auto& id : ids) {
      auto row = db->get_run(id);
      if (row && *row && (*row)->state == "running" && owner_of(*db, id) == "node-a") {
        auto ev = db->events(id, 0);
        bool checkpointed = ev && std::any_of(ev->begin(), ev->end(), [](const auto& e) { return e.type == "checkpoint"; });
        if (checkpointed) killed_runs.insert(id);
      }
    }
    if (killed_runs.empty()) std::this_thread::sleep_for(50ms);
  }
  ASSERT_FALSE(killed_runs.empty()) << "node-a never held a run in the middle of its work";
  nodes[0]->kill9();
  auto killed_at = Clock::now();
  for (const auto& id : ids) {
    if (auto row = db->get_run(id); row && *row && owner_of(*db, id) == "node-a" && (*row)->state != "done") killed_runs.insert(id);
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
  std::string script = script_file({
      {{"text", repl_reply("env.n = 1;\n'one'")}},
      {{"delay_ms", 4000}, {"text", repl_reply("env.n += 1;\n'two'")}},
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
  ASSERT_TRUE(b->wait_events(id, [](const auto& ev) {
    return std::any_of(ev.begin(), ev.end(), [](const json& e) { return e["type"] == "resumed"; });
  }, 60s));
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
  std::string script = script_file({
      {{"text", repl_reply("env.n = 1;\n'one'")}},
      {{"delay_ms", 4000}, {"text", repl_reply("env.n += 1;\n'two'")}},
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
  ASSERT_TRUE(b->wait_events(id, [](const auto& ev) {
    return std::any_of(ev.begin(), ev.end(), [](const json& e) { return e["type"] == "resumed"; });
  }, 60s));
  kill(-a->pid, SIGCONT);
  json done = b->wait_state(id, {"done", "failed", "partial", "cancelled"});
  EXPECT_EQ(done.value("state", ""), "done") << done.dump();
  EXPECT_EQ(done["final"], json({{"n", 3}}));
  std::this_thread::sleep_for(1500ms);  // what the woken node might still write would show now
  expect_one_clean_sequence(*db, id);
  EXPECT_EQ(owner_of(*db, id), "node-b");
  EXPECT_EQ(db->get_run(id).value()->state, "done") << "the woken node did not change the run it lost";
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
    r.state = "queued";
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
  r.state = "running";
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
  r.state = "cancelled";
  auto updated = a->update_run(r);
  ASSERT_FALSE(updated);
  EXPECT_EQ(updated.error().code, Code::FailedPrecondition) << updated.error().message;
  EXPECT_TRUE(b->append_event("fenced", 2, "iteration", "{}", 2));
  EXPECT_EQ(b->get_run("fenced").value()->state, "running");
  // Taken once: a second look finds nothing (b is alive and holds it).
  EXPECT_TRUE(store::take_over(*a, 5, {}).value().empty());
}

}  // namespace
}  // namespace ouro::testing
