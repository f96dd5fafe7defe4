#include "agent/parser.h"

#include <gtest/gtest.h>

namespace ouro::agent {
namespace {

TEST(CodeParser, ReplFencesFirstAllOfThemInOrder) {
  auto e = extract_code_blocks("Plan.\n```repl\nconst a = 1\n```\ntext\n```js\nignored()\n```\n```repl\nsetFinal(a)\n```\n");
  EXPECT_EQ(e.strategy, "repl-fence");
  ASSERT_EQ(e.blocks.size(), 2u);
  EXPECT_EQ(e.blocks[0], "const a = 1");
  EXPECT_EQ(e.blocks[1], "setFinal(a)");
}

TEST(CodeParser, AnyFenceWhenNoReplFence) {
  auto e = extract_code_blocks("```javascript\nawait openTab('x')\n```\n```\nlog(1)\n```\n```python\nprint(1)\n```");
  EXPECT_EQ(e.strategy, "any-fence");
  ASSERT_EQ(e.blocks.size(), 2u) << "python is not ours";
  EXPECT_EQ(e.blocks[1], "log(1)");
}

TEST(CodeParser, AnUnclosedFenceAtTheEndIsTaken) {
  auto e = extract_code_blocks("```repl\nenv.x = 1\nsetFinal(env.x)");
  ASSERT_EQ(e.blocks.size(), 1u);
  EXPECT_EQ(e.blocks[0], "env.x = 1\nsetFinal(env.x)");
}

TEST(CodeParser, ToolCallJson) {
  auto e = extract_code_blocks(R"J(Calling the tool: {"name": "repl", "arguments": "{\"code\": \"await getText(activeTab)\"}"})J");
  EXPECT_EQ(e.strategy, "tool-json");
  ASSERT_EQ(e.blocks.size(), 1u);
  EXPECT_EQ(e.blocks[0], "await getText(activeTab)");
  auto f = extract_code_blocks(R"J({"code": "setFinal(1)"})J");
  ASSERT_EQ(f.blocks.size(), 1u);
  EXPECT_EQ(f.blocks[0], "setFinal(1)");
}

TEST(CodeParser, BareCodeThatUsesTheApi) {
  auto e = extract_code_blocks("Sure, here is what I will run:\n\nconst t = activeTab\nenv.title = await getText(t, 'h1')\nlog(env.title)\n\nThis reads the title.");
  EXPECT_EQ(e.strategy, "bare");
  ASSERT_EQ(e.blocks.size(), 1u);
  EXPECT_EQ(e.blocks[0], "const t = activeTab\nenv.title = await getText(t, 'h1')\nlog(env.title)");
}

TEST(CodeParser, ProseIsNotCode) {
  auto e = extract_code_blocks("I will first open the inbox, then read each unread message and summarise it.");
  EXPECT_EQ(e.strategy, "none");
  EXPECT_TRUE(e.blocks.empty());
}

}  // namespace
}  // namespace ouro::agent
