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

TEST(AskUser, WithNoOneToAskItIsAnError) {
  // A person at the REPL (ouro exec, ouro repl) is not asked through askUser.
  EXPECT_NE(fails("await askUser('Which one?')").find("there is no one to ask here"), std::string::npos);
  EXPECT_NE(fails("await askUser('')").find("the question is empty"), std::string::npos);
  EXPECT_NE(fails("await askUser('x', { choices: 'ab' })").find("choices"), std::string::npos);
}

}  // namespace
}  // namespace ouro::testing
