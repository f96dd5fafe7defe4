// A pool's run whose browser died, as far as it goes without a browser: only a run in progress is
// moved (a run that is not there, finished or interrupted is refused before a browser is asked
// for), and with no other healthy endpoint it cannot move, saying which endpoint died and how.
#include "runs/failover.h"

#include "basics.h"
#include "net/io.h"
#include "session/pool.h"
#include "store/database.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

namespace ouro::runs {
namespace {

using namespace std::chrono_literals;

// Nothing listens there: the pool's one endpoint is down from the start.
const std::string kDeadEndpoint = "http://127.0.0.1:1";

class RunFailover : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string dir = testing::temp_dir();
    auto opened = store::Database::open(dir + "/ouro.db");
    ASSERT_TRUE(opened) << opened.error().message;
    db = std::move(*opened);
    io = net::IoThread::start();
    auto endpoint = session::parse_endpoint_url(kDeadEndpoint);
    ASSERT_TRUE(endpoint) << endpoint.error().message;
    auto made = session::BrowserPool::create(io, db, dir, {*endpoint});
    ASSERT_TRUE(made) << made.error().message;
    pool = *made;
    from = session::redact_endpoint(kDeadEndpoint);
  }
  void add_run(const std::string& id, State state) {
    store::Database::RunRow row;
    row.id = id;
    row.task = "collect the prices";
    row.state = state;
    row.created_at = row.updated_at = 1000;
    ASSERT_TRUE(db->insert_run(row));
  }
  Result<Moved> move_run(const std::string& id) {
    return fail_over(*db, *pool, id, from, "its connection closed", session::SessionOptions{}, 0ms, [] { return false; });
  }
  std::shared_ptr<net::IoThread> io;
  std::shared_ptr<store::Database> db;
  std::shared_ptr<session::BrowserPool> pool;
  std::string from;
};

TEST_F(RunFailover, ARunThatIsNotThereIsNotMoved) {
  auto moved = move_run("rnosuchrun0");
  ASSERT_FALSE(moved);
  EXPECT_EQ(moved.error().code, Code::NotFound);
}

TEST_F(RunFailover, ARunNoLongerInProgressIsNotMoved) {
  // An interrupted run resumes (runs/resume.h); a finished one takes a message.
  for (State s : {State::Done, State::Failed, State::Cancelled, State::Partial, State::Interrupted}) {
    const std::string id = std::string("rstate") + name_of(s).substr(0, 5);
    add_run(id, s);
    auto moved = move_run(id);
    ASSERT_FALSE(moved) << name_of(s);
    EXPECT_EQ(moved.error().code, Code::FailedPrecondition) << name_of(s) << ": " << moved.error().message;
  }
}

TEST_F(RunFailover, WithNoOtherHealthyBrowserARunInProgressCannotMove) {
  for (State s : {State::Running, State::AwaitingUser, State::Queued}) {
    const std::string id = std::string("rstate") + name_of(s).substr(0, 5);
    add_run(id, s);
    auto moved = move_run(id);
    ASSERT_FALSE(moved) << name_of(s);
    EXPECT_EQ(moved.error().code, Code::Unavailable) << name_of(s) << ": " << moved.error().message;
    EXPECT_NE(moved.error().message.find(from), std::string::npos) << "names the endpoint that died: " << moved.error().message;
    EXPECT_NE(moved.error().message.find("its connection closed"), std::string::npos) << "and how: " << moved.error().message;
  }
  EXPECT_EQ(db->get_run("rstaterunni").value()->state, State::Running) << "a run that cannot move is left as it was";
}

}  // namespace
}  // namespace ouro::runs
