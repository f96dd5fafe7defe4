// The waits for a person's answers: an answer that comes before the wait counts, a choice must
// be one of the question's, a timed-out or withdrawn question cannot be answered after, each
// withdrawn question is reported once, and cancel ends every wait.
#include "runs/answers.h"

#include "base/wait.h"

#include "base/clock.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace ouro::runs {
namespace {

using namespace std::chrono_literals;

TEST(Answers, AnAnswerGivenBeforeTheWaitCounts) {
  Answers a;
  a.expect_confirmation("c1");
  ASSERT_TRUE(a.confirm("c1", true, true));
  auto got = a.wait_confirmation("c1", 10s);  // returns at once: the answer is there
  EXPECT_TRUE(got.approved);
  EXPECT_TRUE(got.always);
  EXPECT_FALSE(got.withdrawn);
  auto again = a.confirm("c1", false, false);
  ASSERT_FALSE(again) << "answered once";
  EXPECT_EQ(again.error().code, Code::NotFound);
}

TEST(Answers, AQuestionTakesOnlyOneOfItsChoices) {
  Answers a;
  a.expect_question("q1", {"red", "green"});
  auto wrong = a.answer("q1", "blue");
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().code, Code::InvalidArgument);
  EXPECT_NE(wrong.error().message.find("[\"red\",\"green\"]"), std::string::npos) << wrong.error().message;
  ASSERT_TRUE(a.answer("q1", "green"));
  EXPECT_EQ(a.wait_answer("q1", 10s).answer, "green");
  EXPECT_EQ(a.answer("q9", "x").error().code, Code::NotFound) << "never asked";
}

TEST(Answers, NoAnswerInTimeIsADenialAndClosesTheQuestion) {
  Answers a;
  auto got = a.wait_confirmation("c2", 20ms);
  EXPECT_FALSE(got.approved);
  EXPECT_FALSE(got.withdrawn);
  EXPECT_EQ(a.confirm("c2", true, false).error().code, Code::NotFound) << "a late answer finds nothing waiting";
  EXPECT_TRUE(a.pending().confirmations.empty());
}

// The timeout is the one clock's (base/clock.h): a test moves it past five minutes instead of
// waiting them, and the person's answer is not there.
TEST(Answers, TheTimeoutIsTheClocksAndATestMovesIt) {
  ManualClock clock(1e12);
  Answers a;
  a.expect_confirmation("c3");
  a.expect_question("q3", json::array());
  // How long each wait took on the clock; -1 while it waits.
  std::atomic<double> confirm_took{-1}, answer_took{-1};
  std::thread confirming([&] {
    const double began = steady_ms();
    EXPECT_FALSE(a.wait_confirmation("c3", 5min).approved);
    confirm_took = steady_ms() - began;
  });
  std::thread asking([&] {
    const double began = steady_ms();
    EXPECT_FALSE(a.wait_answer("q3", 10min).answer);
    answer_took = steady_ms() - began;
  });
  // Moved a minute at a time (each a moment of real time for the waits to look), until both
  // ended or a minute of real time went by (then cancelled, so that the test ends and fails).
  auto waiting = [&] { return confirm_took < 0 || answer_took < 0; };
  for (const auto until = std::chrono::steady_clock::now() + 60s; waiting() && std::chrono::steady_clock::now() < until;) {
    clock.advance(60'000);
    std::this_thread::sleep_for(20ms);
  }
  const bool ended_by_the_clock = !waiting();
  if (!ended_by_the_clock) a.cancel();
  confirming.join();
  asking.join();
  ASSERT_TRUE(ended_by_the_clock) << "moving the clock past the timeouts did not end the waits";
  // Not before their timeouts, to the clock's resolution (base/wait.h, kDeadlineSlackMs).
  EXPECT_GE(confirm_took, 5 * 60'000.0 - kDeadlineSlackMs) << "not before its five minutes";
  EXPECT_GE(answer_took, 10 * 60'000.0 - kDeadlineSlackMs) << "not before its ten minutes";
  EXPECT_EQ(a.confirm("c3", true, false).error().code, Code::NotFound) << "timed out: closed";
}

TEST(Answers, ATurnsEndWithdrawsEachQuestionOnce) {
  Answers a;
  a.expect_question("q2", json::array());
  std::atomic<int> reported{0};
  std::thread waiter([&] {
    auto got = a.wait_answer("q2", 60s);
    EXPECT_FALSE(got.answer);
    if (got.withdrawn) ++reported;
  });
  // Whether the waiter is waiting yet or not, the question is reported withdrawn exactly once.
  reported += static_cast<int>(a.withdraw().size());
  waiter.join();
  EXPECT_EQ(reported.load(), 1);
  // Asked after the turn ended (a page's request under a finished turn): not put to anyone.
  auto late = a.wait_answer("q3", 60s);
  EXPECT_TRUE(late.withdrawn);
  a.open();
  a.expect_confirmation("c3");
  EXPECT_EQ(a.pending().confirmations, std::vector<std::string>{"c3"}) << "a new turn asks again";
}

TEST(Answers, EachTurnAsksWithItsOwnIds) {
  // Each turn's agent numbers its questions from 1: the second turn's q1 is a new question.
  Answers a;
  a.expect_question("q1", json::array());
  ASSERT_TRUE(a.answer("q1", "first"));
  EXPECT_EQ(a.wait_answer("q1", 10s).answer, "first");
  EXPECT_TRUE(a.withdraw().empty());
  EXPECT_EQ(a.confirm("c1", true, false).error().code, Code::NotFound) << "between turns nothing is asked: an approval is not kept for later";
  a.open();
  a.expect_question("q1", json::array());
  EXPECT_EQ(a.pending().questions, std::vector<std::string>{"q1"});
  ASSERT_TRUE(a.answer("q1", "second"));
  EXPECT_EQ(a.wait_answer("q1", 10s).answer, "second");
  a.expect_confirmation("c1");
  auto late = a.wait_confirmation("c1", 20ms);
  EXPECT_FALSE(late.approved) << "the approval sent between turns was not taken for this turn's c1";
}

TEST(Answers, CancelEndsEveryWaitUnanswered) {
  Answers a;
  std::thread waiter([&] {
    auto got = a.wait_confirmation("c4", 60s);
    EXPECT_FALSE(got.approved);
    EXPECT_FALSE(got.withdrawn) << "a cancel is not a withdrawal";
  });
  a.cancel();
  waiter.join();
  EXPECT_EQ(a.confirm("c5", true, false).error().code, Code::NotFound);
  EXPECT_FALSE(a.wait_answer("q4", 60s).answer) << "a cancelled run waits for nothing";
}

}  // namespace
}  // namespace ouro::runs
