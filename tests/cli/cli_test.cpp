// `ouro` as a user runs it: exit codes, stdout/stderr, messages.
#include "browser_env.h"

#include <sys/wait.h>

#include <cstdio>
#include <fstream>

namespace ouro::testing {
namespace {

struct Outcome {
  int code = -1;
  std::string out, err;
};

Outcome ouro(const std::string& args, const std::string& stdin_text = "") {
  static std::string data = temp_dir();
  std::string err_file = temp_dir() + "/stderr", in_file = temp_dir() + "/stdin";
  std::ofstream(in_file) << stdin_text;
  std::string cmd = "OURO_DATA_DIR=" + data + " " + ouro_binary() + " " + args + " <" + in_file + " 2>" + err_file;
  FILE* p = popen(cmd.c_str(), "r");
  Outcome r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream e(err_file);
  r.err.assign(std::istreambuf_iterator<char>(e), {});
  return r;
}

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

}  // namespace
}  // namespace ouro::testing
