// askUser (actions/ask.cpp): a question of the wrong shape is refused before anyone is asked;
// with no one to ask the call says so; an answer comes back as text, cut at its bound; a secret
// answer becomes a handle typed only on the site it was asked for and never read back.
#include "browser_env.h"

#include "actions/host.h"

#include <mutex>

namespace ouro::testing {
namespace {

struct Asked {
  std::mutex mutex;
  std::vector<json> questions;
  std::string answer = "yes";

  std::shared_ptr<host::Context::Hooks> hooks() {
    auto h = std::make_shared<host::Context::Hooks>();
    h->ask_user = [this](const json& q) -> Result<std::string> {
      std::lock_guard lock(mutex);
      questions.push_back(q);
      return answer;
    };
    return h;
  }
  size_t count() {
    std::lock_guard lock(mutex);
    return questions.size();
  }
};

TEST(AskUser, AQuestionOfTheWrongShapeIsRefusedBeforeAnyoneIsAsked) {
  auto s = isolated_session();
  Asked asked;
  s->host().context().set_hooks(asked.hooks());
  struct Case {
    std::string code, says;
  };
  for (const auto& c : std::vector<Case>{{"await askUser('   ')", "the question is empty"},
                                         {"await askUser('x'.repeat(2001))", "ask in at most 2000"},
                                         {"await askUser('Which?', {choices: Array.from({length: 21}, (_, i) => 'c' + i)})", "at most 20 choices"},
                                         {"await askUser('Which?', {choices: ['a', '']})", "each choice must be 1 to 200"},
                                         {"await askUser('Which?', {choices: ['a', 'b'.repeat(201)]})", "each choice must be 1 to 200"},
                                         {"await askUser('Code?', {secret: true, tabId: 't999999'})", "t999999"}}) {
    std::string err = fails(c.code, s.get());
    EXPECT_NE(err.find(c.says), std::string::npos) << c.code << ": " << err;
  }
  EXPECT_EQ(asked.count(), 0u);
}

TEST(AskUser, WithNoOneToAskTheCallSaysSo) {
  auto s = isolated_session();
  std::string err = fails("await askUser('Which account?')", s.get());
  EXPECT_NE(err.find("there is no one to ask here"), std::string::npos) << err;
}

TEST(AskUser, TheAnswerComesBackAsTextCutAtItsBound) {
  auto s = isolated_session();
  Asked asked;
  asked.answer = "the second one";
  s->host().context().set_hooks(asked.hooks());
  EXPECT_EQ(ok("await askUser('Which account?', {choices: ['first', 'second']})", s.get()), "the second one");
  {
    std::lock_guard lock(asked.mutex);
    ASSERT_EQ(asked.questions.size(), 1u);
    EXPECT_EQ(asked.questions[0], json({{"question", "Which account?"}, {"choices", {"first", "second"}}, {"secret", false}}));
  }
  asked.answer = std::string(50000, 'a');
  EXPECT_EQ(ok("(await askUser('Say a lot')).length", s.get()), 10000);
}

TEST(AskUser, ASecretAnswerIsAHandleTypedOnlyOnItsSite) {
  auto s = isolated_session();
  Asked asked;
  asked.answer = "739112";
  s->host().context().set_hooks(asked.hooks());
  std::string blank = fails("const b = await openTab('about:blank'); await askUser('Code?', {secret: true, tabId: b})", s.get());
  EXPECT_NE(blank.find("shows no web site"), std::string::npos) << blank;

  json r = ok(R"(
    env.t = await openTab('{{/form}}');
    env.code = await askUser('The code we sent you?', {secret: true});
    await type(env.t, '#name', env.code);
    ({ handle: env.code, read: await execInTab(env.t, 'document.querySelector("#name").value') }))",
              s.get());
  ASSERT_TRUE(r["handle"].is_object()) << r.dump();
  std::string name = get_str(r["handle"], "__ouroSecret");
  EXPECT_EQ(name.rfind("answer-", 0), 0u) << r.dump();
  EXPECT_EQ(r["read"], "[SECRET:" + name + "]") << "read back masked";
  EXPECT_EQ(r.dump().find("739112"), std::string::npos) << r.dump();
  EXPECT_EQ(s->browser().eval_page(s->active_tab(), "document.querySelector('#name').value").value(), "739112") << "the page got it";
  {
    std::lock_guard lock(asked.mutex);
    ASSERT_EQ(asked.questions.size(), 1u);
    EXPECT_EQ(asked.questions[0]["secret"], true);
    EXPECT_EQ(get_str(asked.questions[0], "site"), "127.0.0.1") << asked.questions[0].dump();
  }
  // Another site (the same server reached as localhost) is not where it was asked for.
  std::string other = site().url("/form");
  other.replace(other.find("127.0.0.1"), 9, "localhost");
  std::string err = fails("const u = await openTab('" + other + "'); await type(u, '#name', env.code)", s.get());
  EXPECT_NE(err.find(name), std::string::npos) << err;
  EXPECT_EQ(err.find("739112"), std::string::npos) << err;
}

}  // namespace
}  // namespace ouro::testing
