// askUser: the model asks, the run waits as awaiting_user, the user answers through
// the API; a secret answer is typed into the page by handle and never appears in what the model
// or the run's events see.
#include "api_env.h"

#include <gtest/gtest.h>

namespace ouro::testing {
namespace {

TEST(AskUser, ARoundTripThroughTheApi) {
  Server s;
  std::string path = script_file({{{"text", repl_reply("const a = await askUser('Which colour?', { choices: ['red', 'blue'] });\nsetFinal('picked ' + a)")}}});
  Http created = s.post("/api/runs", {{"task", "Pick a colour"}, {"options", {{"provider", "script:" + path}}}});
  std::string id = created.body.value("id", "");
  auto io = net::IoThread::start();
  Watcher w(*io, s.ws("run=" + id));
  ASSERT_TRUE(w.wait_for([](auto& ev) { return Watcher::has(ev, "user-question"); }));
  json q = w.last("user-question");
  EXPECT_EQ(q["question"], "Which colour?");
  EXPECT_EQ(q["choices"], json::array({"red", "blue"}));
  json run = s.get("/api/runs/" + id).body;
  EXPECT_EQ(run["state"], "awaiting_user");
  EXPECT_EQ(run["pendingQuestions"], json::array({q["id"]}));
  Http wrong = s.post("/api/runs/" + id + "/answer", {{"id", q["id"]}, {"answer", "green"}});
  EXPECT_EQ(wrong.status, 400);
  EXPECT_NE(wrong.raw.find("must be one of"), std::string::npos) << wrong.raw;
  EXPECT_EQ(s.post("/api/runs/" + id + "/answer", {{"id", q["id"]}, {"answer", "blue"}}).status, 200);
  EXPECT_EQ(s.post("/api/runs/" + id + "/answer", {{"id", q["id"]}, {"answer", "red"}}).status, 404) << "answered once";
  json done = s.wait_done(id);
  EXPECT_EQ(done["final"], "picked blue");
  EXPECT_EQ(done["state"], "done");
  EXPECT_EQ(s.post("/api/runs/" + id + "/answer", {{"id", 1}}).status, 400);
}

TEST(AskUser, ASecretAnswerIsTypedButNeverSeen) {
  Server s;
  const std::string code = "493817";
  std::string path = script_file({{{"text", repl_reply("env.code = await askUser('The code from your phone?', { secret: true });\n"
                                                       "await type(activeTab, '#name', env.code);\n"
                                                       "setFinal({ handle: env.code, field: await execInTab(activeTab, \"document.querySelector('#name').value\") })")}}});
  Http created = s.post("/api/runs", {{"task", "Sign in"}, {"urls", {site().url("/form")}}, {"options", {{"provider", "script:" + path}}}});
  std::string id = created.body.value("id", "");
  auto io = net::IoThread::start();
  Watcher w(*io, s.ws("run=" + id));
  ASSERT_TRUE(w.wait_for([](auto& ev) { return Watcher::has(ev, "user-question"); }));
  json q = w.last("user-question");
  EXPECT_EQ(q["secret"], true);
  EXPECT_EQ(q["site"], "127.0.0.1");
  // The page that asked: the run's active tab, named for the person answering.
  EXPECT_NE(q.value("url", "").find("/form"), std::string::npos) << q.dump();
  EXPECT_EQ(s.post("/api/runs/" + id + "/answer", {{"id", q["id"]}, {"answer", code}}).status, 200);
  json done = s.wait_done(id);
  ASSERT_EQ(done["state"], "done") << done.dump();
  std::string handle = done["final"]["handle"]["__ouroSecret"];
  EXPECT_EQ(handle.rfind("answer-", 0), 0u) << done.dump();
  EXPECT_EQ(done["final"]["field"], "[SECRET:" + handle + "]") << "typed into the page, shown to the model as its name";
  std::string events = s.get("/api/runs/" + id + "/events").raw;
  EXPECT_EQ(events.find(code), std::string::npos) << "the code is in no event";
  EXPECT_NE(events.find("\"answer\":\"[secret]\""), std::string::npos);
}

// A question still waiting when the run's turn ends goes with it: the page's own POST (asked
// about in careful mode once the run acted) is still unanswered when the model finishes. It is
// withdrawn at once — not left pending until its timeout —, listed nowhere, and an answer to it
// is refused; the request it held is not sent.
TEST(AskUser, AQuestionStillWaitingWhenTheRunEndsIsWithdrawn) {
  Server s;
  int echoes = site().hits("/api/echo");
  std::string path = script_file({{{"text", repl_reply("await execInTab(activeTab, `fetch('/api/echo', {method: 'POST', body: 'x=1'}).catch(() => 0); 1`);\n"
                                                       "await new Promise(r => setTimeout(r, 2000));\nsetFinal('done')")}}});
  Http created = s.post("/api/runs", {{"task", "Post it"}, {"urls", {site().url("/")}}, {"options", {{"provider", "script:" + path}}}});
  std::string id = created.body.value("id", "");
  ASSERT_FALSE(id.empty()) << created.raw;
  auto io = net::IoThread::start();
  Watcher w(*io, s.ws("run=" + id));
  ASSERT_TRUE(w.wait_for([](auto& ev) { return Watcher::has(ev, "confirmation-req"); }));
  std::string qid = get_str(w.last("confirmation-req"), "id");
  auto asked = std::chrono::steady_clock::now();
  ASSERT_TRUE(w.wait_for([&](auto& ev) {
    for (const auto& e : ev)
      if (e["type"] == "question-withdrawn" && get_str(e["data"], "id") == qid) return true;
    return false;
  })) << "no question-withdrawn event for " << qid;
  // Withdrawn when the turn ended, well before the 10 s the server waits for an answer.
  EXPECT_LT(std::chrono::steady_clock::now() - asked, std::chrono::seconds(8));
  json run = s.get("/api/runs/" + id).body;
  if (run.contains("pendingConfirmations")) {
    EXPECT_EQ(run["pendingConfirmations"], json::array()) << run.dump();
  }
  EXPECT_EQ(s.post("/api/runs/" + id + "/confirm", {{"id", qid}, {"approved", true}}).status, 404);
  json done = s.wait_done(id);
  EXPECT_EQ(done["state"], "done") << done.dump();
  EXPECT_EQ(site().hits("/api/echo"), echoes) << "the held POST went out";
  bool stored = false;
  for (const auto& e : events_of(s, id, "question-withdrawn")) stored = stored || get_str(e, "id") == qid;
  EXPECT_TRUE(stored);
}

TEST(AskUser, WithNoOneToAskItIsAnError) {
  // A person at the REPL (ouro exec, ouro repl) is not asked through askUser.
  EXPECT_NE(fails("await askUser('Which one?')").find("there is no one to ask here"), std::string::npos);
  EXPECT_NE(fails("await askUser('')").find("the question is empty"), std::string::npos);
  EXPECT_NE(fails("await askUser('x', { choices: 'ab' })").find("choices"), std::string::npos);
}

}  // namespace
}  // namespace ouro::testing
