// `ouro script save|list|show|rm` (cli/script.cpp) as a user types them, each test on a data
// directory of its own holding a run of a scripted model to save: versions, parameters, steps and
// their diff, --json, and every mistake refused with its exit code and its words.
#include "cli_harness.h"

namespace ouro::testing {
namespace {

// `ouro script ARGS` (shell text) in dir.
Outcome ouro_script(const std::string& dir, const std::string& args) { return ouro_shell(dir, "script " + args); }

// What a command printed as JSON (null when it printed none).
json json_of(const Outcome& r) { return parse_json(r.out).value_or(json()); }

// A finished run in dir (its id): the model notes a greeting in env, then answers with it. The
// task has no quoted text, URL, date or number and nothing is typed into a page, so nothing is
// proposed as a parameter.
std::string greeting_run(const std::string& dir, const std::string& task = "Note the greeting") {
  Outcome r = ouro_args(dir, {"run", task, "--json", "--provider",
                              "script:" + script_file({{{"text", repl_reply("env.greeting = 'hello'")}},
                                                       {{"text", repl_reply("setFinal(env.greeting + ' world')")}}})});
  EXPECT_EQ(r.code, 0) << r.err;
  json j = parse_json(r.out).value_or(json::object());
  if (!j.is_object()) return "";
  EXPECT_EQ(j["state"], "done") << r.out;
  return j.value("runId", "");
}

const std::string kNoScripts = "no scripts yet: ouro run … --save-script NAME, or ouro script save RUN_ID NAME\n";

TEST(CliScript, AFinishedRunIsSavedAsNumberedVersionsListedShownComparedAndDeleted) {
  const std::string dir = temp_dir(), run = greeting_run(dir);
  ASSERT_FALSE(run.empty());
  Outcome v1 = ouro_script(dir, "save " + run + " greet");
  EXPECT_EQ(v1.code, 0) << v1.err;
  EXPECT_EQ(v1.out, "saved greet v1 · 2 steps · params: none\nreplay: ouro replay greet\n");
  Outcome v2 = ouro_script(dir, "save " + run + " greet --json");
  EXPECT_EQ(v2.code, 0) << v2.err;
  json second = json_of(v2);
  EXPECT_EQ(second["name"], "greet") << v2.out;
  EXPECT_EQ(second["version"], 2) << "a second save of a name is its next version";
  EXPECT_EQ(second["source_run"], run);
  EXPECT_EQ(second["params"], json::array());
  Outcome same = ouro_script(dir, "show greet --diff");
  EXPECT_EQ(same.code, 0) << same.err;
  EXPECT_EQ(same.out, "greet v1 and v2 have the same steps\n");

  // Given parameters replace the proposed ones (none here), in the order given.
  Outcome v3 = ouro_script(dir, "save " + run + " greet --param greeting=hello --param 'suffix= world'");
  EXPECT_EQ(v3.code, 0) << v3.err;
  EXPECT_EQ(v3.out, "saved greet v3 · 2 steps · params: greeting=\"hello\", suffix=\" world\"\nreplay: ouro replay greet --var greeting=…\n");
  const std::string head = " · from run " + run + " · 2 steps\n  task: Note the greeting\n  params: greeting=\"hello\", suffix=\" world\"\n";
  Outcome list = ouro_script(dir, "list");
  EXPECT_EQ(list.code, 0) << list.err;
  EXPECT_EQ(list.out, "greet v3 (of 3)" + head) << "the latest version of each name";
  json listed = json_of(ouro_script(dir, "list --json"));
  ASSERT_EQ(listed.size(), 1u) << listed.dump();
  EXPECT_EQ(listed[0]["version"], 3);
  EXPECT_EQ(listed[0]["versions"], 3);

  Outcome show = ouro_script(dir, "show greet");
  EXPECT_EQ(show.code, 0) << show.err;
  EXPECT_EQ(show.out.rfind("greet v3" + head, 0), 0u) << show.out;
  const size_t step1 = show.out.find("\nstep 1 (iteration 1 of the run) · "), step2 = show.out.find("\nstep 2 (iteration 2 of the run) · final · ");
  EXPECT_NE(step1, std::string::npos) << show.out;
  EXPECT_NE(step2, std::string::npos) << show.out;
  EXPECT_LT(step1, step2);
  EXPECT_NE(show.out.find("\nenv.greeting = {{greeting}}\n"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("\nsetFinal(env.greeting + {{suffix}})\n"), std::string::npos) << show.out;
  json latest = json_of(ouro_script(dir, "show greet --json"));
  EXPECT_EQ(latest["version"], 3);
  EXPECT_EQ(latest["task"], "Note the greeting");
  EXPECT_EQ(latest["params"], json::array({{{"name", "greeting"}, {"value", "hello"}, {"source", "user"}},
                                           {{"name", "suffix"}, {"value", " world"}, {"source", "user"}}}));
  ASSERT_EQ(latest["steps"].size(), 2u) << latest.dump();
  EXPECT_EQ(latest["steps"][0]["code"], "env.greeting = {{greeting}}");
  EXPECT_FALSE(latest["steps"][0].contains("setFinal"));
  EXPECT_EQ(latest["steps"][1]["setFinal"], true);
  EXPECT_EQ(latest["urls"], json::array());
  json first = json_of(ouro_script(dir, "show greet --version 1 --json"));
  EXPECT_EQ(first["version"], 1);
  EXPECT_EQ(first["steps"][0]["code"], "env.greeting = 'hello'") << "the older versions are kept as they were";

  const std::string change = "--- greet v2\n+++ greet v3\n@@ step 1\n-env.greeting = 'hello'\n+env.greeting = {{greeting}}\n"
                             "@@ step 2\n-setFinal(env.greeting + ' world')\n+setFinal(env.greeting + {{suffix}})\n";
  Outcome diff = ouro_script(dir, "show greet --diff");
  EXPECT_EQ(diff.code, 0) << diff.err;
  EXPECT_EQ(diff.out, change);
  json diff_json = json_of(ouro_script(dir, "show greet --diff --json"));
  EXPECT_EQ(diff_json, json({{"name", "greet"}, {"from", 2}, {"to", 3}, {"diff", change}, {"changes", json::array()}}));
  EXPECT_TRUE(exits_saying(ouro_script(dir, "show greet --version 1 --diff"), 1, "ouro script: greet v1 is the first version: nothing to compare it with"));
  Outcome no_such_version = ouro_script(dir, "show greet --version 9");
  EXPECT_EQ(no_such_version.code, 1);
  EXPECT_NE(no_such_version.err.find("ouro script: script greet has no version 9 (ouro script show greet lists the latest)"), std::string::npos)
      << no_such_version.err;

  Outcome rm = ouro_script(dir, "rm greet");
  EXPECT_EQ(rm.code, 0) << rm.err;
  EXPECT_EQ(rm.out, "deleted greet (3 versions)\n");
  EXPECT_TRUE(exits_saying(ouro_script(dir, "show greet"), 1, "ouro script: no script named greet (ouro script list shows them)"));
  EXPECT_EQ(ouro_script(dir, "list").out, kNoScripts);
}

TEST(CliScript, NoScriptsYetSaysHowToMakeOneAndUnknownNamesAndRunsAreNamed) {
  const std::string dir = temp_dir();
  Outcome list = ouro_script(dir, "list");
  EXPECT_EQ(list.code, 0) << list.err;
  EXPECT_EQ(list.out, kNoScripts);
  Outcome as_json = ouro_script(dir, "list --json");
  EXPECT_EQ(as_json.code, 0) << as_json.err;
  EXPECT_EQ(json_of(as_json), json::array()) << as_json.out;
  EXPECT_TRUE(exits_saying(ouro_script(dir, "show greet"), 1, "ouro script: no script named greet (ouro script list shows them)"));
  EXPECT_TRUE(exits_saying(ouro_script(dir, "rm greet"), 1, "ouro script: no script named greet"));
  EXPECT_TRUE(exits_saying(ouro_script(dir, "save rnope123456 greet"), 1, "ouro script: no run rnope123456"));
  EXPECT_EQ(ouro_script(dir, "list").out, kNoScripts);
}

TEST(CliScript, ANameOrParameterThatCannotBeUsedIsRefusedBeforeTheRunIsRead) {
  const std::string dir = temp_dir();
  const std::string rule = "ouro script: a script's name is 1 to 64 letters, digits, '_', '-' or '.'; got \"";
  const std::vector<std::string> names = {"bad name", "grüße", "a/b", "../up", "it's", "two\nlines", "semi;colon", std::string(65, 'a')};
  for (const auto& name : names) {
    Outcome r = ouro_args(dir, {"script", "save", "rnope123456", name});
    EXPECT_EQ(r.code, 2) << name << ": " << r.err;
    EXPECT_NE(r.err.find(rule), std::string::npos) << name << ": " << r.err;
  }
  for (const std::string param : {"noequals", "=hello"}) {
    Outcome r = ouro_args(dir, {"script", "save", "rnope123456", "greet", "--param", param});
    EXPECT_EQ(r.code, 2) << param << ": " << r.err;
    EXPECT_NE(r.err.find("ouro script: a variable is name=value, got \"" + param + "\""), std::string::npos) << r.err;
  }
  // A run id as long as a pasted page is no run.
  EXPECT_TRUE(exits_saying(ouro_args(dir, {"script", "save", std::string(5000, 'r'), "greet"}), 1, "ouro script: no run rrrr"));
  // Names that could not be saved are no script either.
  EXPECT_TRUE(exits_saying(ouro_args(dir, {"script", "show", "it's \"odd\"\nname"}), 1, "ouro script: no script named it's \"odd\"\nname"));
  EXPECT_EQ(ouro_script(dir, "list").out, kNoScripts);
}

TEST(CliScript, CommandLineMistakesExitTwoSayingWhatToGive) {
  const std::string dir = temp_dir();
  EXPECT_TRUE(exits_saying(ouro_script(dir, ""), 2, "ouro script needs one of: save, list, show, rm"));
  EXPECT_TRUE(exits_saying(ouro_script(dir, "save"), 2, "run is required"));
  EXPECT_TRUE(exits_saying(ouro_script(dir, "show"), 2, "name is required"));
  EXPECT_TRUE(exits_saying(ouro_script(dir, "show greet --version 0"), 2, "--version: Value 0 not in range"));
}

TEST(CliScript, OnlyARunThatDeliveredItsFinalBecomesAScript) {
  const std::string dir = temp_dir();
  Outcome r = ouro_args(dir, {"run", "Keep looking", "--json", "--max-iterations", "1", "--provider",
                              "script:" + script_file({{{"text", repl_reply("env.looked = true")}}})});
  EXPECT_EQ(r.code, 1) << "stopped at its cap: " << r.err;
  json j = parse_json(r.out).value_or(json::object());
  ASSERT_TRUE(j.is_object() && j["runId"].is_string()) << r.out;
  Outcome saved = ouro_script(dir, "save " + j["runId"].get<std::string>() + " looked");
  EXPECT_EQ(saved.code, 1);
  EXPECT_NE(saved.err.find("ouro script: the run did not end by setFinal() in a block that ran: only a run that delivered its final becomes a script"),
            std::string::npos)
      << saved.err;
  EXPECT_EQ(ouro_script(dir, "list").out, kNoScripts);
}

TEST(CliScript, ParametersThatCannotBeLiftedAreRefusedAndNothingIsSaved) {
  const std::string dir = temp_dir(), run = greeting_run(dir);
  ASSERT_FALSE(run.empty());
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--param 'bad name=hello'", "parameter name \"bad name\" is not allowed: a letter or '_', then letters, digits or '_' (at most 40)"},
      {"--param 1st=hello", "parameter name \"1st\" is not allowed"},
      {"--param greeting=", "parameter greeting needs its default value (name=value)"},
      {"--param greeting=hello --param greeting=hi", "parameter greeting is named twice"},
  };
  for (const auto& [flags, words] : cases) {
    EXPECT_TRUE(exits_saying(ouro_script(dir, "save " + run + " greet " + flags), 2, "ouro script: " + words));
  }
  EXPECT_EQ(ouro_script(dir, "list").out, kNoScripts);
}

TEST(CliScript, AnOddTaskComesBackIntactAndALongestNameIsKept) {
  const std::string dir = temp_dir();
  const std::string task = "Say «grüß dich» to \"Ada\" & 'Bob' — 日本語\nthen stop; `echo no` $HOME \\n";
  const std::string run = greeting_run(dir, task);
  ASSERT_FALSE(run.empty());
  const std::string name(64, 'n');
  Outcome saved = ouro_args(dir, {"script", "save", run, name, "--param", "greeting=hello", "--json"});
  EXPECT_EQ(saved.code, 0) << saved.err;
  EXPECT_EQ(json_of(saved)["name"], name);
  json shown = json_of(ouro_args(dir, {"script", "show", name, "--json"}));
  EXPECT_EQ(shown["task"], task) << shown.dump();
  EXPECT_EQ(shown["params"].size(), 1u) << "the given parameter only, none proposed from the task's quotes";
  Outcome list = ouro_script(dir, "list");
  EXPECT_NE(list.out.find(name + " v1 · from run " + run + " · 2 steps\n  task: " + task + "\n"), std::string::npos) << list.out;
  Outcome rm = ouro_args(dir, {"script", "rm", name});
  EXPECT_EQ(rm.code, 0) << rm.err;
  EXPECT_EQ(rm.out, "deleted " + name + " (1 version)\n");
}

}  // namespace
}  // namespace ouro::testing
