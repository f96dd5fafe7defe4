// A tab's log against what a hostile page can send: huge strings, floods, wrong types.
#include "browser/page_log.h"

#include <gtest/gtest.h>

namespace ouro::browser {
namespace {

json console_call(const json& value, const std::string& type = "log") {
  return {{"type", type}, {"args", json::array({{{"type", "string"}, {"value", value}}})}, {"executionContextId", 1},
          {"timestamp", 1.7e12}, {"stackTrace", {{"callFrames", json::array({{{"functionName", ""}, {"url", "http://127.0.0.1/x"}, {"lineNumber", 4}, {"columnNumber", 2}}})}}}};
}

TEST(PageLog, ConsoleEntriesAreCappedInSize) {
  PageLog log;
  log.on_event("Runtime.consoleAPICalled", console_call(std::string(1 << 20, 'x')), 1000);
  ASSERT_EQ(log.console().size(), 1u);
  const auto& e = log.console()[0];
  EXPECT_EQ(e.level, "log");
  EXPECT_EQ(e.text.substr(0, 4000), std::string(4000, 'x'));
  EXPECT_NE(e.text.find("…[+" + std::to_string((1 << 20) - 4000) + " chars]"), std::string::npos);
  EXPECT_EQ(e.url, "http://127.0.0.1/x");
  EXPECT_EQ(e.line, 5);
  EXPECT_LT(log.bytes(), 5000u);
}

TEST(PageLog, RequestsFromDataUrlsAreCappedAndFinishedOnesReported) {
  PageLog log;
  std::string url = "data:text/plain," + std::string(3 << 20, 'd');
  log.on_event("Network.requestWillBeSent",
               {{"requestId", "1000.7"}, {"request", {{"url", url}, {"method", "GET"}}}, {"type", "Fetch"}, {"timestamp", 1.0}}, 1000);
  log.on_event("Network.responseReceived", {{"requestId", "1000.7"}, {"type", "Fetch"}, {"response", {{"status", 200}, {"mimeType", "text/plain"}}}}, 1001);
  auto done = log.on_event("Network.loadingFinished", {{"requestId", "1000.7"}, {"encodedDataLength", 3145744}}, 1002);
  ASSERT_EQ(log.requests().size(), 1u);
  const auto& r = log.requests()[0];
  EXPECT_LE(r.url.size(), 2100u);
  EXPECT_EQ(r.url.rfind("data:text/plain,ddd", 0), 0u);
  EXPECT_EQ(r.status, 200);
  ASSERT_TRUE(done.finished);
  EXPECT_EQ(done.finished->size, 3145744);
  EXPECT_TRUE(log.has_request("1000.7"));
}

TEST(PageLog, ErrorsKeepMessageAndStackCapped) {
  PageLog log;
  std::string text = "Error: " + std::string(1 << 20, 'E') + "\n    at boom (http://127.0.0.1/x:1:1)";
  log.on_event("Runtime.exceptionThrown",
               {{"timestamp", 1.0},
                {"exceptionDetails", {{"exceptionId", 1}, {"text", "Uncaught"}, {"lineNumber", 0}, {"columnNumber", 9}, {"url", "http://127.0.0.1/x"},
                                      {"exception", {{"type", "object"}, {"subtype", "error"}, {"className", "Error"}, {"description", text}}}}}},
               1000);
  ASSERT_EQ(log.errors().size(), 1u);
  EXPECT_LE(log.errors()[0].message.size(), 4100u);
  EXPECT_EQ(log.errors()[0].stack, "    at boom (http://127.0.0.1/x:1:1)");
  EXPECT_EQ(log.errors()[0].column, 10);
}

TEST(PageLog, TheByteBudgetDropsTheOldestEntriesFirst) {
  LogLimits limits;
  limits.budget = 100000;
  limits.console_per_second = 0;
  PageLog log(limits);
  for (int i = 0; i < 200; ++i) log.on_event("Runtime.consoleAPICalled", console_call(std::to_string(i) + std::string(3000, '.')), 1000 + i);
  EXPECT_LE(log.bytes(), 100000u);
  EXPECT_GT(log.console().size(), 20u);
  EXPECT_EQ(log.console().back().text.rfind("199", 0), 0u) << "the newest stays";
  EXPECT_NE(log.console().front().text.rfind("0.", 0), 0u) << "the oldest went";
}

TEST(PageLog, AFloodIsCutPerSecondAndReportedOnce) {
  LogLimits limits;
  limits.console_per_second = 100;
  PageLog log(limits);
  int started = 0;
  for (int i = 0; i < 1000; ++i) started += log.on_event("Runtime.consoleAPICalled", console_call("line"), 5000 + i * 0.5).flood_started;
  EXPECT_EQ(started, 1);
  EXPECT_EQ(log.console().size(), 100u) << "500 ms of flooding keeps the first 100";
  // The next second keeps 100 more, and the same flood is not reported again.
  for (int i = 0; i < 300; ++i) started += log.on_event("Runtime.consoleAPICalled", console_call("more"), 6000 + i).flood_started;
  EXPECT_EQ(started, 1);
  EXPECT_EQ(log.console().size(), 200u);
  // After a quiet spell, a new flood is news again.
  for (int i = 0; i < 300; ++i) started += log.on_event("Runtime.consoleAPICalled", console_call("again"), 20000 + i * 0.1).flood_started;
  EXPECT_EQ(started, 2);
}

TEST(PageLog, WrongTypesInEventsAreIgnoredNotThrown) {
  PageLog log;
  EXPECT_NO_THROW(log.on_event("Runtime.consoleAPICalled", {{"type", 5}, {"args", "not an array"}, {"stackTrace", 3}}, 1));
  EXPECT_NO_THROW(log.on_event("Log.entryAdded", {{"entry", "text"}}, 2));
  EXPECT_NO_THROW(log.on_event("Runtime.exceptionThrown", {{"exceptionDetails", {{"exception", 7}, {"lineNumber", "x"}}}}, 3));
  EXPECT_NO_THROW(log.on_event("Network.requestWillBeSent", {{"requestId", 1}, {"request", json::array()}}, 4));
  EXPECT_NO_THROW(log.on_event("Network.responseReceived", {{"requestId", ""}, {"response", {{"status", "200"}}}}, 5));
  EXPECT_NO_THROW(log.on_event("Network.loadingFinished", {{"requestId", ""}, {"encodedDataLength", -1e300}}, 6));
  EXPECT_NO_THROW(log.on_event("Network.loadingFailed", json(nullptr), 7));
  EXPECT_EQ(log.console().size(), 2u);
  EXPECT_EQ(log.console()[0].level, "log");
  EXPECT_EQ(log.errors().size(), 1u);
  ASSERT_EQ(log.requests().size(), 1u);
  EXPECT_EQ(log.requests()[0].size, 0);
}

}  // namespace
}  // namespace ouro::browser
