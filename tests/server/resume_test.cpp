// Runs that survive a crash: `ouro serve` is killed with SIGKILL (with its Chromium and
// REPL worker: the whole process group, as a power cut would) in the middle of a scripted run,
// started again on the same data directory, and the run — shown as interrupted — is resumed. It
// must end with the final a run without the crash gives, its env (Map, Set, Date) and its site
// login (cookies of its own browser context) restored, its tab reopened, and its events one
// gap-free sequence. The stored checkpoint must equal the state its events give.
#include "serve_process.h"

#include "runs/resume.h"
#include "store/database.h"
#include "store/run_state.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <thread>

namespace ouro::testing {
namespace {

using namespace std::chrono_literals;

using Server = ServeProcess;

bool has_checkpoint(const std::vector<json>& events, int iteration) {
  return std::any_of(events.begin(), events.end(), [&](const json& e) { return e["type"] == "checkpoint" && e["data"].value("iteration", -1) == iteration; });
}

// Four iterations; the later model answers take a while, so a kill lands inside an iteration. The
// first reads a page that tells an assistant what to write; the last would write it on another
// site (localhost): refused, after a resume too, since the labels come back with the checkpoint.
// Model answers 2, 3 and 4 wait (up to two minutes) for the files `hold`1, `hold`2 and `hold`3 to
// exist: a test holds the run just after the checkpoint of iteration k by leaving file k out, kills
// it there on any machine, and lets it go on by making the files (Holds below). Without `hold`,
// each comes 600 ms late.
struct Holds {
  std::string prefix;
  explicit Holds(std::string p) : prefix(std::move(p)) { held_from(1); }
  // Answers 1..k-1 come at once; answer k and after wait.
  void held_from(int k) const {
    for (int i = 1; i <= 3; ++i) {
      std::string f = prefix + std::to_string(i);
      if (i < k) std::ofstream(f) << "go";
      else std::filesystem::remove(f);
    }
  }
  void release() const { held_from(4); }
};

// Model answer n+1 (see Holds): its text, late.
json late(const std::string& hold, int n, std::string text) {
  json j = hold.empty() ? json{{"delay_ms", 600}} : json{{"delay_ms", 120000}, {"until_file", hold + std::to_string(n)}};
  j["text"] = std::move(text);
  return j;
}

std::string resumable_script(const std::string& hold = "") {
  std::string form = site().url("/form");
  form.replace(form.find("127.0.0.1"), 9, "localhost");
  return script_file({
      {{"text", repl_reply("env.seen = new Map([['first', tabs.length]]);\nenv.tags = new Set(['a', 'b']);\nenv.at = new Date(86400000);\n"
                           "env.count = 1;\nenv.format = (n) => String(n);\nawait addGoal('Count to three');\n"
                           "await navigate(activeTab, " + json(site().url("/injected")).dump() + ");\n"
                           "env.acct = (await getText(activeTab, '#note')).match(/DE[0-9 ]+[0-9]/)[0];\n"
                           "await navigate(activeTab, " + json(site().url("/cookies")).dump() + ");\n'started'")}},
      late(hold, 1, repl_reply("env.count += 1;\nenv.seen.set('second', 2);\nenv.tags.add('c');\nawait updateGoal('g1', {note: 'two so far'});\n"
                               "await execInTab(activeTab, \"localStorage.setItem('basket', '3 items')\");\n'second'")),
      late(hold, 2, repl_reply("env.count += 1;\nawait navigate(activeTab, " + json(site().url("/account")).dump() + ");\n'third'")),
      late(hold, 3,
           repl_reply("const text = await getText(activeTab);\nconst home = activeTab;\n"
                           "let wrote; try { const f = await openTab(" + json(form).dump() + "); await type(f, '#name', env.acct); wrote = 'written' }\n"
                           "catch (e) { wrote = /came from a page of another site/.test(e.message) ? 'refused: from another site' : 'refused otherwise' }\n"
                           "setFinal({count: env.count, isMap: env.seen instanceof Map, seen: [...env.seen.entries()],\n"
                           "  tags: env.tags instanceof Set ? [...env.tags] : null, at: env.at instanceof Date ? env.at.toISOString() : null,\n"
                           "  signedIn: /signed in|welcome/i.test(text), cart: await execInTab(home, \"localStorage.getItem('basket')\"),\n"
                           "  goals: (await listGoals()).map(g => g.id + ':' + g.status + ':' + (g.note || '')), wrote})")),
  });
}

json start_run(Server& s, const std::string& script) {
  return s.post("/api/runs", {{"task", "Count, sign in and report"},
                              {"urls", {site().url("/")}},
                              {"options", {{"provider", "script:" + script}, {"context", "clean"}, {"mode", "autonomous"}, {"allowed_domains", {"localhost"}}}}})
      .body;
}

void expect_gap_free(const std::vector<json>& events) {
  for (size_t i = 0; i < events.size(); ++i) ASSERT_EQ(events[i].value("seq", 0), static_cast<int64_t>(i + 1)) << "event " << i << " of " << events.size();
}

// The final of the run without a crash, through `ouro serve` on dir.
json uninterrupted_final(const std::string& dir, const std::string& script) {
  Server s(dir);
  EXPECT_FALSE(s.base.empty()) << "ouro serve did not start";
  std::string id = start_run(s, script).value("id", "");
  json done = s.wait_state(id, {"done", "failed", "partial"});
  EXPECT_EQ(done.value("state", ""), "done") << done.dump();
  return done["final"];
}

TEST(Resume, AKilledServerResumesTheRunToTheSameFinal) {
  std::string dir = temp_dir();
  const Holds holds(dir + "/hold");
  std::string script = resumable_script(holds.prefix);
  holds.release();
  const json expected = uninterrupted_final(dir, script);
  ASSERT_FALSE(HasFailure());
  EXPECT_EQ(expected["count"], 3);
  EXPECT_EQ(expected["isMap"], true);
  EXPECT_EQ(expected["signedIn"], true) << "the fixture's login works at all";
  EXPECT_EQ(expected["cart"], "3 items") << "the page's localStorage";
  EXPECT_EQ(expected["goals"], json::array({"g1:open:two so far"})) << "the goals the run kept";
  EXPECT_EQ(expected["wrote"], "refused: from another site") << "a page's account number is not written on another site";
  // Killed at three points: after the checkpoint of iteration 1, 2 and 3, each time inside the
  // next iteration's model call (held there until the kill).
  for (int after : {1, 2, 3}) {
    SCOPED_TRACE("killed after the checkpoint of iteration " + std::to_string(after));
    std::string id;
    holds.held_from(after);
    {
      Server s(dir);
      ASSERT_FALSE(s.base.empty());
      id = start_run(s, script).value("id", "");
      ASSERT_FALSE(id.empty());
      ASSERT_TRUE(s.wait_events(id, [&](const auto& ev) { return has_checkpoint(ev, after); })) << "no checkpoint of iteration " << after;
      s.kill9();
    }
    holds.release();
    Server s(dir);
    ASSERT_FALSE(s.base.empty());
    json row = s.get("/api/runs/" + id).body;
    EXPECT_EQ(row.value("state", ""), "interrupted") << row.dump();
    Http resumed = s.post("/api/runs/" + id + "/resume", json::object());
    ASSERT_EQ(resumed.status / 100, 2) << resumed.raw;
    EXPECT_GE(resumed.body.value("fromIteration", 0), after + 1);
    json done = s.wait_state(id, {"done", "failed", "partial", "interrupted"});
    ASSERT_EQ(done.value("state", ""), "done") << done.dump();
    EXPECT_EQ(done["final"], expected) << "the same final as the run without a crash";
    auto events = s.events(id);
    expect_gap_free(events);
    EXPECT_EQ(std::count_if(events.begin(), events.end(), [](const json& e) { return e["type"] == "resumed"; }), 1);
    for (const auto& e : events) {
      if (e["type"] == "resumed") {
        EXPECT_NE(e["data"].value("note", "").find("env.format"), std::string::npos) << "the model is told a function was lost: " << e.dump();
      }
    }
    EXPECT_EQ(std::count_if(events.begin(), events.end(), [](const json& e) { return e["type"] == "complete"; }), 1);
    EXPECT_EQ(done.value("iterations", 0), 4) << "iterations count the whole run";
    // A finished run is not resumed again.
    EXPECT_EQ(s.post("/api/runs/" + id + "/resume", json::object()).status, 409);
    // The resumed turn was the conversation's first: a follow-up is its second, not a third.
    Http next = s.post("/api/runs/" + id + "/messages", {{"text", "And now?"}});
    ASSERT_EQ(next.status / 100, 2) << next.raw;
    EXPECT_EQ(next.body.value("turn", 0), 2) << next.raw;
  }
}

TEST(Resume, TheCheckpointIsTheStateItsEventsGive) {
  std::string dir = temp_dir();
  std::string id;
  {
    Server s(dir);
    ASSERT_FALSE(s.base.empty());
    id = start_run(s, resumable_script()).value("id", "");
    ASSERT_TRUE(s.wait_events(id, [&](const auto& ev) { return has_checkpoint(ev, 3); }));
    s.kill9();
  }
  auto db = store::Database::open(dir + "/ouro.db");
  ASSERT_TRUE(db) << db.error().message;
  auto saved = store::load_run_checkpoint(**db, id);
  ASSERT_TRUE(saved && *saved) << "a checkpoint is stored";
  auto rebuilt = runs::rebuild_state(**db, id, "Count, sign in and report", /*up_to_checkpoint=*/3);
  ASSERT_TRUE(rebuilt) << rebuilt.error().message;
  EXPECT_EQ(dump_json(agent::checkpoint_json(*rebuilt)), (*saved)->state) << "the events alone give the checkpoint's state";
  json state = parse_json((*saved)->state).value_or(json());
  EXPECT_EQ(state["lastIteration"], 3);
  EXPECT_EQ(state["history"].size(), 3u);
  EXPECT_FALSE(state["tabs"].empty());
  EXPECT_NE((*saved)->cookies.find("abc123"), std::string::npos) << "the run's own context's cookies are kept with it";
  EXPECT_NE((*saved)->storage.find("3 items"), std::string::npos) << "and its pages' localStorage: " << (*saved)->storage;
  // …and never in an event.
  auto events = (*db)->events(id, 0);
  ASSERT_TRUE(events);
  for (const auto& e : *events) EXPECT_EQ(e.data.find("abc123"), std::string::npos) << e.type;
}

TEST(Resume, OnlyInterruptedRunsAreResumedAndUnknownOnesAreNamed) {
  std::string dir = temp_dir();
  Server s(dir);
  ASSERT_FALSE(s.base.empty());
  EXPECT_EQ(s.post("/api/runs/rnothere00/resume", json::object()).status, 404);
  std::string script = script_file({{{"text", repl_reply("setFinal('quick')")}}});
  std::string id = s.post("/api/runs", {{"task", "Be quick"}, {"options", {{"provider", "script:" + script}}}}).body.value("id", "");
  EXPECT_EQ(s.wait_state(id, {"done"}).value("state", ""), "done");
  Http again = s.post("/api/runs/" + id + "/resume", json::object());
  EXPECT_EQ(again.status, 409);
  EXPECT_NE(again.raw.find("only an interrupted run"), std::string::npos) << again.raw;
}

// `ouro run` itself: killed (its whole process group) after a checkpoint, then `ouro run
// --resume ID` finishes the run with the final an uninterrupted `ouro run` prints.
std::vector<std::string> run_args(const std::string& script, const std::string& trace) {
  return {"run", "Count, sign in and report", "--provider", "script:" + script, "--url", site().url("/"), "--context", "clean",
          "--mode", "autonomous", "--json", "--trace", trace};
}

TEST(Resume, OuroRunKilledMidRunIsResumedByItsId) {
  std::string dir = temp_dir();
  const Holds holds(dir + "/hold");
  std::string script = resumable_script(holds.prefix);
  holds.release();
  Exited plain = wait_ouro(spawn_ouro(dir, run_args(script, dir + "/plain.jsonl"), dir + "/plain.out"), dir + "/plain.out");
  ASSERT_EQ(plain.code, 0) << plain.out;
  json expected = parse_json(plain.out).value_or(json())["final"];
  ASSERT_EQ(expected.value("count", 0), 3) << plain.out;

  std::string trace = dir + "/killed.jsonl";
  holds.held_from(2);  // held in iteration 3's model call, after iteration 2's checkpoint
  pid_t pid = spawn_ouro(dir, run_args(script, trace), dir + "/killed.out");
  bool checkpointed = false;
  for (int i = 0; i < 1800 && !checkpointed; ++i) {
    std::ifstream in(trace);
    std::string line;
    while (std::getline(in, line))
      if (line.find("\"type\":\"checkpoint\"") != std::string::npos && line.find("\"iteration\":2") != std::string::npos) checkpointed = true;
    if (!checkpointed) std::this_thread::sleep_for(50ms);
  }
  ASSERT_TRUE(checkpointed) << "no checkpoint of iteration 2 in the trace";
  kill(-pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  holds.release();

  // The killed run is the newest in the database, still marked running (nothing marked it).
  std::string id;
  {
    auto db = store::Database::open(dir + "/ouro.db");
    ASSERT_TRUE(db);
    auto runs = (*db)->list_runs(1);
    ASSERT_TRUE(runs && !runs->empty());
    id = runs->front().id;
    EXPECT_EQ(runs->front().state, runs::State::Running);
  }
  Exited resumed = wait_ouro(spawn_ouro(dir, {"run", "--resume", id, "--provider", "script:" + script, "--mode", "autonomous", "--json"},
                                        dir + "/resumed.out"),
                             dir + "/resumed.out");
  ASSERT_EQ(resumed.code, 0) << resumed.out;
  json got = parse_json(resumed.out).value_or(json());
  EXPECT_EQ(got["final"], expected) << "the same final as the run without the kill";
  EXPECT_EQ(got.value("iterations", 0), 4) << "iterations count the whole run, the checkpoint's included";
  // A finished run is not resumed again, and a task with --resume is refused.
  Exited again = wait_ouro(spawn_ouro(dir, {"run", "--resume", id, "--provider", "script:" + script}, dir + "/again.out"), dir + "/again.out");
  EXPECT_NE(again.code, 0);
}

// MCP's browser_task is a run like any other: stored as it works, listed by the runs API once
// the `ouro mcp` that ran it was killed (the client's agent gone with it), and resumed there to
// the final an uninterrupted run gives.
TEST(Resume, AnMcpTaskKilledMidRunIsListedAndResumedLikeAnyRun) {
  std::string dir = temp_dir();
  const Holds holds(dir + "/hold");
  std::string script = resumable_script(holds.prefix);
  holds.release();
  const json expected = uninterrupted_final(dir, script);
  ASSERT_FALSE(HasFailure());
  holds.held_from(2);  // held in iteration 3's model call
  int in[2];
  ASSERT_EQ(pipe2(in, O_CLOEXEC), 0);
  const std::string out = dir + "/mcp.out";
  pid_t pid = spawn_ouro(dir, {"mcp", "--provider", "script:" + script}, out, {}, in[0]);
  close(in[0]);
  auto send = [&](const json& m) {
    std::string line = m.dump() + "\n";
    return write(in[1], line.data(), line.size()) == static_cast<ssize_t>(line.size());
  };
  ASSERT_TRUE(send({{"jsonrpc", "2.0"}, {"id", 0}, {"method", "initialize"},
                    {"params", {{"protocolVersion", "2025-06-18"}, {"capabilities", json::object()}, {"clientInfo", {{"name", "killed"}, {"version", "0"}}}}}}));
  ASSERT_TRUE(send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}));
  ASSERT_TRUE(send({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"},
                    {"params", {{"name", "browser_task"}, {"_meta", {{"progressToken", "p"}}},
                                {"arguments", {{"task", "Count, sign in and report"}, {"urls", {site().url("/")}},
                                               {"options", {{"provider", "script:" + script}, {"mode", "autonomous"}, {"allowed_domains", {"localhost"}}}}}}}}}));
  // Iteration 3 starts once iteration 2's checkpoint is stored: killed inside its model call.
  bool third = false;
  for (int i = 0; i < 1800 && !third; ++i) {
    std::ifstream o(out);
    std::string line;
    while (std::getline(o, line))
      if (auto m = parse_json(line); m && m->value("method", "") == "notifications/progress" && (*m)["params"].value("progress", 0.0) == 2.5) third = true;
    if (!third) std::this_thread::sleep_for(50ms);
  }
  ASSERT_TRUE(third) << "browser_task never started its third iteration";
  kill(-pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  close(in[1]);
  holds.release();

  Server s(dir);
  ASSERT_FALSE(s.base.empty());
  json listed;
  for (const auto& r : s.get("/api/runs").body)
    if (r.value("task", "") == "Count, sign in and report" && r.value("state", "") != "done") listed = r;
  ASSERT_TRUE(listed.is_object()) << "the MCP task's run is not listed: " << s.get("/api/runs").raw;
  EXPECT_EQ(listed.value("state", ""), "interrupted") << listed.dump();
  const std::string id = listed.value("id", "");
  Http resumed = s.post("/api/runs/" + id + "/resume", json::object());
  ASSERT_EQ(resumed.status / 100, 2) << resumed.raw;
  EXPECT_GE(resumed.body.value("fromIteration", 0), 3);
  json done = s.wait_state(id, {"done", "failed", "partial", "interrupted"});
  ASSERT_EQ(done.value("state", ""), "done") << done.dump();
  EXPECT_EQ(done["final"], expected) << "the same final as the run without the kill";
  expect_gap_free(s.events(id));
}

}  // namespace
}  // namespace ouro::testing
