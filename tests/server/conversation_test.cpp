// Conversations: a message after a run has finished is a new turn of it — same env,
// tabs and store, the earlier turns in the prompt — and a message while it works is guidance for
// its next iteration. Continued from storage when the session has gone (here: after a restart).
#include "api_env.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <fstream>
#include <thread>

namespace ouro::testing {
namespace {

// Waits until the run has finished its turn `n` (its n-th complete event).
json wait_turn(Server& s, const std::string& id, size_t n) {
  for (int i = 0; i < 600; ++i) {
    auto done = events_of(s, id, "complete");
    if (done.size() >= n) return done[n - 1];
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return nullptr;
}

TEST(Conversation, AFollowUpReusesAVariableOfThePreviousTurn) {
  Server s;
  std::string path = script_file({{{"text", repl_reply("env.total = 41;\nsetFinal('I noted the total.')")}},
                                  {{"text", repl_reply("setFinal(env.total + 1)")}}});
  std::string id = s.post("/api/runs", {{"task", "Note the total"}, {"options", {{"provider", "script:" + path}}}}).body.value("id", "");
  EXPECT_EQ(wait_turn(s, id, 1)["final"], "I noted the total.");
  Http sent = s.post("/api/runs/" + id + "/messages", {{"text", "Now add one to it"}});
  ASSERT_EQ(sent.status, 202) << sent.raw;
  EXPECT_EQ(sent.body["delivered"], "turn");
  EXPECT_EQ(sent.body["turn"], 2);
  EXPECT_EQ(wait_turn(s, id, 2)["final"], 42) << "env.total of turn 1 is there in turn 2";
  // Turn 2's prompt carries the conversation; its iterations count on from turn 1's.
  auto starts = events_of(s, id, "iteration-start");
  ASSERT_EQ(starts.size(), 2u);
  EXPECT_EQ(starts[1]["iteration"], 2);
  std::string prompt = starts[1]["prompt"];
  EXPECT_NE(prompt.find("## Conversation So Far"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("Note the total"), std::string::npos);
  EXPECT_NE(prompt.find("I noted the total."), std::string::npos);
  EXPECT_NE(prompt.find("User's request: \"Now add one to it\""), std::string::npos);
  json run = s.get("/api/runs/" + id).body;
  EXPECT_EQ(run["final"], 42);
  EXPECT_EQ(run["iterations"], 2);
  EXPECT_EQ(s.post("/api/runs/" + id + "/messages", {{"text", "  "}}).status, 400);
  EXPECT_EQ(s.post("/api/runs/rnope/messages", {{"text", "hi"}}).status, 404);
}

// Each turn's agent numbers its questions from 1: the second turn's question is put to the
// person and answered like the first, not taken for the first turn's, already answered.
TEST(Conversation, EachTurnCanAskThePersonAgain) {
  Server s;
  std::string path = script_file({{{"text", repl_reply("env.first = await askUser('Which colour?', { choices: ['red', 'blue'] });\nsetFinal(env.first)")}},
                                  {{"text", repl_reply("env.second = await askUser('And which size?', { choices: ['S', 'M'] });\nsetFinal(env.first + ' ' + env.second)")}}});
  std::string id = s.post("/api/runs", {{"task", "Pick a shirt"}, {"options", {{"provider", "script:" + path}}}}).body.value("id", "");
  ASSERT_FALSE(id.empty());
  auto io = net::IoThread::start();
  Watcher w(*io, s.ws("run=" + id));
  auto answer_next = [&](size_t n, const std::string& text) {
    ASSERT_TRUE(w.wait_for([&](const std::vector<json>& ev) {
      return static_cast<size_t>(std::count_if(ev.begin(), ev.end(), [](const json& e) { return e["type"] == "user-question"; })) >= n;
    }));
    json q = w.last("user-question");
    json run = s.get("/api/runs/" + id).body;
    EXPECT_EQ(run["pendingQuestions"], json::array({q["id"]})) << "turn " << n << "'s question is pending: " << run.dump();
    Http answered = s.post("/api/runs/" + id + "/answer", {{"id", q["id"]}, {"answer", text}});
    EXPECT_EQ(answered.status, 200) << answered.raw;
  };
  answer_next(1, "blue");
  EXPECT_EQ(wait_turn(s, id, 1)["final"], "blue");
  ASSERT_EQ(s.post("/api/runs/" + id + "/messages", {{"text", "Now the size"}}).status, 202);
  answer_next(2, "M");
  EXPECT_EQ(wait_turn(s, id, 2)["final"], "blue M");
}

TEST(Conversation, AMessageWhileARunWorksIsGuidanceForItsNextIteration) {
  Server s;
  // The first iteration works long enough for the message to land in it on any machine.
  std::string path = script_file({{{"text", repl_reply("await sleep(6000);\n'looked around'")}},
                                  {{"text", repl_reply("setFinal('done')")}}});
  std::string id = s.post("/api/runs", {{"task", "Find the cheapest flight"}, {"options", {{"provider", "script:" + path}}}}).body.value("id", "");
  auto io = net::IoThread::start();
  Watcher w(*io, s.ws("run=" + id));
  ASSERT_TRUE(w.wait_for([](auto& ev) { return Watcher::has(ev, "code-generated"); }));
  Http sent = s.post("/api/runs/" + id + "/messages", {{"text", "Only direct flights, please"}});
  ASSERT_EQ(sent.status, 202) << sent.raw;
  EXPECT_EQ(sent.body["delivered"], "guidance");
  EXPECT_EQ(wait_turn(s, id, 1)["final"], "done");
  auto starts = events_of(s, id, "iteration-start");
  ASSERT_EQ(starts.size(), 2u);
  std::string prompt = starts[1]["prompt"];
  EXPECT_NE(prompt.find("## Message From The User (sent while you worked)\n\"Only direct flights, please\""), std::string::npos) << prompt;
  auto said = events_of(s, id, "user-message");
  ASSERT_EQ(said.size(), 1u);
  EXPECT_EQ(said[0]["guidance"], true);
}

TEST(Conversation, ContinuedFromStorageAfterARestart) {
  std::string dir = temp_dir();
  // One scripted line serves both turns (the restarted server's model starts the script anew).
  std::string path = script_file({{{"text", repl_reply("if (env.total === undefined) { env.total = 41; setFinal('noted') } else setFinal(env.total + 1)")}}});
  std::string id;
  {
    Server s(dir);
    id = s.post("/api/runs", {{"task", "Note the total"}, {"options", {{"provider", "script:" + path}}}}).body.value("id", "");
    EXPECT_EQ(wait_turn(s, id, 1)["final"], "noted");
  }
  Server again(dir);
  Http sent = again.post("/api/runs/" + id + "/messages", {{"text", "Add one"}});
  ASSERT_EQ(sent.status, 202) << sent.raw;
  EXPECT_EQ(sent.body["restored"], true);
  EXPECT_EQ(wait_turn(again, id, 2)["final"], 42) << "env came back from the stored checkpoint";
  std::string prompt = events_of(again, id, "iteration-start").back()["prompt"];
  EXPECT_NE(prompt.find("Turn 1 — the user: \"Note the total\""), std::string::npos) << prompt;
}

// What History shows of a conversation: each turn's state, when it started and ended, its
// iterations and cost — kept by the server with the run, apart from its token usage.
TEST(Conversation, EachTurnIsKeptWithItsStateTimesAndCost) {
  Server s;
  std::string path = script_file({{{"text", repl_reply("env.total = 41;\nsetFinal('noted')")}}, {{"text", repl_reply("setFinal(env.total + 1)")}}});
  std::string id = s.post("/api/runs", {{"task", "Note the total"}, {"options", {{"provider", "script:" + path}}}}).body.value("id", "");
  ASSERT_EQ(wait_turn(s, id, 1)["final"], "noted");
  ASSERT_EQ(s.post("/api/runs/" + id + "/messages", {{"text", "Now add one to it"}}).status, 202);
  ASSERT_EQ(wait_turn(s, id, 2)["final"], 42);
  json run;
  for (int i = 0; i < 200 && get_array(run, "turns").size() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    for (const auto& r : s.get("/api/runs").body)
      if (get_str(r, "id") == id) run = r;
  }
  EXPECT_EQ(run["state"], "done");
  ASSERT_EQ(get_array(run, "turns").size(), 2u) << run.dump();
  double before = run["created_at"].get<double>();
  for (const auto& t : run["turns"]) {
    EXPECT_EQ(t["state"], "done") << "every turn succeeded, and says so: " << run.dump();
    EXPECT_EQ(t["iterations"], 1);
    EXPECT_TRUE(t["cost"].is_number()) << t;
    EXPECT_GE(t["started_at"].get<double>(), before) << "turns are in order";
    EXPECT_GE(t["ended_at"].get<double>(), t["started_at"].get<double>());
    before = t["ended_at"].get<double>();
  }
  EXPECT_TRUE(run["cost"].is_number());
  EXPECT_FALSE(run["usage"].contains("turns")) << "the usage is token counts only";
  EXPECT_EQ(run["usage"]["output_tokens"].get<int>() > 0, true) << run["usage"];
}

// ouro stopping while a follow-up works is not the user cancelling: the conversation is
// interrupted (its finished turns still done), and it resumes from its last checkpoint.
TEST(Conversation, AConversationCutShortByOuroStoppingIsInterruptedNotCancelled) {
  std::string dir = temp_dir();
  std::string path = script_file({{{"text", repl_reply("env.total = 41;\nsetFinal('noted')")}},
                                  {{"text", repl_reply("await sleep(30000);\nsetFinal('too late')")}}});
  std::string id;
  {
    Server s(dir);
    id = s.post("/api/runs", {{"task", "Note the total"}, {"options", {{"provider", "script:" + path}}}}).body.value("id", "");
    ASSERT_EQ(wait_turn(s, id, 1)["final"], "noted");
    ASSERT_EQ(s.post("/api/runs/" + id + "/messages", {{"text", "Now add one to it"}}).status, 202);
    for (int i = 0; i < 600 && events_of(s, id, "code-generated").size() < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_EQ(events_of(s, id, "code-generated").size(), 2u) << "turn 2 is working";
  }  // ouro stops here, turn 2 in its sleep
  // The resumed turn's model goes on past the lines the checkpoint's script position counts.
  std::ofstream script(path);
  for (const char* code : {"setFinal('noted')", "setFinal(env.total + 1)", "setFinal(env.total + 1)"}) script << json{{"text", repl_reply(code)}}.dump() << "\n";
  script.close();
  Server again(dir);
  json run = again.get("/api/runs/" + id).body;
  EXPECT_EQ(run["state"], "interrupted") << run.dump();
  EXPECT_EQ(run["error"], "ouro stopped while the run was in progress");
  ASSERT_EQ(get_array(run, "turns").size(), 2u) << run.dump();
  EXPECT_EQ(run["turns"][0]["state"], "done");
  EXPECT_EQ(run["turns"][1]["state"], "interrupted");
  Http resumed = again.post("/api/runs/" + id + "/resume", json::object());
  ASSERT_EQ(resumed.status, 200) << resumed.raw;
  json done = again.wait_done(id);
  EXPECT_EQ(done["state"], "done") << done.dump();
  EXPECT_EQ(done["final"], 42) << "env.total of turn 1 came back with the checkpoint";
  ASSERT_EQ(get_array(done, "turns").size(), 2u) << done.dump();
  EXPECT_EQ(done["turns"][0]["state"], "done");
  EXPECT_EQ(done["turns"][1]["state"], "done") << "the resumed turn replaces its interrupted record";
}

// A run whose turn is over waits for a follow-up with its session kept (keep_idle: 15 minutes),
// and meanwhile its place is free: a run queued behind it starts at once, not when the idle
// session goes. Its wait for a place is measured once, at its first turn, not again at a
// follow-up.
TEST(Conversation, ARunWaitingForAFollowUpGivesItsPlaceToAQueuedRun) {
  Server s(temp_dir(), 1);
  // The first turn takes a moment, so that the second run is created while it works.
  std::string first_path = script_file({{{"text", repl_reply("await execInTab(activeTab, 'await new Promise(r => setTimeout(r, 3000))');\nsetFinal('first')")}},
                                        {{"text", repl_reply("setFinal('first again')")}}});
  std::string second_path = script_file({{{"text", repl_reply("setFinal('second')")}}});
  Http first = s.post("/api/runs", {{"task", "Wait a moment"}, {"options", {{"provider", "script:" + first_path}}}});
  ASSERT_EQ(first.status, 201) << first.raw;
  Http second = s.post("/api/runs", {{"task", "Then this"}, {"options", {{"provider", "script:" + second_path}}}});
  ASSERT_EQ(second.status, 201) << second.raw;
  EXPECT_EQ(second.body.value("state", ""), "queued") << "the one place is the first run's while it works";
  const std::string first_id = first.body["id"], second_id = second.body["id"];
  EXPECT_EQ(wait_turn(s, first_id, 1)["final"], "first");
  json done = s.wait_done(second_id);
  EXPECT_EQ(done["final"], "second") << "the queued run started while the first waited for a follow-up: " << done.dump();
  // The first had kept its session: a follow-up is a turn of it there, not continued from storage.
  Http sent = s.post("/api/runs/" + first_id + "/messages", {{"text", "Once more"}});
  ASSERT_EQ(sent.status, 202) << sent.raw;
  EXPECT_EQ(sent.body["delivered"], "turn");
  EXPECT_FALSE(sent.body.contains("restored")) << sent.raw;
  EXPECT_EQ(wait_turn(s, first_id, 2)["final"], "first again");
  // Two runs, three turns: two waits for a place.
  std::string waits;
  s.runs->node_stats().queue_wait.render(waits, "wait");
  EXPECT_NE(waits.find("\nwait_count 2\n"), std::string::npos) << waits;
}

}  // namespace
}  // namespace ouro::testing
