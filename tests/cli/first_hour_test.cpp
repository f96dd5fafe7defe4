// A new user's first hour with `ouro`, on a real terminal where it matters (a pseudo-terminal):
// typos and help, where things are, errors that say what to do, a key typed without echo, and a
// REPL with line editing, history across sessions and completion.
#include "browser_env.h"
#include "raw_server.h"
#include "serve_process.h"

#include "base/json.h"

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

namespace ouro::testing {
namespace {

using testing::RawServer;
using testing::Step;

Exited ouro(const std::string& data, const std::string& args, const std::string& stdin_text = "") { return ouro_shell(data, args, stdin_text); }

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// `ouro ARGS…` on a pseudo-terminal, as a person at a terminal runs it: what it writes is read
// from the terminal's other side, and keys are typed into it.
class Terminal {
 public:
  Terminal(const std::string& data_dir, const std::vector<std::string>& args) {
    pid_ = forkpty(&master_, nullptr, nullptr, nullptr);
    if (pid_ == 0) {
      setenv("OURO_DATA_DIR", data_dir.c_str(), 1);
      setenv("TERM", "xterm", 1);
      setenv("HOME", data_dir.c_str(), 1);  // no ~/.editrc of the machine's user
      unsetenv("DBUS_SESSION_BUS_ADDRESS");  // keys go to the file, not a keyring
      for (const char* k : {"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OURO_API_KEY", "OURO_PROVIDER", "OURO_CONFIG"}) unsetenv(k);
      std::vector<std::string> all = {ouro_binary()};
      all.insert(all.end(), args.begin(), args.end());
      std::vector<char*> argv;
      for (auto& a : all) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
  }
  ~Terminal() {
    if (pid_ > 0 && !exited_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (master_ >= 0) close(master_);
  }
  void type(const std::string& keys) { ASSERT_EQ(write(master_, keys.data(), keys.size()), static_cast<ssize_t>(keys.size())); }
  // Reads until `text` has appeared after what earlier waits consumed; false at the deadline.
  bool wait_for(const std::string& text, std::chrono::seconds timeout = std::chrono::seconds(60)) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
      if (auto at = seen_.find(text, consumed_); at != std::string::npos) {
        consumed_ = at + text.size();
        return true;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
      if (left <= 0) return false;
      pollfd p{master_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left)) <= 0) continue;
      char buf[4096];
      ssize_t n = read(master_, buf, sizeof buf);
      if (n <= 0) {
        eof_ = true;  // the other side closed: everything it wrote is in
        return seen_.find(text, consumed_) != std::string::npos;
      }
      seen_.append(buf, static_cast<size_t>(n));
    }
  }
  // The REPL's prompt, and the line editor reading keys: libedit prints the prompt before it
  // takes the terminal out of canonical mode, and a Ctrl-D typed in between is lost, as it is
  // for a person who types before the prompt is there. The terminal's mode is read from this side.
  bool prompt(std::chrono::seconds timeout = std::chrono::seconds(60), const std::string& text = "ouro> ") {
    if (!wait_for(text, timeout)) return false;
    auto deadline = std::chrono::steady_clock::now() + timeout;
    termios mode{};
    while (tcgetattr(master_, &mode) == 0 && (mode.c_lflag & ICANON)) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      pollfd p{master_, POLLIN, 0};
      poll(&p, 1, 10);  // a state poll: what it reads is kept by the next wait_for
      if (p.revents & POLLIN) {
        char buf[4096];
        ssize_t n = read(master_, buf, sizeof buf);
        if (n > 0) seen_.append(buf, static_cast<size_t>(n));
      }
    }
    return true;
  }
  // Waits for the process to end (reading what it writes meanwhile); its exit status, -1 when it
  // had to be killed after 60 s.
  int wait_exit() {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    int status = 0;
    while (waitpid(pid_, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        kill(pid_, SIGKILL);
        waitpid(pid_, &status, 0);
        exited_ = true;
        return -1;
      }
      if (eof_) usleep(20 * 1000);  // polling the process's state once its terminal is closed
      else wait_for("\x01never\x01", std::chrono::seconds(1));
    }
    exited_ = true;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  const std::string& seen() const { return seen_; }

 private:
  int master_ = -1;
  pid_t pid_ = -1;
  bool exited_ = false;
  bool eof_ = false;
  std::string seen_;
  size_t consumed_ = 0;
};

TEST(FirstHour, ATypoGetsTheClosestCommandOrOption) {
  std::string data = temp_dir();
  Exited cmd = ouro(data, "rnu 'a task'");
  EXPECT_EQ(cmd.code, 2);
  EXPECT_TRUE(has(cmd.err, "there is no command \"rnu\". Did you mean \"run\"?")) << cmd.err;
  Exited sub = ouro(data, "memory lst");
  EXPECT_EQ(sub.code, 2);
  EXPECT_TRUE(has(sub.err, "ouro memory: there is no command \"lst\". Did you mean \"list\"?")) << sub.err;
  Exited opt = ouro(data, "run --max-iteration 3 'a task'");
  EXPECT_EQ(opt.code, 2);
  EXPECT_TRUE(has(opt.err, "there is no option --max-iteration. Did you mean --max-iterations?")) << opt.err;
  // Two letters swapped is read as that, not as one letter too many: --modle is --model.
  Exited swapped = ouro(data, "run --modle x 'a task'");
  EXPECT_TRUE(has(swapped.err, "there is no option --modle. Did you mean --model?")) << swapped.err;
  // Words in the order they were written: the typo, not the last word, is named.
  Exited two = ouro(data, "hi rnu");
  EXPECT_TRUE(has(two.err, "Did you mean \"run\"?")) << two.err;
  // A pasted blob is said back clipped, with no guess.
  Exited blob = ouro(data, "run --" + std::string(100000, 'x') + " task");
  EXPECT_EQ(blob.code, 2);
  EXPECT_TRUE(has(blob.err, "there is no option --xxx")) << blob.err.substr(0, 300);
  EXPECT_FALSE(has(blob.err, "Did you mean")) << blob.err.substr(0, 300);
  EXPECT_LT(blob.err.size(), 1000u);
  // An option without its value gets a sentence with the option's help, not the parser's words.
  for (const char* given : {"serve --port", "--port"}) {
    Exited port = ouro(data, given);
    EXPECT_EQ(port.code, 2) << given;
    EXPECT_TRUE(has(port.err, "ouro serve: --port needs a value after it — Port on 127.0.0.1")) << given << ": " << port.err;
    EXPECT_FALSE(has(port.err, "required INT missing")) << port.err;
  }
  Exited bare = ouro(data, "memory");
  EXPECT_EQ(bare.code, 2);
  EXPECT_TRUE(has(bare.err, "ouro memory needs one of: list, search, rm")) << bare.err;
  EXPECT_FALSE(has(bare.err, "A subcommand is required")) << bare.err;
}

TEST(FirstHour, HelpTakesATopic) {
  std::string data = temp_dir();
  Exited run = ouro(data, "help run");
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_TRUE(has(run.out, "--max-iterations")) << run.out;
  // Said as it is typed, and run's own options before those every browser command shares.
  EXPECT_TRUE(has(run.out, "\nUsage: ouro run [OPTIONS]")) << run.out.substr(0, 200);
  ASSERT_TRUE(has(run.out, "Shared options:")) << run.out;
  EXPECT_LT(run.out.find("--max-iterations"), run.out.find("Shared options:")) << run.out;
  EXPECT_LT(run.out.find("Shared options:"), run.out.find("--headed")) << run.out;
  Exited nested = ouro(data, "help schedule add");
  EXPECT_EQ(nested.code, 0) << nested.err;
  EXPECT_TRUE(has(nested.out, "--cron")) << nested.out;
  EXPECT_TRUE(has(nested.out, "\nUsage: ouro schedule add [OPTIONS]")) << nested.out.substr(0, 200);
  Exited dashes = ouro(data, "run --help");
  EXPECT_TRUE(has(dashes.out, "\nUsage: ouro run [OPTIONS]")) << dashes.out.substr(0, 200);
  Exited typo = ouro(data, "help shedule");
  EXPECT_EQ(typo.code, 2);
  EXPECT_TRUE(has(typo.err, "Did you mean \"schedule\"?")) << typo.err;
  Exited api = ouro(data, "help api");
  EXPECT_EQ(api.code, 0);
  EXPECT_TRUE(has(api.out, "setFinal")) << api.out.substr(0, 300);
}

TEST(FirstHour, PathsSaysWhereEverythingIs) {
  std::string data = temp_dir();
  Exited r = ouro(data, "paths --json --data-dir " + data + " --config " + data + "/settings.json");
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = parse_json(r.out);
  ASSERT_TRUE(j && j->is_object()) << r.out;
  EXPECT_EQ((*j)["dataDir"], data);
  EXPECT_EQ((*j)["database"], data + "/ouro.db");
  EXPECT_EQ((*j)["profile"], data + "/profile");
  EXPECT_EQ((*j)["config"], data + "/settings.json");
  Exited ws = ouro(data, "paths --json --data-dir " + data + " --workspace shop");
  ASSERT_EQ(ws.code, 0) << ws.err;
  EXPECT_EQ((*parse_json(ws.out))["dataDir"], data + "/workspaces/shop");
}

TEST(FirstHour, ASyntaxErrorPointsAtTheUsersOwnLineAndColumn) {
  std::string data = temp_dir();
  Exited open = ouro(data, "exec 'foo('");
  EXPECT_EQ(open.code, 1);
  EXPECT_TRUE(has(open.err, "the code ends before the '(' opened here is closed (line 1, column 4)")) << open.err;
  EXPECT_FALSE(has(open.err, "'}'")) << "a brace the user never wrote: " << open.err;
  Exited token = ouro(data, "exec -", "let x = 1;\nx +* 2\n");
  EXPECT_EQ(token.code, 1);
  EXPECT_TRUE(has(token.err, "Unexpected token '*' (line 2, column 4)")) << token.err;
  Exited string = ouro(data, "exec -", "const a = 1;\nconst s = \"never closed\n");
  EXPECT_TRUE(has(string.err, "the string (\") opened here is closed (line 2, column 11)")) << string.err;
}

TEST(FirstHour, ABareHostSaysToAddItsScheme) {
  std::string data = temp_dir();
  Exited r = ouro(data, "exec --url 127.0.0.1:8765 1");
  EXPECT_NE(r.code, 0);
  EXPECT_TRUE(has(r.err, "\"127.0.0.1:8765\" has no scheme: add http:// (give http://127.0.0.1:8765)")) << r.err;
  EXPECT_FALSE(has(r.err, "Cannot navigate to invalid URL")) << r.err;
  Exited name = ouro(data, "exec --url localhost:8765/a 1");
  EXPECT_TRUE(has(name.err, "give http://localhost:8765/a")) << name.err;
  Exited script = ouro(data, "exec --url 'javascript:alert(1)' 1");
  EXPECT_TRUE(has(script.err, "is not a page a tab can open")) << script.err;
}

TEST(FirstHour, AuthSetDoesNotEchoTheKey) {
  std::string data = temp_dir();
  const std::string key = "sk-test-never-echoed-4242";
  Terminal t(data, {"auth", "set", "openai", "--data-dir", data});
  ASSERT_TRUE(t.wait_for("(it is not shown): ")) << t.seen();
  t.type(key + "\n");
  EXPECT_EQ(t.wait_exit(), 0) << t.seen();
  EXPECT_FALSE(has(t.seen(), key)) << "the key was echoed: " << t.seen();
  std::ifstream in(data + "/secrets.json");
  std::string stored((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(has(stored, key)) << "the key was not stored";
}

// A key stored with `ouro auth set` is all a first run needs: the first one stored chooses the
// provider and its default model, for doctor, run, MCP and the Command Center alike, and doctor
// says so. The stand-in model speaks the providers' wire protocols on loopback.
TEST(FirstHour, AStoredKeyChoosesTheModelEverywhere) {
  std::string data = temp_dir();
  const std::string no_keyring = "DBUS_SESSION_BUS_ADDRESS=";  // keys go to the 0600 file
  ASSERT_EQ(ouro_shell(data, "auth set openai", "sk-stored-openai-1111\n", no_keyring).code, 0);
  ASSERT_EQ(ouro_shell(data, "auth set anthropic", "sk-stored-anthropic-2222\n", no_keyring).code, 0);
  RawServer model;
  auto chunk = [](const std::string& content) { return "data: " + json{{"choices", json::array({{{"delta", {{"content", content}}}}})}}.dump() + "\n\n"; };
  model.push({Step::write(RawServer::sse_head()), Step::write(chunk("OK")), Step::write("data: [DONE]\n\n")});
  model.push({Step::write(RawServer::sse_head()), Step::write(chunk("```repl\nsetFinal(await getText(activeTab, 'h1'))\n```")),
              Step::write("data: [DONE]\n\n")});
  const std::string at_model = no_keyring + " OURO_BASE_URL=" + model.url() + "/v1";

  Exited doctor = ouro_shell(data, "doctor", "", at_model);
  EXPECT_TRUE(has(doctor.out, "✓ the model in use is openai · gpt-4.1 — chosen by the key stored for openai")) << doctor.out;
  EXPECT_TRUE(has(doctor.out, "✓ the model answers")) << doctor.out;
  EXPECT_FALSE(has(doctor.out + doctor.err, "sk-stored")) << "a key was printed";
  ASSERT_GE(model.requests().size(), 1u);
  EXPECT_TRUE(has(model.requests()[0], "POST /v1/chat/completions")) << model.requests()[0];
  EXPECT_TRUE(has(model.requests()[0], "authorization: Bearer sk-stored-openai-1111")) << model.requests()[0];

  Exited run = ouro_shell(data, "run 'What is the heading?' --url " + site().url("/"), "", at_model);
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.out, "Fixture Home\n") << run.err;
  ASSERT_GE(model.requests().size(), 2u);
  EXPECT_TRUE(has(model.requests()[1], "\"model\":\"gpt-4.1\"")) << model.requests()[1].substr(0, 2000);
  EXPECT_TRUE(has(model.requests()[1], "authorization: Bearer sk-stored-openai-1111"));

  // MCP's browser_task runs on it, not on the client's model.
  Exited mcp = ouro_shell(data, "mcp", "", no_keyring);
  EXPECT_FALSE(has(mcp.err, "no model configured")) << mcp.err;
  {
    ServeProcess serve(data, {{"DBUS_SESSION_BUS_ADDRESS", ""}});
    ASSERT_FALSE(serve.base.empty()) << serve.log();
    Http settings = serve.get("/api/settings");
    ASSERT_EQ(settings.status, 200) << settings.raw;
    EXPECT_EQ(settings.body["configured"], true) << settings.raw;
    EXPECT_EQ(settings.body["effective"]["provider"], "openai") << settings.raw;
    EXPECT_EQ(settings.body["effective"]["model"], "gpt-4.1") << settings.raw;
    EXPECT_FALSE(has(settings.raw, "sk-stored")) << settings.raw;
  }

  // Without the first key, the other one chooses.
  ASSERT_EQ(ouro_shell(data, "auth rm openai", "", no_keyring).code, 0);
  model.push({Step::write(RawServer::sse_head()),
              Step::write("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n"
                          "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"OK\"}}\n\n"
                          "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")});
  Exited second = ouro_shell(data, "doctor", "", no_keyring + " OURO_BASE_URL=" + model.url());
  EXPECT_TRUE(has(second.out, "✓ the model in use is anthropic · claude-sonnet-4-20250514 — chosen by the key stored for anthropic")) << second.out;
  ASSERT_GE(model.requests().size(), 3u);
  EXPECT_TRUE(has(model.requests().back(), "x-api-key: sk-stored-anthropic-2222")) << model.requests().back();
  // A flag still chooses over a stored key, and doctor says so.
  Exited flagged = ouro_shell(data, "doctor --provider ollama", "", no_keyring + " OURO_BASE_URL=http://127.0.0.1:9/v1");
  EXPECT_TRUE(has(flagged.out, "the model in use is ollama · llama3.1 — chosen by --provider")) << flagged.out;
}

TEST(FirstHour, TheReplEditsRecallsAcrossSessionsAndCompletes) {
  std::string data = temp_dir();
  {
    Terminal t(data, {"repl"});
    ASSERT_TRUE(t.prompt()) << t.seen();
    t.type("40 + 2\n");
    ASSERT_TRUE(t.wait_for("42")) << t.seen();
    ASSERT_TRUE(t.prompt()) << t.seen();
    // Tab completes an env key and an API name.
    t.type("env.alphabet = 'abc'\n");
    ASSERT_TRUE(t.prompt()) << t.seen();
    t.type("env.alph\t.length * 10\n");
    EXPECT_TRUE(t.wait_for("30")) << t.seen();
    ASSERT_TRUE(t.prompt()) << t.seen();
    t.type("typeof getTex\t\n");
    EXPECT_TRUE(t.wait_for("function")) << t.seen();
    ASSERT_TRUE(t.prompt()) << t.seen();
    // Editing: Ctrl-A goes to the start of the line.
    t.type("+ 1\x01" "99 \n");
    EXPECT_TRUE(t.wait_for("100")) << t.seen();
    ASSERT_TRUE(t.prompt()) << t.seen();
    // .show prints a value whole where the summary previews it.
    t.type(".show Array.from({length: 40}, (_, i) => 'item-' + i)\n");
    EXPECT_TRUE(t.wait_for("item-39")) << t.seen();
    ASSERT_TRUE(t.prompt()) << t.seen();
    t.type("\x04");
    EXPECT_EQ(t.wait_exit(), 0) << t.seen();
  }
  struct stat st {};
  ASSERT_EQ(stat((data + "/repl_history").c_str(), &st), 0) << "no history file";
  EXPECT_EQ(st.st_mode & 0777, 0600u) << "what is typed into a REPL may hold secrets";
  {
    // A new session: Up recalls the last input of the one before.
    Terminal t(data, {"repl"});
    ASSERT_TRUE(t.prompt()) << t.seen();
    t.type("\x1b[A");
    t.type("\n");
    EXPECT_TRUE(t.wait_for("item-39")) << t.seen();
    ASSERT_TRUE(t.prompt()) << t.seen();
    t.type(".exit\n");
    EXPECT_EQ(t.wait_exit(), 0) << t.seen();
  }
}

// Ctrl-C at the prompt drops what was typed and shows a new prompt, as a shell does: the next
// input is evaluated alone (the dropped text was once kept, hidden, in front of it).
TEST(FirstHour, CtrlCAtThePromptDropsTheHalfTypedLine) {
  std::string data = temp_dir();
  Terminal t(data, {"repl"});
  // Types `typed` and Ctrl-C; then `next` gives `result`, with no trace of what was dropped.
  auto dropped = [&t](const std::string& typed, const std::string& next, const std::string& result, const std::string& never) {
    t.type(typed);
    ASSERT_TRUE(t.wait_for(typed)) << t.seen();
    t.type("\x03");
    ASSERT_TRUE(t.prompt()) << t.seen();
    t.type(next + "\n");
    EXPECT_TRUE(t.wait_for(result)) << t.seen();
    EXPECT_FALSE(has(t.seen(), never)) << t.seen();
  };
  ASSERT_TRUE(t.prompt()) << t.seen();
  dropped("abc", "6*7+1000", "1042", "Can't find variable");
  // A statement continued over lines is dropped whole.
  ASSERT_TRUE(t.prompt()) << t.seen();
  t.type("[1,\n");
  ASSERT_TRUE(t.prompt(std::chrono::seconds(60), "...> ")) << t.seen();
  dropped("2", "'after' + 'wards'", "afterwards", "SyntaxError");
  // On an empty prompt it says how to leave; Ctrl-D leaves.
  ASSERT_TRUE(t.prompt()) << t.seen();
  t.type("\x03");
  EXPECT_TRUE(t.wait_for("(Ctrl-D or .exit to leave)")) << t.seen();
  ASSERT_TRUE(t.prompt()) << t.seen();
  t.type("\x04");
  EXPECT_EQ(t.wait_exit(), 0) << t.seen();
}

TEST(FirstHour, PlainOuroTakesServesOptionsAndAProfileInUseNamesItsHolder) {
  std::string data = temp_dir();
  std::string out = data + "/plain.out";
  pid_t plain = spawn_ouro(data, {"--port", "0", "--no-open", "--data-dir", data}, out);
  ASSERT_GT(plain, 0);
  // The plain Command Center keeps its profile in the data directory; wait until it is up.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  std::string printed;
  while (std::chrono::steady_clock::now() < deadline && !has(printed, "Ctrl-C stops the server")) {
    std::ifstream in(out);
    printed.assign((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!has(printed, "Ctrl-C stops the server")) usleep(100 * 1000);
  }
  ASSERT_TRUE(has(printed, "Ouroboros Command Center: http://127.0.0.1:")) << printed;
  EXPECT_FALSE(has(printed, ":7777")) << "--port 0 was not taken: " << printed;
  // A second ouro on the same profile is told who holds it, not Chromium's log.
  Exited second = ouro(data, "exec --profile " + data + "/profile 1");
  EXPECT_NE(second.code, 0);
  EXPECT_TRUE(has(second.err, "is in use by process")) << second.err;
  EXPECT_TRUE(has(second.err, "started by `ouro` (process " + std::to_string(plain))) << second.err;
  EXPECT_TRUE(has(second.err, "--profile DIR")) << second.err;
  kill(-plain, SIGINT);
  Exited stopped = wait_ouro(plain, out);
  EXPECT_EQ(stopped.code, 0) << stopped.err;
}

}  // namespace
}  // namespace ouro::testing
