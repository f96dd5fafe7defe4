// The typed caps on capability results: arrays keep whole items, trees are pruned by depth and then
// breadth, objects keep the fields that fit, the page helpers' own cut becomes an array again, and
// the note the model reads says what was left out.
#include "actions/fit.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <functional>
#include <string>
#include <vector>

namespace ouro::actions {
namespace {

size_t text_size(const json& v) { return dump_json(v).size(); }

std::string repeat(const std::string& s, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

// One node a level, each the only child of the one above: {"name":"n1","children":[{"name":"n2",…}]}.
json chain(int levels) {
  json node = {{"name", "n" + std::to_string(levels)}};
  for (int k = levels - 1; k >= 1; --k) {
    json parent = {{"name", "n" + std::to_string(k)}};
    parent["children"] = json::array();
    parent["children"].push_back(std::move(node));
    node = std::move(parent);
  }
  return node;
}

// `levels` levels of `width` children a node; a node is named by its parent's name and its index.
json full_tree(int levels, int width, const std::string& name = "n") {
  json node = {{"name", name}};
  if (levels > 1) {
    json kids = json::array();
    for (int i = 0; i < width; ++i) kids.push_back(full_tree(levels - 1, width, name + std::to_string(i)));
    node["children"] = std::move(kids);
  }
  return node;
}

json items_info(size_t kept, size_t total, size_t cap) { return {{"kind", "items"}, {"kept", kept}, {"total", total}, {"cap", cap}}; }

TEST(Fit, ArraysKeepWholeItemsAndSayHowManyWent) {
  json links = json::array();
  for (int i = 0; i < 5000; ++i) links.push_back({{"text", "link number " + std::to_string(i)}, {"href", "https://example.org/p/" + std::to_string(i)}});
  Fitted f = fit_result(links, Shape::Array, 100000);
  ASSERT_TRUE(f.value.is_array());
  EXPECT_GT(f.value.size(), 1000u);
  EXPECT_LT(dump_json(f.value).size(), 100000u);
  ASSERT_TRUE(f.truncated);
  EXPECT_EQ((*f.truncated)["total"], 5000);
  EXPECT_EQ((*f.truncated)["kept"], f.value.size());
  EXPECT_NE(truncation_note("getLinks", *f.truncated).find("of 5,000 items"), std::string::npos);
  // The page helpers' own cut comes back as an array.
  Fitted g = fit_result(json{{"__truncated", true}, {"originalLength", 900000}, {"data", json::array({1, 2})}, {"total", 9000}}, Shape::Array, 100000);
  EXPECT_EQ(g.value, json::array({1, 2}));
  EXPECT_EQ((*g.truncated)["total"], 9000);
  EXPECT_FALSE(fit_result(json::array({1}), Shape::Array, 100).truncated);
}

TEST(Fit, TreesArePrunedNotStringified) {
  // A wide and deep tree of 40,000 nodes.
  std::function<json(int)> make = [&](int depth) {
    json n = {{"role", "group"}, {"name", "node at depth " + std::to_string(depth)}};
    if (depth < 6) {
      json kids = json::array();
      for (int i = 0; i < 6; ++i) kids.push_back(make(depth + 1));
      n["children"] = kids;
    }
    return n;
  };
  json tree = make(0);
  Fitted f = fit_result(tree, Shape::Tree, 100000);
  ASSERT_TRUE(f.value.is_object());
  EXPECT_EQ(f.value["role"], "group");
  EXPECT_TRUE(f.value["children"].is_array());
  EXPECT_LE(dump_json(f.value).size(), 100000u);
  ASSERT_TRUE(f.truncated);
  EXPECT_EQ((*f.truncated)["kind"], "tree");
  EXPECT_GE((*f.truncated)["maxDepth"].get<int>(), 4);
  // A flat node with very many children is trimmed in breadth.
  json flat = {{"role", "list"}, {"children", json::array()}};
  for (int i = 0; i < 30000; ++i) flat["children"].push_back({{"role", "listitem"}, {"name", "item " + std::to_string(i)}});
  Fitted w = fit_result(flat, Shape::Tree, 100000);
  EXPECT_LE(dump_json(w.value).size(), 100000u);
  EXPECT_GT(w.value["omitted"].get<int>(), 0);
}

TEST(Fit, ObjectsKeepTheFieldsThatFit) {
  json o = {{"a", "small"}, {"big", std::string(300000, 'x')}, {"c", 1}};
  Fitted f = fit_result(o, Shape::Object, 100000);
  ASSERT_TRUE(f.value.is_object());
  EXPECT_EQ(f.value["a"], "small");
  EXPECT_EQ(f.value["c"], 1);
  EXPECT_LE(dump_json(f.value).size(), 100000u);
  EXPECT_NE(f.value["big"].get<std::string>().find("…[+"), std::string::npos);
}

TEST(Fit, FreeValuesAndStringsPassThroughWhateverTheirSize) {
  const std::string text(300000, 'x');
  for (Shape shape : {Shape::Free, Shape::Array, Shape::Tree, Shape::Object}) {
    Fitted f = fit_result(text, shape, 100);
    EXPECT_EQ(f.value, text);
    EXPECT_FALSE(f.truncated);
  }
  const json free_form = {{"rows", json::array({text, text})}};
  Fitted f = fit_result(free_form, Shape::Free, 100);
  EXPECT_EQ(f.value, free_form);
  EXPECT_FALSE(f.truncated);
}

TEST(Fit, AValueOfAnotherShapeThanDeclaredIsLeftAsItIs) {
  const json object = {{"text", std::string(5000, 'x')}};
  const json array = json::array({std::string(5000, 'x')});
  Fitted not_an_array = fit_result(object, Shape::Array, 100);
  EXPECT_EQ(not_an_array.value, object);
  EXPECT_FALSE(not_an_array.truncated);
  Fitted not_a_tree = fit_result(array, Shape::Tree, 100);
  EXPECT_EQ(not_a_tree.value, array);
  EXPECT_FALSE(not_a_tree.truncated);
  Fitted not_an_object = fit_result(array, Shape::Object, 100);
  EXPECT_EQ(not_an_object.value, array);
  EXPECT_FALSE(not_an_object.truncated);
  // A string the page helpers already cut keeps their wrapper: its data is no array to fit.
  const json cut_text = {{"__truncated", true}, {"originalLength", 900000}, {"data", std::string(5000, 'x')}};
  for (Shape shape : {Shape::Array, Shape::Object}) {
    Fitted f = fit_result(cut_text, shape, 100);
    EXPECT_EQ(f.value, cut_text);
    EXPECT_FALSE(f.truncated);
  }
}

TEST(Fit, AnArrayAtTheCapIsUntouchedAndOneOverLosesWholeItems) {
  const json words = json::array({"alpha", "beta", "gamma"});
  ASSERT_EQ(text_size(words), 24u);
  Fitted under = fit_result(words, Shape::Array, 24);
  EXPECT_EQ(under.value, words);
  EXPECT_FALSE(under.truncated);
  Fitted over = fit_result(words, Shape::Array, 23);
  EXPECT_EQ(over.value, json::array({"alpha", "beta"}));
  ASSERT_TRUE(over.truncated);
  EXPECT_EQ(*over.truncated, items_info(2, 3, 23));
  Fitted empty = fit_result(json::array(), Shape::Array, 0);
  EXPECT_EQ(empty.value, json::array());
  EXPECT_FALSE(empty.truncated) << "an empty array has nothing to cut";
}

TEST(Fit, TheItemsKeptAreTheFirstOnesAndNoneIsSplit) {
  Fitted f = fit_result(json::array({std::string(50, 'x'), "short"}), Shape::Array, 20);
  EXPECT_EQ(f.value, json::array()) << "a short item after one that did not fit is not kept either";
  ASSERT_TRUE(f.truncated);
  EXPECT_EQ(*f.truncated, items_info(0, 2, 20));
}

TEST(Fit, ThePageHelpersCutBecomesAnArrayAndKeepsTheirTotal) {
  Fitted f = fit_result(json{{"__truncated", true}, {"originalLength", 900000}, {"data", json::array({1, 2})}, {"total", 9000}}, Shape::Array, 100000);
  EXPECT_EQ(f.value, json::array({1, 2}));
  ASSERT_TRUE(f.truncated) << "the cut is reported even when what came fits";
  EXPECT_EQ(*f.truncated, items_info(2, 9000, 100000));
  // Without a usable total (missing, not a number, not above 0, below what came) the count is what came.
  Fitted no_total = fit_result(json{{"__truncated", true}, {"data", json::array({1, 2})}}, Shape::Array, 100000);
  EXPECT_EQ(no_total.value, json::array({1, 2}));
  ASSERT_TRUE(no_total.truncated);
  EXPECT_EQ(*no_total.truncated, items_info(2, 2, 100000));
  for (const json& total : {json(nullptr), json("9000"), json(-5), json(0), json(1)}) {
    Fitted g = fit_result(json{{"__truncated", true}, {"data", json::array({1, 2})}, {"total", total}}, Shape::Array, 100000);
    EXPECT_EQ(g.value, json::array({1, 2})) << total;
    ASSERT_TRUE(g.truncated) << total;
    EXPECT_EQ(*g.truncated, items_info(2, 2, 100000)) << total;
  }
  // What came is itself fitted, and the page's total still counts.
  Fitted over = fit_result(json{{"__truncated", true}, {"data", json::array({"alpha", "beta", "gamma"})}, {"total", 50}}, Shape::Array, 23);
  EXPECT_EQ(over.value, json::array({"alpha", "beta"}));
  ASSERT_TRUE(over.truncated);
  EXPECT_EQ(*over.truncated, items_info(2, 50, 23));
}

TEST(Fit, AnObjectAtTheCapIsUntouchedAndOneOverDropsTheFieldThatNoLongerFits) {
  const json o = {{"a", "small"}, {"c", 1}};
  ASSERT_EQ(text_size(o), 19u);
  Fitted at = fit_result(o, Shape::Object, 19);
  EXPECT_EQ(at.value, o);
  EXPECT_FALSE(at.truncated);
  Fitted over = fit_result(o, Shape::Object, 18);
  const json kept = {{"a", "small"}};
  EXPECT_EQ(over.value, kept);
  ASSERT_TRUE(over.truncated);
  const json info = {{"kind", "fields"}, {"kept", 1}, {"total", 2}, {"cap", 18}, {"dropped", json::array({"c"})}};
  EXPECT_EQ(*over.truncated, info);
}

TEST(Fit, AFieldThatDoesNotFitIsDroppedAndTheFieldsAfterItStillGoIn) {
  json numbers = json::array();
  for (int i = 0; i < 100; ++i) numbers.push_back(i);
  Fitted f = fit_result(json{{"a", "small"}, {"big", numbers}, {"c", 1}}, Shape::Object, 100);
  const json kept = {{"a", "small"}, {"c", 1}};
  EXPECT_EQ(f.value, kept);
  ASSERT_TRUE(f.truncated);
  const json info = {{"kind", "fields"}, {"kept", 2}, {"total", 3}, {"cap", 100}, {"dropped", json::array({"big"})}};
  EXPECT_EQ(*f.truncated, info);
}

TEST(Fit, ALongStringFieldIsClippedAtACharacterBoundaryAndSaysHowMuchWent) {
  // 1,000 two-byte characters; the room left for the text (1001 - 2 - 4 - 100 = 895 bytes) ends
  // inside the 448th, which is left out whole.
  Fitted f = fit_result(json{{"text", repeat("é", 1000)}}, Shape::Object, 1001);
  const json clipped = {{"text", repeat("é", 447) + "…[+553 chars]"}};
  EXPECT_EQ(f.value, clipped);
  EXPECT_LE(text_size(f.value), 1001u);
  ASSERT_TRUE(f.truncated);
  const json info = {{"kind", "fields"}, {"kept", 1}, {"total", 1}, {"cap", 1001}};
  EXPECT_EQ(*f.truncated, info) << "a clipped field is kept";
}

TEST(Fit, AStringFieldIsClippedOnlyWhenMoreThanTwoHundredCharsOfRoomAreLeft) {
  const json o = {{"a", std::string(100, 'x')}, {"b", std::string(300, 'y')}};
  // After "a" 109 chars are used; "b" is clipped when the cap is above 109 + 1 + 200.
  Fitted dropped = fit_result(o, Shape::Object, 310);
  const json only_a = {{"a", std::string(100, 'x')}};
  EXPECT_EQ(dropped.value, only_a);
  ASSERT_TRUE(dropped.truncated);
  const json dropped_info = {{"kind", "fields"}, {"kept", 1}, {"total", 2}, {"cap", 310}, {"dropped", json::array({"b"})}};
  EXPECT_EQ(*dropped.truncated, dropped_info);
  Fitted clipped = fit_result(o, Shape::Object, 311);
  const json both = {{"a", std::string(100, 'x')}, {"b", std::string(101, 'y') + "…[+199 chars]"}};
  EXPECT_EQ(clipped.value, both);
  ASSERT_TRUE(clipped.truncated);
  const json clipped_info = {{"kind", "fields"}, {"kept", 2}, {"total", 2}, {"cap", 311}};
  EXPECT_EQ(*clipped.truncated, clipped_info);
}

TEST(Fit, AtMostTwentyDroppedFieldsAreNamed) {
  json zeros = json::array();
  for (int i = 0; i < 30; ++i) zeros.push_back(0);
  json o = json::object();
  for (int k = 10; k < 35; ++k) o["f" + std::to_string(k)] = zeros;
  Fitted f = fit_result(o, Shape::Object, 50);
  EXPECT_EQ(f.value, json::object());
  ASSERT_TRUE(f.truncated);
  json names = json::array();
  for (int k = 10; k < 30; ++k) names.push_back("f" + std::to_string(k));
  const json info = {{"kind", "fields"}, {"kept", 0}, {"total", 25}, {"cap", 50}, {"dropped", names}};
  EXPECT_EQ(*f.truncated, info);
}

TEST(Fit, ATreeAtTheCapIsUntouchedAndOneOverLosesItsDeepestLevel) {
  const json tree = chain(6);
  ASSERT_EQ(text_size(tree), 148u);
  Fitted at = fit_result(tree, Shape::Tree, 148);
  EXPECT_EQ(at.value, tree);
  EXPECT_FALSE(at.truncated);
  Fitted over = fit_result(tree, Shape::Tree, 147);
  EXPECT_EQ(dump_json(over.value),
            R"({"name":"n1","children":[{"name":"n2","children":[{"name":"n3","children":[{"name":"n4","children":[{"name":"n5","omitted":1}]}]}]}]})");
  ASSERT_TRUE(over.truncated);
  const json info = {{"kind", "tree"}, {"kept", 5}, {"total", 6}, {"cap", 147}, {"maxDepth", 5}};
  EXPECT_EQ(*over.truncated, info);
}

TEST(Fit, ATreeIsPrunedByDepthBeforeBreadth) {
  // Five levels of two children: four levels fit whole, so every node there keeps all its children.
  const json tree = full_tree(5, 2);
  ASSERT_EQ(text_size(tree), 695u);
  Fitted f = fit_result(tree, Shape::Tree, 694);
  EXPECT_EQ(dump_json(f.value),
            R"({"name":"n","children":[{"name":"n0","children":[{"name":"n00","children":[{"name":"n000","omitted":2},{"name":"n001","omitted":2}]},)"
            R"({"name":"n01","children":[{"name":"n010","omitted":2},{"name":"n011","omitted":2}]}]},)"
            R"({"name":"n1","children":[{"name":"n10","children":[{"name":"n100","omitted":2},{"name":"n101","omitted":2}]},)"
            R"({"name":"n11","children":[{"name":"n110","omitted":2},{"name":"n111","omitted":2}]}]}]})");
  ASSERT_TRUE(f.truncated);
  const json info = {{"kind", "tree"}, {"kept", 15}, {"total", 31}, {"cap", 694}, {"maxDepth", 4}};
  EXPECT_EQ(*f.truncated, info) << "no maxChildren: no node lost children above the last level";
}

TEST(Fit, ATreeWhoseFourLevelsDoNotFitKeepsFourAndTrimsEveryNodesChildren) {
  // Four levels of three children (790 chars): three levels whole would fit in 500, but four levels
  // of two children a node are kept instead.
  const json tree = full_tree(4, 3);
  ASSERT_EQ(text_size(tree), 790u);
  Fitted f = fit_result(tree, Shape::Tree, 500);
  EXPECT_EQ(dump_json(f.value),
            R"({"name":"n","children":[{"name":"n0","children":[{"name":"n00","children":[{"name":"n000"},{"name":"n001"}],"omitted":1},)"
            R"({"name":"n01","children":[{"name":"n010"},{"name":"n011"}],"omitted":1}],"omitted":1},)"
            R"({"name":"n1","children":[{"name":"n10","children":[{"name":"n100"},{"name":"n101"}],"omitted":1},)"
            R"({"name":"n11","children":[{"name":"n110"},{"name":"n111"}],"omitted":1}],"omitted":1}],"omitted":1})");
  ASSERT_TRUE(f.truncated);
  const json info = {{"kind", "tree"}, {"kept", 15}, {"total", 40}, {"cap", 500}, {"maxDepth", 4}, {"maxChildren", 2}};
  EXPECT_EQ(*f.truncated, info);
}

TEST(Fit, AShallowTreeTooWideForTheCapKeepsItsFirstChildrenAndCountsTheRest) {
  json list = {{"role", "list"}, {"children", json::array()}};
  for (int i = 0; i < 10; ++i) list["children"].push_back({{"name", "item" + std::to_string(i)}});
  ASSERT_EQ(text_size(list), 198u);
  EXPECT_FALSE(fit_result(list, Shape::Tree, 198).truncated);
  Fitted f = fit_result(list, Shape::Tree, 197);
  EXPECT_EQ(dump_json(f.value),
            R"({"role":"list","children":[{"name":"item0"},{"name":"item1"},{"name":"item2"},{"name":"item3"},{"name":"item4"},)"
            R"({"name":"item5"},{"name":"item6"},{"name":"item7"},{"name":"item8"}],"omitted":1})");
  ASSERT_TRUE(f.truncated);
  const json info = {{"kind", "tree"}, {"kept", 10}, {"total", 11}, {"cap", 197}, {"maxDepth", 2}, {"maxChildren", 9}};
  EXPECT_EQ(*f.truncated, info);
}

TEST(Fit, ARootTooBigForTheCapKeepsOnlyItselfWithItsStringsClipped) {
  const json tree = {{"role", "main"}, {"name", std::string(5000, 'x')}, {"children", json::array({json{{"name", "a"}}, json{{"name", "b"}}, json{{"name", "c"}}})}};
  Fitted f = fit_result(tree, Shape::Tree, 2060);
  const json root = {{"role", "main"}, {"name", std::string(2000, 'x') + "…[+3000 chars]"}, {"omitted", 3}};
  EXPECT_EQ(f.value, root);
  ASSERT_TRUE(f.truncated);
  const json info = {{"kind", "tree"}, {"kept", 1}, {"total", 4}, {"cap", 2060}, {"maxDepth", 1}};
  EXPECT_EQ(*f.truncated, info) << "the root alone: one level, no node's children trimmed";
}

TEST(Fit, ARootWhoseOwnFieldsAreOverTheCapKeepsTheFieldsThatFit) {
  const json tree = {{"role", "main"}, {"name", std::string(5000, 'x')}, {"children", json::array({json{{"name", "a"}}, json{{"name", "b"}}})}};
  Fitted f = fit_result(tree, Shape::Tree, 100);
  EXPECT_EQ(f.value, json({{"role", "main"}, {"omitted", 2}}));
  EXPECT_LE(text_size(f.value), 100u);
  ASSERT_TRUE(f.truncated);
  EXPECT_EQ((*f.truncated)["maxDepth"], 1);
}

TEST(Fit, AOneItemArrayAtTheCapIsUntouched) {
  const json one = json::array({"alpha"});
  ASSERT_EQ(text_size(one), 9u);
  EXPECT_FALSE(fit_result(one, Shape::Array, 9).truncated);
  EXPECT_EQ(fit_result(one, Shape::Array, 8).value, json::array());
}

// A page's tree is the page's to shape: children that are not nodes (numbers, strings, null,
// arrays) are kept or left out as values, and never stop the call.
TEST(Fit, ATreeWhoseChildrenAreNotNodesIsCutWithoutThrowing) {
  json tree = {{"role", "main"}, {"children", json::array({1, "two", nullptr, json::array({3}), {{"name", "c"}, {"children", json::array({4, {{"name", std::string(300, 'y')}}})}}})}};
  for (size_t cap : {10, 40, 60, 120, 200, 400}) {
    Fitted f;
    ASSERT_NO_THROW(f = fit_result(tree, Shape::Tree, cap)) << "cap " << cap;
    EXPECT_TRUE(f.value.is_object()) << "cap " << cap;
    EXPECT_EQ(f.truncated.has_value(), text_size(tree) > cap) << "cap " << cap;
    if (f.truncated) {
      EXPECT_LE(text_size(f.value), cap) << "cap " << cap;
    }
  }
}

// A page's quotes, backslashes, line breaks and control characters take more room written as JSON
// than read: what comes back still fits the cap, for a result object and for a tree's root.
TEST(Fit, TextThatJsonEscapesIsCutToFitWrittenOut) {
  for (const std::string& unit : std::vector<std::string>{"\"", "\\", "\n", std::string(1, '\x01'), "a\"b\n"}) {
    const std::string text = repeat(unit, 3000);
    const json obj = {{"id", 1}, {"text", text}};
    for (size_t cap : {300, 1000, 2500}) {
      Fitted f = fit_result(obj, Shape::Object, cap);
      ASSERT_TRUE(f.truncated);
      EXPECT_LE(text_size(f.value), cap) << "object, cap " << cap << ", unit " << dump_json(json(unit));
      ASSERT_TRUE(f.value.contains("text")) << "there was room to keep a start of it";
      EXPECT_EQ(f.value["text"].get<std::string>().rfind(unit.substr(0, 1), 0), 0u) << "the start is kept";
    }
    const json tree = {{"name", text}, {"children", json::array({json{{"name", "a"}}})}};
    for (size_t cap : {300, 1000, 2500, 5000}) {
      Fitted f = fit_result(tree, Shape::Tree, cap);
      ASSERT_TRUE(f.truncated);
      EXPECT_LE(text_size(f.value), cap) << "tree, cap " << cap << ", unit " << dump_json(json(unit));
    }
  }
}

// Whatever the tree and the cap, what comes back fits, and children are said to be trimmed only
// when some node lost some.
TEST(Fit, EveryCutTreeFitsItsCapAndTrimsOnlyWhenItMust) {
  for (int levels = 1; levels <= 6; ++levels)
    for (int width = 1; width <= 4; ++width) {
      const json tree = full_tree(levels, width);
      for (size_t cap = 60; cap <= 3000; cap += 97) {
        Fitted f = fit_result(tree, Shape::Tree, cap);
        const std::string where = fmt::format("{} levels of {}, cap {}", levels, width, cap);
        if (!f.truncated) {
          EXPECT_EQ(f.value, tree) << where;
          continue;
        }
        EXPECT_LE(text_size(f.value), cap) << where;
        if (f.truncated->contains("maxChildren")) {
          EXPECT_LT((*f.truncated)["maxChildren"].get<int>(), width) << where;
        }
      }
    }
}

TEST(Fit, ATreeNodesTextIsClippedAtACharacterBoundary) {
  // "a" then 1,500 two-byte characters: 2,000 bytes end inside the 1,000th character, which goes.
  const json tree = {{"role", "document"}, {"name", "a" + repeat("é", 1500)}};
  ASSERT_EQ(text_size(tree), 3030u);
  Fitted f = fit_result(tree, Shape::Tree, 3000);
  const json clipped = {{"role", "document"}, {"name", "a" + repeat("é", 999) + "…[+501 chars]"}};
  EXPECT_EQ(f.value, clipped);
  EXPECT_LE(text_size(f.value), 3000u);
  ASSERT_TRUE(f.truncated);
  EXPECT_EQ((*f.truncated)["kind"], "tree");
  EXPECT_EQ((*f.truncated)["kept"], 1);
  EXPECT_EQ((*f.truncated)["total"], 1);
}

TEST(Fit, ADeeplyNestedTreeKeepsTheLevelsThatFit) {
  const json tree = chain(500);
  Fitted f = fit_result(tree, Shape::Tree, 1000);
  EXPECT_LE(text_size(f.value), 1000u);
  ASSERT_TRUE(f.truncated);
  const json info = {{"kind", "tree"}, {"kept", 34}, {"total", 500}, {"cap", 1000}, {"maxDepth", 34}};
  EXPECT_EQ(*f.truncated, info);
  const json* node = &f.value;
  for (int level = 1; level < 34; ++level) {
    ASSERT_TRUE(node->contains("children")) << "level " << level;
    node = &(*node)["children"][0];
  }
  const json last = {{"name", "n34"}, {"omitted", 1}};
  EXPECT_EQ(*node, last);
}

TEST(Fit, DeeplyNestedArraysAndObjectsAreLeftOutWhole) {
  json nested_array = json::array();
  json nested_object = json::object();
  for (int i = 0; i < 499; ++i) {
    json outer_array = json::array();
    outer_array.push_back(std::move(nested_array));
    nested_array = std::move(outer_array);
    json outer_object = json::object();
    outer_object["a"] = std::move(nested_object);
    nested_object = std::move(outer_object);
  }
  Fitted a = fit_result(nested_array, Shape::Array, 100);
  EXPECT_EQ(a.value, json::array());
  ASSERT_TRUE(a.truncated);
  EXPECT_EQ(*a.truncated, items_info(0, 1, 100));
  Fitted o = fit_result(nested_object, Shape::Object, 100);
  EXPECT_EQ(o.value, json::object());
  ASSERT_TRUE(o.truncated);
  const json info = {{"kind", "fields"}, {"kept", 0}, {"total", 1}, {"cap", 100}, {"dropped", json::array({"a"})}};
  EXPECT_EQ(*o.truncated, info);
}

TEST(TruncationNote, ItemsSayHowManyOfHowManyAndHowToGetTheRest) {
  EXPECT_EQ(truncation_note("getLinks", items_info(2212, 5340, 100000)),
            "getLinks returned 2,212 of 5,340 items (results are capped at 100,000 chars); the array's .truncated property says so. "
            "Narrow the query (a selector, a filter) to get the rest.");
}

TEST(TruncationNote, TreesNameTheirDepthAndTheirChildrenPerNodeWhenTrimmed) {
  const json trimmed = {{"kind", "tree"}, {"kept", 15}, {"total", 40000}, {"cap", 100000}, {"maxDepth", 4}, {"maxChildren", 2}};
  EXPECT_EQ(truncation_note("getAccessibilityTree", trimmed),
            "getAccessibilityTree returned 15 of 40,000 nodes, pruned to depth 4 and 2 children per node (capped at 100,000 chars); "
            "pruned nodes carry \"omitted\": n. Read a part of the page with querySelectorAll or getText(selector) instead.");
  Fitted f = fit_result(full_tree(5, 2), Shape::Tree, 694);
  ASSERT_TRUE(f.truncated);
  EXPECT_EQ(truncation_note("getAccessibilityTree", *f.truncated),
            "getAccessibilityTree returned 15 of 31 nodes, pruned to depth 4 (capped at 694 chars); "
            "pruned nodes carry \"omitted\": n. Read a part of the page with querySelectorAll or getText(selector) instead.");
}

TEST(TruncationNote, FieldsAndAnyOtherKindReadAsFields) {
  const json fields = {{"kind", "fields"}, {"kept", 3}, {"total", 25}, {"cap", 1000}, {"dropped", json::array({"body"})}};
  EXPECT_EQ(truncation_note("getPage", fields), "getPage returned 3 of 25 fields (capped at 1,000 chars); the object's .truncated property says so.");
  EXPECT_EQ(truncation_note("getPage", json::object()), "getPage returned 0 of 0 fields (capped at 0 chars); the object's .truncated property says so.");
}

}  // namespace
}  // namespace ouro::actions
