// `ouro schedule add|list|remove|run-now` (cli/schedule.cpp) as a user types them, each test on a
// data directory of its own: what a saved task is in the list and in --json (timing, zone, run
// options, next fire times), run-now with no server, and every mistake refused in its own words.
#include "cli_harness.h"

#include <sqlite3.h>

namespace ouro::testing {
namespace {

int64_t now_s() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// `ouro schedule ARGS` (shell text) in dir.
Outcome schedule(const std::string& dir, const std::string& args) { return ouro_shell(dir, "schedule " + args); }

// What `ouro schedule list --json` shows in dir.
json listed(const std::string& dir) {
  Outcome r = schedule(dir, "list --json");
  EXPECT_EQ(r.code, 0) << r.err;
  return parse_json(r.out).value_or(json::array());
}

// The saved job that `add … --json` printed (an empty object when it printed none).
json added_job(const Outcome& r) {
  EXPECT_EQ(r.code, 0) << r.err;
  json j = parse_json(r.out).value_or(json::object());
  return j.is_object() ? j : json::object();
}

// The id of `scheduled ID  NAME`, the first line add prints.
std::string id_of(const Outcome& added) {
  std::smatch m;
  return std::regex_search(added.out, m, std::regex("^scheduled (s[0-9a-z]{10})  ")) ? m[1].str() : "";
}


TEST(CliSchedule, AnIntervalJobIsSavedWithItsNextThreeTimesAndListedTheSameAsJson) {
  const std::string dir = temp_dir();
  const int64_t before = now_s();
  json j = added_job(schedule(dir, "add 'Check the status page' --url https://status.example.com --every 1h --tz UTC --json"));
  const int64_t after = now_s();
  EXPECT_TRUE(std::regex_match(j.value("id", ""), std::regex("s[0-9a-z]{10}"))) << j.dump();
  EXPECT_EQ(j["name"], "Check the status page") << "the task's words name it when no --name is given";
  EXPECT_EQ(j["task"], "Check the status page");
  EXPECT_EQ(j["urls"], json::array({"https://status.example.com"}));
  EXPECT_EQ(j["options"], json::object());
  EXPECT_EQ(j["timing"], json({{"kind", "every"}, {"text", "1h"}, {"zone", "UTC"}, {"description", "every 1h"}}));
  EXPECT_EQ(j["missed"], "run-once");
  EXPECT_EQ(j["enabled"], true);
  EXPECT_EQ(j["runs"], 0);
  EXPECT_TRUE(j["last_run_id"].is_null());
  EXPECT_TRUE(j["last_fire"].is_null());
  EXPECT_TRUE(j["last_skip"].is_null());
  EXPECT_EQ(j["run_requested"], false);
  const int64_t created = j.value("created_at", int64_t{0});
  EXPECT_GE(created, before);
  EXPECT_LE(created, after);
  // Counted from when it was saved: the first run an interval later, in the future.
  const int64_t next = j.value("next_fire", int64_t{0});
  EXPECT_EQ(next, created + 3600);
  EXPECT_GT(next, now_s());
  EXPECT_EQ(j["upcoming"], json::array({next, next + 3600, next + 7200}));

  json all = listed(dir);
  ASSERT_EQ(all.size(), 1u) << all.dump();
  EXPECT_EQ(all[0]["id"], j["id"]);
  EXPECT_EQ(all[0]["task"], j["task"]);
  EXPECT_EQ(all[0]["urls"], j["urls"]);
  EXPECT_EQ(all[0]["timing"], j["timing"]);
  EXPECT_EQ(all[0]["next_fire"], next);
  EXPECT_EQ(all[0]["upcoming"], j["upcoming"]);
}

TEST(CliSchedule, AddSaysWhatWasSavedWhenItRunsAndHowToRemoveIt) {
  const std::string dir = temp_dir();
  Outcome added = schedule(dir, "add 'Renew the domain' --at '2099-01-01 08:00' --tz UTC");
  ASSERT_EQ(added.code, 0) << added.err;
  const std::string id = id_of(added);
  ASSERT_FALSE(id.empty()) << added.out;
  const std::string block = "  Renew the domain\n    once at 2099-01-01 08:00 (UTC) · missed runs: run once at start\n    next: 2099-01-01 08:00 UTC\n";
  EXPECT_EQ(added.out, "scheduled " + id + block);
  EXPECT_NE(added.err.find("Scheduled tasks run while `ouro serve` runs (docs/guides/scheduling.md). Remove with: ouro schedule remove " + id),
            std::string::npos)
      << added.err;

  Outcome list = schedule(dir, "list");
  EXPECT_EQ(list.code, 0) << list.err;
  EXPECT_EQ(list.out, id + block);
  json job = entry_with(listed(dir), "id", id);
  EXPECT_EQ(job["timing"]["text"], "2099-01-01 08:00") << "kept as written";
  EXPECT_EQ(job["next_fire"], 4070937600) << "2099-01-01T08:00:00Z";
  EXPECT_EQ(job["upcoming"], json::array({4070937600})) << "a once-job runs once";
}

TEST(CliSchedule, AOnceJobFallsDueAtTheInstantWrittenOrAfterTheDelayGiven) {
  const std::string dir = temp_dir();
  // An offset names the instant whatever the zone; the zone shows it.
  json offset = added_job(schedule(dir, "add 'Renew the domain' --at 2099-01-01T08:00+01:00 --tz UTC --json"));
  EXPECT_EQ(offset["next_fire"], 4070934000) << "2099-01-01T07:00:00Z";
  EXPECT_EQ(offset["timing"]["kind"], "once");
  EXPECT_EQ(offset["timing"]["description"], "once at 2099-01-01 07:00 (UTC)");
  // A delay is counted from when it is saved.
  json delayed = added_job(schedule(dir, "add 'Look again' --at +10m --tz UTC --json"));
  EXPECT_EQ(delayed["timing"]["text"], "+10m");
  EXPECT_EQ(delayed.value("next_fire", int64_t{0}), delayed.value("created_at", int64_t{0}) + 600);
  EXPECT_EQ(delayed["upcoming"].size(), 1u);
  json in_words = added_job(schedule(dir, "add 'Look later' --at 'in 2h' --tz UTC --json"));
  EXPECT_EQ(in_words.value("next_fire", int64_t{0}), in_words.value("created_at", int64_t{0}) + 7200);
  EXPECT_EQ(listed(dir).size(), 3u);
}

TEST(CliSchedule, ACronJobIsReadInItsTimeZone) {
  struct stat st {};
  if (::stat("/usr/share/zoneinfo/Europe/Berlin", &st) != 0) GTEST_SKIP() << "no time zone database (the tzdata package)";
  const std::string dir = temp_dir();
  json j = added_job(schedule(dir, "add 'Morning digest' --cron '0 8 * * 1-5' --tz Europe/Berlin --json"));
  EXPECT_EQ(j["timing"], json({{"kind", "cron"}, {"text", "0 8 * * 1-5"}, {"zone", "Europe/Berlin"},
                               {"description", "at 08:00 on Monday through Friday (Europe/Berlin)"}}));
  ASSERT_EQ(j["upcoming"].size(), 3u) << j.dump();
  int64_t last = j.value("created_at", int64_t{0});
  EXPECT_EQ(j["next_fire"], j["upcoming"][0]);
  for (const auto& t : j["upcoming"]) {
    const int64_t at = t.get<int64_t>();
    EXPECT_GT(at, last) << "in order, and after it was saved";
    last = at;
    // 08:00 in Berlin is 07:00 UTC in winter and 06:00 UTC in summer, on the same weekday.
    const int64_t hour = (at % 86400) / 3600, weekday = (at / 86400 + 4) % 7;  // 1970-01-01 was a Thursday (4)
    EXPECT_EQ(at % 3600, 0) << at;
    EXPECT_TRUE(hour == 6 || hour == 7) << at;
    EXPECT_TRUE(weekday >= 1 && weekday <= 5) << at;
  }
  // The terminal shows the times as Berlin's clock shows them.
  Outcome text = schedule(dir, "add 'Morning digest' --cron '0 8 * * 1-5' --tz Europe/Berlin");
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_TRUE(std::regex_search(text.out, std::regex("\n    next: (\\d{4}-\\d\\d-\\d\\d 08:00 CES?T(, |\n)){3}"))) << text.out;
}

TEST(CliSchedule, RunOptionsAreStoredAsJsonWhereTheyReadAsJsonElseAsText) {
  const std::string dir = temp_dir();
  json j = added_job(schedule(dir,
                              "add 'Watch the price' --every 2h30m --tz UTC --option provider=anthropic --option max_iterations=10 "
                              "--option remember=false --option context=clean --option 'allowed_domains=[\"example.com\"]' --json"));
  EXPECT_EQ(j["options"], json({{"provider", "anthropic"},
                                {"max_iterations", 10},
                                {"remember", false},
                                {"context", "clean"},
                                {"allowed_domains", json::array({"example.com"})}}))
      << j.dump();
  EXPECT_EQ(j["timing"]["description"], "every 2h30m");
  EXPECT_EQ(j.value("next_fire", int64_t{0}), j.value("created_at", int64_t{0}) + 9000);
  ASSERT_EQ(j["upcoming"].size(), 3u);
  EXPECT_EQ(j["upcoming"][1].get<int64_t>() - j["upcoming"][0].get<int64_t>(), 9000);
  EXPECT_EQ(entry_with(listed(dir), "id", j.value("id", ""))["options"], j["options"]);
}

TEST(CliSchedule, AJobWhoseRunsWouldHaveNoModelIsSavedWithAWarning) {
  const std::string dir = temp_dir();
  const std::string warning = "warning: no model is configured for this job, so its runs will fail";
  Outcome bare = schedule(dir, "add 'Check the status page' --every 1h");
  EXPECT_EQ(bare.code, 0) << bare.err;
  EXPECT_NE(bare.err.find(warning + ": no model is configured"), std::string::npos) << bare.err;
  EXPECT_NE(bare.err.find("Give one with --option provider="), std::string::npos) << bare.err;
  // A script replayed first still needs the model where a step cannot heal.
  Outcome scripted = schedule(dir, "add 'Sign up' --every 1h --script signup");
  EXPECT_EQ(scripted.code, 0) << scripted.err;
  EXPECT_NE(scripted.err.find(warning + " wherever the script cannot heal a step"), std::string::npos) << scripted.err;
  EXPECT_EQ(entry_with(listed(dir), "id", id_of(scripted))["options"], json({{"script", {{"name", "signup"}, {"fallback", true}}}}));
  // A provider named, or commands that need no model: no warning.
  Outcome named = schedule(dir, "add 'Check the status page' --every 1h --option provider=anthropic");
  EXPECT_EQ(named.code, 0) << named.err;
  EXPECT_EQ(named.err.find(warning), std::string::npos) << named.err;
  Outcome commands = schedule(dir, "add '$ open https://status.example.com' --every 1h");
  EXPECT_EQ(commands.code, 0) << commands.err;
  EXPECT_EQ(commands.err.find(warning), std::string::npos) << commands.err;
  EXPECT_EQ(listed(dir).size(), 4u);
}

TEST(CliSchedule, AnOptionTheRunsWouldRefuseIsRefusedInTheApisWords) {
  const std::string dir = temp_dir();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--option max_iterations=0", "options.max_iterations must be a whole number from 1 to 500, got number 0"},
      {"--option max_iterations=ten", "options.max_iterations must be a whole number from 1 to 500, got string \"ten\""},
      {"--option model=5", "options.model must be a string, got number 5"},
      {"--option context=somewhere", "options.context must be 'mine' (the browser's own tabs and logins) or 'clean'"},
      {"--option colour=red", "unknown option 'colour'; the options are provider, model"},
      {"--option schedule=s0123456789", "options.schedule is set by the scheduler, not by a job"},
      {"--option max_iterations", "--option takes name=value (e.g. --option provider=anthropic --option max_iterations=10), got 'max_iterations'"},
      {"--option =10", "--option takes name=value"},
  };
  for (const auto& [flag, words] : cases) {
    Outcome r = schedule(dir, "add 'Check the status page' --every 1h " + flag);
    EXPECT_EQ(r.code, 2) << flag << ": " << r.err;
    EXPECT_NE(r.err.find("ouro schedule add: "), std::string::npos) << flag << ": " << r.err;
    EXPECT_NE(r.err.find(words), std::string::npos) << flag << ": " << r.err;
  }
  EXPECT_TRUE(listed(dir).empty()) << "nothing was saved";
}

TEST(CliSchedule, ATimeOrZoneThatCannotBeUsedIsRefusedNamingWhatWasWritten) {
  const std::string dir = temp_dir();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--at '2020-01-01 08:00' --tz UTC", "at: the time '2020-01-01 08:00' is in the past (it is "},
      {"--at tomorrowish --tz UTC", "at: cannot read 'tomorrowish' as a time; write e.g. 2026-12-01T08:00"},
      {"--at '2099-02-30 08:00' --tz UTC", "at: the time '2099-02-30 08:00' does not exist"},
      {"--every 30s", "every: the interval '30s' is 30 seconds; the shortest interval is 1 minute (60s)"},
      {"--every soon", "every: the duration 'soon' is not a number followed by a unit"},
      {"--every 30m2h", "every: the duration '30m2h' repeats a unit or lists a smaller unit before a larger one"},
      {"--cron '61 * * * *' --tz UTC", "add: cron: minute field '61' is out of range 0-59"},
      {"--cron '0 8 * *' --tz UTC", "expected 5 fields (minute hour day-of-month month day-of-week), got 4"},
      {"--cron '0 0 30 2 *' --tz UTC", "cron: '0 0 30 2 *' never falls due"},
      {"--cron @fortnightly --tz UTC", "'@fortnightly' is not a macro this cron knows"},
      {"--every 1h --tz Mars/Olympus", "tz: time zone 'Mars/Olympus'"},
      {"--every 1h --tz ../../etc/passwd", "tz: time zone name '../../etc/passwd' holds \"..\""},
      {"--every 1h --tz +25:00", "tz: time zone offset '+25:00' is out of range"},
  };
  for (const auto& [flags, words] : cases) {
    Outcome r = schedule(dir, "add 'Check the status page' " + flags);
    EXPECT_EQ(r.code, 2) << flags << ": " << r.err;
    EXPECT_NE(r.err.find("ouro schedule add: "), std::string::npos) << flags << ": " << r.err;
    EXPECT_NE(r.err.find(words), std::string::npos) << flags << ": " << r.err;
    EXPECT_EQ(r.err.find("cron: cron:"), std::string::npos) << "the field is named once: " << r.err;
  }
  // A script to replay is named as the API names scripts, before anything is saved.
  Outcome script = schedule(dir, "add 'Check the status page' --every 1h --script '../etc/passwd'");
  EXPECT_NE(script.code, 0);
  EXPECT_NE(script.err.find("a script's name is 1 to 64 letters"), std::string::npos) << script.err;
  EXPECT_TRUE(listed(dir).empty()) << "nothing was saved";
}

TEST(CliSchedule, AddNeedsATaskAndExactlyOneTiming) {
  const std::string dir = temp_dir();
  const std::string one_of = "ouro schedule add: give exactly one of --at TIME, --every DURATION and --cron \"EXPR\", e.g.";
  for (const std::string flags : {"", "--every 1h --cron '0 8 * * *'", "--at +1h --every 1h", "--at +1h --every 1h --cron '0 8 * * *'"}) {
    EXPECT_TRUE(exits_saying(schedule(dir, "add 'Check the status page' " + flags), 2, one_of));
  }
  EXPECT_TRUE(exits_saying(schedule(dir, "add --every 1h"), 2, "task is required"));
  EXPECT_TRUE(exits_saying(schedule(dir, "add '  ' --every 1h"), 2, "ouro schedule add: task: a schedule needs a task, in plain words"));
  EXPECT_TRUE(exits_saying(schedule(dir, "add 'Check the status page' --every 1h --missed maybe"), 2, "--missed: maybe not in"));
  EXPECT_TRUE(exits_saying(schedule(dir, ""), 2, "ouro schedule needs one of: add, list, remove, run-now"));
  EXPECT_TRUE(exits_saying(schedule(dir, "remove"), 2, "id is required"));
  EXPECT_TRUE(listed(dir).empty()) << "nothing was saved";
}

TEST(CliSchedule, AnEmptyDatabaseListsNoSchedulesAndKnowsNoIdOrName) {
  const std::string dir = temp_dir();
  Outcome list = schedule(dir, "list");
  EXPECT_EQ(list.code, 0) << list.err;
  EXPECT_EQ(list.out, "no schedules; add one with: ouro schedule add \"TASK\" --url URL --every 1h\n");
  Outcome as_json = schedule(dir, "list --json");
  EXPECT_EQ(as_json.code, 0) << as_json.err;
  EXPECT_EQ(parse_json(as_json.out).value_or(json()), json::array()) << as_json.out;
  Outcome rm = schedule(dir, "remove snothere123");
  EXPECT_EQ(rm.code, 2);
  EXPECT_NE(rm.err.find("ouro schedule remove: no schedule has the id or name 'snothere123' (ouro schedule list shows them)"), std::string::npos)
      << rm.err;
  Outcome now = schedule(dir, "run-now 'Morning digest'");
  EXPECT_EQ(now.code, 2);
  EXPECT_NE(now.err.find("ouro schedule run-now: no schedule has the id or name 'Morning digest'"), std::string::npos) << now.err;
  EXPECT_TRUE(now.out.empty()) << now.out;
}

TEST(CliSchedule, RemoveAndRunNowTakeTheIdOrTheNameAndAskForTheIdWhenTwoShareIt) {
  const std::string dir = temp_dir();
  const std::string morning = added_job(schedule(dir, "add 'Morning digest' --cron '0 8 * * 1-5' --tz UTC --missed skip --name Digest --json")).value("id", "");
  const std::string evening = added_job(schedule(dir, "add 'Evening digest' --every 1h --name Digest --json")).value("id", "");
  const std::string status = added_job(schedule(dir, "add 'Check the status page' --every 1h --json")).value("id", "");
  ASSERT_FALSE(morning.empty() || evening.empty() || status.empty());

  for (const std::string sub : {"run-now", "remove"}) {
    Outcome twice = schedule(dir, sub + " Digest");
    EXPECT_EQ(twice.code, 2) << sub;
    EXPECT_NE(twice.err.find("ouro schedule " + sub + ": 2 schedules are named 'Digest': give the id of the one you mean ("), std::string::npos)
        << twice.err;
    EXPECT_NE(twice.err.find(morning), std::string::npos) << twice.err;
    EXPECT_NE(twice.err.find(evening), std::string::npos) << twice.err;
  }
  EXPECT_EQ(listed(dir).size(), 3u) << "an ambiguous name removes nothing";

  // run-now with no server running: the job is marked, its timing stays.
  Outcome now = schedule(dir, "run-now " + morning);
  EXPECT_EQ(now.code, 0) << now.err;
  EXPECT_EQ(now.out, morning + " runs now if `ouro serve` is running (it looks within 2 s; ouro schedule list shows the run); "
                               "otherwise when `ouro serve` starts\n");
  json job = entry_with(listed(dir), "id", morning);
  EXPECT_EQ(job["run_requested"], true) << job.dump();
  EXPECT_LE(job.value("next_fire", int64_t{0}), now_s()) << "due now";
  EXPECT_EQ(job["timing"]["text"], "0 8 * * 1-5");
  EXPECT_EQ(job["missed"], "skip");
  Outcome list = schedule(dir, "list");
  EXPECT_NE(list.out.find(morning + "  Digest\n    at 08:00 on Monday through Friday (UTC) · missed runs: skipped\n"
                                    "    next: now (requested; `ouro serve` starts it)\n"),
            std::string::npos)
      << list.out;

  Outcome removed = schedule(dir, "remove " + evening);
  EXPECT_EQ(removed.code, 0) << removed.err;
  EXPECT_EQ(removed.out, "removed " + evening + "\n");
  // One schedule named so now: the name does.
  Outcome by_name = schedule(dir, "run-now Digest");
  EXPECT_EQ(by_name.code, 0) << by_name.err;
  EXPECT_EQ(by_name.out.rfind(morning + " runs now", 0), 0u) << by_name.out;
  Outcome by_task_words = schedule(dir, "remove 'Check the status page'");
  EXPECT_EQ(by_task_words.code, 0) << by_task_words.err;
  EXPECT_EQ(by_task_words.out, "removed " + status + "\n");
  EXPECT_TRUE(exits_saying(schedule(dir, "remove " + status), 2, "no schedule has the id or name '" + status + "'"));
  json left = listed(dir);
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0]["id"], morning);
}

TEST(CliSchedule, TheDataDirFlagKeepsItsSchedulesApart) {
  const std::string dir = temp_dir(), other = temp_dir();
  Outcome added = schedule(dir, "add 'Check the status page' --every 1h --data-dir " + other + " --json");
  EXPECT_EQ(added.code, 0) << added.err;
  EXPECT_TRUE(listed(dir).empty());
  Outcome there = schedule(dir, "list --json --data-dir " + other);
  EXPECT_EQ(parse_json(there.out).value_or(json()).size(), 1u) << there.out;
  EXPECT_EQ(schedule(dir, "remove 'Check the status page' --data-dir " + other).code, 0);
  EXPECT_EQ(schedule(dir, "list --data-dir " + other).out.rfind("no schedules", 0), 0u);
}

TEST(CliSchedule, AnUnreadableRowIsListedWithTheReasonAndTheOthersStillShow) {
  const std::string dir = temp_dir();
  const std::string good = added_job(schedule(dir, "add 'Check the status page' --every 1h --json")).value("id", "");
  const std::string bad = added_job(schedule(dir, "add 'Check the news' --every 1h --json")).value("id", "");
  ASSERT_FALSE(good.empty() || bad.empty());
  // A hand-edited database: the row's urls are no longer a JSON list.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2((dir + "/ouro.db").c_str(), &db, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
  sqlite3_busy_timeout(db, 5000);
  const std::string sql = "UPDATE schedules SET urls = 'not a list' WHERE id = '" + bad + "'";
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);

  Outcome list = schedule(dir, "list");
  EXPECT_EQ(list.code, 0) << list.err;
  EXPECT_NE(list.out.find(good + "  Check the status page\n"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find(bad + "  (cannot be read: its urls are not a JSON list; ouro schedule remove " + bad + ")\n"), std::string::npos)
      << list.out;
  json all = listed(dir);
  ASSERT_EQ(all.size(), 2u) << all.dump();
  EXPECT_EQ(entry_with(all, "id", good)["task"], "Check the status page");
  EXPECT_EQ(entry_with(all, "id", bad), json({{"id", bad}, {"error", "its urls are not a JSON list"}}));
  // What the listing says to do works; a run of it now does not (it could not be run).
  EXPECT_TRUE(exits_saying(schedule(dir, "run-now " + bad), 1, "cannot be read"));
  Outcome removed = schedule(dir, "remove " + bad);
  EXPECT_EQ(removed.code, 0) << removed.err;
  EXPECT_EQ(removed.out, "removed " + bad + "\n");
  all = listed(dir);
  ASSERT_EQ(all.size(), 1u) << all.dump();
  EXPECT_EQ(all[0]["id"], good);
}

TEST(CliSchedule, OddNamesAndTasksComeBackIntactOrAreRefusedWithAReason) {
  const std::string dir = temp_dir();
  const std::string name = "Grüße \"daily\" 'digest' ✓ <b>&amp; $(echo no)";
  const std::string task = "Check \"the\" page's prices — 日本語\nthen note them; `echo no` $HOME \\n";
  json named = added_job(ouro_args(dir, {"schedule", "add", task, "--name", name, "--every", "1h", "--json"}));
  EXPECT_EQ(named["name"], name);
  EXPECT_EQ(named["task"], task);
  json unnamed = added_job(ouro_args(dir, {"schedule", "add", task, "--every", "1h", "--json"}));
  EXPECT_EQ(unnamed["name"], "Check \"the\" page's prices — 日本語") << "the task's first line";
  // A long first line is cut at a word.
  const std::string long_task = "Look through every one of the listings on the page and write down which of them changed since yesterday";
  json cut = added_job(ouro_args(dir, {"schedule", "add", long_task, "--every", "1h", "--json"}));
  EXPECT_EQ(cut["name"], long_task.substr(0, long_task.rfind(' ', 57)) + "…");
  const std::string longest(20000, 'x');
  json biggest = added_job(ouro_args(dir, {"schedule", "add", longest, "--every", "1h", "--json"}));
  EXPECT_EQ(biggest["task"], longest) << "20,000 characters is the limit, not past it";

  json all = listed(dir);
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(entry_with(all, "id", named.value("id", ""))["name"], name);
  EXPECT_EQ(entry_with(all, "id", named.value("id", ""))["task"], task);
  EXPECT_EQ(entry_with(all, "id", biggest.value("id", ""))["task"], longest);

  const std::vector<std::pair<std::vector<std::string>, std::string>> refused = {
      {{"--name", "two\nlines"}, "name: holds control characters"},
      {{"--name", "tab\there"}, "name: holds control characters"},
      {{"--name", std::string(201, 'n')}, "name: at most 200 characters, got 201"},
      {{"--name", [] { std::string s; for (int i = 0; i < 101; ++i) s += "ü"; return s; }()}, "name: at most 200 characters, got 202"},
      {{"--url", "https://status.example.com/\nx"}, "urls[0]: a URL of 1 to 8192 characters without control characters"},
      {{"--url", ""}, "urls[0]: a URL of 1 to 8192 characters without control characters, got ''"},
      {{"--url", "https://status.example.com/", "--url", ""}, "urls[1]: a URL of 1 to 8192"},
  };
  for (const auto& [flags, words] : refused) {
    std::vector<std::string> args = {"schedule", "add", "Check the status page", "--every", "1h"};
    args.insert(args.end(), flags.begin(), flags.end());
    EXPECT_TRUE(exits_saying(ouro_args(dir, args), 2, words));
  }
  EXPECT_TRUE(exits_saying(ouro_args(dir, {"schedule", "add", longest + "x", "--every", "1h"}), 2, "task: at most 20000 characters, got 20001"));
  std::vector<std::string> many = {"schedule", "add", "Check the status page", "--every", "1h"};
  for (int i = 0; i < 21; ++i) many.insert(many.end(), {"--url", "https://status.example.com/" + std::to_string(i)});
  EXPECT_TRUE(exits_saying(ouro_args(dir, many), 2, "urls: at most 20 start pages, got 21"));
  EXPECT_EQ(listed(dir).size(), 4u) << "nothing refused was saved";

  // An id as long as a pasted page is said back clipped; the odd name removes its schedule.
  Outcome unknown = ouro_args(dir, {"schedule", "remove", std::string(5000, 's')});
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("no schedule has the id or name '" + std::string(60, 's') + "'"), std::string::npos) << unknown.err.substr(0, 300);
  EXPECT_LT(unknown.err.size(), 1000u);
  Outcome removed = ouro_args(dir, {"schedule", "remove", name});
  EXPECT_EQ(removed.code, 0) << removed.err;
  EXPECT_EQ(removed.out, "removed " + named.value("id", "") + "\n");
}

}  // namespace
}  // namespace ouro::testing
