#include "llm/sse.h"

#include <gtest/gtest.h>

namespace ouro::llm {
namespace {

std::vector<SseEvent> parse_in_pieces(const std::string& text, size_t piece) {
  SseParser p;
  std::vector<SseEvent> out;
  for (size_t i = 0; i < text.size(); i += piece) p.feed(std::string_view(text).substr(i, piece), [&](SseEvent&& e) { out.push_back(std::move(e)); });
  return out;
}

TEST(SseParser, SameEventsWhereverTheInputIsSplit) {
  const std::string text = "event: a\ndata: one\n\n: keep-alive\n\nevent: b\r\ndata: {\"x\": \"é💭\"}\r\n\r\ndata: line1\ndata: line2\nid: 7\n\n";
  for (size_t piece = 1; piece <= text.size(); ++piece) {
    auto ev = parse_in_pieces(text, piece);
    ASSERT_EQ(ev.size(), 3u) << "piece " << piece;
    EXPECT_EQ(ev[0].event, "a");
    EXPECT_EQ(ev[0].data, "one");
    EXPECT_EQ(ev[1].event, "b");
    EXPECT_EQ(ev[1].data, "{\"x\": \"é💭\"}");
    EXPECT_EQ(ev[2].event, "");
    EXPECT_EQ(ev[2].data, "line1\nline2");
    EXPECT_EQ(ev[2].id, "7");
  }
}

TEST(SseParser, CarriageReturnsAloneEndLinesAndFieldsWithoutSpace) {
  auto ev = parse_in_pieces("data:no-space\r\rdata: x\r\n\r\n", 1);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].data, "no-space");
  EXPECT_EQ(ev[1].data, "x");
}

TEST(SseParser, AnEventWithoutItsBlankLineIsNotDispatched) {
  SseParser p;
  int n = 0;
  p.feed("data: cut off", [&](SseEvent&&) { ++n; });
  p.finish();
  EXPECT_EQ(n, 0);
}

}  // namespace
}  // namespace ouro::llm
