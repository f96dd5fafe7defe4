// What a console line or a page's exception reads as (browser/cdp_values.h): the values CDP's
// Runtime domain reports, which a page controls, read with their types checked.
#include "browser/cdp_values.h"

#include <gtest/gtest.h>

namespace ouro::browser {
namespace {

TEST(RemoteObjectText, ValuesDescriptionsAndTypesAsAConsoleShowsThem) {
  EXPECT_EQ(remote_object_text(json::parse(R"({"type":"string","value":"hello"})")), "hello");
  EXPECT_EQ(remote_object_text(json::parse(R"({"type":"number","value":42})")), "42");
  EXPECT_EQ(remote_object_text(json::parse(R"({"type":"object","value":{"a":[1,2]}})")), R"({"a":[1,2]})");
  EXPECT_EQ(remote_object_text(json::parse(R"({"type":"number","unserializableValue":"-Infinity"})")), "-Infinity");
  EXPECT_EQ(remote_object_text(json::parse(R"({"type":"object","subtype":"node","description":"div#main"})")), "div#main");
  EXPECT_EQ(remote_object_text(json::parse(R"({"type":"undefined"})")), "undefined");
  EXPECT_EQ(remote_object_text(json::parse(R"({"type":"object","subtype":"null","value":null})")), "null");
}

TEST(RemoteObjectText, WhatIsNotARemoteObjectIsShownNotThrown) {
  EXPECT_EQ(remote_object_text(json("bare text")), "bare text");
  EXPECT_EQ(remote_object_text(json(7)), "7");
  EXPECT_EQ(remote_object_text(json::array({1, "x"})), R"([1,"x"])");
  EXPECT_EQ(remote_object_text(json::object()), "");
  // A page's own fields of the wrong type: read as what they are, never an exception.
  EXPECT_EQ(remote_object_text(json::parse(R"({"description":{"not":"text"},"type":5})")), "");
  EXPECT_EQ(remote_object_text(json::parse(R"({"unserializableValue":12})")), "");
}

TEST(ExceptionText, TheDescriptionWithItsStackElseTheValueElseTheText) {
  const json thrown = json::parse(R"J({"text":"Uncaught","exception":{"type":"object","subtype":"error",
      "description":"TypeError: x is not a function\n    at f (page.js:1:2)"}})J");
  EXPECT_EQ(exception_text(thrown),
            "TypeError: x is not a function\n    at f (page.js:1:2)");
  EXPECT_EQ(exception_text(json::parse(R"({"text":"Uncaught","exception":{"type":"string","value":"thrown as a string"}})")),
            "thrown as a string");
  EXPECT_EQ(exception_text(json::parse(R"({"text":"Uncaught SyntaxError: Unexpected token"})")), "Uncaught SyntaxError: Unexpected token");
  EXPECT_EQ(exception_text(json::object()), "exception") << "nothing to say: it says there was one";
  EXPECT_EQ(exception_text(json("not an object")), "exception");
  EXPECT_EQ(exception_text(json::parse(R"({"exception":"not an object","text":"Uncaught"})")), "Uncaught");
}

}  // namespace
}  // namespace ouro::browser
