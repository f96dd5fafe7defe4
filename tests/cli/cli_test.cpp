// `ouro exec`, `ouro repl`, `ouro do`, `ouro help` and workspaces as a user runs them: exit codes,
// stdout and stderr, messages.
#include "cli_harness.h"

namespace ouro::testing {
namespace {

using testing::RawServer;
using testing::Step;

TEST(Cli, ExecPrintsTheValueAndItsSummary) {
  Outcome r = ouro("exec --url " + site().url("/") + " 'await getText(activeTab, \"h1\")'");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "Fixture Home\n");
  EXPECT_NE(r.err.find("Result: string = \"Fixture Home\""), std::string::npos) << r.err;
}

TEST(Cli, ExecJsonAndSetFinalAndStdin) {
  Outcome r = ouro("exec --json --url " + site().url("/list") +
               " 'setFinal((await querySelectorAll(activeTab, \".item .price\")).slice(0, 2).map(e => Number(e.text)))'");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "[3,6]\n");
  Outcome s = ouro("exec -", "const a = 20\na + 22");
  EXPECT_EQ(s.code, 0) << s.err;
  EXPECT_EQ(s.out, "42\n");
}

TEST(Cli, SeveralUrlsOpenSeveralTabs) {
  Outcome r = ouro("exec --json --url " + site().url("/") + " --url " + site().url("/b") + " 'tabs.map(t => t.title)'");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "[\"Fixture Home\",\"Page B\"]\n");
}

TEST(Cli, ErrorsExitNonZeroWithAClearMessage) {
  Outcome r = ouro("exec 'null.x'");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("error: TypeError: null is not an object"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(line 1)"), std::string::npos) << r.err;
  Outcome t = ouro("exec --timeout 0.5 'while(true){}'");
  EXPECT_EQ(t.code, 1);
  EXPECT_NE(t.err.find("ran longer than its 500 ms deadline"), std::string::npos) << t.err;
}

TEST(Cli, BadFlagsAndMissingArgumentsAreExplained) {
  Outcome r = ouro("exec --bogus 1");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--bogus"), std::string::npos) << r.err;
  Outcome s = ouro("exec");
  EXPECT_EQ(s.code, 2);
  EXPECT_NE(s.err.find("code is required"), std::string::npos) << s.err;
  Outcome t = ouro("exec --browser http://nope 1");
  EXPECT_EQ(t.code, 2);
  EXPECT_NE(t.err.find("is not a ws://host:port/path URL"), std::string::npos) << t.err;
}

TEST(Cli, AProfileKeepsLoginsBetweenRuns) {
  std::string profile = temp_dir() + "/profile";
  double expires = static_cast<double>(std::time(nullptr) + 3600);
  Outcome set = ouro("exec --profile " + profile + " \"await setCookie({ name: 'login', value: 'kept', url: '" + site().url("/") +
                     "', expires: " + std::to_string(expires) + " }); 1\"");
  ASSERT_EQ(set.code, 0) << set.err;
  Outcome get = ouro("exec --json --profile " + profile + " \"(await getCookies()).filter(c => c.name === 'login').map(c => c.value)\"");
  EXPECT_EQ(get.code, 0) << get.err;
  EXPECT_EQ(get.out, "[\"kept\"]\n") << "the second run sees the first run's login";
  Outcome fresh = ouro("exec --json \"(await getCookies()).filter(c => c.name === 'login').length\"");
  EXPECT_EQ(fresh.out, "0\n") << "without --profile every run starts clean";
}

TEST(Cli, HelpApiPrintsTheReference) {
  Outcome r = ouro("help api");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("await execInTab(tabId, code) → any"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("### Session & Storage"), std::string::npos);
}

TEST(Cli, ReplKeepsStateBetweenInputs) {
  Outcome r = ouro("repl --url " + site().url("/"), "env.n = 40\nconst t = activeTab\nenv.n + 2\n.env\nawait getText(t, 'h1')\n");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("Result: number = 42"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  n: number = 40"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Result: string = \"Fixture Home\""), std::string::npos) << r.out;
}

// ouro do: one line per step, exit 0 when all held, 1 with the reason when one did not.
TEST(CliDo, RunsCommandsAndSaysWhatEachDid) {
  Outcome r = ouro("do --url " + site().url("/act/pages/enter-text.html") + " 'Enter \"Kathy\" into the text field and press Submit'");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("✓ type \"Kathy\" into the text field — typed \"Kathy\" into textbox"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("✓ click Submit — clicked button \"Submit\""), std::string::npos) << r.out;
  r = ouro("do --action-timeout 300 --url " + site().url("/act/pages/buttons.html") + " 'click the Purple button; press Enter'");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("✗ click the Purple button"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("there are: "), std::string::npos) << "the buttons there are, to name one: " << r.out;
  EXPECT_NE(r.out.find("· press Enter"), std::string::npos) << "skipped: " << r.out;
  r = ouro("do --dry-run 'Select Bob from the list and click Submit'");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find("about:blank")), "→ select \"Bob\" from the list\n→ click Submit\n");
  r = ouro("do 'Frobnicate the widget'");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("I do not understand 'Frobnicate the widget'"), std::string::npos) << r.err;
}

// The code given to `ouro exec` is not a task: a URL written in it is not an allowed site, while
// --url still is.
TEST(CliExec, UrlsWrittenInTheCodeAreNotAllowedSites) {
  InjectionSites sites;
  std::string steal = sites.collector("/steal?from=exec");
  Outcome r = ouro("exec --mode autonomous --url " + sites.victim("/") + " 'await navigate(activeTab, \"" + steal + "\")'");
  EXPECT_NE(r.code, 0) << r.out;
  EXPECT_NE(r.err.find("navigate"), std::string::npos) << r.err;
  for (const auto& line : sites.collected()) ADD_FAILURE() << "the collector received " << line;
  Outcome allowed = ouro("exec --mode autonomous --url " + sites.victim("/") + " 'await navigate(activeTab, \"" + sites.victim("/search?q=x") + "\"); 1'");
  EXPECT_EQ(allowed.code, 0) << allowed.err;
}

TEST(CliWorkspace, WorkspacesKeepStoresAndRunsApart) {
  std::string data = temp_dir();
  std::string env = "OURO_DATA_DIR=" + data;
  Outcome put = ouro("exec --workspace a 'await store(\"k\", 1)'", "", env);
  EXPECT_EQ(put.code, 0) << put.err;
  EXPECT_EQ(ouro("exec --json --workspace a 'await retrieve(\"k\")'", "", env).out, "1\n");
  EXPECT_EQ(ouro("exec --json --workspace b 'await retrieve(\"k\")'", "", env).out, "null\n") << "b does not see a's store";
  EXPECT_EQ(ouro("exec --json 'await retrieve(\"k\")'", "", env).out, "null\n") << "nor does the default data directory";
  EXPECT_EQ(ouro("exec --json 'await retrieve(\"k\")'", "", env + " OURO_WORKSPACE=a").out, "1\n") << "$OURO_WORKSPACE";
  struct stat st {};
  ASSERT_EQ(stat((data + "/workspaces/a").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  // A run in one workspace is not in another's list, and cannot be continued from there.
  Outcome run = ouro("run 'Note it' --workspace a --provider script:" + script_file({{{"text", repl_reply("setFinal('noted')")}}}), "", env);
  EXPECT_EQ(run.code, 0) << run.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(run.err, m, std::regex("run (r[0-9a-z]{10}) · follow up with"))) << run.err;
  std::string id = m[1];
  auto runs_of = [&](const std::string& db_path) {
    std::vector<std::string> ids;
    auto db = store::Database::open(db_path);
    if (!db) return ids;
    for (const auto& r : (*db)->list_runs().value_or(std::vector<store::Database::RunRow>{})) ids.push_back(r.id);
    return ids;
  };
  EXPECT_EQ(runs_of(data + "/workspaces/a/ouro.db"), std::vector<std::string>{id});
  EXPECT_TRUE(runs_of(data + "/workspaces/b/ouro.db").empty());
  EXPECT_TRUE(runs_of(data + "/ouro.db").empty());
  Outcome elsewhere = ouro("run 'x' --workspace b --continue " + id + " --provider script:" + script_file({{{"text", repl_reply("setFinal(1)")}}}), "", env);
  EXPECT_NE(elsewhere.code, 0);
  EXPECT_NE(elsewhere.err.find("no run '" + id + "'"), std::string::npos) << elsewhere.err;
  // A name outside the rule: exit 2, and the rule.
  for (const std::string& bad : std::vector<std::string>{"'../x'", "'a b'", std::string(65, 'x')}) {
    Outcome r = ouro("exec --workspace " + bad + " 1", "", env);
    EXPECT_EQ(r.code, 2) << bad;
    EXPECT_NE(r.err.find("use 1 to 64 letters, digits, '_' or '-'"), std::string::npos) << bad << ": " << r.err;
  }
  Outcome bad_env = ouro("exec 1", "", env + " OURO_WORKSPACE=no/slash");
  EXPECT_EQ(bad_env.code, 2) << bad_env.err;
}

}  // namespace
}  // namespace ouro::testing
