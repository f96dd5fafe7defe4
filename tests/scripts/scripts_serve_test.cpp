// Runs that become scripts, end to end through an in-process `ouro serve`: a run with a
// scripted model fills the fixture form and reads back what the page kept; it is saved as a
// script with the typed value as a parameter; the script is replayed with another value (one full
// of quotes) with no model configured at all, through an ordinary run — the same kind of final
// with the new value, faster than the recorded run; and a replay on a page without the field
// stops at that step with an error that names it. The same through the terminal: `ouro run
// --save-script`, `ouro script list|show|rm`, `ouro replay` with its exit codes.
#include "api_env.h"
#include "serve_process.h"

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <fstream>

namespace ouro::testing {
namespace {

Http del(Server& s, const std::string& path) { return request("DELETE", s.url(path), s.api->token()); }

// `ouro ARGS` with no model anywhere, in a data directory of this test's.
Exited ouro(const std::string& args) {
  static std::string data = temp_dir();
  return ouro_shell(data, args);
}

TEST(ScriptsServe, ARecordedRunIsSavedAndReplayedWithAnotherValueWithoutAModel) {
  Server s;
  // The recorded run: a type, a dead end, the read and its final. The model "thinks" a little.
  std::string path = script_file({{{"text", repl_reply("await type(activeTab, '#name', 'Ada Lovelace')")}, {"delay_ms", 300}},
                                  {{"text", repl_reply("JSON.parse('{')")}, {"delay_ms", 300}},
                                  {{"text", repl_reply("setFinal('Saved: ' + JSON.parse(await getText(activeTab, '#state')).name)")}, {"delay_ms", 300}}});
  Http created = s.post("/api/runs", {{"task", "Type \"Ada Lovelace\" into the name field and say what the page saved"},
                                      {"urls", {site().url("/form")}},
                                      {"options", {{"provider", "script:" + path}}}});
  ASSERT_EQ(created.status, 201) << created.raw;
  std::string recorded = created.body["id"];
  json done = s.wait_done(recorded);
  ASSERT_EQ(done["state"], "done") << done.dump();
  EXPECT_EQ(done["final"], "Saved: Ada Lovelace");

  // Proposed (dry_run saves nothing), then saved: the typed value a parameter, the dead end dropped.
  Http proposed = s.post("/api/runs/" + recorded + "/script", {{"name", "signup"}, {"dry_run", true}});
  ASSERT_EQ(proposed.status, 200) << proposed.raw;
  EXPECT_EQ(proposed.body["params"], json::array({{{"name", "name"}, {"value", "Ada Lovelace"}, {"source", "typed"}}}));
  EXPECT_EQ(s.get("/api/scripts").body["scripts"], json::array());
  Http saved = s.post("/api/runs/" + recorded + "/script", {{"name", "signup"}});
  ASSERT_EQ(saved.status, 201) << saved.raw;
  EXPECT_EQ(saved.body["version"], 1);
  ASSERT_EQ(saved.body["params"].size(), 1u) << saved.raw;
  EXPECT_EQ(saved.body["params"][0]["name"], "name");
  EXPECT_EQ(saved.body["params"][0]["value"], "Ada Lovelace");
  EXPECT_EQ(saved.body["task"], "Type \"{{name}}\" into the name field and say what the page saved");
  ASSERT_EQ(saved.body["steps"].size(), 2u) << saved.raw;
  EXPECT_EQ(saved.body["steps"][0]["code"], "await type(activeTab, '#name', {{name}})");
  EXPECT_EQ(saved.body["steps"][0]["targets"][0]["action"], "type");
  EXPECT_EQ(saved.body["steps"][0]["targets"][0]["target"], "#name");
  // With what identifies the field beyond its selector (its recorded details).
  EXPECT_EQ(saved.body["steps"][0]["targets"][0]["details"]["role"], "textbox") << saved.raw;
  EXPECT_EQ(saved.body["steps"][0]["targets"][0]["details"]["name"], "Name") << saved.raw;
  EXPECT_EQ(saved.body["urls"], json::array({site().url("/form")}));
  Http listed = s.get("/api/scripts");
  ASSERT_EQ(listed.status, 200) << listed.raw;
  ASSERT_EQ(listed.body["scripts"].size(), 1u);
  EXPECT_EQ(listed.body["scripts"][0]["versions"], 1);
  Http shown = s.get("/api/scripts/signup");
  ASSERT_EQ(shown.status, 200) << shown.raw;
  ASSERT_TRUE(shown.body.contains("source_run_ms")) << shown.raw;
  double recorded_ms = shown.body["source_run_ms"];

  // Replayed with a hostile value and no model configured: an ordinary run.
  const std::string grace = "Grace \"G\" O'Hara\"); setFinal('pwned') //";
  Http replay = s.post("/api/scripts/signup/run", {{"vars", {{"name", grace}}}});
  ASSERT_EQ(replay.status, 201) << replay.raw;
  std::string id = replay.body["id"];
  json again = s.wait_done(id);
  ASSERT_EQ(again["state"], "done") << again.dump();
  EXPECT_EQ(again["final"], "Saved: " + grace);
  EXPECT_EQ(again["iterations"], 2);
  EXPECT_EQ(again["task"], "Type \"" + grace + "\" into the name field and say what the page saved");
  EXPECT_EQ(again["usage"]["output_tokens"], 0) << "no model";
  auto code = events_of(s, id, "code-generated");
  ASSERT_EQ(code.size(), 2u);
  EXPECT_EQ(code[0]["code"], "await type(activeTab, '#name', \"Grace \\\"G\\\" O'Hara\\\"); setFinal('pwned') //\")");
  double replay_ms = again["updated_at"].get<double>() - again["created_at"].get<double>();
  // Shown, not asserted: wall-clock on a shared machine is a benchmark's business (replay_bench).
  std::cout << "[ recorded run " << recorded_ms << " ms, replay " << replay_ms << " ms ]\n";

  // Unknown variables are the request's error; a page without the field stops the replay there.
  EXPECT_EQ(s.post("/api/scripts/signup/run", {{"vars", {{"nosuch", "x"}}}}).status, 400);
  EXPECT_EQ(s.post("/api/scripts/nosuch/run", json::object()).status, 404);
  Http broken = s.post("/api/scripts/signup/run", {{"urls", {site().url("/")}}});
  ASSERT_EQ(broken.status, 201) << broken.raw;
  json stopped = s.wait_done(broken.body["id"], std::chrono::seconds(60));
  EXPECT_EQ(stopped["state"], "failed") << stopped.dump();
  EXPECT_NE(stopped.value("error", "").find("replay of script signup v1 stopped at step 1 of 2 (type on type '#name'): "), std::string::npos)
      << stopped.dump();

  // A second save is a new version; delete removes them all.
  Http v2 = s.post("/api/runs/" + recorded + "/script", {{"name", "signup"}, {"params", json::array({{{"name", "who"}, {"value", "Ada Lovelace"}}})}});
  ASSERT_EQ(v2.status, 201) << v2.raw;
  EXPECT_EQ(v2.body["version"], 2);
  EXPECT_EQ(s.get("/api/scripts/signup?version=1").body["params"][0]["name"], "name");
  EXPECT_EQ(s.get("/api/scripts/signup").body["params"][0]["name"], "who");
  EXPECT_EQ(s.post("/api/runs/" + recorded + "/script", {{"name", "bad name"}}).status, 400);
  EXPECT_EQ(del(s, "/api/scripts/signup").status, 200);
  EXPECT_EQ(s.get("/api/scripts/signup").status, 404);
}

TEST(ScriptsCli, RunSaveScriptThenReplayWithAVarAndNoModel) {
  std::string path = script_file({{{"text", repl_reply("await type(activeTab, '#name', 'Ada Lovelace')")}, {"delay_ms", 300}},
                                  {{"text", repl_reply("setFinal('Saved: ' + JSON.parse(await getText(activeTab, '#state')).name)")}, {"delay_ms", 300}}});
  Exited run = ouro("run 'Type \"Ada Lovelace\" into the name field' --url " + site().url("/form") + " --provider script:" + path +
                     " --save-script signup");
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.out, "Saved: Ada Lovelace\n");
  EXPECT_NE(run.err.find("saved as script signup v1 (2 steps); replay: ouro replay signup"), std::string::npos) << run.err;

  Exited listed = ouro("script list");
  ASSERT_EQ(listed.code, 0) << listed.err;
  EXPECT_NE(listed.out.find("signup v1"), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find("params: name=\"Ada Lovelace\""), std::string::npos) << listed.out;
  Exited shown = ouro("script show signup --json");
  ASSERT_EQ(shown.code, 0) << shown.err;
  auto j = parse_json(shown.out);
  ASSERT_TRUE(j) << shown.out;
  EXPECT_EQ((*j)["steps"][0]["code"], "await type(activeTab, '#name', {{name}})");

  Exited replay = ouro("replay signup --var 'name=Grace \"G\" O'\\''Hara'");
  ASSERT_EQ(replay.code, 0) << replay.err;
  EXPECT_EQ(replay.out, "Saved: Grace \"G\" O'Hara\n");
  EXPECT_NE(replay.err.find("ouro replay · script signup v1 · 2 steps · no model"), std::string::npos) << replay.err;
  EXPECT_NE(replay.err.find("replayed in "), std::string::npos) << replay.err;
  EXPECT_NE(replay.err.find("(the recorded run took "), std::string::npos) << replay.err;
  // Without a model there is no prompt to estimate, no tokens and no follow-up to offer.
  EXPECT_EQ(replay.err.find("tokens"), std::string::npos) << replay.err;
  EXPECT_EQ(replay.err.find("--continue"), std::string::npos) << replay.err;

  Exited broken = ouro("replay signup --action-timeout 500 --url " + site().url("/"));
  EXPECT_EQ(broken.code, 1) << broken.err;
  EXPECT_NE(broken.err.find("stopped at step 1 of 2 (type on type '#name')"), std::string::npos) << broken.err;
  Exited unknown = ouro("replay signup --var nosuch=1");
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("script signup has no parameter nosuch (its parameters: name)"), std::string::npos) << unknown.err;

  EXPECT_EQ(ouro("script rm signup").code, 0);
  Exited gone = ouro("script show signup");
  EXPECT_EQ(gone.code, 1);
  EXPECT_NE(gone.err.find("no script named signup"), std::string::npos) << gone.err;
}

}  // namespace
}  // namespace ouro::testing
