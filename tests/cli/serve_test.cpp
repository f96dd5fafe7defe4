// `ouro serve` (cli/serve.cpp) as a user starts it: the token URL it prints, the API it serves,
// Ctrl-C, and a second server on one data directory refused.
#include "cli_harness.h"

#include <curl/curl.h>

namespace ouro::testing {
namespace {

using testing::RawServer;
using testing::Step;

// `ouro serve --port 0` on data directory `dir`, its stdout in dir/out.txt and stderr in dir/err.txt.
pid_t start_serve(const std::string& dir) {
  std::string out_file = dir + "/out.txt";
  pid_t pid = fork();
  if (pid == 0) {
    setenv("OURO_DATA_DIR", dir.c_str(), 1);
    freopen(out_file.c_str(), "w", stdout);
    freopen((dir + "/err.txt").c_str(), "w", stderr);
    execl(ouro_binary().c_str(), "ouro", "serve", "--port", "0", nullptr);
    _exit(127);
  }
  return pid;
}

TEST(CliServe, PrintsATokenUrlServesTheApiAndStopsOnCtrlC) {
  std::string dir = temp_dir();
  std::string out_file = dir + "/out.txt";
  pid_t pid = start_serve(dir);
  std::string url;
  for (int i = 0; i < 600 && url.empty(); ++i) {  // up to a minute: Chromium launches first
    std::ifstream in(out_file);
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("Ouroboros Command Center: ", 0) == 0) url = line.substr(26);
    if (url.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_FALSE(url.empty()) << "no URL printed";
  EXPECT_NE(url.find("http://127.0.0.1:"), std::string::npos);
  EXPECT_NE(url.find("/?token="), std::string::npos);
  std::string base = url.substr(0, url.find("/?token="));
  std::string token = url.substr(url.find("token=") + 6);
  CURL* c = curl_easy_init();
  curl_slist* h = curl_slist_append(nullptr, ("Authorization: Bearer " + token).c_str());
  curl_easy_setopt(c, CURLOPT_URL, (base + "/api/runs").c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, +[](char*, size_t s, size_t n, void*) { return s * n; });
  curl_easy_perform(c);
  long code = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
  curl_slist_free_all(h);
  curl_easy_cleanup(c);
  EXPECT_EQ(code, 200);
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a clean stop on Ctrl-C";
}

// One server per data directory on SQLite: the second is refused at once, naming the first,
// and leaves the first's runs alone; so is a resume there from the terminal.
TEST(CliServe, ASecondServerOnOneDataDirectoryIsRefusedNamingTheFirst) {
  std::string dir = temp_dir();
  std::string out_file = dir + "/out.txt";
  pid_t pid = start_serve(dir);
  bool up = false;
  for (int i = 0; i < 200 && !up; ++i) {
    std::string text = read_file(out_file);
    up = text.find("Ouroboros Command Center: ") != std::string::npos;
    if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(up) << "the first server did not start";
  Outcome second = ouro("serve --port 0", "", "OURO_DATA_DIR=" + dir);
  EXPECT_NE(second.code, 0);
  EXPECT_NE(second.err.find("is used by another ouro serve (pid " + std::to_string(pid) + ")"), std::string::npos) << second.err;
  Outcome resume = ouro("run --resume r0000000000 --provider script:" + script_file({{{"text", repl_reply("setFinal(1)")}}}), "",
                        "OURO_DATA_DIR=" + dir);
  EXPECT_NE(resume.code, 0);
  EXPECT_NE(resume.err.find("resume it there"), std::string::npos) << resume.err;
  // The same file from another data directory — by --database, OURO_DATABASE, or through a
  // symbolic link — is the first server's too: refused before it touches the first's runs.
  std::string other = temp_dir();
  Outcome by_flag = ouro("serve --port 0 --no-open --database " + dir + "/ouro.db", "", "OURO_DATA_DIR=" + other);
  EXPECT_NE(by_flag.code, 0);
  EXPECT_NE(by_flag.err.find("the database " + dir + "/ouro.db is used by another ouro serve (pid " + std::to_string(pid) + ")"),
            std::string::npos)
      << by_flag.err;
  std::filesystem::create_symlink(dir + "/ouro.db", other + "/link.db");
  Outcome by_env = ouro("serve --port 0 --no-open", "", "OURO_DATA_DIR=" + other + " OURO_DATABASE=" + other + "/link.db");
  EXPECT_NE(by_env.code, 0);
  EXPECT_NE(by_env.err.find("is used by another ouro serve (pid " + std::to_string(pid) + ")"), std::string::npos) << by_env.err;
  Outcome resume_there = ouro("run --resume r0000000000 --provider script:" + script_file({{{"text", repl_reply("setFinal(1)")}}}), "",
                              "OURO_DATA_DIR=" + other + " OURO_DATABASE=" + dir + "/ouro.db");
  EXPECT_NE(resume_there.code, 0);
  EXPECT_NE(resume_there.err.find("resume it there"), std::string::npos) << resume_there.err;
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the first server was left alone and stopped cleanly";
  // With the first one gone, the directory is free again.
  EXPECT_FALSE(store::DataDirLock::holder(dir).has_value());
}

}  // namespace
}  // namespace ouro::testing
