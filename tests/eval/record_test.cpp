// `ouro eval --record` (eval/record.h): each exchange with the model kept as the scripted
// provider replays it, around a provider of the test's own. What is kept is replayed through the
// real scripted provider (llm/scripted.cpp), so a recording that would replay differently fails
// here: the text, reasoning, model, usage, cost and stop reason; sub-calls answered by what they
// asked; failures named and redacted; a cancel not kept; tool calls. The suite's record and replay
// through `ouro eval` is in runner_test.cpp.
#include "eval/record.h"

#include "llm/digest.h"
#include "llm/errors.h"
#include "llm/provider.h"

#include "../support/scoped_env.h"
#include "../support/scoped_temp_dir.h"

#include <gtest/gtest.h>

#include <deque>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace ouro::eval {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Answers from a queue, in order; remembers what it was asked and where it was told to seek.
class Canned final : public llm::Provider {
 public:
  Result<llm::Response> complete(const llm::Request& req, const std::function<void(const llm::Delta&)>& on_delta, const llm::CancelToken&) override {
    asked.push_back(req);
    if (answers.empty()) return make_error(Code::ResourceExhausted, "no canned answer left");
    Result<llm::Response> r = answers.front();
    answers.pop_front();
    if (r) on_delta(llm::Delta{llm::Delta::Kind::Text, r->text});
    return r;
  }
  std::string name() const override { return "canned"; }
  json position() const override { return json{{"at", 7}}; }
  void seek(const json& at) override { sought = at; }

  std::deque<Result<llm::Response>> answers;
  std::vector<llm::Request> asked;
  json sought;
};

llm::Response answer(const std::string& text) {
  llm::Response r;
  r.text = text;
  return r;
}

llm::Request ask(const std::string& content, llm::Purpose purpose = llm::Purpose::Main) {
  return llm::Request{"m", "You are terse.", {{"user", content, {}}}, {}, purpose};
}

// The recorder around a Canned provider that gives these answers; `canned` is left pointing at it.
std::unique_ptr<llm::Provider> recorder(const std::string& path, std::vector<Result<llm::Response>> answers, Canned** canned = nullptr) {
  auto inner = std::make_unique<Canned>();
  for (auto& a : answers) inner->answers.push_back(std::move(a));
  if (canned) *canned = inner.get();
  return recording_provider(std::move(inner), path);
}

std::vector<json> lines_of(const std::string& path) {
  std::vector<json> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    auto j = parse_json(line, "a recorded line");
    EXPECT_TRUE(j) << line;
    if (j) out.push_back(*j);
  }
  return out;
}

// The real scripted provider over what was recorded.
std::unique_ptr<llm::Provider> replay(const std::string& path) {
  testing::ScopedEnv no_pause("OURO_SCRIPT_CHUNK_DELAY_US", "0");
  auto p = llm::make_provider(llm::ProviderSpec{"script", "", "", path, {}});
  EXPECT_TRUE(p) << p.error().message;
  if (!p) return nullptr;
  return std::move(*p);
}

const auto kNoDeltas = [](const llm::Delta&) {};

TEST(Recording, AnAnswerIsKeptAsTheScriptedProviderReplaysIt) {
  testing::ScopedTempDir dir;
  const std::string path = dir.path + "/task.r1.jsonl";
  llm::Response given = answer("H\xc3\xa9llo, w\xc3\xb6rld");
  given.reasoning = "thinking\xe2\x80\xa6";
  given.model = "claude-sonnet-4-20250514";
  given.usage.input_tokens = 1200;
  given.usage.output_tokens = 42;
  given.usage.cache_read_tokens = 1000;
  given.usage.cache_write_tokens = 100;
  given.usage.estimated = false;
  given.cost_usd = 0.0123;
  given.cost_known = true;
  given.stop_reason = "max_tokens";
  auto rec = recorder(path, {given});
  llm::CancelToken cancel;
  std::string streamed;
  auto r = rec->complete(ask("Say hello"), [&](const llm::Delta& d) { streamed += d.text; }, cancel);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->text, given.text) << "the answer is passed on as it came";
  EXPECT_EQ(streamed, given.text) << "and so are its deltas";
  ASSERT_EQ(lines_of(path).size(), 1u);

  auto again = replay(path);
  ASSERT_NE(again, nullptr);
  auto replayed = again->complete(ask("Say hello"), kNoDeltas, cancel);
  ASSERT_TRUE(replayed) << replayed.error().message;
  EXPECT_EQ(replayed->text, given.text);
  EXPECT_EQ(replayed->reasoning, given.reasoning);
  EXPECT_EQ(replayed->model, given.model);
  EXPECT_EQ(replayed->usage.input_tokens, 1200);
  EXPECT_EQ(replayed->usage.output_tokens, 42);
  EXPECT_EQ(replayed->usage.cache_read_tokens, 1000);
  EXPECT_EQ(replayed->usage.cache_write_tokens, 100);
  EXPECT_FALSE(replayed->usage.estimated);
  EXPECT_DOUBLE_EQ(replayed->cost_usd, 0.0123);
  EXPECT_TRUE(replayed->cost_known);
  EXPECT_EQ(replayed->stop_reason, "max_tokens");
}

TEST(Recording, SubCallsAreKeptWithWhatTheyAskedSoEachIsAnsweredItsOwnInAnyOrder) {
  testing::ScopedTempDir dir;
  const std::string path = dir.path + "/task.r1.jsonl";
  auto rec = recorder(path, {answer("main answer"), answer("one"), answer("two")});
  llm::CancelToken cancel;
  ASSERT_TRUE(rec->complete(ask("the task"), kNoDeltas, cancel));
  ASSERT_TRUE(rec->complete(ask("ask one", llm::Purpose::Sub), kNoDeltas, cancel));
  ASSERT_TRUE(rec->complete(ask("ask two", llm::Purpose::Sub), kNoDeltas, cancel));
  auto lines = lines_of(path);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_FALSE(lines[0].contains("sub"));
  EXPECT_EQ(lines[1]["sub"], true);
  EXPECT_EQ(lines[1]["asked"], llm::request_digest(ask("ask one", llm::Purpose::Sub)));

  // Calls made at once finish in any order: the second asked is answered first.
  auto again = replay(path);
  ASSERT_NE(again, nullptr);
  auto two = again->complete(ask("ask two", llm::Purpose::Sub), kNoDeltas, cancel);
  auto one = again->complete(ask("ask one", llm::Purpose::Sub), kNoDeltas, cancel);
  ASSERT_TRUE(two) << two.error().message;
  ASSERT_TRUE(one) << one.error().message;
  EXPECT_EQ(two->text, "two");
  EXPECT_EQ(one->text, "one");
}

TEST(Recording, AFailureIsKeptNamedAndRedactedAndACancelIsNotKept) {
  testing::ScopedTempDir dir;
  const std::string path = dir.path + "/task.r1.jsonl";
  const std::string said = "upstream refused Bearer abcdefghijklmnop0123 (slow down)";
  auto rec = recorder(path, {Result<llm::Response>(make_error(Code::ResourceExhausted, said, {{"kind", "rate-limited"}})),
                             Result<llm::Response>(make_error(Code::Cancelled, "cancelled"))});
  llm::CancelToken cancel;
  auto failed = rec->complete(ask("the task"), kNoDeltas, cancel);
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code, Code::ResourceExhausted) << "the caller gets the failure as it was";
  EXPECT_EQ(failed.error().message, said);
  auto stopped = rec->complete(ask("the task"), kNoDeltas, cancel);
  ASSERT_FALSE(stopped);
  EXPECT_EQ(stopped.error().code, Code::Cancelled);

  auto lines = lines_of(path);
  ASSERT_EQ(lines.size(), 1u) << "a cancel is ouro's, not the model's: not kept";
  EXPECT_EQ(lines[0]["kind"], "rate-limited");
  EXPECT_FALSE(has(lines[0].dump(), "abcdefghijklmnop0123")) << lines[0].dump();
  EXPECT_TRUE(has(lines[0]["error"].get<std::string>(), "upstream refused")) << lines[0].dump();

  auto again = replay(path);
  ASSERT_NE(again, nullptr);
  auto replayed = again->complete(ask("the task"), kNoDeltas, cancel);
  ASSERT_FALSE(replayed);
  EXPECT_EQ(llm::kind_of(replayed.error()), "rate-limited");
}

// A provider gives a call without arguments as arguments {} with no raw text
// (llm/providers.cpp): the recording keeps {}, so the replayed call is the same call and the tool
// loop does not refuse it as "arguments that are not JSON".
TEST(Recording, AToolCallWithoutArgumentsReplaysAsACallWithNoArguments) {
  testing::ScopedTempDir dir;
  const std::string path = dir.path + "/task.r1.jsonl";
  llm::Response given = answer("");
  given.tool_calls.push_back(llm::ToolCall{"call_1", "go_back", json::object(), ""});
  given.tool_calls.push_back(llm::ToolCall{"call_2", "click", json{{"ref", "e3"}}, "{\"ref\":\"e3\"}"});
  auto rec = recorder(path, {given});
  llm::CancelToken cancel;
  ASSERT_TRUE(rec->complete(ask("the task"), kNoDeltas, cancel));

  auto again = replay(path);
  ASSERT_NE(again, nullptr);
  auto replayed = again->complete(ask("the task"), kNoDeltas, cancel);
  ASSERT_TRUE(replayed) << replayed.error().message;
  ASSERT_EQ(replayed->tool_calls.size(), 2u);
  EXPECT_EQ(replayed->tool_calls[0].id, "call_1");
  EXPECT_EQ(replayed->tool_calls[0].name, "go_back");
  EXPECT_EQ(replayed->tool_calls[1].name, "click");
  EXPECT_EQ(replayed->tool_calls[1].arguments, (json{{"ref", "e3"}}));
  EXPECT_EQ(replayed->tool_calls[0].arguments, json::object()) << "recorded as " << lines_of(path).at(0).dump();
}

TEST(Recording, AFileThatCannotBeWrittenNeverFailsTheCall) {
  testing::ScopedTempDir dir;
  const std::string path = dir.path + "/no/such/folder/task.r1.jsonl";
  auto rec = recorder(path, {answer("first"), answer("second")});
  llm::CancelToken cancel;
  auto first = rec->complete(ask("one"), kNoDeltas, cancel);
  auto second = rec->complete(ask("two"), kNoDeltas, cancel);
  ASSERT_TRUE(first) << first.error().message;
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(first->text, "first");
  EXPECT_EQ(second->text, "second");
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(Recording, TheProviderItStandsAroundAnswersForItsNameAndPlace) {
  testing::ScopedTempDir dir;
  Canned* canned = nullptr;
  auto rec = recorder(dir.path + "/task.r1.jsonl", {}, &canned);
  ASSERT_NE(canned, nullptr);
  EXPECT_EQ(rec->name(), "canned");
  EXPECT_EQ(rec->position(), (json{{"at", 7}}));
  rec->seek(json{{"main", 2}, {"sub", 1}});
  EXPECT_EQ(canned->sought, (json{{"main", 2}, {"sub", 1}}));
  llm::CancelToken cancel;
  auto r = rec->complete(ask("what"), kNoDeltas, cancel);
  ASSERT_FALSE(r);
  ASSERT_EQ(canned->asked.size(), 1u);
  EXPECT_EQ(canned->asked[0].messages.at(0).content, "what") << "the request reaches the model as it was made";
}

TEST(TranscriptName, IsTheTaskAndItsRepeat) {
  EXPECT_EQ(transcript_name("login-form", 2), "login-form.r2.jsonl");
  EXPECT_EQ(transcript_name("a.b_c", 0), "a.b_c.r0.jsonl");
  EXPECT_NE(transcript_name("task", 1), transcript_name("task", 10));
}

}  // namespace
}  // namespace ouro::eval
