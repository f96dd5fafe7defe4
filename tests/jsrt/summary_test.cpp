// The metadata summary the model sees instead of data (seed 000 §8).
#include "jsrt/summary.h"

#include <gtest/gtest.h>

namespace ouro::jsrt {
namespace {

TEST(Summary, ArraysOfObjectsShowSchemaPreviewAndCount) {
  json emails = json::array();
  for (int i = 0; i < 3; ++i)
    emails.push_back({{"subject", i == 0 ? "Meeting tomorrow at 3pm" : "Invoice #4521"}, {"sender", "Alice Chen"}, {"unread", true}, {"n", i}});
  std::string s = summarize_value(emails);
  EXPECT_NE(s.find("Result: Array<Object(4 keys: subject, sender, unread, n)> (3 items, "), std::string::npos) << s;
  EXPECT_NE(s.find("Element schema: { subject: string \"Meeting tomorrow at 3pm\", sender: string \"Alice Chen\", unread: boolean true, n: number 0 }"),
            std::string::npos) << s;
  EXPECT_NE(s.find("Preview (first 2): [{\"subject\":\"Meeting tomorrow at 3pm\""), std::string::npos) << s;
  EXPECT_NE(s.find("... and 1 more items"), std::string::npos) << s;
}

TEST(Summary, LongStringsArePreviewedNotDumped) {
  std::string big(50000, 'x');
  std::string s = summarize_value(json(big));
  EXPECT_NE(s.find("Result: string (50,000 chars)"), std::string::npos) << s;
  EXPECT_LT(s.size(), 400u);
  EXPECT_EQ(summarize_value(json("short")), "Result: string = \"short\"");
}

TEST(Summary, PrimitivesVoidAndNull) {
  EXPECT_EQ(summarize_value(json(3)), "Result: number = 3");
  EXPECT_EQ(summarize_value(json(true)), "Result: boolean = true");
  EXPECT_EQ(summarize_value(json(nullptr)), "Result: null");
  EXPECT_EQ(summarize_value(json(json::value_t::discarded)), "Result: void");
}

TEST(Summary, ObjectsShowKeysTypesAndPreviews) {
  json o = {{"flights", json::array({{{"airline", "KLM"}, {"price", 420}}})}, {"total", 1847.5}, {"currency", "USD"}};
  std::string s = summarize_value(o);
  EXPECT_NE(s.find("Result: Object (3 keys, "), std::string::npos) << s;
  EXPECT_NE(s.find("Schema: { flights: Array<Object(2 keys: airline, price)>(1), total: number 1847.5, currency: string \"USD\" }"), std::string::npos) << s;
}

TEST(Summary, TruncatedResultsSaySoAndHowToNarrow) {
  json t = {{"__truncated", true}, {"originalLength", 2300000}, {"data", std::string(100000, 'a')}};
  std::string s = summarize_value(t);
  EXPECT_NE(s.find("Result truncated (was 2.3MB). Use a more specific selector to narrow results."), std::string::npos) << s;
  EXPECT_NE(s.find("string (100,000 chars)"), std::string::npos) << s;
}

TEST(Summary, SizeStaysBoundedWhateverTheValueSize) {
  json rows = json::array();
  for (int i = 0; i < 20000; ++i) rows.push_back({{"id", i}, {"text", std::string(200, 'y')}});
  EXPECT_LT(summarize_value(rows).size(), 1200u);
  json wide = json::object();
  for (int i = 0; i < 500; ++i) wide["key" + std::to_string(i)] = std::string(100, 'z');
  EXPECT_LT(summarize_value(wide).size(), 3000u);
}

TEST(Summary, EnvListsVariablesWithNestedSchemas) {
  json env = {{"emailCount", 47},
              {"unreadEmails", json::array({{{"subject", "a"}, {"sender", "b"}}})},
              {"currentDraft", std::string(1204, 'h')},
              {"priceData", {{"flights", json::array({{{"airline", "x"}, {"price", 1}}})}, {"total", 1847.5}}}};
  std::string s = summarize_env(env);
  EXPECT_NE(s.find("  emailCount: number = 47"), std::string::npos) << s;
  EXPECT_NE(s.find("  unreadEmails: Array<Object> (1 items, "), std::string::npos) << s;
  EXPECT_NE(s.find("    schema: { subject: string \"a\", sender: string \"b\" }"), std::string::npos) << s;
  EXPECT_NE(s.find("  currentDraft: string (1,204 chars) — preview: \"hhhh"), std::string::npos) << s;
  EXPECT_NE(s.find("    flights: Array<Object>(1) schema: { airline: string \"x\", price: number 1 }"), std::string::npos) << s;
  EXPECT_NE(s.find("    total: number = 1847.5"), std::string::npos) << s;
}

TEST(Summary, PreviewsMaskCookiesAndPasswords) {
  json cookies = json::array({{{"name", "session"}, {"value", "abc123secret"}, {"domain", "example.com"}, {"httpOnly", true}}});
  std::string s = summarize_value(cookies);
  EXPECT_EQ(s.find("abc123secret"), std::string::npos) << s;
  EXPECT_NE(s.find("[REDACTED]"), std::string::npos);
  json login = {{"user", "ada"}, {"password", "hunter2"}, {"apiToken", "t0k3n"}};
  std::string l = summarize_value(login) + summarize_env(json{{"login", login}});
  EXPECT_EQ(l.find("hunter2"), std::string::npos) << l;
  EXPECT_EQ(l.find("t0k3n"), std::string::npos) << l;
  EXPECT_NE(l.find("\"user\":\"ada\""), std::string::npos) << "ordinary fields stay visible";
}

TEST(Summary, OneLinersForProgress) {
  EXPECT_EQ(one_liner(json(3)), "→ 3");
  EXPECT_EQ(one_liner(json::array({{{"a", 1}}, {{"a", 2}}})), "→ Array<Object> (2 items)");
  EXPECT_EQ(one_liner(json(std::string(100, 'q'))), "→ string (100 chars)");
}

TEST(Summary, CountsCharactersNotBytes) {
  EXPECT_EQ(json_chars(json("héllo")), 7u);  // with quotes
  std::string s = summarize_value(json(std::string(400, '\xc3') + ""));  // invalid UTF-8 is tolerated
  EXPECT_FALSE(s.empty());
}

}  // namespace
}  // namespace ouro::jsrt
