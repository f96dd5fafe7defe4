// `ouro doctor` (cli/doctor.cpp): each part checked, and what fails named with how to fix it.
#include "cli_harness.h"

namespace ouro::testing {
namespace {

using testing::RawServer;
using testing::Step;

// `ouro doctor`: each check says what it found, and what to do when it failed.
TEST(CliDoctor, ChecksEachPartAndSaysHowToFixWhatFails) {
  RawServer server;
  auto chunk = [](const std::string& content) { return "data: " + json{{"choices", json::array({{{"delta", {{"content", content}}}}})}}.dump() + "\n\n"; };
  server.push({Step::write(RawServer::sse_head()), Step::write(chunk("OK")), Step::write("data: [DONE]\n\n")});
  std::string dir = temp_dir() + "/data";
  std::filesystem::create_directories(dir);
  std::filesystem::permissions(dir, std::filesystem::perms(0755), std::filesystem::perm_options::replace);
  Outcome r = ouro("doctor --data-dir " + dir + " --provider " + server.url() + "/v1 --model gpt-4o");
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("✓ Chromium starts and answers"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("is readable by others (mode 755)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("chmod 700 " + dir), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("✓ the model answers"), std::string::npos) << r.out;
  std::filesystem::permissions(dir, std::filesystem::perms(0700), std::filesystem::perm_options::replace);
  // Fixed, and a model that is not there: named, with what to do.
  Outcome again = ouro("doctor --data-dir " + dir + " --provider http://127.0.0.1:9/v1 --model m");
  EXPECT_EQ(again.code, 1);
  EXPECT_NE(again.out.find("✓ the data directory is private"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("the model does not answer (connection)"), std::string::npos) << again.out;
}

}  // namespace
}  // namespace ouro::testing
