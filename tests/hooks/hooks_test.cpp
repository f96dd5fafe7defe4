// Hooks: configuration, command and webhook delivery, timeouts, the bounded queue.
#include "basics.h"
#include "raw_server.h"

#include "hooks/hooks.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace ouro::testing {
namespace {

using hooks::Pipeline;
using hooks::Point;
using Clock = std::chrono::steady_clock;

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string line;
  while (std::getline(ss, line))
    if (!line.empty()) out.push_back(line);
  return out;
}

// A shell script in a temp dir, executable.
std::string script(const std::string& body) {
  std::string path = temp_dir() + "/hook.sh";
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  chmod(path.c_str(), 0755);
  return path;
}

hooks::HooksConfig config(const json& hooks_object) {
  auto c = hooks::hooks_config_from(json{{"hooks", hooks_object}}, "test");
  if (!c) throw std::runtime_error(c.error().message);
  return *c;
}

TEST(HooksConfig, ReadsCommandsUrlsAndTimeouts) {
  auto c = config({{"run_start", {{{"command", {"/bin/true", "a"}}}}}, {"gate", {{{"url", "https://example.com/h"}, {"timeout_ms", 100}}}}});
  ASSERT_EQ(c.hooks[Point::RunStart].size(), 1u);
  EXPECT_EQ(c.hooks[Point::RunStart][0].command, (std::vector<std::string>{"/bin/true", "a"}));
  EXPECT_EQ(c.hooks[Point::RunStart][0].timeout, std::chrono::milliseconds(5000)) << "the default";
  EXPECT_EQ(c.hooks[Point::Gate][0].url, "https://example.com/h");
  EXPECT_EQ(c.hooks[Point::Gate][0].timeout, std::chrono::milliseconds(100));
  EXPECT_EQ(c.hooks[Point::Gate][0].label, "gate[0]");
  EXPECT_TRUE(hooks::hooks_config_from(json{{"mode", "careful"}}, "test")->empty()) << "no hooks key: no hooks";
  EXPECT_TRUE(hooks::load_hooks_config(temp_dir() + "/missing.json")->empty()) << "no file: no hooks";
  std::string bad = temp_dir() + "/bad.json";
  std::ofstream(bad) << "{\"hooks\": ";
  auto broken = hooks::load_hooks_config(bad);
  ASSERT_FALSE(broken);
  EXPECT_NE(broken.error().message.find(bad), std::string::npos) << broken.error().message;
}

TEST(HooksConfig, WrongShapesNameTheField) {
  struct Case {
    json hooks;
    std::string says;
  };
  std::vector<Case> cases = {
      {json::array(), "\"hooks\" must be an object"},
      {{{"run_begin", json::array()}}, "hooks.run_begin is not a hook point (known: run_start, iteration_end, gate, run_end, before_inbound, before_tool_call"},
      {{{"run_end", json::object()}}, "hooks.run_end must be an array"},
      {{{"run_end", {"ls"}}}, "hooks.run_end[0] must be an object"},
      {{{"run_end", {{{"command", "ls"}}}}}, "hooks.run_end[0].command must be a non-empty array of strings"},
      {{{"run_end", {{{"command", json::array()}}}}}, "hooks.run_end[0].command must be a non-empty array of strings"},
      {{{"run_end", {{{"command", {"ls", "-l"}}}}}}, "hooks.run_end[0].command[0] must be an absolute path"},
      {{{"iteration_end", {{{"url", "ftp://example.com/x"}}}}}, "hooks.iteration_end[0].url must be an http:// or https:// URL"},
      {{{"iteration_end", {{{"url", "http://"}}}}}, "hooks.iteration_end[0].url must be an http:// or https:// URL"},
      {{{"gate", {{{"url", "http://x/"}, {"command", {"/bin/true"}}}}}}, "hooks.gate[0] needs exactly one of \"command\""},
      {{{"gate", {{{"timeout_ms", 10}}}}}, "hooks.gate[0] needs exactly one of \"command\""},
      {{{"gate", {{{"url", "http://x/"}, {"timeout_ms", 60001}}}}}, "hooks.gate[0].timeout_ms must be an integer from 1 to 60000"},
      {{{"gate", {{{"url", "http://x/"}, {"timeout_ms", 0}}}}}, "hooks.gate[0].timeout_ms must be an integer from 1 to 60000"},
      {{{"gate", {{{"url", "http://x/"}, {"timeout_ms", "5"}}}}}, "hooks.gate[0].timeout_ms must be an integer from 1 to 60000"},
      {{{"gate", {{{"url", "http://x/"}}, {{"url", "http://x/"}, {"retries", 3}}}}}, "hooks.gate[1].retries is not a hook field (known: command, url, timeout_ms, on_error)"},
  };
  for (const auto& c : cases) {
    auto r = hooks::hooks_config_from(json{{"hooks", c.hooks}}, "the settings file F");
    ASSERT_FALSE(r) << c.hooks.dump();
    EXPECT_EQ(r.error().code, Code::InvalidArgument);
    EXPECT_NE(r.error().message.find(c.says), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().message.rfind("the settings file F: ", 0), 0u) << r.error().message;
  }
}

TEST(HooksPipeline, ACommandGetsThePayloadOnItsStdin) {
  std::string out = temp_dir() + "/payloads";
  std::string prog = script("cat >> " + out + "\necho >> " + out);
  auto p = Pipeline::create(config({{"run_end", {{{"command", {prog}}}}}}));
  std::string big(100 * 1024, 'x');
  p->fire(Point::RunEnd, "r1", {{"final", "ok"}, {"note", "Authorization: Bearer abcdefghijklmnopqrstuvwxyz"}}, 1234.5);
  p->fire(Point::RunEnd, "r1", {{"final", big}, {"iterations", 3}}, 1235);
  p->fire(Point::Gate, "r1", {{"decision", "deny"}}, 1236);  // no gate hooks: nothing
  ASSERT_TRUE(p->wait_idle(std::chrono::seconds(10)));
  auto lines = lines_of(read_file(out));
  ASSERT_EQ(lines.size(), 2u) << read_file(out);
  json first = json::parse(lines[0]), second = json::parse(lines[1]);
  EXPECT_EQ(first["hook"], "run_end");
  EXPECT_EQ(first["run"], "r1");
  EXPECT_EQ(first["ts"], 1234.5);
  EXPECT_EQ(first["data"]["final"], "ok");
  EXPECT_EQ(lines[0].find("abcdefghijklmnopqrstuvwxyz"), std::string::npos) << "payloads are redacted: " << lines[0];
  EXPECT_EQ(second["data"]["truncated"], true) << "a payload's data is bounded";
  EXPECT_EQ(second["data"]["iterations"], 3) << "its small fields are kept";
  EXPECT_LT(lines[1].size(), 70u * 1024);
  auto st = p->stats();
  EXPECT_EQ(st.enqueued, 2u);
  EXPECT_EQ(st.delivered, 2u);
  EXPECT_EQ(st.failed, 0u);
}

TEST(HooksPipeline, ACommandGetsNoKeysFromTheEnvironment) {
  setenv("ANTHROPIC_API_KEY", "sk-ant-testkey-1234567890", 1);
  setenv("OURO_SECRET_BANK", "hunter2-secret", 1);
  setenv("OURO_HOOKS_TEST_OTHER", "other-value", 1);
  std::string out = temp_dir() + "/env";
  std::string prog = script("env > " + out);
  {
    auto p = Pipeline::create(config({{"gate", {{{"command", {prog}}}}}}));
    p->fire(Point::Gate, "r1", json::object(), 1);
    ASSERT_TRUE(p->wait_idle(std::chrono::seconds(10)));
  }
  unsetenv("ANTHROPIC_API_KEY");
  unsetenv("OURO_SECRET_BANK");
  unsetenv("OURO_HOOKS_TEST_OTHER");
  std::string env = read_file(out);
  EXPECT_EQ(env.find("ANTHROPIC_API_KEY"), std::string::npos) << env;
  EXPECT_EQ(env.find("sk-ant-testkey"), std::string::npos) << env;
  EXPECT_EQ(env.find("hunter2"), std::string::npos) << env;
  EXPECT_EQ(env.find("other-value"), std::string::npos) << "a minimal environment: " << env;
  EXPECT_NE(env.find("OURO_HOOK=gate"), std::string::npos) << env;
  EXPECT_NE(env.find("PATH="), std::string::npos) << env;
}

TEST(HooksPipeline, AHangingHookIsKilledAndNeverHoldsUpTheRun) {
  std::string pids = temp_dir() + "/pids";
  // The command and a child of its own both hang; the timeout kills the whole process group.
  std::string prog = script("sleep 30 &\necho $! >> " + pids + "\nwait");
  auto p = Pipeline::create(config({{"iteration_end", {{{"command", {prog}}, {"timeout_ms", 300}}}}}));
  auto started = Clock::now();
  for (int i = 0; i < 4; ++i) {
    auto t = Clock::now();
    p->fire(Point::IterationEnd, "r1", {{"iteration", i}}, 1);
    EXPECT_LT(Clock::now() - t, std::chrono::milliseconds(1000)) << "enqueueing returns at once, not after the hook's 30 s";
  }
  EXPECT_LT(Clock::now() - started, std::chrono::milliseconds(2000));
  ASSERT_TRUE(p->wait_idle(std::chrono::seconds(10)));
  auto elapsed = Clock::now() - started;
  EXPECT_LT(elapsed, std::chrono::seconds(5)) << "each was killed at its 300 ms";
  auto st = p->stats();
  EXPECT_EQ(st.timed_out, 4u);
  EXPECT_EQ(st.delivered, 0u);
  auto children = lines_of(read_file(pids));
  ASSERT_EQ(children.size(), 4u);
  for (const auto& pid : children) {
    // Gone, or a zombie waiting for a reaper that is not ours (a SIGKILL lands at once; the
    // process table may take a moment on a loaded machine).
    std::string stat;
    bool gone = false;
    for (int i = 0; i < 250 && !gone; ++i) {
      stat = read_file("/proc/" + pid + "/stat");
      gone = stat.empty() || stat.find(") Z") != std::string::npos;
      if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_TRUE(gone) << "the hook's child " << pid << " still runs: " << stat;
  }
}

TEST(HooksPipeline, AFullQueueDropsAndCounts) {
  std::string prog = script("sleep 5");
  Pipeline::Options o;
  o.queue_capacity = 4;
  o.workers = 1;
  o.shutdown_grace = std::chrono::milliseconds(200);
  auto p = Pipeline::create(config({{"run_start", {{{"command", {prog}}, {"timeout_ms", 5000}}}}}), o);
  auto t = Clock::now();
  for (int i = 0; i < 12; ++i) p->fire(Point::RunStart, "r" + std::to_string(i), json::object(), 1);
  EXPECT_LT(Clock::now() - t, std::chrono::milliseconds(100));
  auto st = p->stats();
  EXPECT_EQ(st.enqueued + st.dropped, 12u);
  EXPECT_GE(st.dropped, 7u) << "at most one taken by the worker and four waiting";
  // Destroyed while a hook hangs and others wait: the grace passes, the hook is killed.
  t = Clock::now();
  p.reset();
  EXPECT_LT(Clock::now() - t, std::chrono::seconds(3));
}

TEST(HooksPipeline, AWebhookGetsThePost) {
  RawServer server;
  server.push({Step::write("HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n")});
  server.push({Step::write(RawServer::error_response(500, "{\"error\":\"down\"}"))});
  auto p = Pipeline::create(config({{"iteration_end", {{{"url", server.url() + "/hook"}, {"timeout_ms", 3000}}}}}));
  p->fire(Point::IterationEnd, "r7", {{"iteration", 1}, {"ms", 12}}, 99);
  ASSERT_TRUE(p->wait_idle(std::chrono::seconds(10)));
  p->fire(Point::IterationEnd, "r7", {{"iteration", 2}}, 100);
  ASSERT_TRUE(p->wait_idle(std::chrono::seconds(10)));
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].rfind("POST /hook HTTP/1.1\r\n", 0), 0u) << requests[0];
  EXPECT_NE(requests[0].find("Content-Type: application/json"), std::string::npos) << requests[0];
  json body = json::parse(requests[0].substr(requests[0].find("\r\n\r\n") + 4));
  EXPECT_EQ(body["hook"], "iteration_end");
  EXPECT_EQ(body["run"], "r7");
  EXPECT_EQ(body["data"]["ms"], 12);
  auto st = p->stats();
  EXPECT_EQ(st.delivered, 1u);
  EXPECT_EQ(st.failed, 1u) << "an HTTP 500 is a failure, counted, not thrown";
}

TEST(HooksPipeline, ASlowWebhookTimesOut) {
  RawServer server;
  server.push({Step::sleep(std::chrono::milliseconds(6000)), Step::write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")});
  auto p = Pipeline::create(config({{"run_end", {{{"url", server.url() + "/slow"}, {"timeout_ms", 300}}}}}));
  auto t = Clock::now();
  p->fire(Point::RunEnd, "r1", json::object(), 1);
  EXPECT_LT(Clock::now() - t, std::chrono::milliseconds(1000)) << "not after the webhook's 6 s";
  ASSERT_TRUE(p->wait_idle(std::chrono::seconds(20)));
  EXPECT_LT(Clock::now() - t, std::chrono::milliseconds(4000)) << "the 300 ms timeout, not the server's 6 s";
  EXPECT_EQ(p->stats().timed_out, 1u);
}

TEST(HooksPipeline, EventsMapToHookPoints) {
  std::string out = temp_dir() + "/events";
  std::string prog = script("cat >> " + out + "\necho >> " + out);
  json hook = {{{"command", {prog}}}};
  Pipeline::Options o;
  o.workers = 1;  // one worker: delivered in the order they came
  auto p = Pipeline::create(config({{"run_start", hook}, {"iteration_end", hook}, {"gate", hook}, {"run_end", hook}}), o);
  p->on_event("r1", "iteration-start", {{"iteration", 1}, {"taskGoal", "Read it"}, {"prompt", "a long prompt"}}, 1);
  p->on_event("r1", "code-result", {{"ok", true}}, 2);
  p->on_event("r1", "iteration-end", {{"iteration", 1}}, 3);
  p->on_event("r1", "iteration-start", {{"iteration", 2}}, 4);
  p->on_event("r1", "gate", {{"decision", "deny"}}, 5);
  p->on_event("r1", "complete", {{"final", "done"}}, 6);
  p->on_event("r1", "iteration-start", {{"iteration", 3}, {"taskGoal", "Follow-up"}}, 7);  // the next turn
  ASSERT_TRUE(p->wait_idle(std::chrono::seconds(10)));
  auto lines = lines_of(read_file(out));
  std::vector<std::string> points;
  for (const auto& l : lines) points.push_back(json::parse(l)["hook"]);
  EXPECT_EQ(points, (std::vector<std::string>{"run_start", "iteration_end", "gate", "run_end", "run_start"}));
  json start = json::parse(lines[0]);
  EXPECT_EQ(start["data"], (json{{"task", "Read it"}, {"iteration", 1}})) << "no prompt in run_start";
}

// --- Deciding points -----------------------------------------------------------------------

TEST(HooksDecide, HooksRunInOrderAModifyReachesTheNextAndADenyStops) {
  // The first changes the arguments; the second sees the change and allows; a third, after a deny, never runs.
  std::string seen = temp_dir() + "/seen.json";
  std::string changer = script("sed 's/^{/{\"decision\":\"modify\",/; s/old-value/new-value/g'");
  std::string recorder = script("cat > " + seen + "; echo '{\"decision\": \"allow\"}'");
  auto p = Pipeline::create(config({{"before_tool_call", {{{"command", {changer}}}, {{"command", {recorder}}}}}}));
  auto d = p->decide(Point::BeforeToolCall, "r1", {{"name", "type"}, {"args", {"t1", "#q", "old-value"}}});
  EXPECT_EQ(d.kind, hooks::Decision::Kind::Modify);
  EXPECT_EQ(d.data["args"][2], "new-value") << d.data.dump();
  EXPECT_EQ(d.by, "before_tool_call[0]");
  ASSERT_EQ(d.answers.size(), 2u);
  json second = json::parse(read_file(seen));
  EXPECT_EQ(second["hook"], "before_tool_call");
  EXPECT_EQ(second["run"], "r1");
  EXPECT_EQ(second["data"]["args"][2], "new-value") << "the second hook sees what the first changed";

  std::string denier = script("echo '{\"decision\": \"deny\", \"reason\": \"not on this site\"}'");
  std::string never = temp_dir() + "/never";
  std::string after = script("touch " + never);
  auto q = Pipeline::create(config({{"before_tool_call", {{{"command", {denier}}}, {{"command", {after}}}}}}));
  auto denied = q->decide(Point::BeforeToolCall, "r2", {{"name", "navigate"}, {"args", {"t1", "https://x.example/"}}});
  EXPECT_EQ(denied.kind, hooks::Decision::Kind::Deny);
  EXPECT_EQ(denied.reason, "not on this site");
  EXPECT_EQ(denied.by, "before_tool_call[0]");
  EXPECT_FALSE(std::filesystem::exists(never)) << "a hook after a deny ran";
  // No hook at the point: allowed as given, nothing recorded.
  auto none = q->decide(Point::BeforeOutbound, "r2", {{"text", "x"}});
  EXPECT_EQ(none.kind, hooks::Decision::Kind::Allow);
  EXPECT_FALSE(none.decided());
}

TEST(HooksDecide, AFailingSlowOrDownHookDoesNotBlockUnlessItDeniesOnError) {
  std::string slow = script("sleep 5; echo '{\"decision\": \"deny\"}'");
  std::string garbage = script("echo 'not json'");
  auto started = Clock::now();
  auto p = Pipeline::create(config({{"before_outbound",
                                     {{{"command", {slow}}, {"timeout_ms", 200}},
                                      {{"command", {garbage}}},
                                      {{"url", "http://127.0.0.1:1/hook"}, {"timeout_ms", 500}}}}}));
  auto d = p->decide(Point::BeforeOutbound, "r", {{"messages", json::array()}});
  EXPECT_EQ(d.kind, hooks::Decision::Kind::Allow);
  EXPECT_LT(Clock::now() - started, std::chrono::seconds(3));
  ASSERT_EQ(d.answers.size(), 3u) << d.answers.dump();
  for (const auto& a : d.answers) EXPECT_TRUE(a.contains("error")) << a.dump();
  EXPECT_NE(get_str(d.answers[1], "error").find("not a JSON object"), std::string::npos) << d.answers.dump();
  // A policy hook says a failure is a no.
  auto strict = Pipeline::create(config({{"before_outbound", {{{"command", {slow}}, {"timeout_ms", 200}, {"on_error", "deny"}}}}}));
  auto denied = strict->decide(Point::BeforeOutbound, "r", {{"messages", json::array()}});
  EXPECT_EQ(denied.kind, hooks::Decision::Kind::Deny);
  EXPECT_NE(denied.reason.find("on_error: deny"), std::string::npos) << denied.reason;
  // A modify where only allow or deny is taken is ignored; session_end cannot deny.
  std::string modifier = script("echo '{\"decision\": \"modify\", \"data\": {}}'");
  auto start = Pipeline::create(config({{"session_start", {{{"command", {modifier}}}}}}));
  EXPECT_EQ(start->decide(Point::SessionStart, "r", {{"task", "t"}}).kind, hooks::Decision::Kind::Allow);
}

TEST(HooksDecide, TheConfigKnowsTheDecidingPointsAndTheirDefaults) {
  auto c = config({{"before_tool_call", {{{"command", {"/bin/true"}}, {"on_error", "deny"}}}}, {"run_end", {{{"command", {"/bin/true"}}}}}});
  EXPECT_EQ(c.hooks[Point::BeforeToolCall][0].timeout, std::chrono::milliseconds(1000));
  EXPECT_TRUE(c.hooks[Point::BeforeToolCall][0].deny_on_error);
  EXPECT_EQ(c.hooks[Point::RunEnd][0].timeout, std::chrono::milliseconds(5000));
  auto told = hooks::hooks_config_from(json{{"hooks", {{"gate", {{{"command", {"/bin/true"}}, {"on_error", "deny"}}}}}}}, "f");
  ASSERT_FALSE(told);
  EXPECT_NE(told.error().message.find("applies to hooks that decide"), std::string::npos) << told.error().message;
  auto unknown = hooks::hooks_config_from(json{{"hooks", {{"before_everything", json::array()}}}}, "f");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("transform_response"), std::string::npos) << unknown.error().message;
}

}  // namespace
}  // namespace ouro::testing
