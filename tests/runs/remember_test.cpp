// Memory across tasks: a finished turn's task and answer become one memory of kind run that names
// its run, within memory's cap and with secrets masked; the text is cut to the room it has with
// "…" where it was cut; what cannot be kept is returned, not thrown, and nothing is stored.
#include "runs/remember.h"

#include "basics.h"
#include "memory/memory.h"
#include "store/database.h"

#include <gtest/gtest.h>

#include <string>

namespace ouro::runs {
namespace {

const std::string kEllipsis = "…";

bool ends_in(const std::string& s, const std::string& tail) { return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0; }

TEST(RunMemoryText, TooLittleRoomCutsTheHeadAndSaysSo) {
  EXPECT_EQ(run_memory_text("a long task", "x", 10), "Task: a" + kEllipsis);
  // Three bytes of room for the answer: only the mark that says it was cut fits.
  std::string head = "Task: t\nResult: ";
  EXPECT_EQ(run_memory_text("t", "the answer", head.size() + 3), head + kEllipsis);
}

TEST(RunMemoryText, TheTaskIsCutToAThousandBytesAndTheAnswerFillsTheRest) {
  std::string text = run_memory_text(std::string(3000, 't'), std::string(20000, 'r'), memory::kMaxTextBytes);
  EXPECT_EQ(text.size(), memory::kMaxTextBytes) << "the answer takes all the room the task leaves";
  EXPECT_EQ(text.rfind("Task: " + std::string(997, 't') + kEllipsis + "\nResult: rrr", 0), 0u) << text.substr(0, 40);
  EXPECT_TRUE(ends_in(text, "r" + kEllipsis));
}

TEST(RunMemoryText, AnAnswerIsKeptAsTextAndJsonAsJson) {
  EXPECT_EQ(run_memory_text("Find x", "42", 8192), "Task: Find x\nResult: 42");
  EXPECT_EQ(run_memory_text("Find x", json("\"quoted\""), 8192), "Task: Find x\nResult: \"quoted\"");
  EXPECT_EQ(run_memory_text("Sum", json{{"total", 3}, {"items", {1, 2}}}, 8192), "Task: Sum\nResult: {\"total\":3,\"items\":[1,2]}");
  EXPECT_EQ(run_memory_text("Sum", json(), 8192), "Task: Sum\nResult: null");
}

class RememberRun : public ::testing::Test {
 protected:
  void SetUp() override { db = std::move(store::Database::open(testing::temp_dir() + "/ouro.db").value()); }
  int64_t count() {
    auto n = memory::Memory(*db).count();
    EXPECT_TRUE(n) << n.error().message;
    return n.value_or(-1);
  }
  std::unique_ptr<store::Database> db;
};

TEST_F(RememberRun, WhatCannotBeKeptIsReturnedAndNothingIsStored) {
  // memory refuses a source_run over 128 bytes, cut or not: both tries fail, and say so.
  auto refused = remember_run(*db, std::string(200, 'r'), "Find the fare", "89 EUR");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, Code::InvalidArgument);
  EXPECT_EQ(count(), 0);
}

TEST_F(RememberRun, TextThatGrowsWhenMadeValidIsKeptShorterRatherThanLost) {
  // Each invalid byte becomes U+FFFD (three bytes): 8,000 of them are far past the cap.
  auto kept = remember_run(*db, "rbytes00001", "t", std::string(8000, '\xff'));
  ASSERT_TRUE(kept) << kept.error().message;
  const std::string& text = kept->entry.text;
  EXPECT_LE(text.size(), memory::kMaxTextBytes);
  EXPECT_EQ(text.rfind("Task: t\nResult: \xEF\xBF\xBD", 0), 0u);
  EXPECT_TRUE(ends_in(text, kEllipsis)) << "the answer was cut, and says so";
  EXPECT_EQ(count(), 1);
}

TEST_F(RememberRun, SecretsInTheTaskOrAnswerStayBehind) {
  auto kept = remember_run(*db, "rsecret0001", "Sign in with the key sk-abcdefghijklmnopqrstuvwx", "Done; password: hunter2hunter2");
  ASSERT_TRUE(kept) << kept.error().message;
  EXPECT_EQ(kept->entry.text.find("efghijklmnopqrstuvwx"), std::string::npos) << kept->entry.text;
  EXPECT_EQ(kept->entry.text.find("hunter2"), std::string::npos) << kept->entry.text;
  EXPECT_EQ(kept->entry.text.rfind("Task: Sign in", 0), 0u) << kept->entry.text;
}

TEST_F(RememberRun, AFinishedTurnIsRememberedOnceAsItsRunsOwn) {
  auto first = remember_run(*db, "rtea0000001", "Find the cheapest green tea", "Sencha at 4 EUR");
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->entry.text, "Task: Find the cheapest green tea\nResult: Sencha at 4 EUR");
  EXPECT_EQ(first->entry.kind, memory::Kind::Run);
  EXPECT_EQ(first->entry.source_run, "rtea0000001");
  EXPECT_FALSE(first->before) << "a new entry";

  auto found = memory::Memory(*db).recall("green tea");
  ASSERT_TRUE(found) << found.error().message;
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ((*found)[0].id, first->entry.id);

  // The same turn remembered again (another run asked the same): one entry, the newer run's.
  auto again = remember_run(*db, "rtea0000002", "Find the cheapest green tea", "Sencha at 4 EUR");
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->entry.id, first->entry.id);
  ASSERT_TRUE(again->before) << "what it was before is kept for undo";
  EXPECT_EQ(again->before->source_run, "rtea0000001");
  EXPECT_EQ(again->entry.source_run, "rtea0000002");
  EXPECT_EQ(count(), 1);
}

}  // namespace
}  // namespace ouro::runs
