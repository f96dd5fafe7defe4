#include "postgres_server.h"

#include "store/sql.h"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <mutex>
#include <vector>

namespace ouro::testing {

namespace {

constexpr const char* kUser = "ouro-pg";
constexpr int kPort = 5432;  // only names the socket file; nothing listens on TCP

// Debian's server binaries: /usr/lib/postgresql/<major>/bin, the newest that has initdb.
std::string find_bindir() {
  std::error_code ec;
  std::string best;
  for (const auto& entry : std::filesystem::directory_iterator("/usr/lib/postgresql", ec)) {
    auto bin = entry.path() / "bin";
    if (std::filesystem::exists(bin / "initdb", ec) && std::filesystem::exists(bin / "pg_ctl", ec) && bin.string() > best) best = bin.string();
  }
  return best;
}

// Runs argv (no shell), its output appended to log; returns its exit status (-1: not run).
int run(const std::vector<std::string>& argv, const std::string& log) {
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0) dup2(null, 0);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool is_root() { return geteuid() == 0; }

// The system user the server runs as under root, created once (useradd under a lock file, so
// test processes starting together do not race for /etc/passwd).
Result<void> ensure_user(const std::string& log) {
  if (getpwnam(kUser)) return {};
  int lock = open("/tmp/ouro-pg-useradd.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock < 0 || flock(lock, LOCK_EX) != 0) return errorf(Code::Internal, "cannot lock /tmp/ouro-pg-useradd.lock to create the user {}", kUser);
  int rc = getpwnam(kUser) ? 0
                           : run({"useradd", "--system", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", kUser}, log);
  close(lock);
  if (rc != 0 || !getpwnam(kUser)) return errorf(Code::FailedPrecondition, "cannot create the system user {} for PostgreSQL (useradd: {}; see {})", kUser, rc, log);
  return {};
}

// argv run as the server's user: through runuser under root, directly otherwise.
std::vector<std::string> as_user(std::vector<std::string> argv) {
  if (!is_root()) return argv;
  argv.insert(argv.begin(), {"runuser", "-u", kUser, "--"});
  return argv;
}

}  // namespace

std::string PostgresServer::unavailable_reason() {
  if (find_bindir().empty()) return "PostgreSQL's server binaries are not installed (/usr/lib/postgresql/*/bin/initdb; apt-get install postgresql-15)";
  return "";
}

Result<std::unique_ptr<PostgresServer>> PostgresServer::start() {
  std::string bin = find_bindir();
  if (bin.empty()) return make_error(Code::FailedPrecondition, unavailable_reason());
  std::unique_ptr<PostgresServer> s(new PostgresServer());
  s->m_bin = bin;
  char tmpl[] = "/tmp/ouro-pg-XXXXXX";
  if (!mkdtemp(tmpl)) return errorf(Code::Internal, "cannot make a directory for PostgreSQL under /tmp");
  s->m_dir = tmpl;
  std::string log = s->m_dir + "/setup.log";
  if (is_root()) {
    TRY(ensure_user(log));
    const passwd* pw = getpwnam(kUser);
    if (chown(s->m_dir.c_str(), pw->pw_uid, pw->pw_gid) != 0) return errorf(Code::Internal, "cannot give {} to {}", s->m_dir, kUser);
  }
  chmod(s->m_dir.c_str(), 0755);  // the clients (root or this user) reach the socket in it
  if (int rc = run(as_user({bin + "/initdb", "-D", s->m_dir + "/data", "-U", "ouro", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync",
                            "--no-instructions"}),
                   log);
      rc != 0)
    return errorf(Code::Internal, "initdb failed with status {}; see {}", rc, log);
  TRY(s->launch());
  return s;
}

Result<void> PostgresServer::launch() {
  std::string log = m_dir + "/setup.log";
  // fsync and friends off: a test cluster need not survive a power cut.
  std::string options = "-k " + m_dir + " -c listen_addresses='' -p " + std::to_string(kPort) +
                        " -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=50";
  if (int rc = run(as_user({m_bin + "/pg_ctl", "-D", m_dir + "/data", "-l", m_dir + "/server.log", "-w", "-t", "60", "-o", options, "start"}), log);
      rc != 0)
    return errorf(Code::Internal, "pg_ctl start failed with status {}; see {} and {}/server.log", rc, log, m_dir);
  m_started = true;
  return {};
}

Result<void> PostgresServer::stop() {
  if (int rc = run(as_user({m_bin + "/pg_ctl", "-D", m_dir + "/data", "-m", "fast", "-w", "-t", "60", "stop"}), m_dir + "/setup.log"); rc != 0)
    return errorf(Code::Internal, "pg_ctl stop failed with status {}; see {}/setup.log", rc, m_dir);
  m_started = false;
  return {};
}

Result<void> PostgresServer::start_again() { return launch(); }

// The postmaster (the first line of data/postmaster.pid) and every process whose parent it is.
Result<void> PostgresServer::signal_all(int sig) {
  std::ifstream pidfile(m_dir + "/data/postmaster.pid");
  long postmaster = 0;
  if (!(pidfile >> postmaster) || postmaster <= 0) return errorf(Code::FailedPrecondition, "no postmaster.pid in {}/data", m_dir);
  std::vector<long> pids{postmaster};
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ')'.
    size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 1));
    std::string state;
    long ppid = 0;
    rest >> state >> ppid;
    if (ppid == postmaster) pids.push_back(std::atol(entry.path().filename().c_str()));
  }
  // The children first when stopping (the postmaster would notice a stopped child), the
  // postmaster first when continuing.
  if (sig == SIGSTOP) std::reverse(pids.begin(), pids.end());
  for (long pid : pids)
    if (::kill(static_cast<pid_t>(pid), sig) != 0 && pid == postmaster) return errorf(Code::Internal, "cannot signal the postmaster {}", pid);
  return {};
}

Result<void> PostgresServer::pause() { return signal_all(SIGSTOP); }
Result<void> PostgresServer::resume() { return signal_all(SIGCONT); }

PostgresServer::~PostgresServer() {
  if (m_started) (void)run(as_user({m_bin + "/pg_ctl", "-D", m_dir + "/data", "-m", "immediate", "-w", "stop"}), m_dir + "/setup.log");
  std::error_code ec;
  if (!m_dir.empty()) std::filesystem::remove_all(m_dir, ec);
}

Result<PostgresServer*> PostgresServer::shared() {
  static std::mutex mutex;
  static std::unique_ptr<PostgresServer> server;  // destroyed at exit: the cluster stops then
  static std::optional<Error> failed;
  std::lock_guard lock(mutex);
  if (server) return server.get();
  if (failed) return tl::unexpected<Error>(*failed);
  auto started = start();
  if (!started) {
    failed = started.error();
    return tl::unexpected<Error>(started.error());
  }
  server = std::move(*started);
  return server.get();
}

std::string PostgresServer::url(const std::string& name) const {
  return "postgresql://ouro@/" + name + "?host=" + m_dir + "&port=" + std::to_string(kPort);
}

Result<std::string> PostgresServer::create_database() {
  static std::atomic<int> counter{0};
  std::string name = "t" + std::to_string(getpid()) + "_" + std::to_string(counter++);
  auto admin = TRY(store::postgres_connection(url("postgres")));
  TRY(admin->exec("CREATE DATABASE " + name));
  return url(name);
}

std::string engine_unavailable(store::Engine engine) {
  return engine == store::Engine::Postgres ? PostgresServer::unavailable_reason() : "";
}

Result<std::string> fresh_database(store::Engine engine) {
  if (engine == store::Engine::Postgres) {
    PostgresServer* server = TRY(PostgresServer::shared());
    return server->create_database();
  }
  char tmpl[] = "/tmp/ouro-db-XXXXXX";
  if (!mkdtemp(tmpl)) return errorf(Code::Internal, "cannot make a directory under /tmp");
  // Removed at exit with the others this process made.
  static std::mutex mutex;
  static struct Dirs {
    std::vector<std::string> all;
    ~Dirs() {
      std::error_code ec;
      for (const auto& d : all) std::filesystem::remove_all(d, ec);
    }
  } dirs;
  std::lock_guard lock(mutex);
  dirs.all.push_back(tmpl);
  return std::string(tmpl) + "/ouro.db";
}

Result<std::unique_ptr<store::Database>> open_as_node(const std::string& target, const char* node) {
  setenv("OURO_NODE_ID", node, 1);
  auto db = store::Database::open(target);
  unsetenv("OURO_NODE_ID");
  return db;
}

std::string engine_test_name(const ::testing::TestParamInfo<store::Engine>& info) {
  return info.param == store::Engine::Postgres ? "Postgres" : "Sqlite";
}

}  // namespace ouro::testing
