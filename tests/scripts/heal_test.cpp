// Self-healing replays end to end, through an in-process `ouro serve` and real
// Chromium: a run with a scripted model types an e-mail, ticks the terms box (fill), picks a plan
// and presses Subscribe on the fixture form, and is saved as a script — each action's target with
// what identifies it. The script's first version is then replayed with no model on changed
// variants of the page (ids and classes renamed, rows reordered, wrappers added, labels reworded,
// the form moved to another landmark, the old id given to the decoy), each with a decoy of similar
// name beside every target: every replay finishes, the page shows the right elements acted on and
// no decoy touched, a `heal` event says what was found again, and a new version of the script is
// written with the healed selectors (the diff shows them). Where the target is gone, the replay
// stops with an error naming the step, what it looked for and the candidates — and with the
// scripted model to take over, the run finishes and the script is rewritten from the steps taken.
#include "api_env.h"
#include "heal_site.h"
#include "serve_process.h"

#include <gtest/gtest.h>

#include <thread>

namespace ouro::testing {
namespace {

HealSite& heal_site() {
  static HealSite s;
  return s;
}

const std::string kDone = "subscribed email=ada@example.com terms=true plan=Pro";

std::string record(Server& s) {
  std::string path = script_file({{{"text", repl_reply("await type(activeTab, '#email', 'ada@example.com')")}},
                                  {{"text", repl_reply("await fill(activeTab, {'#terms': true})")}},
                                  {{"text", repl_reply("await select(activeTab, '#plan', 'Pro')")}},
                                  {{"text", repl_reply("await click(activeTab, '#subscribe')")}},
                                  {{"text", repl_reply("setFinal(await getText(activeTab, '#log'))")}}});
  Http created = s.post("/api/runs", {{"task", "Subscribe ada@example.com to the newsletter on the Pro plan"},
                                      {"urls", {heal_site().url("orig")}},
                                      {"options", {{"provider", "script:" + path}}}});
  EXPECT_EQ(created.status, 201) << created.raw;
  std::string id = created.body["id"];
  json done = s.wait_done(id, std::chrono::seconds(60));
  EXPECT_EQ(done["state"], "done") << done.dump();
  EXPECT_NE(done.value("final", "").find(kDone), std::string::npos) << done.dump();
  return id;
}

json replay(Server& s, const std::string& variant, json extra = json::object()) {
  json body = {{"version", 1}, {"urls", {heal_site().url(variant)}}};
  for (auto& [k, v] : extra.items()) body[k] = v;
  Http started = s.post("/api/scripts/news/run", body);
  EXPECT_EQ(started.status, 201) << started.raw;
  return s.wait_done(started.body.value("id", ""), std::chrono::seconds(90));
}

TEST(ScriptsHeal, RecordsDetailsThenHealsEachKindOfChangeWithoutTouchingADecoy) {
  Server s;
  std::string recorded = record(s);
  // Every action's target was recorded with what identifies it.
  auto targets = events_of(s, recorded, "target");
  ASSERT_GE(targets.size(), 4u);
  Http saved = s.post("/api/runs/" + recorded + "/script", {{"name", "news"}});
  ASSERT_EQ(saved.status, 201) << saved.raw;
  const json& steps = saved.body["steps"];
  ASSERT_EQ(steps.size(), 5u) << saved.raw;
  json email = steps[0]["targets"][0]["details"];
  EXPECT_EQ(email["role"], "textbox") << email.dump();
  EXPECT_EQ(email["name"], "Email address");
  EXPECT_EQ(email["label"], "Email address");
  EXPECT_EQ(email["attrs"]["name"], "email");
  EXPECT_EQ(email["landmark"]["role"], "region");
  EXPECT_EQ(email["landmark"]["name"], "Sign up");
  EXPECT_EQ(email["heading"], "Newsletter sign-up");
  EXPECT_EQ(email["others"], json::array({"Email address for partners"})) << email.dump();
  EXPECT_FALSE(email.contains("value")) << "never the typed value";
  EXPECT_EQ(steps[1]["targets"][0]["details"]["role"], "checkbox");
  EXPECT_EQ(steps[2]["targets"][0]["details"]["tag"], "select");
  json button = steps[3]["targets"][0]["details"];
  EXPECT_EQ(button["role"], "button");
  EXPECT_EQ(button["name"], "Subscribe");
  EXPECT_EQ(button["others"], json::array({"Subscribe to partner offers"})) << button.dump();

  // Unchanged: no healing, no new version.
  json same = replay(s, "orig");
  ASSERT_EQ(same["state"], "done") << same.dump();
  EXPECT_NE(same.value("final", "").find(kDone), std::string::npos) << same.dump();
  EXPECT_TRUE(events_of(s, same["id"], "heal").empty());
  EXPECT_EQ(same["usage"]["path"], "replay");
  EXPECT_EQ(s.get("/api/scripts/news").body["version"], 1);

  int version = 1;
  for (const char* variant : {"renamed", "reordered", "wrapped", "reworded", "moved", "decoy-id"}) {
    SCOPED_TRACE(variant);
    json r = replay(s, variant);
    ASSERT_EQ(r["state"], "done") << r.dump();
    std::string final = r.value("final", "");
    EXPECT_NE(final.find(kDone), std::string::npos) << final;
    EXPECT_EQ(final.find("DECOY"), std::string::npos) << "a decoy was touched: " << final;
    auto heals = events_of(s, r["id"], "heal");
    EXPECT_EQ(heals.size(), std::string(variant) == "decoy-id" ? 1u : 4u) << r.dump();
    for (const auto& h : heals) {
      EXPECT_GE(h["confidence"].get<double>(), 0.6) << h.dump();
      EXPECT_FALSE(h.value("new", "").empty()) << h.dump();
    }
    EXPECT_EQ(r["usage"]["output_tokens"], 0) << "no model";
    // A new version with the healed selectors; the old one kept.
    json latest = s.get("/api/scripts/news").body;
    EXPECT_EQ(latest["version"], ++version) << latest.dump();
    EXPECT_EQ(latest["based_on"], 1);
    EXPECT_EQ(latest["changes"].size(), heals.size()) << latest.dump();
  }
  // The renamed variant's version: its diff names the old and new selectors.
  Http diff = s.get("/api/scripts/news?diff=2");
  ASSERT_EQ(diff.status, 200) << diff.raw;
  std::string d = diff.body["diff"];
  EXPECT_NE(d.find("-await type(activeTab, '#email', {{email}})"), std::string::npos) << d;
  EXPECT_NE(d.find("+await type(activeTab, \"role=textbox[name=\\\"Email address\\\"]\", {{email}})"), std::string::npos) << d;
  EXPECT_NE(d.find("-await click(activeTab, '#subscribe')"), std::string::npos) << d;
  EXPECT_EQ(s.get("/api/scripts/news?diff=1").status, 409) << "the first version has nothing before it";
  // The healed version replays the renamed page with nothing to heal.
  Http again = s.post("/api/scripts/news/run", {{"version", 2}, {"urls", {heal_site().url("renamed")}}});
  ASSERT_EQ(again.status, 201);
  json r2 = s.wait_done(again.body["id"], std::chrono::seconds(60));
  EXPECT_EQ(r2["state"], "done") << r2.dump();
  EXPECT_TRUE(events_of(s, r2["id"], "heal").empty());
}

TEST(ScriptsHeal, AStepThatCannotHealStopsWithCandidatesThenTheModelTakesOver) {
  Server s;
  std::string recorded = record(s);
  ASSERT_EQ(s.post("/api/runs/" + recorded + "/script", {{"name", "news"}}).status, 201);
  json stopped = replay(s, "gone");
  EXPECT_EQ(stopped["state"], "failed") << stopped.dump();
  std::string error = stopped.value("error", "");
  EXPECT_NE(error.find("stopped at step 4 of 5"), std::string::npos) << error;
  EXPECT_NE(error.find("click: step 4 of the replay: '#subscribe' no element matches the selector; it looked for button \"Subscribe\""),
            std::string::npos) << error;
  EXPECT_NE(error.find("best candidates: "), std::string::npos) << error;
  EXPECT_NE(error.find("Subscribe to partner offers"), std::string::npos) << "the decoy is named, not taken: " << error;
  EXPECT_EQ(s.get("/api/scripts/news").body["version"], 1) << "a failed replay rewrites nothing";

  // The scripted model takes over at step 4 and finishes the task.
  std::string path = script_file({{{"text", repl_reply("await click(activeTab, 'role=button[name=\"Join the list\"]')")}},
                                  {{"text", repl_reply("setFinal(await getText(activeTab, '#log'))")}}});
  json taken = replay(s, "gone", {{"fallback", true}, {"options", {{"provider", "script:" + path}}}});
  ASSERT_EQ(taken["state"], "done") << taken.dump();
  std::string final = taken.value("final", "");
  EXPECT_NE(final.find(kDone), std::string::npos) << final;
  EXPECT_EQ(final.find("DECOY"), std::string::npos) << final;
  EXPECT_EQ(taken["usage"]["path"], "replay+agent") << taken.dump();
  EXPECT_GT(taken["usage"]["output_tokens"].get<int64_t>(), 0) << "the model's part has a cost";
  auto code = events_of(s, taken["id"], "code-generated");
  ASSERT_EQ(code.size(), 6u);
  json latest = s.get("/api/scripts/news").body;
  EXPECT_EQ(latest["version"], 2) << latest.dump();
  EXPECT_EQ(latest["based_on"], 1);
  ASSERT_EQ(latest["steps"].size(), 5u) << latest.dump();
  EXPECT_EQ(latest["steps"][3]["code"], "await click(activeTab, 'role=button[name=\"Join the list\"]')");
  EXPECT_EQ(latest["changes"].back()["kind"], "agent");
  EXPECT_EQ(latest["params"], s.get("/api/scripts/news?version=1").body["params"]);
  // And the rewritten version replays the changed page without a model.
  Http again = s.post("/api/scripts/news/run", {{"urls", {heal_site().url("gone")}}});
  json r = s.wait_done(again.body["id"], std::chrono::seconds(60));
  EXPECT_EQ(r["state"], "done") << r.dump();
  EXPECT_NE(r.value("final", "").find(kDone), std::string::npos);
}

// A read that cannot heal (the page's own query in execInTab) and finds nothing where the
// recording found something stops the replay there, rather than deliver an empty final as done.
TEST(ScriptsHeal, AReadThatFindsNothingWhereTheRecordingFoundSomethingStopsTheReplay) {
  Server s;
  std::string path = script_file(
      {{{"text", repl_reply("env.kinds = await execInTab(activeTab, \"[...document.querySelectorAll('.news-form input')].map(i => i.type)\");\nenv.kinds")}},
       {{"text", repl_reply("setFinal(env.kinds)")}}});
  Http created = s.post("/api/runs", {{"task", "List the kinds of the newsletter form's fields"},
                                      {"urls", {heal_site().url("orig")}},
                                      {"options", {{"provider", "script:" + path}}}});
  ASSERT_EQ(created.status, 201) << created.raw;
  json done = s.wait_done(created.body["id"], std::chrono::seconds(60));
  ASSERT_EQ(done["state"], "done") << done.dump();
  ASSERT_TRUE(done["final"].is_array() && !done["final"].empty()) << done.dump();
  ASSERT_EQ(s.post("/api/runs/" + done["id"].get<std::string>() + "/script", {{"name", "kinds"}}).status, 201);

  Http started = s.post("/api/scripts/kinds/run", {{"urls", {heal_site().url("renamed")}}});
  ASSERT_EQ(started.status, 201) << started.raw;
  json stopped = s.wait_done(started.body["id"], std::chrono::seconds(60));
  EXPECT_EQ(stopped["state"], "failed") << stopped.dump();
  std::string error = stopped.value("error", "");
  EXPECT_NE(error.find("stopped at step 1 of 2"), std::string::npos) << error;
  EXPECT_NE(error.find("read nothing: its value is empty where the recording's held " + std::to_string(done["final"].size()) + " items"),
            std::string::npos) << error;

  // On the page it was recorded on, the same script delivers the same final.
  started = s.post("/api/scripts/kinds/run", {{"urls", {heal_site().url("orig")}}});
  json again = s.wait_done(started.body["id"], std::chrono::seconds(60));
  EXPECT_EQ(again["state"], "done") << again.dump();
  EXPECT_EQ(again["final"], done["final"]);
}

// `ouro run --save-script news` in `data`: type, click, read the page's log (script "news" v1).
void record_from_cli(const std::string& data) {
  std::string path = script_file({{{"text", repl_reply("await type(activeTab, '#email', 'ada@example.com')")}},
                                  {{"text", repl_reply("await click(activeTab, '#subscribe')")}},
                                  {{"text", repl_reply("setFinal(await getText(activeTab, '#log'))")}}});
  Exited run = ouro_shell(data, "run 'Subscribe ada@example.com' --url " + heal_site().url("orig") + " --provider script:" + path +
                                    " --save-script news");
  ASSERT_EQ(run.code, 0) << run.err;
}

// `ouro replay` heals too, says so, writes the new version; `ouro script show --diff` shows it.
TEST(ScriptsHealCli, ReplayHealsAndShowsTheDiff) {
  std::string data = temp_dir();
  ASSERT_NO_FATAL_FAILURE(record_from_cli(data));
  Exited healed = ouro_shell(data, "replay news --var email=grace@example.com --url " + heal_site().url("reworded"));
  ASSERT_EQ(healed.code, 0) << healed.err;
  EXPECT_NE(healed.out.find("subscribed email=grace@example.com"), std::string::npos) << healed.out;
  EXPECT_NE(healed.err.find("· path replay · 2 target(s) healed"), std::string::npos) << healed.err;
  EXPECT_NE(healed.err.find("saved news v2 from v1 (see the change: ouro script show news --diff)"), std::string::npos) << healed.err;
  Exited diff = ouro_shell(data, "script show news --diff");
  ASSERT_EQ(diff.code, 0) << diff.err;
  EXPECT_NE(diff.out.find("--- news v1\n+++ news v2\n@@ step 1\n-await type(activeTab, '#email', {{email}})\n"
                          "+await type(activeTab, \"role=textbox[name=\\\"Your email address\\\"]\", {{email}})\n"),
            std::string::npos) << diff.out;
  Exited shown = ouro_shell(data, "script show news --json");
  auto j = parse_json(shown.out);
  ASSERT_TRUE(j) << shown.out;
  EXPECT_EQ((*j)["params"][0]["value"], "ada@example.com") << "the defaults stay the version's";
  // Without a model, a target that is gone stops the replay with its candidates (exit 1).
  Exited gone = ouro_shell(data, "replay news --version 1 --action-timeout 1500 --url " + heal_site().url("gone"));
  EXPECT_EQ(gone.code, 1) << gone.err;
  EXPECT_NE(gone.err.find("best candidates:"), std::string::npos) << gone.err;
}

// A secret typed by handle stays a handle through recording, healing and the rewritten version;
// its value reaches the page and nowhere else.
TEST(ScriptsHealCli, SecretsStayHandlesThroughAHealedReplay) {
  std::string data = temp_dir();
  const std::string env = "OURO_SECRET_MAIL=grace-secret@example.com";
  // A secret's site is an origin, port included: http://127.0.0.1:PORT.
  const std::string page = heal_site().url("orig"), origin = page.substr(0, page.find('/', page.find("//") + 2));
  std::string path = script_file({{{"text", repl_reply("await type(activeTab, '#email', secret('mail'))")}},
                                  {{"text", repl_reply("await click(activeTab, '#subscribe')")}},
                                  {{"text", repl_reply("setFinal((await getText(activeTab, '#log')).length > 0)")}}});
  Exited run = ouro_shell(data, "run 'Subscribe me' --secret mail@" + origin + " --url " + heal_site().url("orig") + " --provider script:" + path +
                                    " --save-script news", "", env);
  ASSERT_EQ(run.code, 0) << run.err;
  Exited healed = ouro_shell(data, "replay news --secret mail@" + origin + " --url " + heal_site().url("renamed") + " --json", "", env);
  ASSERT_EQ(healed.code, 0) << healed.err;
  EXPECT_NE(healed.err.find("2 target(s) healed"), std::string::npos) << healed.err;
  Exited shown = ouro_shell(data, "script show news --json");
  ASSERT_EQ(shown.code, 0) << shown.err;
  EXPECT_NE(shown.out.find("secret('mail')"), std::string::npos) << shown.out;
  EXPECT_EQ(shown.out.find("grace-secret"), std::string::npos) << "the secret's value is in the script: " << shown.out;
  EXPECT_EQ(healed.err.find("grace-secret"), std::string::npos);
  EXPECT_EQ(healed.out.find("grace-secret"), std::string::npos);
}

// A scheduled job that names a script replays it first: its run heals, finishes without a model,
// and its usage says the path was "replay".
TEST(ScriptsHealSchedule, AJobWithAScriptReplaysFirst) {
  std::string data = temp_dir();
  ASSERT_NO_FATAL_FAILURE(record_from_cli(data));
  ServeProcess serve(data);
  ASSERT_FALSE(serve.base.empty()) << serve.log();
  EXPECT_EQ(serve.post("/api/schedules", {{"task", "Subscribe"}, {"every", "1h"}, {"script", "bad name"}}).status, 400);
  Http created = serve.post("/api/schedules", {{"task", "Subscribe ada@example.com"}, {"every", "1h"}, {"script", "news"},
                                               {"urls", {heal_site().url("renamed")}}});
  ASSERT_EQ(created.status, 201) << created.raw;
  std::string id = created.body.value("id", "");
  EXPECT_EQ(created.body["options"]["script"], json({{"name", "news"}, {"fallback", true}})) << created.raw;
  ASSERT_EQ(serve.post("/api/schedules/" + id + "/run", json::object()).status, 202);
  json done;
  for (auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60); std::chrono::steady_clock::now() < until;
       std::this_thread::sleep_for(std::chrono::milliseconds(200))) {
    Http runs = serve.get("/api/runs");
    for (const auto& r : runs.body.is_array() ? runs.body : json::array())
      if (get_str(get_field(r, "options"), "schedule") == id && (r["state"] == "done" || r["state"] == "failed")) done = r;
    if (!done.is_null()) break;
  }
  ASSERT_FALSE(done.is_null()) << serve.log();
  EXPECT_EQ(done["state"], "done") << done.dump();
  EXPECT_NE(done.value("final", "").find("subscribed email=ada@example.com"), std::string::npos) << done.dump();
  EXPECT_EQ(done["usage"]["path"], "replay") << done.dump();
  EXPECT_EQ(done["usage"]["output_tokens"], 0);
}

}  // namespace
}  // namespace ouro::testing
