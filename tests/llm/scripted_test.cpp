// The scripted provider (a JSON Lines file replayed as a model's answers): which scripts it
// refuses and why, how answers stream, what it reports (usage, cost, stop reason, tool calls,
// named failures), running out, where it is in the script and going back, cancellation and
// calls from several threads. The basics (main and sub queues, "asked") are in provider_test.cpp.
#include "llm/errors.h"
#include "llm/provider.h"

#include "basics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <thread>

namespace ouro::llm {
namespace {

// Streams without the provider's pause between chunks, the variable as it was afterwards.
class ScriptedProvider : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* v = std::getenv("OURO_SCRIPT_CHUNK_DELAY_US")) m_saved = v;
    ::setenv("OURO_SCRIPT_CHUNK_DELAY_US", "0", 1);
  }
  void TearDown() override {
    if (m_saved) ::setenv("OURO_SCRIPT_CHUNK_DELAY_US", m_saved->c_str(), 1);
    else ::unsetenv("OURO_SCRIPT_CHUNK_DELAY_US");
  }

  static std::string write_script(const std::string& lines) {
    std::string path = testing::temp_dir() + "/script.jsonl";
    std::ofstream(path) << lines;
    return path;
  }
  static Result<std::unique_ptr<Provider>> scripted(const std::string& lines) {
    return make_provider(ProviderSpec{"script", "", "", write_script(lines), {}});
  }

 private:
  std::optional<std::string> m_saved;
};

Request ask(Purpose purpose = Purpose::Main, const std::string& content = "Say hello") {
  return Request{"m", "You are terse.", {{"user", content, {}}}, {}, purpose};
}

struct Deltas {
  std::vector<Delta> all;
  std::function<void(const Delta&)> fn() {
    return [this](const Delta& d) { all.push_back(d); };
  }
  std::string joined(Delta::Kind kind) const {
    std::string s;
    for (const auto& d : all)
      if (d.kind == kind) s += d.text;
    return s;
  }
};

TEST_F(ScriptedProvider, AMissingScriptIsNotFound) {
  std::string path = testing::temp_dir() + "/no-such-script.jsonl";
  auto p = make_provider(ProviderSpec{"script", "", "", path, {}});
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().code, Code::NotFound);
  EXPECT_NE(p.error().message.find(path), std::string::npos) << p.error().message;
}

TEST_F(ScriptedProvider, AScriptWithoutMainResponsesIsRefused) {
  for (const char* lines : {"", "\n  \n\t\r\n", "{\"sub\": true, \"text\": \"only a sub-call\"}\n"}) {
    auto p = scripted(lines);
    ASSERT_FALSE(p) << "'" << lines << "'";
    EXPECT_EQ(p.error().code, Code::InvalidArgument);
    EXPECT_NE(p.error().message.find("no main responses"), std::string::npos) << p.error().message;
  }
}

TEST_F(ScriptedProvider, EachLineMustBeAJsonObjectAndTheErrorSaysWhichLine) {
  // Blank lines are skipped but counted.
  auto p = scripted("{\"text\": \"a\"}\n   \r\n\t\n[1, 2]\n");
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().code, Code::InvalidArgument);
  EXPECT_NE(p.error().message.find("line 4"), std::string::npos) << p.error().message;
  EXPECT_NE(p.error().message.find("not an object"), std::string::npos) << p.error().message;
  auto q = scripted("\"just text\"\n");
  ASSERT_FALSE(q);
  EXPECT_NE(q.error().message.find("line 1"), std::string::npos) << q.error().message;
  auto r = scripted("{\"text\": \"ok\"}\n{\"text\": \n");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("line 2"), std::string::npos) << r.error().message;
}

// A field of the wrong type is refused when the script is read, naming the line and the field,
// rather than thrown out of the replay.
TEST_F(ScriptedProvider, AFieldOfTheWrongTypeIsRefusedNamingTheLine) {
  struct Case {
    const char* line;
    const char* says;
  };
  for (const Case& c : {Case{R"({"sub": "yes", "text": "a"})", "\"sub\" must be true or false"}, Case{R"({"text": 5})", "\"text\" must be a string"},
                        Case{R"({"text": "a", "delay_ms": "5"})", "\"delay_ms\""}, Case{R"({"text": "a", "delay_ms": -1})", "\"delay_ms\""},
                        Case{R"({"text": "a", "delay_ms": 10, "until_file": 1})", "\"until_file\" must be a string"},
                        Case{R"({"text": "a", "usage": {"input_tokens": "10"}})", "usage.input_tokens"},
                        Case{R"({"text": "a", "usage": []})", "\"usage\" must be an object"},
                        Case{R"({"text": "a", "tool_calls": [{"name": 3}]})", "\"name\" must be a string"}}) {
    auto p = scripted(std::string("{\"text\": \"first\"}\n") + c.line + "\n");
    ASSERT_FALSE(p) << c.line << " was taken";
    EXPECT_EQ(p.error().code, Code::InvalidArgument) << c.line;
    EXPECT_NE(p.error().message.find("line 2"), std::string::npos) << p.error().message;
    EXPECT_NE(p.error().message.find(c.says), std::string::npos) << p.error().message;
  }
}

TEST_F(ScriptedProvider, TextAndReasoningStreamInWholeCharacters) {
  const std::string reasoning = "Let me think…", text = "Grüße aus 🌍, ça va? ✓✓✓";
  auto p = scripted(json{{"reasoning", reasoning}, {"text", text}}.dump() + "\n");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ((*p)->name(), "script");
  Deltas d;
  auto r = (*p)->complete(ask(), d.fn(), CancelToken{});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->text, text);
  EXPECT_EQ(r->reasoning, reasoning);
  EXPECT_EQ(d.joined(Delta::Kind::Text), text);
  EXPECT_EQ(d.joined(Delta::Kind::Reasoning), reasoning);
  // In small pieces like a real stream, reasoning first, never half a UTF-8 character.
  EXPECT_GT(d.all.size(), 4u);
  bool text_seen = false;
  for (const auto& delta : d.all) {
    ASSERT_FALSE(delta.text.empty());
    EXPECT_NE(static_cast<unsigned char>(delta.text[0]) & 0xC0, 0x80) << "a piece starts inside a character";
    EXPECT_LE(delta.text.size(), 9u);
    if (delta.kind == Delta::Kind::Text) text_seen = true;
    else EXPECT_FALSE(text_seen) << "reasoning after text";
  }
}

TEST_F(ScriptedProvider, UsageIsEstimatedWhenTheScriptSaysNone) {
  auto p = scripted("{\"text\": \"hello world!\", \"reasoning\": \"why\"}\n");
  ASSERT_TRUE(p) << p.error().message;
  Request req{"m", "abcd", {{"user", "12345678", {}}}, {}, Purpose::Main};
  auto r = (*p)->complete(req, [](const Delta&) {}, CancelToken{});
  ASSERT_TRUE(r) << r.error().message;
  // Four bytes a token, rounded up: 1 + 2 in, 3 + 1 out.
  EXPECT_EQ(r->usage.input_tokens, 3);
  EXPECT_EQ(r->usage.output_tokens, 4);
  EXPECT_TRUE(r->usage.estimated);
  EXPECT_EQ(r->usage.cache_read_tokens, 0);
  EXPECT_DOUBLE_EQ(r->cost_usd, 0.0);
  EXPECT_TRUE(r->cost_known) << "a script costs nothing";
  EXPECT_EQ(r->stop_reason, "end_turn");
  EXPECT_EQ(r->model, "scripted");
  EXPECT_TRUE(r->tool_calls.empty());
}

TEST_F(ScriptedProvider, RecordedUsageCostAndStopReasonAreReportedAsTheyWere) {
  auto p = scripted(json{{"text", "x"},
                         {"model", "claude-sonnet-4-20250514"},
                         {"usage", {{"input_tokens", 10}, {"output_tokens", 2}, {"cache_read_tokens", 7}, {"cache_write_tokens", 1}, {"estimated", true}}},
                         {"cost_usd", 0.5},
                         {"cost_known", false},
                         {"stop_reason", "max_tokens"}}
                        .dump() +
                    "\n" +
                    // Values of the wrong type are not taken: a cost that is text, a stop reason that is a number.
                    json{{"text", "y"}, {"cost_usd", "0.5"}, {"stop_reason", 7}}.dump() + "\n");
  ASSERT_TRUE(p) << p.error().message;
  auto r = (*p)->complete(ask(), [](const Delta&) {}, CancelToken{});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->model, "claude-sonnet-4-20250514");
  EXPECT_EQ(r->usage.input_tokens, 10);
  EXPECT_EQ(r->usage.output_tokens, 2);
  EXPECT_EQ(r->usage.cache_read_tokens, 7);
  EXPECT_EQ(r->usage.cache_write_tokens, 1);
  EXPECT_TRUE(r->usage.estimated);
  EXPECT_DOUBLE_EQ(r->cost_usd, 0.5);
  EXPECT_FALSE(r->cost_known);
  EXPECT_EQ(r->stop_reason, "max_tokens");
  auto s = (*p)->complete(ask(), [](const Delta&) {}, CancelToken{});
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->text, "y");
  EXPECT_DOUBLE_EQ(s->cost_usd, 0.0);
  EXPECT_TRUE(s->cost_known);
  EXPECT_EQ(s->stop_reason, "end_turn");
}

TEST_F(ScriptedProvider, AScriptedFailureIsNamedAndUsesItsLine) {
  auto p = scripted(
      "{\"error\": \"prompt too long\", \"kind\": \"context-overflow\", \"text\": \"never streamed\"}\n"
      "{\"error\": \"down\"}\n"
      "{\"error\": \"odd\", \"kind\": 5}\n"
      "{\"text\": \"after\"}\n");
  ASSERT_TRUE(p) << p.error().message;
  Deltas d;
  auto a = (*p)->complete(ask(), d.fn(), CancelToken{});
  ASSERT_FALSE(a);
  EXPECT_EQ(a.error().code, Code::Unavailable);
  EXPECT_EQ(a.error().message, "prompt too long");
  EXPECT_EQ(kind_of(a.error()), "context-overflow");
  EXPECT_TRUE(d.all.empty()) << "a failure streams nothing";
  auto b = (*p)->complete(ask(), d.fn(), CancelToken{});
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().message, "down");
  EXPECT_EQ(kind_of(b.error()), "");
  auto c = (*p)->complete(ask(), d.fn(), CancelToken{});
  ASSERT_FALSE(c);
  EXPECT_EQ(kind_of(c.error()), "") << "a kind that is not text names nothing";
  auto ok = (*p)->complete(ask(), d.fn(), CancelToken{});
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(ok->text, "after");
}

TEST_F(ScriptedProvider, ToolCallsWithArgumentsAsObjectsOrText) {
  auto p = scripted(R"({"text": "Clicking.", "tool_calls": [{"name": "click", "arguments": {"ref": "e3"}}, )"
                    R"({"id": "mine", "name": "type", "arguments": "{\"text\": \"hi\"}"}, {"name": "finish", "arguments": "not json"}, )"
                    R"({"name": "noargs"}, 5]})"
                    "\n");
  ASSERT_TRUE(p) << p.error().message;
  auto r = (*p)->complete(ask(), [](const Delta&) {}, CancelToken{});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->text, "Clicking.");
  ASSERT_EQ(r->tool_calls.size(), 4u) << "what is not an object is no call";
  EXPECT_EQ(r->tool_calls[0].id, "call_1");
  EXPECT_EQ(r->tool_calls[0].name, "click");
  EXPECT_EQ(r->tool_calls[0].arguments, json({{"ref", "e3"}}));
  EXPECT_EQ(json::parse(r->tool_calls[0].raw_arguments), json({{"ref", "e3"}}));
  // Arguments as a model might send them, as text: parsed.
  EXPECT_EQ(r->tool_calls[1].id, "mine");
  EXPECT_EQ(r->tool_calls[1].arguments, json({{"text", "hi"}}));
  EXPECT_EQ(r->tool_calls[1].raw_arguments, "{\"text\": \"hi\"}");
  // Text that is not JSON stays visible as text, the arguments null.
  EXPECT_EQ(r->tool_calls[2].id, "call_3");
  EXPECT_TRUE(r->tool_calls[2].arguments.is_null());
  EXPECT_EQ(r->tool_calls[2].raw_arguments, "not json");
  // No arguments: an empty object.
  EXPECT_EQ(r->tool_calls[3].name, "noargs");
  EXPECT_EQ(r->tool_calls[3].arguments, json::object());
}

TEST_F(ScriptedProvider, RunningOutSaysWhichQueueAndHowManyItHad) {
  auto p = scripted("{\"text\": \"only\"}\n");
  ASSERT_TRUE(p) << p.error().message;
  auto sub = (*p)->complete(ask(Purpose::Sub), [](const Delta&) {}, CancelToken{});
  ASSERT_FALSE(sub);
  EXPECT_EQ(sub.error().code, Code::ResourceExhausted);
  EXPECT_NE(sub.error().message.find("no more sub-call responses (it had 0)"), std::string::npos) << sub.error().message;
  ASSERT_TRUE((*p)->complete(ask(), [](const Delta&) {}, CancelToken{}));
  auto main = (*p)->complete(ask(), [](const Delta&) {}, CancelToken{});
  ASSERT_FALSE(main);
  EXPECT_EQ(main.error().code, Code::ResourceExhausted);
  EXPECT_NE(main.error().message.find("no more main responses (it had 1)"), std::string::npos) << main.error().message;
}

TEST_F(ScriptedProvider, ThePositionCountsWhatWasUsedAndSeekGoesBack) {
  auto p = scripted("{\"text\": \"first\"}\n{\"sub\": true, \"text\": \"sub\"}\n{\"text\": \"second\"}\n");
  ASSERT_TRUE(p) << p.error().message;
  Provider& provider = **p;
  auto text = [&](Purpose purpose) {
    auto r = provider.complete(ask(purpose), [](const Delta&) {}, CancelToken{});
    return r ? r->text : "error: " + r.error().message;
  };
  EXPECT_EQ(provider.position(), json({{"main", 0}, {"sub", 0}}));
  EXPECT_EQ(text(Purpose::Main), "first");
  EXPECT_EQ(text(Purpose::Sub), "sub");
  EXPECT_EQ(provider.position(), json({{"main", 1}, {"sub", 1}}));
  // A checkpoint keeps the position as text; resuming from it gives the answers after it.
  const json checkpoint = json::parse(provider.position().dump());
  EXPECT_EQ(text(Purpose::Main), "second");
  provider.seek(json::parse(R"({"main": 0, "sub": 0})"));
  EXPECT_EQ(text(Purpose::Main), "first");
  EXPECT_EQ(text(Purpose::Sub), "sub");
  provider.seek(checkpoint);
  EXPECT_EQ(provider.position(), json({{"main", 1}, {"sub", 1}}));
  EXPECT_EQ(text(Purpose::Main), "second");
  // Past the end is the end.
  provider.seek(json::parse(R"({"main": 99, "sub": 99})"));
  EXPECT_EQ(provider.position(), json({{"main", 2}, {"sub", 1}}));
  EXPECT_NE(text(Purpose::Main).find("no more main responses"), std::string::npos);
  // What is not a position changes nothing; counts that are not counts are the start.
  provider.seek(json("somewhere"));
  EXPECT_EQ(provider.position(), json({{"main", 2}, {"sub", 1}}));
  provider.seek(json::parse(R"({"main": -1})"));
  EXPECT_EQ(provider.position(), json({{"main", 0}, {"sub", 0}}));
  EXPECT_EQ(text(Purpose::Main), "first");
}

TEST_F(ScriptedProvider, RecordingsNoCallAskedAnswerInOrder) {
  auto p = scripted(
      "{\"text\": \"main\"}\n"
      "{\"sub\": true, \"asked\": \"0000000000000000\", \"text\": \"first\"}\n"
      "{\"sub\": true, \"asked\": \"1111111111111111\", \"text\": \"second\"}\n");
  ASSERT_TRUE(p) << p.error().message;
  auto a = (*p)->complete(ask(Purpose::Sub, "summarise page B"), [](const Delta&) {}, CancelToken{});
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_EQ(a->text, "first");
  auto b = (*p)->complete(ask(Purpose::Sub, "summarise page A"), [](const Delta&) {}, CancelToken{});
  ASSERT_TRUE(b) << b.error().message;
  EXPECT_EQ(b->text, "second");
}

TEST_F(ScriptedProvider, ACancelledCallStopsWithoutWaitingOrStreaming) {
  auto p = scripted("{\"text\": \"slow\", \"delay_ms\": 5000}\n{\"text\": \"a longer answer in several pieces\"}\n");
  ASSERT_TRUE(p) << p.error().message;
  CancelToken cancel;
  cancel.cancel();
  Deltas d;
  auto t0 = std::chrono::steady_clock::now();
  auto slow = (*p)->complete(ask(), d.fn(), cancel);
  ASSERT_FALSE(slow);
  EXPECT_EQ(slow.error().code, Code::Cancelled);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2)) << "waited out the scripted delay";
  auto streamed = (*p)->complete(ask(), d.fn(), cancel);
  ASSERT_FALSE(streamed);
  EXPECT_EQ(streamed.error().code, Code::Cancelled);
  EXPECT_TRUE(d.all.empty());
  // A cancelled call has used its answer: the position says so.
  EXPECT_EQ((*p)->position()["main"], 2);
}

// A delayed answer with a go-ahead file comes once the file exists, and at its delay without one.
TEST_F(ScriptedProvider, ADelayEndsWhenItsGoAheadFileExists) {
  const std::string go = testing::temp_dir() + "/go";
  std::filesystem::remove(go);
  auto p = scripted("{\"text\": \"held\", \"delay_ms\": 30000, \"until_file\": \"" + go + "\"}\n{\"text\": \"late\", \"delay_ms\": 300}\n");
  ASSERT_TRUE(p) << p.error().message;
  Deltas d;
  CancelToken cancel;
  auto started = std::chrono::steady_clock::now();
  std::optional<Result<Response>> held;
  std::thread caller([&] { held = (*p)->complete(ask(), d.fn(), cancel); });
  std::ofstream(go) << "go";
  caller.join();
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(15)) << "the file did not end the 30 s delay";
  ASSERT_TRUE(held && *held) << (held ? held->error().message : "no answer");
  EXPECT_EQ((*held)->text, "held");
  auto t0 = std::chrono::steady_clock::now();
  auto late = (*p)->complete(ask(), d.fn(), cancel);
  ASSERT_TRUE(late) << late.error().message;
  EXPECT_EQ(late->text, "late");
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(300)) << "a delay without a file is waited out";
}

TEST_F(ScriptedProvider, CallsFromSeveralThreadsEachGetTheirOwnAnswer) {
  std::string lines;
  std::vector<std::string> expected;
  for (int i = 0; i < 16; ++i) {
    expected.push_back("answer " + std::to_string(i));
    lines += json{{"text", expected.back()}}.dump() + "\n";
  }
  auto p = scripted(lines);
  ASSERT_TRUE(p) << p.error().message;
  std::mutex mutex;
  std::vector<std::string> got;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int k = 0; k < 4; ++k) {
        std::string streamed;
        auto r = (*p)->complete(ask(), [&](const Delta& d) { streamed += d.text; }, CancelToken{});
        std::lock_guard lock(mutex);
        got.push_back(r ? (streamed == r->text ? r->text : "streamed '" + streamed + "'") : r.error().message);
      }
    });
  for (auto& t : threads) t.join();
  std::sort(got.begin(), got.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(got, expected);
}

}  // namespace
}  // namespace ouro::llm
