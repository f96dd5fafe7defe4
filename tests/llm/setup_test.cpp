// The connection test (llm/setup.h), from the parts providers_test.cpp leaves: how long it may
// wait (its own bound, or the settings' shorter one — never the run's minute of silence), what
// its one request names, and the reply it shows, cut on a character boundary (base/text.h: a
// clipped string is still valid UTF-8). Scripted models, or a server on 127.0.0.1.
#include "llm/setup.h"

#include "llm/errors.h"
#include "no_model_env.h"
#include "raw_server.h"
#include "scoped_env.h"
#include "scoped_temp_dir.h"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>

namespace ouro::llm {
namespace {

using namespace std::chrono_literals;
using testing::RawServer;
using testing::Step;

// No provider, model or key from this machine (no_model_env.h); scripted text without pauses.
class ConnectionCheck : public ::testing::Test {
 protected:
  void SetUp() override { m_chunks.emplace("OURO_SCRIPT_CHUNK_DELAY_US", "0"); }

  Settings scripted(const std::string& lines) {
    Settings s;
    s.provider = "script:run.jsonl";
    s.model = "scripted";
    s.spec = ProviderSpec{"script", "", "", m_dir.write("run.jsonl", lines), {}};
    return s;
  }

  static Settings local(const RawServer& server, const std::string& model) {
    Settings s;
    s.provider = server.url() + "/v1";
    s.model = model;
    s.spec = ProviderSpec{"openai", server.url() + "/v1", "sk-test-key", "", {}};
    return s;
  }

 private:
  testing::NoModelEnv m_no_model;
  std::optional<testing::ScopedEnv> m_chunks;
  testing::ScopedTempDir m_dir;
};

double elapsed_ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
}

TEST_F(ConnectionCheck, AServerThatSaysNothingIsATimeoutWithinTheTestsOwnBound) {
  RawServer server;
  // The request is read, then nothing for 4 s: a run would wait out its minute of silence.
  server.push({Step::sleep(4000ms), Step::write(RawServer::sse_head())});
  auto t0 = std::chrono::steady_clock::now();
  json out = test_connection(local(server, "gpt-4o"), 300ms);
  double took = elapsed_ms(t0);
  EXPECT_EQ(out["ok"], false) << dump_json(out);
  EXPECT_EQ(out["kind"], error_kind::kTimeout) << dump_json(out);
  EXPECT_LT(took, 3500.0) << "the server's silence was waited out";
  ASSERT_TRUE(out.contains("ms") && out["ms"].is_number()) << "a failure says how long it took too: " << dump_json(out);
  EXPECT_LT(out["ms"].get<double>(), 3500.0);
  EXPECT_EQ(server.requests().size(), 1u) << "no retry";
}

TEST_F(ConnectionCheck, TheSettingsShorterSilenceLimitIsKept) {
  RawServer server;
  server.push({Step::sleep(4000ms), Step::write(RawServer::sse_head())});
  Settings s = local(server, "gpt-4o");
  s.spec.limits.silence_timeout = 300ms;
  auto t0 = std::chrono::steady_clock::now();
  json out = test_connection(s);  // the default bound is 20 s: the settings' 300 ms is shorter
  EXPECT_EQ(out["kind"], error_kind::kTimeout) << dump_json(out);
  EXPECT_LT(elapsed_ms(t0), 3500.0);
}

TEST_F(ConnectionCheck, TheOneRequestNamesTheSettingsModelAndStreams) {
  RawServer server;
  server.push({Step::write(RawServer::sse_head()),
               Step::write("data: {\"choices\":[{\"delta\":{\"content\":\"OK\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")});
  json out = test_connection(local(server, "local-model-7b"));
  EXPECT_EQ(out["ok"], true) << dump_json(out);
  EXPECT_EQ(out["provider"], server.url() + "/v1");
  EXPECT_EQ(out["model"], "local-model-7b");
  ASSERT_EQ(server.requests().size(), 1u);
  const std::string req = server.requests()[0];
  auto body = parse_json(req.substr(req.find("\r\n\r\n") + 4));
  ASSERT_TRUE(body) << req;
  EXPECT_EQ((*body)["model"], "local-model-7b");
  EXPECT_EQ((*body)["stream"], true);
  ASSERT_TRUE((*body)["messages"].is_array());
  EXPECT_EQ((*body)["messages"].size(), 1u) << "one question, no history";
  EXPECT_EQ(req.find("sk-test-key", req.find("\r\n\r\n")), std::string::npos) << "the key is not in the body";
}

// The reply shown is cut on a character boundary (base/text.h): half a character would not be
// valid UTF-8, and the JSON answer could not be written (json::dump throws on it).
TEST_F(ConnectionCheck, ALongReplyIsCutOnACharacterBoundary) {
  const std::string text = std::string(199, 'x') + "\xC3\xA9" + " and more";
  json out = test_connection(scripted(json{{"text", text}}.dump() + "\n"));
  ASSERT_EQ(out["ok"], true) << dump_json(out);
  const std::string reply = out["reply"].get<std::string>();
  EXPECT_EQ(reply.rfind(std::string(199, 'x'), 0), 0u);
  EXPECT_LE(reply.size(), 201u);
  EXPECT_NO_THROW((void)out.dump()) << "the reply is not valid UTF-8; its last byte is "
                                     << (reply.empty() ? 0 : static_cast<int>(static_cast<unsigned char>(reply.back())));
}

}  // namespace
}  // namespace ouro::llm
