#include "base/clock.h"

#include <gtest/gtest.h>

#include <chrono>

namespace ouro {
namespace {

TEST(Clock, TheSystemsUntilATestMovesItAndAfter) {
  const double system = std::chrono::duration<double, std::milli>(std::chrono::system_clock::now().time_since_epoch()).count();
  EXPECT_NEAR(wall_ms(), system, 5000);
  const double steady_before = steady_ms();
  {
    ManualClock manual(1'000'000);
    EXPECT_EQ(wall_ms(), 1'000'000);
    EXPECT_EQ(wall_ms_whole(), 1'000'000);
    EXPECT_EQ(wall_seconds_whole(), 1000);
    const double steady = steady_ms();
    manual.advance(90'000);
    EXPECT_EQ(wall_ms(), 1'090'000);
    EXPECT_EQ(steady_ms(), steady + 90'000);
    manual.advance(-5);  // never back
    EXPECT_EQ(wall_ms(), 1'090'000);
    manual.set_wall(500);  // a wall clock set back: steady time does not follow
    EXPECT_EQ(wall_ms(), 500);
    EXPECT_EQ(steady_ms(), steady + 90'000);
    {
      ManualClock inner(42);
      EXPECT_EQ(wall_ms(), 42);
    }
    EXPECT_EQ(wall_ms(), 500) << "the one before is back";
  }
  EXPECT_NEAR(wall_ms(), system, 60000);
  EXPECT_GE(steady_ms(), steady_before);
}

}  // namespace
}  // namespace ouro
