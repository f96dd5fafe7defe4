// Scripts, without a browser: extraction from a run's events (dead ends dropped, the
// final block last), parameters proposed from the task and the typed values and lifted into
// placeholders (secrets kept as handles), substitution as JavaScript string literals whatever
// the value, versions in the database, and the replay provider's steps and its stop on a failure.
#include "basics.h"
#include "postgres_server.h"

#include "scripts/replay.h"
#include "scripts/store.h"
#include "store/database.h"

#include <gtest/gtest.h>

namespace ouro::testing {
namespace {

using scripts::RecordedEvent;

std::vector<RecordedEvent> block(int it, int index, const std::string& code, bool ok, bool final = false) {
  json meta = {{"ok", ok}};
  if (!ok) meta["error"] = "TypeError: boom";
  if (final) meta["setFinal"] = true;
  return {{"code-generated", {{"iteration", it}, {"blockIndex", index}, {"code", code}}},
          {"code-result", {{"iteration", it}, {"blockIndex", index}, {"metadata", meta}}}};
}

std::vector<RecordedEvent> run_events() {
  std::vector<RecordedEvent> ev;
  auto add = [&](std::vector<RecordedEvent> more) { ev.insert(ev.end(), more.begin(), more.end()); };
  ev.push_back({"iteration-start", {{"iteration", 1}}});
  add(block(1, 0, "env.title = await getText(activeTab, 'h1')", true));
  add(block(1, 1, "await click(activeTab, '#nope')", false));  // a dead end
  add(block(2, 0, "await type(activeTab, '#name', 'Ada Lovelace');\nawait fill(activeTab, {'#email': 'ada@example.com', '#pw': secret('pw')})", true));
  add(block(3, 0, "await act(activeTab, 'type \"London\" into City; click Send')", true));
  add(block(4, 0, "setFinal({name: await getValue(activeTab, '#name'), seats: '3'})", true, true));
  ev.push_back({"complete", {{"final", "x"}}});
  return ev;
}

const std::string kTask = "Sign up as \"Ada Lovelace\" on http://127.0.0.1:1/form by 2026-01-02 for 3 seats";

TEST(Scripts, KeepsTheBlocksThatSucceededInOrderEndingWithTheFinal) {
  auto s = scripts::from_events(kTask, run_events(), std::vector<scripts::Param>{});
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_EQ(s->steps.size(), 4u);
  EXPECT_EQ(s->steps[0].code, "env.title = await getText(activeTab, 'h1')") << "a read that succeeded stays";
  EXPECT_EQ(s->steps[1].iteration, 2) << "the failed click is dropped";
  EXPECT_TRUE(s->steps[3].set_final);
  EXPECT_FALSE(s->steps[0].set_final);
  // What each action acted on, as the run's code named it.
  ASSERT_EQ(s->steps[1].targets.size(), 3u);
  EXPECT_EQ(s->steps[1].targets[0].action, "type");
  EXPECT_EQ(s->steps[1].targets[0].target, "#name");
  EXPECT_EQ(s->steps[1].targets[1].target, "#email");
  ASSERT_EQ(s->steps[2].targets.size(), 2u);
  EXPECT_EQ(s->steps[2].targets[0].target, "type \"London\" into City");
  EXPECT_EQ(s->steps[2].targets[1].target, "click Send");
  EXPECT_EQ(s->steps[1].intent, "type, fill, secret");
}

TEST(Scripts, OnlyARunThatDeliveredItsFinalBecomesAScript) {
  std::vector<RecordedEvent> ev = block(1, 0, "env.a = 1", true);
  auto more = block(2, 0, "setFinal(x)", false);  // threw before setFinal
  ev.insert(ev.end(), more.begin(), more.end());
  auto s = scripts::from_events("t", ev);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, Code::FailedPrecondition);
  EXPECT_NE(s.error().message.find("setFinal"), std::string::npos);
}

TEST(Scripts, TheLastTurnOfAConversationIsTheScript) {
  std::vector<RecordedEvent> ev = block(1, 0, "setFinal(1)", true, true);
  ev.push_back({"user-message", {{"text", "now the second \"thing\""}, {"turn", 2}}});
  auto more = block(2, 0, "setFinal(2)", true, true);
  ev.insert(ev.end(), more.begin(), more.end());
  auto s = scripts::from_events("first", ev);
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_EQ(s->steps.size(), 1u);
  EXPECT_EQ(s->steps[0].code, "setFinal(2)");
  EXPECT_EQ(s->task, "now the second \"{{text}}\"");
}

TEST(Scripts, ProposesTypedValuesAndTheTasksValuesButNeverSecrets) {
  auto s = scripts::from_events(kTask, run_events());
  ASSERT_TRUE(s) << s.error().message;
  std::map<std::string, std::string> got;
  for (const auto& p : s->params) got[p.name] = p.value + "/" + p.source;
  EXPECT_EQ(got["name"], "Ada Lovelace/typed");
  EXPECT_EQ(got["email"], "ada@example.com/typed");
  EXPECT_EQ(got["city"], "London/typed");
  EXPECT_EQ(got["url"], "http://127.0.0.1:1/form/task");
  EXPECT_EQ(got["date"], "2026-01-02/task");
  EXPECT_EQ(got["number"], "3/task");
  for (const auto& p : s->params) EXPECT_NE(p.value, "pw") << "a secret's name is a handle, not a value";
  EXPECT_EQ(s->params.size(), 6u);
  // Lifted: the typed values in the code, the values in the task.
  EXPECT_EQ(s->steps[1].code, "await type(activeTab, '#name', {{name}});\nawait fill(activeTab, {'#email': {{email}}, '#pw': secret('pw')})");
  EXPECT_EQ(s->steps[2].code, "await act(activeTab, ('type \"' + {{city}} + '\" into City; click Send'))");
  EXPECT_EQ(s->steps[3].code, "setFinal({name: await getValue(activeTab, '#name'), seats: {{number}}})") << "a number only as a whole literal";
  EXPECT_EQ(s->task, "Sign up as \"{{name}}\" on {{url}} by {{date}} for {{number}} seats");
}

TEST(Scripts, TheCallersParametersReplaceTheProposedOnes) {
  auto s = scripts::from_events(kTask, run_events(), std::vector<scripts::Param>{{"who", "Ada Lovelace", ""}});
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_EQ(s->params.size(), 1u);
  EXPECT_EQ(s->params[0].source, "user");
  EXPECT_NE(s->steps[1].code.find("{{who}}"), std::string::npos);
  EXPECT_NE(s->steps[1].code.find("'ada@example.com'"), std::string::npos) << "not a parameter: left as it was";
  for (auto bad : {std::vector<scripts::Param>{{"1x", "a", ""}}, {{"a b", "a", ""}}, {{"x", "", ""}}, {{"x", "a", ""}, {"x", "b", ""}}}) {
    auto r = scripts::from_events(kTask, run_events(), bad);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, Code::InvalidArgument);
  }
}

TEST(Scripts, ValuesEnterCodeOnlyAsEscapedStringLiterals) {
  std::vector<scripts::Param> params = {{"name", "Ada", "typed"}, {"city", "London", "typed"}};
  const std::string hostile = "\"); fetch('x') //";
  EXPECT_EQ(scripts::substitute_code("await type(activeTab, '#name', {{name}})", params, {{"name", hostile}}),
            "await type(activeTab, '#name', \"\\\"); fetch('x') //\")");
  EXPECT_EQ(scripts::substitute_code("act(activeTab, ('type \"' + {{city}} + '\" into City'))", params, {{"city", "a\nb\\c`${x}`"}}),
            "act(activeTab, ('type \"' + \"a\\nb\\\\c`${x}`\" + '\" into City'))");
  EXPECT_EQ(scripts::js_string("line\xE2\x80\xA8sep"), "\"line\\u2028sep\"");
  // Defaults when no value is given; undeclared placeholders untouched.
  EXPECT_EQ(scripts::substitute_code("f({{name}}, {{other}})", params, {}), "f(\"Ada\", {{other}})");
  // The task is text: values go in as they are.
  EXPECT_EQ(scripts::substitute_text("Greet {{name}} in {{city}}", params, {{"city", hostile}}), "Greet Ada in " + hostile);
}

TEST(Scripts, LiftingLeavesSecretsTemplatesWithSubstitutionsAndOtherWordsAlone) {
  EXPECT_EQ(scripts::lift("type(t, '#pw', secret('Ada'))", "Ada", "n"), "type(t, '#pw', secret('Ada'))");
  EXPECT_EQ(scripts::lift("log(`Ada`)", "Ada", "n"), "log({{n}})") << "a template without ${} is a string";
  EXPECT_EQ(scripts::lift("log(`Hi Ada`)", "Ada", "n"), "log((`Hi ` + {{n}}))");
  EXPECT_EQ(scripts::lift("log(`${a} Ada`)", "Ada", "n"), "log(`${a} Ada`)") << "one with ${} is code as much as text";
  EXPECT_EQ(scripts::lift("x('Adams'); y(\"Ada\") // 'Ada'", "Ada", "n"), "x('Adams'); y({{n}}) // 'Ada'");
  EXPECT_EQ(scripts::lift("x('Hi Ada!')", "Ada", "n"), "x(('Hi ' + {{n}} + '!'))");
  EXPECT_EQ(scripts::lift("x('#item5', '5')", "5", "n", true), "x('#item5', {{n}})");
  EXPECT_EQ(scripts::lift("x('\\Ada L')", "Ada", "n"), "x('\\Ada L')") << "inside an escape: left alone";
  EXPECT_EQ(scripts::lift("x('it\\'s Ada')", "Ada", "n"), "x(('it\\'s ' + {{n}}))");
}

// Saved scripts behave the same on SQLite and on PostgreSQL.
class ScriptsStoreOn : public ::testing::TestWithParam<store::Engine> {};

TEST_P(ScriptsStoreOn, VersionsAreKeptPerName) {
  OURO_FRESH_DATABASE(opened, GetParam());
  auto* db = &opened;
  auto made = scripts::from_events(kTask, run_events());
  ASSERT_TRUE(made);
  made->name = "signup";
  made->source_run = "r1";
  made->urls = {"http://127.0.0.1:1/form"};
  auto v1 = scripts::save(**db, *made);
  ASSERT_TRUE(v1) << v1.error().message;
  EXPECT_EQ(v1->version, 1);
  made->task = "second";
  auto v2 = scripts::save(**db, *made);
  ASSERT_TRUE(v2);
  EXPECT_EQ(v2->version, 2);
  auto latest = scripts::get(**db, "signup");
  ASSERT_TRUE(latest);
  EXPECT_EQ(latest->version, 2);
  EXPECT_EQ(latest->task, "second");
  EXPECT_EQ(latest->to_json()["steps"], made->to_json()["steps"]);
  EXPECT_EQ(latest->urls, made->urls);
  auto first = scripts::get(**db, "signup", 1);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->task, v1->task);
  EXPECT_EQ(first->task, "Sign up as \"{{name}}\" on {{url}} by {{date}} for {{number}} seats");
  auto listed = scripts::list(**db);
  ASSERT_TRUE(listed);
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].versions, 2);
  EXPECT_EQ(scripts::get(**db, "signup", 7).error().code, Code::NotFound);
  made->name = "bad name!";
  EXPECT_EQ(scripts::save(**db, *made).error().code, Code::InvalidArgument);
  auto gone = scripts::remove(**db, "signup");
  ASSERT_TRUE(gone);
  EXPECT_EQ(*gone, 2);
  EXPECT_EQ(scripts::get(**db, "signup").error().code, Code::NotFound);
  EXPECT_EQ(scripts::remove(**db, "signup").error().code, Code::NotFound);
}

INSTANTIATE_TEST_SUITE_P(Engines, ScriptsStoreOn, ::testing::Values(store::Engine::Sqlite, store::Engine::Postgres), engine_test_name);

TEST(ReplayProvider, AnswersWithTheStepsInOrderAndStopsAtAFailedOne) {
  auto made = scripts::from_events(kTask, run_events());
  ASSERT_TRUE(made);
  made->name = "signup";
  made->version = 3;
  EXPECT_EQ(scripts::ReplayProvider::create(*made, {{"nosuch", "x"}}).error().code, Code::InvalidArgument);
  auto p = scripts::ReplayProvider::create(*made, {{"name", "Grace \"G\" O'Hara"}});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ((*p)->task(), "Sign up as \"Grace \"G\" O'Hara\" on http://127.0.0.1:1/form by 2026-01-02 for 3 seats");
  EXPECT_EQ((*p)->max_iterations(), 5);
  llm::CancelToken cancel;
  std::string streamed;
  auto next = [&] { return (*p)->complete(llm::Request{}, [&](const llm::Delta& d) { streamed += d.text; }, cancel); };
  auto r1 = next();
  ASSERT_TRUE(r1);
  EXPECT_EQ(r1->text, "```repl\nenv.title = await getText(activeTab, 'h1')\n```");
  EXPECT_EQ(streamed, r1->text);
  EXPECT_EQ(r1->usage.input_tokens + r1->usage.output_tokens, 0);
  (*p)->observe("code-result", {{"iteration", 1}, {"blockIndex", 0}, {"metadata", {{"ok", true}}}});
  auto r2 = next();
  ASSERT_TRUE(r2);
  EXPECT_NE(r2->text.find("await type(activeTab, '#name', \"Grace \\\"G\\\" O'Hara\")"), std::string::npos) << r2->text;
  EXPECT_EQ((*p)->position(), json({{"main", 2}}));
  (*p)->observe("code-result", {{"iteration", 2}, {"blockIndex", 0}, {"metadata", {{"ok", false}, {"error", "click: no element matches selector '#name'"}}}});
  auto r3 = next();
  ASSERT_FALSE(r3);
  EXPECT_EQ(r3.error().message,
            "replay of script signup v3 stopped at step 2 of 4 (type, fill, secret on type '#name', fill '#email', fill '#pw'): click: no element "
            "matches selector '#name'");
  // Resumed from a checkpoint: the steps after it.
  auto q = scripts::ReplayProvider::create(*made, {});
  ASSERT_TRUE(q);
  (*q)->seek(json::object({{"main", 3}}));
  auto last = (*q)->complete(llm::Request{}, [](const llm::Delta&) {}, cancel);
  ASSERT_TRUE(last);
  EXPECT_NE(last->text.find("setFinal"), std::string::npos);
  auto after = (*q)->complete(llm::Request{}, [](const llm::Delta&) {}, cancel);
  ASSERT_FALSE(after);
  EXPECT_NE(after.error().message.find("ran all 4 steps"), std::string::npos);
}

}  // namespace
}  // namespace ouro::testing
