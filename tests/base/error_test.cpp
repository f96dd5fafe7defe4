// Errors as values: each code's name, how an error reads in a log, rewording that keeps what
// callers decide by, and TRY handing an error up or a value on.
#include "base/error.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>

namespace ouro {
namespace {

Result<int> digit(char c) {
  if (c < '0' || c > '9') return errorf(Code::InvalidArgument, "'{}' is not a digit", c);
  return c - '0';
}

// The digits' sum; the first character that is not one ends it.
Result<int> digit_sum(const std::string& text, int& read) {
  int total = 0;
  for (char c : text) {
    total += TRY(digit(c));
    ++read;
  }
  return total;
}

Result<void> positive(int n) {
  if (n <= 0) return make_error(Code::OutOfRange, "not positive");
  return {};
}

Result<int> doubled(int n, bool& passed) {
  TRY(positive(n));
  passed = true;
  return 2 * n;
}

TEST(Error, ACodeOutsideTheSetReadsAsUnknown) {
  EXPECT_EQ(code_name(static_cast<Code>(999)), "Unknown");
  EXPECT_EQ(code_name(static_cast<Code>(-1)), "Unknown");
}

TEST(Error, EveryCodeHasANameOfItsOwn) {
  std::set<std::string_view> names;
  for (int c = static_cast<int>(Code::Ok); c <= static_cast<int>(Code::Unauthenticated); ++c) {
    std::string_view name = code_name(static_cast<Code>(c));
    EXPECT_FALSE(name.empty()) << c;
    EXPECT_TRUE(names.insert(name).second) << "code " << c << " repeats the name " << name;
  }
  EXPECT_EQ(names.size(), 17u);
  EXPECT_EQ(code_name(Code::Ok), "Ok");
  EXPECT_EQ(code_name(Code::DeadlineExceeded), "DeadlineExceeded");
  EXPECT_EQ(code_name(Code::Unauthenticated), "Unauthenticated");
}

TEST(Error, AnErrorReadsAsItsCodeThenItsMessage) {
  Error blank;
  EXPECT_EQ(blank.code, Code::Unknown) << "an error nobody classified is Unknown, never Ok";
  EXPECT_EQ(blank.cause, Cause::None);
  EXPECT_TRUE(blank.details.is_null());
  EXPECT_EQ(blank.to_string(), "Unknown: ");
  Error e;
  e.code = Code::DeadlineExceeded;
  e.message = "the page did not load in 30 s";
  EXPECT_EQ(e.to_string(), "DeadlineExceeded: the page did not load in 30 s");
}

TEST(Error, MadeErrorsCarryTheirCodeAndDetails) {
  Result<int> missing = make_error(Code::NotFound, "no tab t9", {{"tab", "t9"}});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, Code::NotFound);
  EXPECT_EQ(missing.error().details["tab"], "t9");
  EXPECT_EQ(missing.error().cause, Cause::None);
  Result<void> past = errorf(Code::OutOfRange, "index {} is past {}", 7, 3);
  ASSERT_FALSE(past);
  EXPECT_EQ(past.error().code, Code::OutOfRange);
  EXPECT_TRUE(past.error().details.is_null());
  EXPECT_NE(past.error().message.find("7"), std::string::npos) << past.error().message;
}

TEST(Error, RewordingKeepsTheCodeTheCauseAndTheDetails) {
  Error gone;
  gone.code = Code::Unavailable;
  gone.message = "target closed";
  gone.details = {{"session", "s1"}};
  gone.cause = Cause::TargetGone;
  Result<void> r = reworded(gone, "click '{}' on tab {}: {}", "#x", "t1", gone.message);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::Unavailable);
  EXPECT_EQ(r.error().cause, Cause::TargetGone) << "what a caller decides by survives the rewording";
  EXPECT_EQ(r.error().details, gone.details);
  EXPECT_NE(r.error().message.find("#x"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("target closed"), std::string::npos) << r.error().message;
}

TEST(Try, TheFirstErrorIsHandedUpAndNothingAfterItRuns) {
  int read = 0;
  auto r = digit_sum("12x4", read);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Code::InvalidArgument);
  EXPECT_NE(r.error().message.find('x'), std::string::npos) << r.error().message;
  EXPECT_EQ(read, 2) << "the digits after the bad one are not read";
  bool passed = false;
  auto d = doubled(-3, passed);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().code, Code::OutOfRange);
  EXPECT_FALSE(passed);
}

TEST(Try, AValueIsHandedOn) {
  int read = 0;
  auto r = digit_sum("1234", read);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(*r, 10);
  EXPECT_EQ(read, 4);
  read = 0;
  auto none = digit_sum("", read);
  ASSERT_TRUE(none);
  EXPECT_EQ(*none, 0);
  bool passed = false;
  auto d = doubled(21, passed);
  ASSERT_TRUE(d);
  EXPECT_EQ(*d, 42);
  EXPECT_TRUE(passed);
}

TEST(Result, AMappedResultComesBackAsAResultWithItsError) {
  auto text = [](Result<int> r) -> Result<std::string> { return r.map([](int v) { return std::to_string(v); }); };
  auto ok = text(Result<int>(5));
  ASSERT_TRUE(ok);
  EXPECT_EQ(*ok, "5");
  auto bad = text(Result<int>(make_error(Code::PermissionDenied, "no")));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, Code::PermissionDenied);
}

}  // namespace
}  // namespace ouro
