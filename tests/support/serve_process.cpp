#include "serve_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

namespace ouro::testing {

using namespace std::chrono_literals;

namespace {

// In the child: a group of its own, the data dir, no settings file, no keys of the test's.
void child_environment(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& env) {
  setpgid(0, 0);
  setenv("OURO_DATA_DIR", dir.c_str(), 1);
  setenv("OURO_CONFIG", "/nonexistent", 1);
  unsetenv("ANTHROPIC_API_KEY");
  unsetenv("OPENAI_API_KEY");
  unsetenv("OURO_API_KEY");
  for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
}

}  // namespace

pid_t spawn_ouro(const std::string& data_dir, const std::vector<std::string>& args, const std::string& out_file,
                 const std::vector<std::pair<std::string, std::string>>& env, int stdin_fd) {
  std::fflush(nullptr);  // as in ServeProcess
  pid_t pid = fork();
  if (pid == 0) {
    child_environment(data_dir, env);
    if (!freopen(out_file.c_str(), "w", stdout) || !freopen((out_file + ".err").c_str(), "w", stderr)) _exit(126);
    if (stdin_fd >= 0 ? dup2(stdin_fd, STDIN_FILENO) < 0 : !freopen("/dev/null", "r", stdin)) _exit(126);
    std::string bin = ouro_binary();
    std::vector<std::string> copy = args;
    std::vector<char*> argv{bin.data()};
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(bin.c_str(), argv.data());
    _exit(127);
  }
  setpgid(pid, pid);
  return pid;
}

Exited wait_ouro(pid_t pid, const std::string& out_file) {
  int status = 0;
  waitpid(pid, &status, 0);
  Exited r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream out(out_file), err(out_file + ".err");
  r.out.assign(std::istreambuf_iterator<char>(out), {});
  r.err.assign(std::istreambuf_iterator<char>(err), {});
  return r;
}

Exited ouro_shell(const std::string& data_dir, const std::string& args, const std::string& stdin_text, const std::string& env) {
  std::string err_file = temp_dir() + "/stderr", in_file = temp_dir() + "/stdin";
  std::ofstream(in_file) << stdin_text;
  std::string cmd = "env -u ANTHROPIC_API_KEY -u OPENAI_API_KEY -u OURO_API_KEY -u OURO_PROVIDER OURO_CONFIG=/nonexistent OURO_DATA_DIR=" +
                    data_dir + " " + env + " " + ouro_binary() + " " + args + " <" + in_file + " 2>" + err_file;
  FILE* p = popen(cmd.c_str(), "r");
  Exited r;
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream e(err_file);
  r.err.assign(std::istreambuf_iterator<char>(e), {});
  return r;
}

ServeProcess::ServeProcess(std::string data_dir, const std::vector<std::pair<std::string, std::string>>& env, const std::vector<std::string>& args)
    : dir(std::move(data_dir)) {
  std::string out = dir + "/serve-out.txt";
  std::remove(out.c_str());
  // What the test has printed but not flushed would be flushed again by the child's freopen.
  std::fflush(nullptr);
  pid = fork();
  if (pid == 0) {
    child_environment(dir, env);
    if (!freopen(out.c_str(), "w", stdout) || !freopen((dir + "/serve-err.txt").c_str(), "a", stderr)) _exit(126);
    std::vector<std::string> all = {"ouro", "serve", "--port", "0"};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(ouro_binary().c_str(), argv.data());
    _exit(127);
  }
  setpgid(pid, pid);
  for (int i = 0; i < 300 && base.empty(); ++i) {
    std::ifstream in(out);
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("Ouroboros Command Center: ", 0) == 0) {
        // http://127.0.0.1:PORT/?token=… — or, with a token the operator gave, the address alone.
        std::string url = line.substr(26);
        size_t path = url.find('/', url.find("://") + 3);
        base = url.substr(0, path);
        if (size_t t = url.find("?token="); t != std::string::npos) token = url.substr(t + 7);
        for (const auto& [name, value] : env)
          if (name == "OURO_API_TOKEN") token = value;
      }
    if (base.empty()) std::this_thread::sleep_for(100ms);
  }
}

ServeProcess::~ServeProcess() { stop(); }

void ServeProcess::stop() {
  if (pid <= 0) return;
  kill(pid, SIGINT);
  for (int i = 0; i < 150; ++i) {
    if (waitpid(pid, nullptr, WNOHANG) == pid) {
      kill(-pid, SIGKILL);  // anything of its group left behind
      pid = -1;
      return;
    }
    std::this_thread::sleep_for(100ms);
  }
  kill9();
}

void ServeProcess::kill9() {
  if (pid <= 0) return;
  kill(-pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  pid = -1;
}

Http ServeProcess::get(const std::string& path) { return request("GET", base + path, token); }
Http ServeProcess::post(const std::string& path, const json& body) { return request("POST", base + path, token, dump_json(body)); }
Http ServeProcess::del(const std::string& path) { return request("DELETE", base + path, token); }

std::vector<json> ServeProcess::events(const std::string& run_id) {
  Http r = get("/api/runs/" + run_id + "/events");
  std::vector<json> out;
  if (r.body.is_array())
    for (const auto& e : r.body) out.push_back(e);
  return out;
}

bool ServeProcess::wait_events(const std::string& run_id, const std::function<bool(const std::vector<json>&)>& pred, std::chrono::seconds timeout) {
  for (auto until = std::chrono::steady_clock::now() + timeout; std::chrono::steady_clock::now() < until;
       std::this_thread::sleep_for(std::chrono::milliseconds(20)))
    if (pred(events(run_id))) return true;
  return false;
}

json ServeProcess::wait_state(const std::string& run_id, const std::set<std::string>& states, std::chrono::seconds timeout) {
  for (auto until = std::chrono::steady_clock::now() + timeout; std::chrono::steady_clock::now() < until;
       std::this_thread::sleep_for(std::chrono::milliseconds(50))) {
    Http r = get("/api/runs/" + run_id);
    if (states.count(r.body.value("state", ""))) return r.body;
  }
  return get("/api/runs/" + run_id).body;
}

std::string ServeProcess::log() const {
  std::ifstream in(dir + "/serve-err.txt");
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string ServeProcess::out() const {
  std::ifstream in(dir + "/serve-out.txt");
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace ouro::testing
