// `ouro exec`, `ouro do` and `ouro repl` (cli/exec.cpp) as a user runs them: exit codes, stdout and
// stderr, messages; code given to exec is not a task, so URLs written in it are not allowed sites.
#include "cli_harness.h"

namespace ouro::testing {
namespace {

TEST(CliExec, PrintsTheValueAndItsSummary) {
  Outcome r = ouro("exec --url " + site().url("/") + " 'await getText(activeTab, \"h1\")'");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "Fixture Home\n");
  EXPECT_NE(r.err.find("Result: string = \"Fixture Home\""), std::string::npos) << r.err;
}

TEST(CliExec, JsonAndSetFinalAndStdin) {
  Outcome r = ouro("exec --json --url " + site().url("/list") +
               " 'setFinal((await querySelectorAll(activeTab, \".item .price\")).slice(0, 2).map(e => Number(e.text)))'");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "[3,6]\n");
  Outcome s = ouro("exec -", "const a = 20\na + 22");
  EXPECT_EQ(s.code, 0) << s.err;
  EXPECT_EQ(s.out, "42\n");
}

TEST(CliExec, SeveralUrlsOpenSeveralTabs) {
  Outcome r = ouro("exec --json --url " + site().url("/") + " --url " + site().url("/b") + " 'tabs.map(t => t.title)'");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "[\"Fixture Home\",\"Page B\"]\n");
}

TEST(CliExec, ErrorsExitNonZeroWithAClearMessage) {
  Outcome r = ouro("exec 'null.x'");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("error: TypeError: null is not an object"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(line 1)"), std::string::npos) << r.err;
  Outcome t = ouro("exec --timeout 0.5 'while(true){}'");
  EXPECT_EQ(t.code, 1);
  EXPECT_NE(t.err.find("ran longer than its 500 ms deadline"), std::string::npos) << t.err;
}

TEST(CliExec, AProfileKeepsLoginsBetweenRuns) {
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

TEST(CliRepl, KeepsStateBetweenInputs) {
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

}  // namespace
}  // namespace ouro::testing
