// The run's deciding hook points (runs/hook_points.h) at a stand-in for the model provider: what
// before_outbound leaves is what the provider receives, and what transform_response returns is
// what the run gets.
#include "basics.h"

#include "runs/hook_points.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

namespace ouro::runs {
namespace {

// Records every request it receives and answers with a fixed text.
class StandIn final : public llm::Provider {
 public:
  explicit StandIn(std::vector<llm::Request>* seen) : m_seen(seen) {}
  Result<llm::Response> complete(const llm::Request& request, const std::function<void(const llm::Delta&)>&, const llm::CancelToken&) override {
    m_seen->push_back(request);
    llm::Response r;
    r.text = "setFinal('customer CUST-123456 done')";
    r.model = request.model;
    return r;
  }
  std::string name() const override { return "stand-in"; }

 private:
  std::vector<llm::Request>* m_seen;
};

std::string hook_script(const std::string& body) {
  std::string path = testing::temp_dir() + "/hook.sh";
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  chmod(path.c_str(), 0755);
  return path;
}

std::shared_ptr<hooks::Pipeline> pipeline(const json& hooks_object) {
  auto c = hooks::hooks_config_from(json{{"hooks", hooks_object}}, "test");
  if (!c) throw std::runtime_error(c.error().message);
  return hooks::Pipeline::create(*c);
}

TEST(HookPoints, BeforeOutboundChangesWhatTheProviderReceivesAndTransformResponseWhatTheRunGets) {
  std::string redact = hook_script("sed -E 's/^\\{/{\"decision\":\"modify\",/; s/CUST-[0-9]{6}/CUST-######/g'");
  auto hooks = pipeline({{"before_outbound", {{{"command", {redact}}, {"timeout_ms", 5000}}}},
                         {"transform_response", {{{"command", {redact}}, {"timeout_ms", 5000}}}}});
  std::vector<llm::Request> seen;
  std::vector<json> events;
  auto provider = hooked_provider(std::make_unique<StandIn>(&seen), hooks, "r1", [&](const std::string& type, const json& data) {
    if (type == "hook") events.push_back(data);
  });
  llm::Request req{"m", "You help CUST-123456.", {{"user", "The page says: customer CUST-123456, order 77.", {}, {10}}}, {}, llm::Purpose::Sub};
  llm::CancelToken cancel;
  auto r = provider->complete(req, [](const llm::Delta&) {}, cancel);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].system, "You help CUST-######.");
  EXPECT_EQ(seen[0].messages[0].content, "The page says: customer CUST-######, order 77.");
  EXPECT_TRUE(seen[0].messages[0].cache_blocks.empty()) << "a changed message's cache blocks no longer hold";
  EXPECT_EQ(r->text, "setFinal('customer CUST-###### done')");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0]["point"], "before_outbound");
  EXPECT_EQ(events[0]["decision"], "modify");
  EXPECT_EQ(events[1]["point"], "transform_response");
}

TEST(HookPoints, ARefusedRequestNeverReachesTheProviderAndAToolCallSaysWhichHookRefused) {
  std::string deny = hook_script("echo '{\"decision\": \"deny\", \"reason\": \"not today\"}'");
  auto hooks = pipeline({{"before_outbound", {{{"command", {deny}}}}}, {"before_tool_call", {{{"command", {deny}}}}}});
  std::vector<llm::Request> seen;
  auto provider = hooked_provider(std::make_unique<StandIn>(&seen), hooks, "r2", nullptr);
  llm::CancelToken cancel;
  auto r = provider->complete(llm::Request{"m", "s", {{"user", "hi", {}, {}}}, {}, llm::Purpose::Main}, [](const llm::Delta&) {}, cancel);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::PermissionDenied);
  EXPECT_NE(r.error().message.find("not today"), std::string::npos) << r.error().message;
  EXPECT_TRUE(seen.empty());
  auto call = decide_tool_call(*hooks, "r2", nullptr, "navigate", json::array({"t1", "https://x.example/"}));
  ASSERT_FALSE(call);
  EXPECT_EQ(call.error().message, "navigate: refused by the user's before_tool_call hook before_tool_call[0]: not today");
  // Without hooks there, the provider is the model's own.
  auto plain = hooked_provider(std::make_unique<StandIn>(&seen), pipeline(json::object()), "r3", nullptr);
  EXPECT_EQ(plain->name(), "stand-in");
}

}  // namespace
}  // namespace ouro::runs
