// Hooks from a real run: a scripted model in a RunManager on the test browser.
#include "browser_env.h"
#include "fixtures.h"

#include "hooks/hooks.h"
#include "server/runs.h"
#include "session/session.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <thread>

namespace ouro::testing {
namespace {

// A run manager on the test browser whose runs ask and tell `pipeline`.
server::RunManager::Config config_with(const std::string& dir, std::shared_ptr<hooks::Pipeline> pipeline) {
  server::RunManager::Config rc;
  rc.data_dir = dir;
  rc.ouro_binary = ouro_binary();
  rc.confirm_timeout = std::chrono::seconds(10);
  rc.hooks = std::move(pipeline);
  return rc;
}

// Starts the run and waits (30 s at most) until it leaves the working states: the run as the API
// shows it then.
json run_to_end(server::RunManager& runs, const json& request) {
  auto created = runs.create(request);
  if (!created) return json{{"error", created.error().message}};
  std::string id = (*created)["id"];
  json run;
  for (int i = 0; i < 600; ++i) {
    auto r = runs.get(id);
    if (!r) return json{{"error", r.error().message}};
    run = *r;
    std::string st = run.value("state", "");
    if (st != "queued" && st != "running" && st != "awaiting_user") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return run;
}

TEST(HooksRun, ARunFiresRunStartIterationEndAndRunEndInOrder) {
  std::string dir = temp_dir();
  std::string out = dir + "/hooks.jsonl";
  std::string prog = dir + "/hook.sh";
  std::ofstream(prog) << "#!/bin/sh\ncat >> " << out << "\necho >> " << out << "\n";
  chmod(prog.c_str(), 0755);
  json hook = {{{"command", {prog}}, {"timeout_ms", 5000}}};
  auto config = hooks::hooks_config_from(json{{"hooks", {{"run_start", hook}, {"iteration_end", hook}, {"run_end", hook}}}}, "test");
  ASSERT_TRUE(config) << config.error().message;
  hooks::Pipeline::Options po;
  po.workers = 1;  // in the order they came
  auto pipeline = hooks::Pipeline::create(*config, po);

  server::RunManager runs(shared_session().runtime(), config_with(dir, pipeline));
  std::string script = script_file({{{"text", repl_reply("env.h = await getText(activeTab, 'h1')")}}, {{"text", repl_reply("setFinal(env.h)")}}});
  json run = run_to_end(runs, {{"task", "Read the heading"}, {"urls", {site().url("/")}}, {"options", {{"provider", "script:" + script}}}});
  ASSERT_EQ(run["state"], "done") << run.dump();
  std::string id = run["id"];
  ASSERT_TRUE(pipeline->wait_idle(std::chrono::seconds(15)));

  std::ifstream in(out);
  std::vector<json> payloads;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) payloads.push_back(json::parse(line));
  std::vector<std::string> points;
  for (const auto& p : payloads) {
    points.push_back(p["hook"]);
    EXPECT_EQ(p["run"], id);
  }
  EXPECT_EQ(points, (std::vector<std::string>{"run_start", "iteration_end", "iteration_end", "run_end"}));
  ASSERT_EQ(payloads.size(), 4u);
  EXPECT_EQ(payloads[0]["data"]["task"], "Read the heading");
  EXPECT_EQ(payloads[1]["data"]["iteration"], 1);
  EXPECT_EQ(payloads[3]["data"]["final"], "Fixture Home");
  EXPECT_EQ(pipeline->stats().failed, 0u);
}

// Hooks that decide, in a real run: a before_tool_call hook refuses navigate to one site (the run
// gets the reason as the call's error and goes on), a transform_response hook changes the code
// the run executes, and each decision is an event of the run.
TEST(HooksRun, HooksThatDecideRefuseACallAndChangeTheReply) {
  std::string dir = temp_dir();
  std::string deny = dir + "/deny.sh", change = dir + "/change.sh";
  std::ofstream(deny) << "#!/bin/sh\nin=$(cat)\ncase \"$in\" in\n"
                         "  *'\"name\":\"navigate\"'*forbidden.example*) echo '{\"decision\": \"deny\", \"reason\": \"forbidden.example is off limits\"}' ;;\n"
                         "  *) echo '{\"decision\": \"allow\"}' ;;\nesac\n";
  std::ofstream(change) << "#!/bin/sh\nsed 's/^{/{\"decision\":\"modify\",/; s/as the model wrote it/as the hook made it/g'\n";
  chmod(deny.c_str(), 0755);
  chmod(change.c_str(), 0755);
  auto config = hooks::hooks_config_from(json{{"hooks", {{"before_tool_call", {{{"command", {deny}}, {"timeout_ms", 5000}}}},
                                                         {"transform_response", {{{"command", {change}}, {"timeout_ms", 5000}}}}}}},
                                         "test");
  ASSERT_TRUE(config) << config.error().message;
  auto pipeline = hooks::Pipeline::create(*config);

  server::RunManager runs(shared_session().runtime(), config_with(dir, pipeline));
  std::string script = script_file(
      {{{"text", repl_reply("try { await navigate(activeTab, 'https://forbidden.example/'); env.went = 'went'; } catch (e) { env.went = String(e.message); }")}},
       {{"text", repl_reply("setFinal({went: env.went, said: 'as the model wrote it', h: await getText(activeTab, 'h1')})")}}});
  json run = run_to_end(runs, {{"task", "Try the forbidden site"}, {"urls", {site().url("/")}}, {"options", {{"provider", "script:" + script}}}});
  ASSERT_EQ(run["state"], "done") << run.dump();
  std::string id = run["id"];
  std::string went = get_str(run["final"], "went");
  EXPECT_NE(went.find("forbidden.example is off limits"), std::string::npos) << run.dump();
  EXPECT_NE(went.find("before_tool_call"), std::string::npos) << went;
  EXPECT_EQ(run["final"]["said"], "as the hook made it") << "transform_response changed the code the run executed";
  EXPECT_EQ(run["final"]["h"], "Fixture Home") << "the run went on in its tab";
  // The decisions are the run's events.
  auto events = shared_session().runtime()->db->events(id, 0);
  ASSERT_TRUE(events) << events.error().message;
  int denied = 0, modified = 0;
  for (const auto& e : *events) {
    if (e.type != "hook") continue;
    json data = json::parse(e.data);
    if (get_str(data, "point") == "before_tool_call" && get_str(data, "decision") == "deny") ++denied;
    if (get_str(data, "point") == "transform_response" && get_str(data, "decision") == "modify") ++modified;
  }
  EXPECT_EQ(denied, 1);
  EXPECT_EQ(modified, 2) << "both replies went through the hook";
}

}  // namespace
}  // namespace ouro::testing
