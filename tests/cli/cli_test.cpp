// `ouro`'s command line (cli/cli.cpp) as a user meets it: flags a command does not take and
// arguments it needs are explained, `ouro help api` prints the reference, and a workspace keeps its
// data apart for every command.
#include "cli_harness.h"

namespace ouro::testing {
namespace {

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

TEST(Cli, HelpApiPrintsTheReference) {
  Outcome r = ouro("help api");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("await execInTab(tabId, code) → any"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("### Session & Storage"), std::string::npos);
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
