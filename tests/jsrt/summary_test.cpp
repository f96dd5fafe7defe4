// The metadata summary the model sees instead of data.
#include "jsrt/summary.h"

#include <gtest/gtest.h>

#include <chrono>

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

// Checkpoints are typed JSON (js/prelude.js); summaries read their plain view.
TEST(PlainView, PlainJsonComesBackAsItIs) {
  json old = json::parse(R"({"saved":{"a":1},"list":[1,null,"[Circular]"],"when":"1970-01-01T00:00:00.000Z","n":"NaN","deep":[[[{"x":true}]]]})");
  EXPECT_EQ(plain_view(old), old);
  EXPECT_EQ(plain_view(json::object()), json::object());
  EXPECT_EQ(plain_view(json::parse(R"({"$t":"undefined"})")), json::object()) << "env itself undefined";
}

TEST(PlainView, TaggedValuesBecomeWhatResultsShow) {
  json typed = json::parse(R"({
    "m": {"$t":"Map","v":[["k",{"$t":"Set","v":[{"$t":"Date","v":0},{"$t":"Date","v":null}]}],[1,{"$t":"BigInt","v":"-12345678901234567890"}],[{"o":1},"object key"]]},
    "nums": [{"$t":"Num","v":"NaN"},{"$t":"Num","v":"Infinity"},{"$t":"Num","v":"-Infinity"},{"$t":"Num","v":"-0"},{"$t":"undefined"}],
    "gone": {"$t":"undefined"}, "sym": {"$t":"Symbol","for":"k"},
    "holes": [1,{"$t":"Hole","n":2},4,{"$t":"Hole"}],
    "f64": {"$t":"Float64Array","b64":"AAAAAAAA+D8AAAAAAAD4fwAAAAAAAACA"},
    "f32": {"$t":"Float32Array","b64":"zczMPQAAQEA="},
    "i16": {"$t":"Int16Array","b64":"/v8sAQ=="},
    "f16": {"$t":"Float16Array","b64":"AD4AtA=="},
    "u64": {"$t":"BigUint64Array","b64":"//////////8="},
    "part": {"$t":"Uint8Array","buf":{"$t":"ArrayBuffer","b64":"AQIDBAUG"},"off":2,"len":3},
    "alias": {"$t":"Int16Array","buf":{"$t":"Ref","p":["part","buf"]},"off":4,"len":1},
    "dv": {"$t":"DataView","buf":{"$t":"Ref","p":["part","buf"]},"off":1,"len":4},
    "buf": {"$t":"Ref","p":["part","buf"]},
    "re": {"$t":"RegExp","source":"a+b","flags":"gi"},
    "err": {"$t":"Error","name":"TypeError","message":"bad","stack":"at x","p":{"code":42}},
    "str": {"$t":"Str","v":"a\ufffdb","lone":[[1,55296]]},
    "esc": {"$t":"Obj","v":{"$t":"user data","v":1}},
    "nul": {"$t":"Obj","proto":null,"v":{"q":1}},
    "when": {"$t":"Date","v":-62198755200000}, "far": {"$t":"Date","v":8.64e15}, "before": {"$t":"Date","v":-1}
  })");
  json expected = json::parse(R"({
    "m": {"1":"-12345678901234567890","k":["1970-01-01T00:00:00.000Z",null],"[object Object]":"object key"},
    "nums": ["NaN","Infinity","-Infinity",0,null],
    "holes": [1,null,null,4,null],
    "f64": [1.5,"NaN",0], "f32": [0.10000000149011612,3], "i16": [-2,300], "f16": [1.5,-0.25], "u64": ["18446744073709551615"],
    "part": [3,4,5], "alias": [1541], "dv": {"byteLength":4}, "buf": {"byteLength":6},
    "re": "/a+b/gi", "err": {"name":"TypeError","message":"bad"}, "str": "a\ufffdb",
    "esc": {"$t":"user data","v":1}, "nul": {"q":1},
    "when": "-000001-01-01T00:00:00.000Z", "far": "+275760-09-13T00:00:00.000Z", "before": "1969-12-31T23:59:59.999Z"
  })");
  json plain = plain_view(typed);
  for (auto& [k, v] : expected.items()) EXPECT_EQ(plain[k], v) << k;
  EXPECT_FALSE(plain.contains("gone"));
  EXPECT_FALSE(plain.contains("sym"));
}

TEST(PlainView, CyclesAreMarkedAndSharedObjectsCopied) {
  json typed = json::parse(R"({"a":{"x":1,"self":{"$t":"Ref","p":["a"]}},"b":[{"$t":"Ref","p":["a"]}],
                               "m":{"$t":"Map","v":[[{"k":1},{"$t":"Ref","p":["m",0,0]}]]}})");
  json plain = plain_view(typed);
  EXPECT_EQ(plain["a"], json::parse(R"({"x":1,"self":"[Circular]"})"));
  EXPECT_EQ(plain["b"][0], json::parse(R"({"x":1,"self":"[Circular]"})"));
  EXPECT_EQ(plain["m"]["[object Object]"], json::parse(R"({"k":1})"));
}

TEST(PlainView, SharedReferencesCannotBlowUpTheCopy) {
  // l1 = [l0, l0], l2 = [l1, l1], …: 2^40 nodes if every reference were copied.
  json typed = {{"l0", {{"x", 1}}}};
  for (int i = 1; i <= 40; ++i) {
    json ref = {{"$t", "Ref"}, {"p", json::array({"l" + std::to_string(i - 1)})}};
    typed["l" + std::to_string(i)] = json::array({ref, ref});
  }
  json hole_run = json::array({{{"$t", "Hole"}, {"n", 1000000000}}});
  typed["sparse"] = hole_run;
  auto t0 = std::chrono::steady_clock::now();
  json plain = plain_view(typed);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  std::string text = dump_json(plain);
  EXPECT_LT(text.size(), 20000000u);
  EXPECT_NE(text.find("[Shared]"), std::string::npos);
  EXPECT_EQ(plain["sparse"].size(), 100000u) << "holes are written as nulls up to a cap";
}

TEST(PlainView, CompactValuesDoNotGrowPastTheirCapsWhenViewed) {
  // A thousand small sparse arrays (a few KB of checkpoint) share one cap on nulls, and a typed
  // array of 45 MB is shown by its length, not as 45 million values.
  json typed = json::object();
  for (int i = 0; i < 1000; ++i) typed["s" + std::to_string(i)] = json::array({{{"$t", "Hole"}, {"n", 1000000}}});
  typed["bytes"] = {{"$t", "Uint8Array"}, {"b64", std::string(60000000, 'A')}};
  json plain = plain_view(typed);
  size_t nulls = 0;
  for (int i = 0; i < 1000; ++i) nulls += plain["s" + std::to_string(i)].size();
  EXPECT_EQ(nulls, 100000u) << "one budget of nulls for the whole view";
  ASSERT_TRUE(plain["bytes"].is_object()) << plain["bytes"].type_name();
  EXPECT_EQ(plain["bytes"]["length"], 45000000);
}

TEST(PlainView, DamagedTagsAreReadAsPlainObjects) {
  json typed = json::parse(R"({"a":{"$t":"Map","v":"not entries"},"b":{"$t":"Ref","p":["nowhere"]},"c":{"$t":"Nope","x":1},
                               "d":{"$t":"Float64Array","b64":"!!!"},"e":{"$t":"Date","v":"soon"}})");
  json plain = plain_view(typed);
  EXPECT_EQ(plain["a"], json::parse(R"({"$t":"Map","v":"not entries"})"));
  EXPECT_TRUE(plain["b"].is_null());
  EXPECT_EQ(plain["c"], json::parse(R"({"$t":"Nope","x":1})"));
  EXPECT_EQ(plain["d"], json::array());
  EXPECT_EQ(plain["e"], json::parse(R"({"$t":"Date","v":"soon"})"));
}

TEST(LostValues, AreListedByTheirPathInEnv) {
  json typed = json::parse(R"({
    "f": {"$t":"Lost","kind":"function","name":"parse"},
    "m": {"$t":"Map","v":[["k",{"$t":"Lost","kind":"function","name":""}],[{"o":1},{"$t":"Lost","kind":"symbol","name":"s"}]]},
    "list": [{"$t":"Hole","n":3},{"$t":"Lost","kind":"getter","name":"g"}],
    "odd key": {"$t":"Lost","kind":"promise"},
    "box": {"$t":"Lost","kind":"instance","name":"Box","v":{"cb":{"$t":"Lost","kind":"function","name":"cb"}}},
    "s": {"$t":"Set","v":[{"$t":"Lost","kind":"too-deep"}]},
    "fine": {"$t":"Map","v":[[1,2]]}
  })");
  auto lost = lost_values(typed);
  std::vector<std::string> paths;
  for (const auto& l : lost) paths.push_back(l.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"env.f", "env.m.get(\"k\")", "[...env.m.values()][1]", "env.list[3]", "env[\"odd key\"]", "env.box",
                                             "env.box.cb", "[...env.s][0]"}));
  EXPECT_EQ(lost[0].what, "function parse");
  EXPECT_EQ(lost[5].what, "an instance of class Box (its data is kept in a plain object)");
  EXPECT_EQ(describe_lost({lost[0], lost[3]}), "env.f (function parse), env.list[3] (getter g)");
  EXPECT_EQ(lost_values(typed, 2).size(), 2u);
  EXPECT_TRUE(lost_values(json::parse(R"({"a":[1,{"b":2}]})")).empty());
}

TEST(Summary, EnvShowsWhatARestartCouldNotBringBack) {
  json typed = json::parse(R"({"f":{"$t":"Lost","kind":"function","name":"parse"},"tools":{"g":{"$t":"Lost","kind":"getter","name":"g"},"n":1},
                               "box":{"$t":"Lost","kind":"instance","name":"Box","v":{"v":7}}})");
  json plain = plain_view(typed);
  EXPECT_EQ(plain["f"], json({{"$lost", "function parse was not restorable after a restart; define it again"}}));
  EXPECT_EQ(plain["box"], json({{"v", 7}})) << "an instance is its own data";
  std::string s = summarize_env(plain);
  EXPECT_NE(s.find("  f: not restorable — function parse was not restorable after a restart; define it again"), std::string::npos) << s;
  EXPECT_NE(s.find("    g: not restorable — getter g was not restorable after a restart; define it again"), std::string::npos) << s;
}

}  // namespace
}  // namespace ouro::jsrt
