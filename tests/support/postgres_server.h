// A throwaway PostgreSQL cluster for tests: initdb and pg_ctl (Debian's postgresql-15) in a fresh
// directory under /tmp, listening only on a Unix socket in that directory (no TCP port, so
// parallel test processes never collide), trust authentication, torn down when the object goes.
// PostgreSQL refuses to run as root (https://www.postgresql.org/docs/15/server-start.html), so
// under root the server runs as the system user `ouro-pg`, created on first use.
#pragma once

#include "base/error.h"
#include "store/database.h"
#include "store/sql.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace ouro::testing {

class PostgresServer {
 public:
  // Why no server can be started here, or "" when one can: the binaries are absent. Tests skip
  // with this reason; any other failure to start is an error, not a skip.
  static std::string unavailable_reason();

  // Starts a new cluster (a few seconds: initdb). Errors name the step and point at its log.
  static Result<std::unique_ptr<PostgresServer>> start();
  // One cluster for the whole test process, started on first use and stopped at exit. Not null
  // on success. Any thread.
  static Result<PostgresServer*> shared();

  ~PostgresServer();
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  // A new, empty database of its own on this cluster; returns its URL. Any thread.
  Result<std::string> create_database();
  // The URL of database `name` (postgresql://ouro@/NAME?host=DIR&port=P).
  std::string url(const std::string& name) const;
  const std::string& dir() const { return m_dir; }

  // Faults an operator meets, for tests of what survives them (a cluster of its own: start()).
  // stop(): a fast shutdown (pg_ctl stop -m fast: sessions are ended, as in a restart or a
  // failover); start_again(): up again on the same socket. pause()/resume(): every process of the
  // cluster stopped with SIGSTOP and continued with SIGCONT — a server that hangs without closing
  // anything (connections stay open, nothing answers).
  Result<void> stop();
  Result<void> start_again();
  Result<void> pause();
  Result<void> resume();

 private:
  PostgresServer() = default;
  std::string m_dir;  // holds data/, the socket and log
  std::string m_bin;
  bool m_started = false;
  Result<void> launch();
  Result<void> signal_all(int sig);
};

// For tests that run on both engines (TEST_P over store::Engine): why `engine` cannot run here
// ("" when it can), to GTEST_SKIP with.
std::string engine_unavailable(store::Engine engine);
// A fresh, empty database for `engine`: an SQLite file in a new directory under /tmp, or a new
// database on the shared PostgreSQL cluster. What Database::open takes.
Result<std::string> fresh_database(store::Engine engine);
// Opens `target` as node `node`, as a second ouro sharing the database would (Database::open
// reads OURO_NODE_ID when it opens).
Result<std::unique_ptr<store::Database>> open_as_node(const std::string& target, const char* node);
// "Sqlite" / "Postgres", for INSTANTIATE_TEST_SUITE_P's names.
std::string engine_test_name(const ::testing::TestParamInfo<store::Engine>& info);

// Opens a fresh database of the test's engine into `var`, or skips the test when the engine is
// absent; fails the test when it should run and cannot.
#define OURO_FRESH_DATABASE(var, engine)                                                   \
  std::unique_ptr<::ouro::store::Database> var;                                            \
  do {                                                                                     \
    if (auto why = ::ouro::testing::engine_unavailable(engine); !why.empty()) GTEST_SKIP() << why; \
    auto target_ = ::ouro::testing::fresh_database(engine);                                \
    ASSERT_TRUE(target_) << target_.error().message;                                       \
    auto opened_ = ::ouro::store::Database::open(*target_);                                \
    ASSERT_TRUE(opened_) << opened_.error().message;                                       \
    var = std::move(*opened_);                                                             \
  } while (0)

}  // namespace ouro::testing
