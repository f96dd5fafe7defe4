// How a snapshot takes in its cross-origin frames' lists (perception/merge.h): the top document
// keeps two thirds of a list's cap when both have more than fits, frames may fill what the top
// leaves, a `text` ranks both together by score, every item left out is counted in `more` — the
// frames' own uncounted items included — and a snapshot over the engine's budget is cut from its
// lists' ends, counted, and never loops on one it cannot cut.
#include "perception/merge.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ouro::perception {
namespace {

json items(const std::string& prefix, int n, double score = 0, size_t pad = 0) {
  json out = json::array();
  for (int i = 0; i < n; ++i) {
    json item = {{"ref", prefix + "e" + std::to_string(i)}, {"score", score - i * 0.001}};
    if (pad) item["name"] = std::string(pad, 'x');
    out.push_back(item);
  }
  return out;
}

std::vector<std::string> refs(const json& list) {
  std::vector<std::string> out;
  for (const auto& i : list) out.push_back(i["ref"]);
  return out;
}

TEST(MergeLists, TheTopKeepsTwoThirdsAndFramesGetTheRestCounted) {
  json top = {{"actions", items("", 30)}};
  merge_lists(top, {json{{"actions", items("f1", 15)}}}, json::object());
  auto got = refs(top["actions"]);
  ASSERT_EQ(got.size(), 30u);
  EXPECT_EQ(got[0], "e0");
  EXPECT_EQ(got[19], "e19");
  EXPECT_EQ(got[20], "f1e0");
  EXPECT_EQ(got[29], "f1e9");
  EXPECT_EQ(top["more"]["actions"], 15) << "10 of the top's and 5 of the frame's left out";
}

TEST(MergeLists, FramesFillWhatTheTopLeavesAndNothingLeftOutIsNotCounted) {
  json top = {{"forms", items("", 2)}};
  merge_lists(top, {json{{"forms", items("f1", 6)}}, json{{"forms", items("f2", 4)}}}, json::object());
  EXPECT_EQ(refs(top["forms"]).size(), 12u);
  EXPECT_FALSE(top.contains("more")) << top.dump();
  EXPECT_FALSE(top.contains("actions")) << "a list nobody had is not made";
}

TEST(MergeLists, ATextRanksBothByScoreUnderTopK) {
  json top = {{"actions", items("", 10, 0.5)}};
  json frame = {{"actions", items("f2", 10, 0.9)}};
  merge_lists(top, {frame}, json{{"text", "Pay"}, {"topK", 5}});
  EXPECT_EQ(refs(top["actions"]), (std::vector<std::string>{"f2e0", "f2e1", "f2e2", "f2e3", "f2e4"}));
  EXPECT_EQ(top["more"]["actions"], 15);
}

TEST(MergeLists, WhatTheFramesThemselvesLeftOutIsAddedToTheCount) {
  json top = {{"collections", items("", 1)}, {"more", {{"collections", 4}}}};
  merge_lists(top, {json{{"collections", items("f1", 1)}, {"more", {{"collections", 7}}}}}, json::object());
  EXPECT_EQ(refs(top["collections"]).size(), 2u);
  EXPECT_EQ(top["more"]["collections"], 11);
}

TEST(MergeLists, HostileShapesAreSkippedNotTrusted) {
  json top = {{"actions", "not a list"}, {"more", 3}};
  merge_lists(top, {json{{"actions", items("f1", 2)}, {"more", {{"actions", "many"}}}}, json::array(), json{{"actions", 5}}}, json{{"topK", "ten"}});
  EXPECT_EQ(refs(top["actions"]), (std::vector<std::string>{"f1e0", "f1e1"}));
}

TEST(ListCap, TopKIsClampedAndOtherwiseTheDefaults) {
  EXPECT_EQ(list_cap(json::object(), "actions"), 30u);
  EXPECT_EQ(list_cap(json::object(), "forms"), 20u);
  EXPECT_EQ(list_cap(json{{"topK", 0}}, "actions"), 1u);
  EXPECT_EQ(list_cap(json{{"topK", 1e9}}, "collections"), 200u);
  EXPECT_EQ(list_cap(json{{"topK", "5"}}, "actions"), 30u);
}

TEST(FitSnapshot, AnOversizedSnapshotIsCutFromItsListsEndsAndCounted) {
  json snap = {{"title", "Shop"}, {"actions", items("", 60, 0, 300)}, {"collections", items("c", 5, 0, 300)}};
  const size_t before = snap["actions"].size();
  fit_snapshot(snap, 8000);
  EXPECT_LE(snap.dump().size(), 8000u);
  const size_t cut = before - snap["actions"].size();
  EXPECT_GT(cut, 0u);
  EXPECT_EQ(snap["more"]["actions"], cut);
  EXPECT_EQ(snap["actions"][0]["ref"], "e0") << "the first items stay";
  EXPECT_EQ(snap["collections"].size(), 5u) << "actions go first";
}

TEST(FitSnapshot, ASnapshotWithNothingToCutIsLeftAsItIs) {
  json snap = {{"title", std::string(20000, 't')}, {"actions", json::array()}};
  fit_snapshot(snap, 1000);
  EXPECT_EQ(snap["title"].get<std::string>().size(), 20000u);
  EXPECT_FALSE(snap.contains("more"));
}

}  // namespace
}  // namespace ouro::perception
