// Saved jobs: stored and read back the same (timings re-parsed, zones reloaded), every field
// validated with the field named, the scheduler's updates touching only their columns, hostile
// rows skipped with a reason, and previousFinal's lookup over the runs a schedule started.
#include "schedule/jobs.h"

#include "runs/spec.h"
#include "postgres_server.h"
#include "store/database.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace ouro::schedule {
namespace {

// 2026-06-01T00:00Z.
constexpr int64_t kNow = 1780272000;

// The same tests on an in-memory SQLite database and on a fresh database of the test process's
// PostgreSQL cluster (skipped when PostgreSQL is not installed).
class JobsOn : public ::testing::TestWithParam<store::Engine> {
 protected:
  void SetUp() override {
    if (auto why = testing::engine_unavailable(GetParam()); !why.empty()) GTEST_SKIP() << why;
  }
  std::unique_ptr<store::Database> open_db() {
    auto target = GetParam() == store::Engine::Sqlite ? Result<std::string>(":memory:") : testing::fresh_database(GetParam());
    EXPECT_TRUE(target) << target.error().message;
    auto db = store::Database::open(target.value());
    EXPECT_TRUE(db) << db.error().message;
    return std::move(*db);
  }
};

JobSpec every_hour() {
  JobSpec s;
  s.task = "Check the status page";
  s.urls = {"https://status.example.com"};
  s.options = json{{"max_iterations", 5}, {"context", "clean"}};
  s.kind = TimingKind::Every;
  s.when = "1h";
  s.zone = "UTC";
  return s;
}

std::string error_of(const Result<Job>& r) { return r ? "ok" : r.error().message; }

TEST_P(JobsOn, StoresAndReadsBackAJob) {
  auto db = open_db();
  auto job = add_job(*db, every_hour(), kNow, runs::check_options);
  ASSERT_TRUE(job) << job.error().message;
  EXPECT_EQ(job->id.size(), 11u);
  EXPECT_EQ(job->id[0], 's');
  EXPECT_EQ(job->name, "Check the status page");
  EXPECT_EQ(job->next_fire, kNow + 3600);
  auto listed = list_jobs(*db);
  ASSERT_TRUE(listed);
  ASSERT_EQ(listed->jobs.size(), 1u);
  const Job& j = listed->jobs[0];
  EXPECT_EQ(j.id, job->id);
  EXPECT_EQ(j.task, "Check the status page");
  EXPECT_EQ(j.urls, std::vector<std::string>{"https://status.example.com"});
  EXPECT_EQ(j.options["max_iterations"], 5);
  EXPECT_EQ(j.timing.kind, TimingKind::Every);
  EXPECT_EQ(j.timing.interval, 3600);
  EXPECT_EQ(j.timing.since, kNow);
  EXPECT_EQ(j.when, "1h");
  EXPECT_EQ(j.missed, Missed::RunOnce);
  EXPECT_EQ(j.next_fire, kNow + 3600);
  EXPECT_FALSE(j.last_fire);
  EXPECT_EQ(upcoming(j, kNow, 3), (std::vector<int64_t>{kNow + 3600, kNow + 7200, kNow + 10800}));
  json shown = job_json(j);
  EXPECT_EQ(shown["timing"]["kind"], "every");
  EXPECT_EQ(shown["timing"]["description"], "every 1h");
  EXPECT_EQ(shown["missed"], "run-once");
  EXPECT_TRUE(shown["last_run_id"].is_null());
}

TEST_P(JobsOn, CronJobsKeepTheirZone) {
  if (!TimeZone::load("Europe/Berlin")) GTEST_SKIP() << "no tzdata";
  auto db = open_db();
  JobSpec s = every_hour();
  s.kind = TimingKind::Cron;
  s.when = "0 8 * * 1-5";
  s.zone = "Europe/Berlin";
  s.missed = Missed::Skip;
  auto job = add_job(*db, s, kNow, nullptr);
  ASSERT_TRUE(job) << job.error().message;
  // Monday 2026-06-01 08:00 CEST is 06:00Z.
  EXPECT_EQ(job->next_fire, kNow + 6 * 3600);
  auto back = get_job(*db, job->id);
  ASSERT_TRUE(back && *back);
  EXPECT_EQ((*back)->timing.zone.name(), "Europe/Berlin");
  EXPECT_EQ((*back)->missed, Missed::Skip);
  EXPECT_EQ(next_fire((*back)->timing, kNow), kNow + 6 * 3600);
  EXPECT_EQ(job_json(**back)["timing"]["description"], "at 08:00 on Monday through Friday (Europe/Berlin)");
}

TEST_P(JobsOn, OnceJobsKeepTheirInstant) {
  auto db = open_db();
  JobSpec s = every_hour();
  s.kind = TimingKind::Once;
  s.when = "+10m";  // relative: read again it would be another time, so the instant is stored
  auto job = add_job(*db, s, kNow, nullptr);
  ASSERT_TRUE(job) << job.error().message;
  auto back = get_job(*db, job->id);
  ASSERT_TRUE(back && *back);
  EXPECT_EQ((*back)->timing.at, kNow + 600);
  EXPECT_EQ(upcoming(**back, kNow, 3), std::vector<int64_t>{kNow + 600});
}

TEST_P(JobsOn, RefusesBadFieldsNamingThem) {
  auto db = open_db();
  auto with = [&](auto change) {
    JobSpec s = every_hour();
    change(s);
    return error_of(add_job(*db, s, kNow, runs::check_options));
  };
  EXPECT_NE(with([](JobSpec& s) { s.task = " \n "; }).find("task"), std::string::npos);
  EXPECT_NE(with([](JobSpec& s) { s.task = std::string(20001, 'a'); }).find("task: at most 20000"), std::string::npos);
  EXPECT_EQ(with([](JobSpec& s) { s.task = std::string(20000, 'a'); }), "ok");
  EXPECT_NE(with([](JobSpec& s) { s.urls.assign(21, "https://a.example"); }).find("urls: at most 20"), std::string::npos);
  EXPECT_NE(with([](JobSpec& s) { s.urls = {""}; }).find("urls[0]"), std::string::npos);
  EXPECT_NE(with([](JobSpec& s) { s.urls = {"https://a.example/\n"}; }).find("urls[0]"), std::string::npos);
  EXPECT_NE(with([](JobSpec& s) { s.name = std::string(201, 'n'); }).find("name"), std::string::npos);
  EXPECT_NE(with([](JobSpec& s) { s.options = json{{"max_iterations", "lots"}}; }).find("options.max_iterations"), std::string::npos);
  EXPECT_NE(with([](JobSpec& s) { s.options = json{{"bogus", 1}}; }).find("unknown option 'bogus'"), std::string::npos);
  EXPECT_NE(with([](JobSpec& s) { s.options = json::array(); }).find("options must be an object"), std::string::npos);
  EXPECT_NE(with([](JobSpec& s) { s.options = json{{"schedule", "s1"}}; }).find("options.schedule"), std::string::npos);
  EXPECT_NE(with([](JobSpec& s) { s.when = "30s"; }).find("shortest interval"), std::string::npos);
  EXPECT_NE(with([](JobSpec& s) { s.when = "soon"; }).find("every"), std::string::npos);
  EXPECT_NE(with([](JobSpec& s) { s.zone = "Mars/Olympus"; }).find("tz: time zone 'Mars/Olympus'"), std::string::npos);
  EXPECT_NE(with([](JobSpec& s) { s.zone = "../../etc/passwd"; }).find("time zone"), std::string::npos);
  EXPECT_NE(with([](JobSpec& s) {
              s.kind = TimingKind::Cron;
              s.when = "0 25 * * *";
            }).find("hour"),
            std::string::npos);
  EXPECT_NE(with([](JobSpec& s) {
              s.kind = TimingKind::Cron;
              s.when = "0 0 30 2 *";
            }).find("never falls due"),
            std::string::npos);
  EXPECT_NE(with([](JobSpec& s) {
              s.kind = TimingKind::Once;
              s.when = "2020-01-01 08:00";
            }).find("at:"),
            std::string::npos);
  auto listed = list_jobs(*db);
  ASSERT_TRUE(listed);
  EXPECT_EQ(listed->jobs.size(), 1u) << "only the valid job was stored";
  EXPECT_FALSE(parse_missed("sometimes"));
  EXPECT_EQ(*parse_missed("skip"), Missed::Skip);
}

TEST_P(JobsOn, TheIntervalFloorCanBeLoweredForTests) {
  auto db = open_db();
  JobSpec s = every_hour();
  s.when = "3s";
  EXPECT_FALSE(add_job(*db, s, kNow, nullptr));
  ::setenv("OURO_SCHEDULE_MIN_INTERVAL_S", "2", 1);
  EXPECT_EQ(min_interval(), 2);
  auto job = add_job(*db, s, kNow, nullptr);
  EXPECT_TRUE(job) << job.error().message;
  s.when = "1s";
  EXPECT_NE(error_of(add_job(*db, s, kNow, nullptr)).find("shorter than the shortest interval, 2 s"), std::string::npos);
  ::setenv("OURO_SCHEDULE_MIN_INTERVAL_S", "junk", 1);
  EXPECT_EQ(min_interval(), kMinInterval);
  ::unsetenv("OURO_SCHEDULE_MIN_INTERVAL_S");
}

TEST_P(JobsOn, TheSchedulersUpdatesTouchOnlyTheirColumns) {
  auto db = open_db();
  auto job = add_job(*db, every_hour(), kNow, nullptr);
  ASSERT_TRUE(job);
  ASSERT_TRUE(request_run(*db, job->id, kNow + 5));
  auto j = *get_job(*db, job->id);
  EXPECT_TRUE(j->run_requested);
  EXPECT_EQ(j->next_fire, kNow + 5);
  ASSERT_TRUE(record_fire(*db, job->id, kNow + 5, "r1", kNow + 3600));
  j = *get_job(*db, job->id);
  EXPECT_FALSE(j->run_requested);
  EXPECT_EQ(j->last_fire, kNow + 5);
  EXPECT_EQ(j->last_run_id, "r1");
  EXPECT_EQ(j->runs, 1);
  EXPECT_EQ(j->next_fire, kNow + 3600);
  ASSERT_TRUE(record_skip(*db, job->id, kNow + 3600, "its previous run r1 is still running", kNow + 7200));
  j = *get_job(*db, job->id);
  EXPECT_EQ(j->last_skip, "its previous run r1 is still running");
  EXPECT_EQ(j->last_skip_at, kNow + 3600);
  EXPECT_EQ(j->last_run_id, "r1") << "a skip keeps the last run";
  EXPECT_EQ(j->runs, 1);
  ASSERT_TRUE(set_next_fire(*db, job->id, std::nullopt));
  EXPECT_FALSE((*get_job(*db, job->id))->next_fire);
  EXPECT_EQ(request_run(*db, "s-nope", kNow).error().code, Code::NotFound);
  EXPECT_EQ(record_fire(*db, "s-nope", kNow, "r", std::nullopt).error().code, Code::NotFound);
  EXPECT_TRUE(*remove_job(*db, job->id));
  EXPECT_FALSE(*remove_job(*db, job->id));
  EXPECT_FALSE(*get_job(*db, job->id));
}

TEST_P(JobsOn, HostileRowsAreSkippedWithAReason) {
  auto db = open_db();
  auto good = add_job(*db, every_hour(), kNow, nullptr);
  ASSERT_TRUE(good);
  // Rows as a damaged or hand-edited database might hold them.
  const char* rows[] = {
      "('sbad1', 'n', 't', 'not json', '{}', '{\"kind\":\"every\",\"interval\":60,\"zone\":\"UTC\"}', 'run-once', 1, 1, NULL, 1, NULL, 0, NULL, NULL, 0)",
      "('sbad2', 'n', 't', '[]', '[1]', '{\"kind\":\"every\",\"interval\":60,\"zone\":\"UTC\"}', 'run-once', 1, 2, NULL, 1, NULL, 0, NULL, NULL, 0)",
      "('sbad3', 'n', 't', '[]', '{}', '{\"kind\":\"cron\",\"text\":\"99 * * * *\",\"zone\":\"UTC\"}', 'run-once', 1, 3, NULL, 1, NULL, 0, NULL, NULL, 0)",
      "('sbad4', 'n', 't', '[]', '{}', '{\"kind\":\"every\",\"interval\":-5,\"zone\":\"UTC\"}', 'run-once', 1, 4, NULL, 1, NULL, 0, NULL, NULL, 0)",
      "('sbad5', 'n', 't', '[]', '{}', '{\"kind\":\"every\",\"interval\":60,\"zone\":\"No/Such_Zone\"}', 'run-once', 1, 5, NULL, 1, NULL, 0, NULL, NULL, 0)",
      "('sbad6', 'n', 't', '[]', '{}', '{\"kind\":\"every\",\"interval\":60,\"zone\":\"UTC\"}', 'sometimes', 1, 6, NULL, 1, NULL, 0, NULL, NULL, 0)",
      "('sbad7', 'n', '', '[]', '{}', '{\"kind\":\"yearly\"}', 'run-once', 1, 7, NULL, 1, NULL, 0, NULL, NULL, 0)",
      "('sbad8', 'n', 't', '[]', '{}', '{\"kind\":\"once\",\"at\":1e300,\"zone\":\"UTC\"}', 'run-once', 1, 8, NULL, 1, NULL, 0, NULL, NULL, 0)",
  };
  for (const char* row : rows) {
    auto inserted = db->with_sql([&](store::Connection& c) { return c.exec_script(std::string("INSERT INTO schedules VALUES ") + row); });
    ASSERT_TRUE(inserted) << inserted.error().message;
  }
  auto listed = list_jobs(*db);
  ASSERT_TRUE(listed) << listed.error().message;
  ASSERT_EQ(listed->jobs.size(), 1u);
  EXPECT_EQ(listed->jobs[0].id, good->id);
  ASSERT_EQ(listed->unreadable.size(), 8u);
  for (const auto& [id, why] : listed->unreadable) EXPECT_FALSE(why.empty()) << id;
  auto one = get_job(*db, "sbad3");
  ASSERT_FALSE(one);
  EXPECT_EQ(one.error().code, Code::DataLoss);
  EXPECT_TRUE(*remove_job(*db, "sbad3")) << "a bad row can still be removed";
}

TEST_P(JobsOn, PreviousFinalIsTheScheduleLastFinishedRun) {
  auto db = open_db();
  auto run = [&](const std::string& id, const std::string& schedule, const std::string& state, const std::string& final, double at) {
    store::Database::RunRow r;
    r.id = id;
    r.task = "t";
    r.state = runs::parse_state(state).value();
    r.options = schedule.empty() ? "{}" : dump_json(json{{"schedule", schedule}});
    r.final_json = final;
    r.created_at = r.updated_at = at;
    ASSERT_TRUE(db->insert_run(r));
    ASSERT_TRUE(db->update_run(r));  // the final is stored when the run ends
  };
  EXPECT_TRUE(previous_final(*db, "s1", "r0")->is_null());
  run("r1", "s1", "done", R"({"n":1})", 1000);
  run("r2", "s1", "failed", R"({"partial":true})", 2000);
  run("r3", "s2", "done", R"({"n":99})", 2500);
  run("r4", "", "done", R"({"n":98})", 2600);
  run("rX", "", "done", "", 2700);
  // Options that are not JSON do not break the lookup.
  store::Database::RunRow odd;
  odd.id = "r5";
  odd.task = "t";
  odd.state = runs::State::Done;
  odd.options = "not json";
  odd.final_json = "1";
  odd.created_at = 2800;
  ASSERT_TRUE(db->insert_run(odd));
  ASSERT_TRUE(db->update_run(odd));
  run("r6", "s1", "running", "", 3000);
  EXPECT_EQ(*previous_final(*db, "s1", "r6"), (json{{"n", 1}})) << "the last finished run of s1, failures passed over";
  run("r7", "s1", "done", R"({"n":2})", 4000);
  EXPECT_EQ(*previous_final(*db, "s1", "r8-not-stored"), (json{{"n", 2}}));
  EXPECT_EQ(*previous_final(*db, "s1", "r7"), (json{{"n", 1}})) << "never the run itself";
  EXPECT_TRUE(previous_final(*db, "s3", "r7")->is_null());
}

INSTANTIATE_TEST_SUITE_P(Engines, JobsOn, ::testing::Values(store::Engine::Sqlite, store::Engine::Postgres), testing::engine_test_name);

}  // namespace
}  // namespace ouro::schedule
