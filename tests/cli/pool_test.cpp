// `ouro serve --browser … / --browser-pool FILE` (cli/pool.h): which flags ask for a pool, what a
// pool file or URL that cannot be used says (naming the file or the flag), a file too big to be
// a pool file refused before it is parsed, and a pool whose browser is not there yet starts with
// its endpoint down — its token in no line ouro prints.
#include "cli/pool.h"
#include "../support/scoped_temp_dir.h"
#include "../support/stream_capture.h"

#include "base/json.h"
#include "session/pool.h"
#include "session/session.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace ouro::cli {
namespace {

using TempDir = ouro::testing::ScopedTempDir;
using ouro::testing::StreamCapture;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(ServePool, WhichFlagsAskForAPool) {
  EXPECT_FALSE(wants_pool({}, ""));
  EXPECT_TRUE(wants_pool({}, "pool.json"));
  EXPECT_TRUE(wants_pool({"ws://127.0.0.1:9222/devtools/browser/a", "ws://127.0.0.1:9223/devtools/browser/b"}, ""));
  EXPECT_TRUE(wants_pool({"http://127.0.0.1:9222"}, "")) << "found again at each connection: a pool of one";
  EXPECT_TRUE(wants_pool({"ws://127.0.0.1:3000/?token=t"}, "")) << "a browser service";
  EXPECT_FALSE(wants_pool({"ws://127.0.0.1:9222/devtools/browser/a"}, "")) << "one DevTools browser is the server's own";
  EXPECT_FALSE(wants_pool({"auto"}, ""));
  EXPECT_FALSE(wants_pool({"extension"}, ""));
}

TEST(ServePool, APoolFileThatCannotBeUsedIsNamedWithWhatIsWrong) {
  TempDir dir;
  auto missing = start_pool({}, dir.path + "/none.json", dir.path);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, Code::NotFound);
  EXPECT_TRUE(has(missing.error().message, dir.path + "/none.json")) << missing.error().message;

  std::string big = dir.path + "/big.json";
  std::ofstream(big) << "[" << std::string(1024 * 1024, ' ') << "]";
  auto too_big = start_pool({}, big, dir.path);
  ASSERT_FALSE(too_big);
  EXPECT_EQ(too_big.error().code, Code::InvalidArgument);
  EXPECT_TRUE(has(too_big.error().message, "over 1 MiB")) << too_big.error().message;

  std::string bad = dir.path + "/bad.json";
  std::ofstream(bad) << R"({"endpoints": [{"url": "ftp://127.0.0.1:9222"}]})";
  auto wrong = start_pool({}, bad, dir.path);
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().code, Code::InvalidArgument);
  EXPECT_EQ(wrong.error().message.rfind(bad + ": ", 0), 0u) << "the file first: " << wrong.error().message;

  auto flag = start_pool({"not a url"}, "", dir.path);
  ASSERT_FALSE(flag);
  EXPECT_EQ(flag.error().code, Code::InvalidArgument);
  EXPECT_EQ(flag.error().message.rfind("--browser: ", 0), 0u) << flag.error().message;
  EXPECT_FALSE(std::filesystem::exists(dir.path + "/ouro.db")) << "nothing is opened for flags that cannot be used";
}

TEST(ServePool, ABrowserNotThereYetStartsDownAndItsTokenIsNotPrinted) {
  TempDir dir;
  // Port 1 on loopback: nothing listens, the connection is refused at once.
  const std::string token = "pool-token-5531";
  std::string out;
  {
    StreamCapture cerr(std::cerr);
    auto pool = start_pool({"ws://127.0.0.1:1/?token=" + token}, "", dir.path);
    out = cerr.text();
    ASSERT_TRUE(pool) << pool.error().message;
    json state = pool->pool->to_json();
    ASSERT_EQ(state["endpoints"].size(), 1u) << state.dump();
    EXPECT_EQ(state["healthy"], 0) << state.dump();
    EXPECT_NE(state["endpoints"][0]["state"], "healthy") << state.dump();
    EXPECT_FALSE(has(state.dump(), token)) << state.dump();
    ASSERT_TRUE(pool->runtime);
    EXPECT_FALSE(pool->runtime->browser) << "a pool's runtime has no browser of its own";
    EXPECT_TRUE(pool->runtime->db);
  }
  EXPECT_TRUE(has(out, "0 of 1 endpoints healthy")) << out;
  EXPECT_TRUE(has(out, "ws://127.0.0.1:1/")) << out;
  EXPECT_FALSE(has(out, token)) << out;
  EXPECT_TRUE(std::filesystem::exists(dir.path + "/ouro.db"));
}

}  // namespace
}  // namespace ouro::cli
