// Self-healing replays and agent takeover, without a browser: placeholders substituted
// only outside string literals and comments (a typed "{{x}}" stays text, whatever the value put
// in), the recorded details of targets kept with their steps, healed selectors put into a step's
// code, the diff between versions, and the replay provider's record lookup, its handover to a
// model with the failure and the remaining steps, and its answer to a follow-up message.
#include "scripts/replay.h"
#include "scripts/script.h"

#include <gtest/gtest.h>

namespace ouro::testing {
namespace {

using scripts::RecordedEvent;

void add_block(std::vector<RecordedEvent>& ev, int it, const std::string& code, bool ok, bool final, std::vector<RecordedEvent> during = {}) {
  ev.push_back({"code-generated", {{"iteration", it}, {"blockIndex", 0}, {"code", code}}});
  for (auto& e : during) ev.push_back(std::move(e));
  json meta = {{"ok", ok}};
  if (!ok) meta["error"] = "click: no element";
  if (final) meta["setFinal"] = true;
  ev.push_back({"code-result", {{"iteration", it}, {"blockIndex", 0}, {"metadata", meta}}});
}

const json kButton = {{"role", "button"}, {"name", "Subscribe"}, {"tag", "button"}, {"others", {"Subscribe to partner offers"}}};
const json kField = {{"role", "textbox"}, {"name", "Email address"}, {"tag", "input"}, {"attrs", {{"name", "email"}, {"type", "email"}}}};

TEST(ScriptsHeal, PlaceholdersAreSubstitutedOnlyOutsideStringsAndComments) {
  std::vector<scripts::Param> params = {{"name", "Ada", "typed"}};
  const std::string hostile = "{{name}}\"'\\</script>\xE2\x80\xA8`${x}`";
  std::string code = "await type(t, '#a', {{name}}); log('{{name}}'); log(\"x {{name}}\"); // {{name}}\n/* {{name}} */ f(`{{name}}`)";
  std::string out = scripts::substitute_code(code, params, {{"name", hostile}});
  EXPECT_EQ(out, "await type(t, '#a', \"{{name}}\\\"'\\\\</script>\\u2028`${x}`\"); log('{{name}}'); log(\"x {{name}}\"); // {{name}}\n"
                 "/* {{name}} */ f(`{{name}}`)");
  // Substituting again (the value carries a placeholder) changes nothing: it is inside a literal now.
  EXPECT_EQ(scripts::substitute_code(out, params, {{"name", "')+evil()+('"}}), out);
}

TEST(ScriptsHeal, ATypedValueWithAPlaceholderInItStaysText) {
  std::vector<RecordedEvent> ev;
  add_block(ev, 1, "await type(activeTab, '#note', 'Dear {{city}}'); await type(activeTab, '#city', 'London')", true, false);
  add_block(ev, 2, "setFinal('ok')", true, true);
  auto s = scripts::from_events("Send a note to \"London\"", ev, std::vector<scripts::Param>{{"city", "London", "user"}});
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->steps[0].code, "await type(activeTab, '#note', 'Dear {{city}}'); await type(activeTab, '#city', {{city}})");
  std::string replayed = scripts::substitute_code(s->steps[0].code, s->params, {{"city", "'); fetch('//evil') //"}});
  EXPECT_EQ(replayed, "await type(activeTab, '#note', 'Dear {{city}}'); await type(activeTab, '#city', \"'); fetch('//evil') //\")");
}

TEST(ScriptsHeal, TargetsKeepTheirRecordedDetailsAndHealedSelectorsGoIntoTheCode) {
  std::vector<RecordedEvent> ev;
  add_block(ev, 1, "await type(activeTab, '#email', 'ada@example.com')", true, false,
            {{"target", {{"action", "type"}, {"selector", "#email"}, {"tab", "t1"}, {"details", kField}}}});
  add_block(ev, 2, "await click(activeTab, '#nope')", false, false,
            {{"target", {{"action", "click"}, {"selector", "#nope"}, {"details", kButton}}}});
  add_block(ev, 3, "await click(activeTab, '#subscribe'); await click(activeTab, \"#subscribe\")", true, false,
            {{"heal", {{"step", 2}, {"action", "click"}, {"old", "#subscribe"}, {"new", "role=button[name=\"Subscribe now\"]"}, {"confidence", 0.81}}},
             {"target", {{"action", "click"}, {"selector", "role=button[name=\"Subscribe now\"]"}, {"details", kButton}}}});
  add_block(ev, 4, "setFinal(await getText(activeTab, '#log'))", true, true);
  auto s = scripts::from_events("Subscribe", ev, std::vector<scripts::Param>{});
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_EQ(s->steps.size(), 3u);
  ASSERT_EQ(s->steps[0].targets.size(), 1u);
  EXPECT_EQ(s->steps[0].targets[0].details, kField);
  EXPECT_EQ(s->steps[1].code,
            "await click(activeTab, \"role=button[name=\\\"Subscribe now\\\"]\"); await click(activeTab, \"role=button[name=\\\"Subscribe now\\\"]\")");
  ASSERT_EQ(s->steps[1].targets.size(), 2u);
  EXPECT_EQ(s->steps[1].targets[0].target, "role=button[name=\"Subscribe now\"]");
  EXPECT_EQ(s->steps[1].targets[0].details, kButton);
  EXPECT_TRUE(s->steps[1].targets[1].details.is_null()) << "one record, one target";
  ASSERT_EQ(s->changes.size(), 1u);
  EXPECT_EQ(s->changes[0]["kind"], "heal");
  EXPECT_EQ(s->changes[0]["step"], 2);
  // Through storage's JSON and back.
  auto back = scripts::script_from_json(s->to_json());
  ASSERT_TRUE(back);
  EXPECT_EQ(back->to_json(), s->to_json());
}

TEST(ScriptsHeal, ReplaceLiteralAndDiff) {
  EXPECT_EQ(scripts::replace_literal("click(t, '#a'); log('#a b'); type(t, '#a', secret('#a')); f(`#a`)", "#a", "role=button[name=\"A\"]"),
            "click(t, \"role=button[name=\\\"A\\\"]\"); log('#a b'); type(t, \"role=button[name=\\\"A\\\"]\", secret('#a')); f(`#a`)");
  scripts::Script a, b;
  a.name = b.name = "s";
  a.version = 1;
  b.version = 2;
  a.steps.push_back({1, "await type(t, '#email', x)\nawait click(t, '#go')", "", {}, false, {}, {}});
  a.steps.push_back({2, "setFinal(1)", "", {}, true, {}, {}});
  b.steps = a.steps;
  b.steps[0].code = "await type(t, '#email', x)\nawait click(t, \"role=button[name=\\\"Go\\\"]\")";
  EXPECT_EQ(scripts::diff(a, b), "--- s v1\n+++ s v2\n@@ step 1\n await type(t, '#email', x)\n-await click(t, '#go')\n+await click(t, \"role=button[name=\\\"Go\\\"]\")\n");
  EXPECT_EQ(scripts::diff(a, a), "");
  b.steps.push_back({3, "setFinal(2)", "", {}, true, {}, {}});
  EXPECT_NE(scripts::diff(a, b).find("@@ step 3 (new)\n+setFinal(2)\n"), std::string::npos);
}

// A model that answers with what it is given and keeps the requests it saw.
class EchoModel final : public llm::Provider {
 public:
  std::vector<llm::Request> seen;
  Result<llm::Response> complete(const llm::Request& request, const std::function<void(const llm::Delta&)>&, const llm::CancelToken&) override {
    seen.push_back(request);
    llm::Response r;
    r.text = "```repl\nsetFinal('the model did it')\n```";
    r.model = request.model;
    r.usage.input_tokens = 100;
    r.usage.output_tokens = 10;
    return r;
  }
  std::string name() const override { return "echo"; }
};

scripts::Script three_steps() {
  std::vector<RecordedEvent> ev;
  add_block(ev, 1, "await type(activeTab, '#email', 'ada@example.com')", true, false,
            {{"target", {{"action", "type"}, {"selector", "#email"}, {"details", kField}}}});
  add_block(ev, 2, "await click(activeTab, '#subscribe')", true, false,
            {{"target", {{"action", "click"}, {"selector", "#subscribe"}, {"details", kButton}}}});
  add_block(ev, 3, "setFinal(await getText(activeTab, '#log'))", true, true);
  auto s = scripts::from_events("Subscribe", ev);
  EXPECT_TRUE(s);
  s->name = "news";
  s->version = 1;
  return *s;
}

TEST(ScriptsHeal, TheReplayAnswersWhatWasRecordedAboutATarget) {
  auto p = scripts::ReplayProvider::create(three_steps(), {});
  ASSERT_TRUE(p);
  llm::CancelToken cancel;
  ASSERT_TRUE((*p)->complete(llm::Request{}, [](const llm::Delta&) {}, cancel));
  auto rec = (*p)->recorded("type", "#email");
  ASSERT_TRUE(rec);
  EXPECT_EQ((*rec)["step"], 1);
  EXPECT_EQ((*rec)["details"], kField);
  // Another step's target is found too; another action or selector is not.
  ASSERT_TRUE((*p)->recorded("click", "#subscribe"));
  EXPECT_EQ((*(*p)->recorded("click", "#subscribe"))["step"], 2);
  EXPECT_FALSE((*p)->recorded("click", "#email"));
  EXPECT_FALSE((*p)->recorded("type", "#other"));
}

TEST(ScriptsHeal, AModelTakesOverFromAStepThatCannotHeal) {
  auto p = scripts::ReplayProvider::create(three_steps(), {{"email", "grace@example.com"}});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ((*p)->max_iterations(), 4);
  auto owned = std::make_unique<EchoModel>();
  EchoModel* model = owned.get();
  (*p)->set_fallback(std::move(owned), "echo-1", "echo-mini");
  EXPECT_EQ((*p)->max_iterations(), 29);
  llm::CancelToken cancel;
  auto next = [&] {
    llm::Request req;
    req.messages.push_back({"user", "the page now", {}, {}});
    return (*p)->complete(req, [](const llm::Delta&) {}, cancel);
  };
  ASSERT_TRUE(next());
  (*p)->observe("code-result", {{"metadata", {{"ok", true}}}});
  ASSERT_TRUE(next());
  EXPECT_TRUE(model->seen.empty()) << "the model is not asked while the steps work";
  EXPECT_EQ((*p)->path(), "replay");
  (*p)->observe("code-result", {{"metadata", {{"ok", false}, {"error", "click: step 2 of the replay: '#subscribe' no element matches it; best candidates: button \"Join\" 0.41"}}}});
  auto taken = next();
  ASSERT_TRUE(taken) << taken.error().message;
  EXPECT_EQ(taken->text, "```repl\nsetFinal('the model did it')\n```");
  ASSERT_EQ(model->seen.size(), 1u);
  EXPECT_EQ(model->seen[0].model, "echo-1");
  const std::string& note = model->seen[0].messages.back().content;
  EXPECT_EQ(note.rfind("the page now\n\n[REPLAY HANDOVER]", 0), 0u) << note;
  EXPECT_NE(note.find("stopped at step 2 of 3"), std::string::npos) << note;
  EXPECT_NE(note.find("best candidates: button \"Join\" 0.41"), std::string::npos) << note;
  EXPECT_NE(note.find("Step 2 was meant to: click"), std::string::npos) << note;
  EXPECT_NE(note.find("// step 3\nsetFinal(await getText(activeTab, '#log'))"), std::string::npos) << note;
  EXPECT_EQ(note.find("// step 1"), std::string::npos) << "the steps that ran are not guidance: " << note;
  EXPECT_EQ((*p)->path(), "replay+agent");
  EXPECT_TRUE((*p)->handed_over());
  EXPECT_FALSE((*p)->recorded("type", "#email")) << "the model's code heals nothing";
  // The model's own failures are its to handle: the next call goes to it too, without a note.
  (*p)->observe("code-result", {{"metadata", {{"ok", false}, {"error", "x"}}}});
  ASSERT_TRUE(next());
  ASSERT_EQ(model->seen.size(), 2u);
  EXPECT_EQ(model->seen[1].messages.back().content, "the page now");
  // Sub-calls go to it with its sub-model.
  llm::Request sub;
  sub.purpose = llm::Purpose::Sub;
  ASSERT_TRUE((*p)->complete(sub, [](const llm::Delta&) {}, cancel));
  EXPECT_EQ(model->seen.back().model, "echo-mini");
  EXPECT_EQ((*p)->position()["handed_over"], true);
}

TEST(ScriptsHeal, AFollowUpToAFinishedReplayNeedsAModelAndSaysSo) {
  auto p = scripts::ReplayProvider::create(three_steps(), {});
  ASSERT_TRUE(p);
  llm::CancelToken cancel;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE((*p)->complete(llm::Request{}, [](const llm::Delta&) {}, cancel));
    (*p)->observe("code-result", {{"metadata", {{"ok", true}, {"setFinal", i == 2}}}});
  }
  auto follow = (*p)->complete(llm::Request{}, [](const llm::Delta&) {}, cancel);
  ASSERT_FALSE(follow);
  EXPECT_EQ(follow.error().code, Code::FailedPrecondition);
  EXPECT_NE(follow.error().message.find("replayed script news v1 without a model, and a follow-up message needs one"), std::string::npos)
      << follow.error().message;
  // With a model, the follow-up is the model's.
  auto q = scripts::ReplayProvider::create(three_steps(), {});
  auto owned = std::make_unique<EchoModel>();
  EchoModel* model = owned.get();
  (*q)->set_fallback(std::move(owned), "echo-1", "echo-mini");
  (*q)->seek({{"main", 3}, {"final", true}});
  ASSERT_TRUE((*q)->complete(llm::Request{}, [](const llm::Delta&) {}, cancel));
  EXPECT_EQ(model->seen.size(), 1u);
}

}  // namespace
}  // namespace ouro::testing
