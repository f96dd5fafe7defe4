// Reads of untrusted JSON: defaults instead of exceptions or undefined behaviour.
#include "base/json.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ouro {
namespace {

TEST(JsonAccessors, ReadWhatIsThereAndDefaultEverythingElse) {
  json p = json::parse(R"({"frameId": "F1", "n": 3, "x": 2.5, "big": 1e300, "neg": -7, "yes": true,
                           "frame": {"url": "http://a/"}, "list": [1, 2], "nul": null, "num_as_text": "42"})");
  EXPECT_EQ(get_str(p, "frameId"), "F1");
  EXPECT_EQ(get_str(p, "n"), "") << "a number is not a string";
  EXPECT_EQ(get_str(p, "missing", "dflt"), "dflt");
  EXPECT_EQ(get_int(p, "n"), 3);
  EXPECT_EQ(get_int(p, "x"), 2);
  EXPECT_EQ(get_int(p, "big"), INT64_MAX);
  EXPECT_EQ(get_int(p, "neg"), -7);
  EXPECT_EQ(get_int(p, "num_as_text", -1), -1);
  EXPECT_EQ(get_num(p, "x"), 2.5);
  EXPECT_EQ(get_num(p, "yes", 9), 9);
  EXPECT_TRUE(get_bool(p, "yes"));
  EXPECT_FALSE(get_bool(p, "n"));
  EXPECT_EQ(get_str(get_field(p, "frame"), "url"), "http://a/");
  EXPECT_EQ(get_str(get_field(p, "nope"), "url", "none"), "none") << "chains through a missing object";
  EXPECT_TRUE(get_field(p, "nul").is_null());
  EXPECT_EQ(get_array(p, "list").size(), 2u);
  EXPECT_TRUE(get_array(p, "frameId").empty()) << "a string is not iterated as a list";
}

TEST(JsonAccessors, NonObjectsAndHostileNumbersNeverThrow) {
  for (const json& j : {json(nullptr), json(5), json("text"), json::array({1, 2}), json(true)}) {
    EXPECT_NO_THROW(get_str(j, "a"));
    EXPECT_NO_THROW(get_int(j, "a"));
    EXPECT_NO_THROW(get_bool(j, "a"));
    EXPECT_NO_THROW(get_field(j, "a"));
    EXPECT_NO_THROW(get_array(j, "a"));
    EXPECT_EQ(get_str(j, "a", "d"), "d");
  }
  json nan = {{"v", NAN}, {"u", 18446744073709551615ull}, {"m", -1e300}};
  EXPECT_EQ(get_int(nan, "v", 4), 4);
  EXPECT_EQ(get_int(nan, "u"), INT64_MAX);
  EXPECT_EQ(get_int(nan, "m"), INT64_MIN);
}

TEST(ParseJson, RefusesDeepNestingButNotBracketsInStrings) {
  std::string ok = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  EXPECT_TRUE(parse_json(ok));
  auto deep = parse_json("[" + ok + "]", "reply");
  ASSERT_FALSE(deep);
  EXPECT_EQ(deep.error().message, "reply is nested more than 512 levels deep");
  auto quoted = parse_json(R"({"s": ")" + std::string(2000, '[') + R"(\"{"})");
  ASSERT_TRUE(quoted) << quoted.error().message;
  EXPECT_EQ((*quoted)["s"].get<std::string>().size(), 2002u);
  auto bad = parse_json(R"({"a": [1, 2,]})", "event");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("malformed event at byte 13"), std::string::npos) << bad.error().message;
}

TEST(ParseJson, LongArraysOfObjectsKeepEveryItem) {
  // Shaped like a large CDP reply (Accessibility.getFullAXTree): one array of many small objects.
  std::string text = R"({"nodes": [)";
  for (int i = 0; i < 20000; ++i) text += (i ? "," : "") + std::string(R"({"nodeId": ")") + std::to_string(i) + R"(", "role": {"value": "link"}})";
  text += "]}";
  auto r = parse_json(text);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ((*r)["nodes"].size(), 20000u);
  EXPECT_EQ((*r)["nodes"][19999]["nodeId"], "19999");
}

TEST(ParseJson, ObjectsOfManyKeysKeepTheirOrderAndTheLastOfADuplicate) {
  // A model's env may be one object of 100,000 keys; it is parsed after every evaluation.
  std::string text = "{";
  for (int i = 0; i < 100000; ++i) text += (i ? "," : "") + std::string("\"k") + std::to_string(i) + "\": " + std::to_string(i);
  text += ", \"k5\": \"again\", \"k99999\": \"last\"}";
  auto r = parse_json(text);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->size(), 100000u) << "a repeated key replaces, it is not added";
  EXPECT_EQ(r->begin().key(), "k0");
  EXPECT_EQ((--r->end()).key(), "k99999");
  EXPECT_EQ((*r)["k5"], "again");
  EXPECT_EQ((*r)["k99999"], "last");
  EXPECT_EQ((*r)["k77777"], 77777);
  // Small objects too: the later value wins, in the first one's place.
  auto small = parse_json(R"({"a": 1, "b": 2, "a": 3})");
  ASSERT_TRUE(small);
  EXPECT_EQ(dump_json(*small), R"({"a":3,"b":2})");
  auto scalars = parse_json(R"([null, true, -3, 18446744073709551615, 1.5, "x", {}, []])");
  ASSERT_TRUE(scalars);
  EXPECT_EQ(dump_json(*scalars), R"([null,true,-3,18446744073709551615,1.5,"x",{},[]])");
  EXPECT_EQ(dump_json(*parse_json("7")), "7");
  EXPECT_FALSE(parse_json(""));
  EXPECT_FALSE(parse_json("{} {}"));
}

}  // namespace
}  // namespace ouro
