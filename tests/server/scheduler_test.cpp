// The scheduler in daemon mode, end to end: a real `ouro serve` process (started, stopped and
// started again on one data directory) with a scripted model. Jobs fire on time — also across a
// restart — and their runs are ordinary runs with their history, the second seeing the first's
// final through previousFinal(); a once-job that fell due while the server was down runs once at
// start under run-once and not under skip; a job whose run outlasts its interval does not start
// a second one; `ouro schedule add/list/remove/run-now` work through the real binary. Intervals
// are seconds (OURO_SCHEDULE_MIN_INTERVAL_S, for tests), and every wait polls a state with a deadline.
#include "serve_process.h"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <thread>

namespace ouro::testing {
namespace {

using namespace std::chrono_literals;

int64_t now_s() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// `ouro serve` (tests/support/serve_process.h) with the tests' interval floor, and what these
// tests ask of it.
struct Serve : ServeProcess {
  explicit Serve(std::string data_dir) : ServeProcess(std::move(data_dir), {{"OURO_SCHEDULE_MIN_INTERVAL_S", "1"}}) {}
  json schedule(const std::string& id) {
    Http r = get("/api/schedules");
    if (r.body.is_array())
      for (const auto& j : r.body)
        if (j.value("id", "") == id) return j;
    return json();
  }
  // The runs a schedule started, oldest first.
  std::vector<json> runs_of(const std::string& schedule_id) {
    std::vector<json> out;
    Http r = get("/api/runs");
    if (r.body.is_array())
      for (const auto& run : r.body)
        if (get_str(get_field(run, "options"), "schedule") == schedule_id) out.insert(out.begin(), run);
    std::sort(out.begin(), out.end(), [](const json& a, const json& b) { return get_num(a, "created_at") < get_num(b, "created_at"); });
    return out;
  }
};

// Polls pred until it holds or the deadline passes.
bool eventually(const std::function<bool()>& pred, std::chrono::seconds t = 60s) {
  for (auto until = std::chrono::steady_clock::now() + t; std::chrono::steady_clock::now() < until; std::this_thread::sleep_for(100ms))
    if (pred()) return true;
  return pred();
}

bool finished(const json& run) {
  std::string s = get_str(run, "state");
  return s == "done" || s == "partial" || s == "failed" || s == "cancelled";
}

Exited ouro(const std::string& dir, const std::vector<std::string>& args) {
  return wait_ouro(spawn_ouro(dir, args, dir + "/cli-out.txt", {{"OURO_SCHEDULE_MIN_INTERVAL_S", "1"}}), dir + "/cli-out.txt");
}

// A model that counts: each run's final is one more than its previous run's.
std::string counting_script() {
  return script_file({{{"text", repl_reply("const prev = await previousFinal();\n"
                                           "setFinal({n: (prev && prev.n ? prev.n : 0) + 1, prev})")}}});
}

json run_options(const std::string& script) { return json{{"provider", "script:" + script}, {"context", "clean"}}; }

TEST(Schedule, AnIntervalJobRunsOrdinaryRunsThatSeeThePreviousFinal) {
  std::string dir = temp_dir();
  Serve s(dir);
  ASSERT_FALSE(s.base.empty()) << "ouro serve did not start: " << s.log();
  Http created = s.post("/api/schedules", {{"task", "Count the runs"}, {"every", "2s"}, {"options", run_options(counting_script())}});
  ASSERT_EQ(created.status, 201) << created.raw;
  std::string id = created.body.value("id", "");
  ASSERT_EQ(created.body["timing"]["kind"], "every");
  ASSERT_EQ(created.body["upcoming"].size(), 3u);
  const int64_t first_due = created.body.value("next_fire", int64_t{0});

  std::vector<json> runs;
  ASSERT_TRUE(eventually([&] {
    runs = s.runs_of(id);
    return runs.size() >= 2 && finished(runs[0]) && finished(runs[1]);
  })) << "two runs of the schedule finish; " << s.schedule(id).dump() << "\n" << s.log();
  // On time: not before it was due, and within the scheduler's look.
  EXPECT_GE(get_num(runs[0], "created_at"), first_due * 1000.0);
  EXPECT_LE(get_num(runs[0], "created_at"), first_due * 1000.0 + 3000);
  EXPECT_EQ(runs[0]["state"], "done") << runs[0].dump();
  EXPECT_EQ(runs[0]["task"], "Count the runs");
  EXPECT_EQ(runs[0]["final"]["n"], 1);
  EXPECT_TRUE(runs[0]["final"]["prev"].is_null()) << "the first run has no previous final";
  EXPECT_EQ(runs[1]["state"], "done") << runs[1].dump();
  EXPECT_EQ(runs[1]["final"]["n"], 2) << "the second run saw the first's final: " << runs[1].dump();
  EXPECT_EQ(runs[1]["final"]["prev"]["n"], 1);
  // Ordinary runs: their events are in the history like any run's.
  Http events = s.get("/api/runs/" + runs[1].value("id", "") + "/events");
  ASSERT_TRUE(events.body.is_array());
  EXPECT_TRUE(std::any_of(events.body.begin(), events.body.end(), [](const json& e) { return e["type"] == "complete"; }));
  json job = s.schedule(id);
  EXPECT_GE(job.value("runs", 0), 2);
  EXPECT_FALSE(job["last_run_id"].is_null());

  // Removed, it starts nothing more.
  EXPECT_EQ(s.del("/api/schedules/" + id).status, 200);
  EXPECT_EQ(s.del("/api/schedules/" + id).status, 404);
  EXPECT_TRUE(s.schedule(id).is_null());
}

TEST(Schedule, TheApiChecksWhatItIsGiven) {
  std::string dir = temp_dir();
  Serve s(dir);
  ASSERT_FALSE(s.base.empty());
  auto error_of = [&](const json& body) {
    Http r = s.post("/api/schedules", body);
    EXPECT_EQ(r.status, 400) << r.raw;
    return r.raw;
  };
  EXPECT_NE(error_of({{"every", "1h"}}).find("task is missing"), std::string::npos);
  EXPECT_NE(error_of({{"task", 5}, {"every", "1h"}}).find("task must be a string"), std::string::npos);
  EXPECT_NE(error_of({{"task", "t"}}).find("exactly one of at, every and cron"), std::string::npos);
  EXPECT_NE(error_of({{"task", "t"}, {"every", "1h"}, {"cron", "* * * * *"}}).find("exactly one"), std::string::npos);
  EXPECT_NE(error_of({{"task", "t"}, {"every", 3600}}).find("every must be a string"), std::string::npos);
  EXPECT_NE(error_of({{"task", "t"}, {"cron", "61 * * * *"}}).find("minute"), std::string::npos);
  EXPECT_NE(error_of({{"task", "t"}, {"every", "1h"}, {"urls", "https://a.example"}}).find("urls must be a list"), std::string::npos);
  EXPECT_NE(error_of({{"task", "t"}, {"every", "1h"}, {"urls", {1}}}).find("urls[0] must be a string"), std::string::npos);
  EXPECT_NE(error_of({{"task", "t"}, {"every", "1h"}, {"options", {{"max_iterations", "many"}}}}).find("options.max_iterations"), std::string::npos);
  EXPECT_NE(error_of({{"task", "t"}, {"every", "1h"}, {"tz", "Nowhere/Land"}}).find("time zone"), std::string::npos);
  EXPECT_NE(error_of({{"task", "t"}, {"every", "1h"}, {"missed", "maybe"}}).find("missed must be"), std::string::npos);
  EXPECT_NE(error_of({{"task", "t"}, {"every", "1h"}, {"colour", "red"}}).find("unknown field 'colour'"), std::string::npos);
  EXPECT_NE(error_of({{"task", "t"}, {"at", "2020-01-01 08:00"}}).find("at:"), std::string::npos);
  EXPECT_EQ(s.post("/api/schedules/snothere/run", json::object()).status, 404);
  EXPECT_EQ(s.del("/api/schedules/snothere").status, 404);
  Http list = s.get("/api/schedules");
  EXPECT_EQ(list.status, 200);
  EXPECT_TRUE(list.body.is_array() && list.body.empty()) << list.raw;
}

TEST(Schedule, AJobFiresOnTimeAcrossARestart) {
  std::string dir = temp_dir();
  std::string id;
  int64_t due = 0;
  {
    Serve s(dir);
    ASSERT_FALSE(s.base.empty());
    // Due well after the first server's stop and the second's start (Chromium's launch with
    // each): seconds when the machine is quiet, over 12 s under a loaded CI run.
    Http created = s.post("/api/schedules", {{"task", "Count once"}, {"at", "+40s"}, {"options", run_options(counting_script())}});
    ASSERT_EQ(created.status, 201) << created.raw;
    id = created.body.value("id", "");
    due = created.body.value("next_fire", int64_t{0});
    ASSERT_GT(due, now_s());
  }  // stopped before it is due
  ASSERT_LT(now_s(), due) << "the first server took too long to stop for this test to mean anything";
  Serve s(dir);
  ASSERT_FALSE(s.base.empty());
  ASSERT_LT(now_s(), due) << "the second server took too long to start for this test to mean anything";
  std::vector<json> runs;
  ASSERT_TRUE(eventually([&] {
    runs = s.runs_of(id);
    return !runs.empty() && finished(runs[0]);
  }, 120s)) << s.schedule(id).dump() << "\n" << s.log();
  EXPECT_EQ(runs.size(), 1u);
  EXPECT_GE(get_num(runs[0], "created_at"), due * 1000.0) << "not before its time";
  EXPECT_LE(get_num(runs[0], "created_at"), due * 1000.0 + 3000) << "on time";
  EXPECT_EQ(runs[0]["state"], "done");
  json job = s.schedule(id);
  EXPECT_TRUE(job["last_skip"].is_null()) << job.dump();
  EXPECT_TRUE(job["next_fire"].is_null()) << "a once-job does not fall due again";
}

TEST(Schedule, MissedRunsFollowTheirPolicyAtStart) {
  std::string dir = temp_dir();
  std::string script = counting_script();
  // Added while no server runs (the CLI writes the database), due in two seconds.
  auto add = [&](const std::string& missed) {
    Exited c = ouro(dir, {"schedule", "add", "Count what was missed", "--at", "+2s", "--missed", missed, "--option", "provider=script:" + script,
                       "--option", "context=clean", "--json"});
    EXPECT_EQ(c.code, 0) << c.out << c.err;
    return parse_json(c.out).value_or(json()).value("id", "");
  };
  std::string run_once = add("run-once"), skip = add("skip");
  ASSERT_FALSE(run_once.empty());
  ASSERT_FALSE(skip.empty());
  std::this_thread::sleep_for(3s);  // both fall due while the server is down
  Serve s(dir);
  ASSERT_FALSE(s.base.empty());
  std::vector<json> runs;
  ASSERT_TRUE(eventually([&] {
    runs = s.runs_of(run_once);
    return !runs.empty() && finished(runs[0]);
  })) << s.schedule(run_once).dump() << "\n" << s.log();
  EXPECT_EQ(runs[0]["state"], "done");
  json skipped;
  ASSERT_TRUE(eventually([&] {
    skipped = s.schedule(skip);
    return !skipped["last_skip"].is_null();
  })) << skipped.dump();
  EXPECT_NE(skipped.value("last_skip", "").find("while ouro was not running (missed: skip)"), std::string::npos) << skipped.dump();
  EXPECT_EQ(skipped.value("runs", -1), 0);
  EXPECT_TRUE(skipped["next_fire"].is_null());
  EXPECT_TRUE(s.runs_of(skip).empty()) << "skip runs none of the missed runs";
  // Once is once: another restart runs neither again.
  s.stop();
  Serve again(dir);
  ASSERT_FALSE(again.base.empty());
  ASSERT_TRUE(eventually([&] { return !again.schedule(run_once).is_null(); }, 10s));
  std::this_thread::sleep_for(2500ms);  // more than a scheduler pass: nothing may start
  EXPECT_EQ(again.runs_of(run_once).size(), 1u);
  EXPECT_TRUE(again.runs_of(skip).empty());
}

TEST(Schedule, RunsOfOneJobNeverOverlap) {
  std::string dir = temp_dir();
  Serve s(dir);
  ASSERT_FALSE(s.base.empty());
  // Each run waits 6 s for its model; the job falls due every second.
  std::string slow = script_file({{{"delay_ms", 6000}, {"text", repl_reply("setFinal('slow')")}}});
  Http created = s.post("/api/schedules", {{"task", "Take long"}, {"every", "1s"}, {"options", run_options(slow)}});
  ASSERT_EQ(created.status, 201) << created.raw;
  std::string id = created.body.value("id", "");
  size_t most_at_once = 0;
  json job;
  ASSERT_TRUE(eventually([&] {
    auto runs = s.runs_of(id);
    size_t busy = std::count_if(runs.begin(), runs.end(), [](const json& r) { return !finished(r); });
    most_at_once = std::max(most_at_once, busy);
    job = s.schedule(id);
    return runs.size() == 1 && get_str(job, "last_skip").find("still") != std::string::npos;
  }, 30s)) << job.dump();
  EXPECT_NE(get_str(job, "last_skip").find("runs of one schedule never overlap"), std::string::npos) << job.dump();
  EXPECT_EQ(job.value("runs", 0), 1);
  EXPECT_NE(s.log().find("runs of one schedule never overlap"), std::string::npos) << "the skip is logged";
  // After the slow run ends, the next fire starts a run again — never two at once.
  ASSERT_TRUE(eventually([&] {
    auto runs = s.runs_of(id);
    size_t busy = std::count_if(runs.begin(), runs.end(), [](const json& r) { return !finished(r); });
    most_at_once = std::max(most_at_once, busy);
    return runs.size() >= 2;
  }, 40s));
  EXPECT_EQ(most_at_once, 1u);
  auto runs = s.runs_of(id);
  EXPECT_EQ(runs[0]["state"], "done");
  EXPECT_GE(get_num(runs[1], "created_at"), get_num(runs[0], "updated_at")) << "the second started after the first ended";
  EXPECT_EQ(s.del("/api/schedules/" + id).status, 200);
  for (const auto& r : s.runs_of(id))
    if (!finished(r)) s.post("/api/runs/" + r.value("id", "") + "/cancel", json::object());
}

TEST(Schedule, TheCliAddsListsRemovesAndRunsNow) {
  std::string dir = temp_dir();
  Exited added = ouro(dir, {"schedule", "add", "Morning digest", "--url", "https://news.example.com", "--cron", "0 8 * * 1-5", "--tz", "UTC",
                         "--missed", "skip", "--name", "Digest"});
  ASSERT_EQ(added.code, 0) << added.out << added.err;
  EXPECT_NE(added.out.find("at 08:00 on Monday through Friday (UTC)"), std::string::npos) << added.out;
  EXPECT_NE(added.out.find("next:"), std::string::npos);
  EXPECT_EQ(std::count(added.out.begin(), added.out.end(), ','), 2) << "the next three fire times: " << added.out;
  std::string id = added.out.substr(added.out.find(' ') + 1, 11);
  ASSERT_EQ(id[0], 's') << added.out;

  Exited listed = ouro(dir, {"schedule", "list"});
  EXPECT_EQ(listed.code, 0);
  EXPECT_NE(listed.out.find(id), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find("Digest"), std::string::npos);
  Exited as_json = ouro(dir, {"schedule", "list", "--json"});
  json all = parse_json(as_json.out).value_or(json());
  ASSERT_TRUE(all.is_array() && all.size() == 1) << as_json.out;
  EXPECT_EQ(all[0]["id"], id);
  EXPECT_EQ(all[0]["missed"], "skip");
  EXPECT_EQ(all[0]["urls"][0], "https://news.example.com");
  EXPECT_EQ(all[0]["upcoming"].size(), 3u);

  // Errors say what is wrong and exit 2.
  Exited two = ouro(dir, {"schedule", "add", "x", "--every", "1h", "--cron", "* * * * *"});
  EXPECT_EQ(two.code, 2);
  EXPECT_NE(two.err.find("exactly one of --at"), std::string::npos) << two.err;
  Exited bad_cron = ouro(dir, {"schedule", "add", "x", "--cron", "0 8 * * 9"});
  EXPECT_EQ(bad_cron.code, 2);
  EXPECT_NE(bad_cron.err.find("day-of-week"), std::string::npos) << bad_cron.err;
  Exited bad_option = ouro(dir, {"schedule", "add", "x", "--every", "1h", "--option", "max_iterations=0"});
  EXPECT_EQ(bad_option.code, 2);
  EXPECT_NE(bad_option.err.find("options.max_iterations"), std::string::npos) << bad_option.err;
  Exited bad_zone = ouro(dir, {"schedule", "add", "x", "--every", "1h", "--tz", "Atlantis/City"});
  EXPECT_EQ(bad_zone.code, 2);
  EXPECT_NE(bad_zone.err.find("Atlantis/City"), std::string::npos) << bad_zone.err;
  EXPECT_EQ(ouro(dir, {"schedule", "run-now", "snothere"}).code, 2);
  // The name `schedule list` shows works where the id does; a name two schedules share asks for the id.
  Exited by_name = ouro(dir, {"schedule", "run-now", "Digest"});
  EXPECT_EQ(by_name.code, 0) << by_name.err;
  EXPECT_NE(by_name.out.find(id + " runs now"), std::string::npos) << by_name.out;
  Exited twin = ouro(dir, {"schedule", "add", "Evening digest", "--every", "1h", "--name", "Digest", "--json"});
  ASSERT_EQ(twin.code, 0) << twin.err;
  std::string twin_id = parse_json(twin.out).value_or(json()).value("id", "");
  Exited ambiguous = ouro(dir, {"schedule", "run-now", "Digest"});
  EXPECT_EQ(ambiguous.code, 2);
  EXPECT_NE(ambiguous.err.find("2 schedules are named 'Digest': give the id of the one you mean"), std::string::npos) << ambiguous.err;
  EXPECT_NE(ambiguous.err.find(twin_id), std::string::npos) << ambiguous.err;
  EXPECT_EQ(ouro(dir, {"schedule", "remove", twin_id}).code, 0);

  Exited removed = ouro(dir, {"schedule", "remove", id});
  EXPECT_EQ(removed.code, 0) << removed.err;
  Exited again = ouro(dir, {"schedule", "remove", id});
  EXPECT_EQ(again.code, 2);
  EXPECT_NE(again.err.find("no schedule"), std::string::npos);
  EXPECT_NE(ouro(dir, {"schedule", "list"}).out.find("no schedules"), std::string::npos);

  // run-now from another process: the running server picks it up within its look (2 s).
  Serve s(dir);
  ASSERT_FALSE(s.base.empty());
  Exited hourly = ouro(dir, {"schedule", "add", "Count on demand", "--every", "1h", "--option", "provider=script:" + counting_script(), "--option",
                          "context=clean", "--json"});
  ASSERT_EQ(hourly.code, 0) << hourly.err;
  std::string hid = parse_json(hourly.out).value_or(json()).value("id", "");
  ASSERT_FALSE(hid.empty());
  EXPECT_TRUE(s.runs_of(hid).empty());
  Exited now = ouro(dir, {"schedule", "run-now", hid});
  EXPECT_EQ(now.code, 0) << now.err;
  EXPECT_NE(now.out.find("ouro serve"), std::string::npos);
  std::vector<json> runs;
  ASSERT_TRUE(eventually([&] {
    runs = s.runs_of(hid);
    return !runs.empty() && finished(runs[0]);
  }, 30s)) << s.log();
  EXPECT_EQ(runs[0]["final"]["n"], 1);
  json job = s.schedule(hid);
  EXPECT_FALSE(job.value("run_requested", true));
  EXPECT_GT(job.value("next_fire", int64_t{0}), now_s() + 3000) << "run-now leaves the hourly timing as it was";
}

}  // namespace
}  // namespace ouro::testing
