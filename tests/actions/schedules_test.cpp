// Schedules a run leaves (actions/schedules.cpp): a page's words do not become a scheduled task
// unasked, the job gets no wider sites than the run that made it, and a wrong field is said.
#include "gated_run.h"

namespace ouro::testing {
namespace {

const std::string kTask = "Fill in my refund form at ";

// A page's words do not become a task that runs by itself: a schedule whose task holds them is
// refused in autonomous mode and asked about in careful mode; the job a run leaves has the run's
// own sites and mode, and a start page the run could not reach is refused.
TEST(Integrity, APagesWordsDoNotBecomeAScheduledTask) {
  const std::string read = "const src = await openTab('" + site().url("/injected") + "');\n"
                           "const note = (await getText(src, '#note')).trim();\n";
  const std::string schedule = "let out; try { await addSchedule(note, {every: '1d'}); out = 'scheduled' } catch (e) { out = e.message }\nout";
  GatedRun autonomous(safety::GateMode::Autonomous, kTask + on_localhost("/form"), {on_localhost("/form")});
  json out = ok(read + schedule, autonomous.s.get());
  EXPECT_NE(out.get<std::string>().find("do not become a task that runs by itself"), std::string::npos) << out;
  EXPECT_EQ(ok("(await listSchedules()).length", autonomous.s.get()), 0);

  GatedRun careful(safety::GateMode::Careful, kTask + on_localhost("/form"), {on_localhost("/form")});
  out = ok(read + schedule, careful.s.get());
  EXPECT_NE(out.get<std::string>().find("denied by the user"), std::string::npos) << out;
  ASSERT_EQ(careful.asked(), 1u);
  EXPECT_NE(get_str(careful.questions[0], "reason").find("its words came from"), std::string::npos) << careful.questions[0].dump();

  // The user's own task, scheduled: the job keeps the run's sites and mode.
  json job = ok("await addSchedule('Check my refund form', {every: '1d', urls: ['" + on_localhost("/form") + "']})", autonomous.s.get());
  EXPECT_EQ(job["options"]["mode"], "autonomous") << job.dump();
  EXPECT_NE(job["options"]["allowed_domains"].dump().find("localhost"), std::string::npos) << job.dump();
  out = ok("let r; try { await addSchedule('Check it', {every: '1d', urls: ['https://example.com/']}); r = 'added' } catch (e) { r = e.message }\nr",
           autonomous.s.get());
  EXPECT_NE(out.get<std::string>().find("not a site this run may reach"), std::string::npos) << out;
  EXPECT_EQ(ok("(await listSchedules()).length", autonomous.s.get()), 1);
  // A field of the wrong type is said, never dropped.
  out = ok("let r; try { await changeSchedule((await listSchedules())[0].id, {urls: '" + on_localhost("/form") + "'}); r = 'changed' } "
           "catch (e) { r = e.message }\nr",
           autonomous.s.get());
  EXPECT_NE(out.get<std::string>().find("urls is a list of URLs"), std::string::npos) << out;
  EXPECT_EQ(ok("(await listSchedules())[0].urls.length", autonomous.s.get()), 1) << "the job kept its start page";
}

}  // namespace
}  // namespace ouro::testing
