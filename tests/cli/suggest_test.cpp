// What `ouro` says when its command line is wrong (cli/suggest.h), on a real CLI11 command tree
// shaped as ouro's: the likely meaning of a typo, the subcommands a command needs, help topics,
// and what is said back of a pasted blob.
#include "cli/suggest.h"

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ouro::cli {
namespace {

TEST(Closest, ATypoIsFoundAndAnUnrelatedWordIsNot) {
  const std::vector<std::string> commands = {"run", "serve", "memory", "schedule", "mcp", "eval"};
  EXPECT_EQ(closest("rnu", commands), "run") << "two letters swapped count once";
  EXPECT_EQ(closest("serv", commands), "serve");
  EXPECT_EQ(closest("MEMORY", commands), "memory") << "case does not matter";
  EXPECT_EQ(closest("sched", commands), "schedule") << "a prefix the user stopped typing";
  EXPECT_EQ(closest("weather", commands), std::nullopt);
  EXPECT_EQ(closest("", commands), std::nullopt);
  EXPECT_EQ(closest("xy", commands), std::nullopt) << "a short word is one edit from a likely meaning, not more";
  EXPECT_EQ(closest(std::string(5000, 'r'), commands), std::nullopt) << "a pasted blob is no typo";
  EXPECT_EQ(closest("--modle", {"--mode", "--model"}), "--model") << "equally close: the one of the word's length";
  EXPECT_EQ(closest("abc", {}), std::nullopt);
}

// ouro's shape: commands in a group (shown), one hidden, one that needs a subcommand.
struct Tree {
  CLI::App app{"ouro"};
  std::string model, mode;
  Tree() {
    app.require_subcommand(0, 1);
    auto* run = app.add_subcommand("run", "Run a task");
    run->add_option("--model", model, "the model to use");
    run->add_option("--mode", mode, "careful or autonomous");
    run->allow_extras(false);
    auto* memory = app.add_subcommand("memory", "What ouro remembers");
    memory->require_subcommand(1);
    memory->add_subcommand("list", "List memories");
    memory->add_subcommand("forget", "Forget one");
    app.add_subcommand("serve", "Serve the API");
    app.add_subcommand("__reference", "internal")->group("");
  }
  // The message for argv as ouro would print it; nullopt when it parsed or CLI11's own is kept.
  std::optional<std::string> explain(std::vector<std::string> words) {
    words.insert(words.begin(), "ouro");
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    try {
      app.parse(static_cast<int>(argv.size()), argv.data());
    } catch (const CLI::ParseError& e) {
      auto said = explain_parse_error(app, e, static_cast<int>(argv.size()), argv.data());
      return said ? *said : "CLI11: " + std::string(e.what());
    }
    return std::nullopt;
  }
};

TEST(ExplainParseError, AnUnknownCommandNamesItsLikelyMeaningAndTheChoices) {
  Tree t;
  auto said = t.explain({"rnu", "hello"});
  ASSERT_TRUE(said);
  EXPECT_NE(said->find("there is no command \"rnu\". Did you mean \"run\"?"), std::string::npos) << *said;
  EXPECT_NE(said->find("run, memory, serve"), std::string::npos) << "the shown commands: " << *said;
  EXPECT_EQ(said->find("__reference"), std::string::npos) << "a hidden command is never offered: " << *said;
}

TEST(ExplainParseError, AnUnknownOptionNamesTheClosestOptionOfItsCommand) {
  Tree t;
  auto said = t.explain({"run", "--modle=x"});
  ASSERT_TRUE(said);
  EXPECT_NE(said->find("ouro run: there is no option --modle. Did you mean --model?"), std::string::npos) << *said;
  said = Tree().explain({"run", "--zzzzzz"});
  ASSERT_TRUE(said);
  EXPECT_NE(said->find("there is no option --zzzzzz."), std::string::npos) << *said;
  EXPECT_EQ(said->find("Did you mean"), std::string::npos) << *said;
}

TEST(ExplainParseError, ACommandWithoutItsSubcommandListsThemAndATypoOfOneIsNamed) {
  auto said = Tree().explain({"memory"});
  ASSERT_TRUE(said);
  EXPECT_NE(said->find("ouro memory needs one of: list, forget"), std::string::npos) << *said;
  said = Tree().explain({"memory", "lst"});
  ASSERT_TRUE(said);
  EXPECT_NE(said->find("Did you mean \"list\"?"), std::string::npos) << *said;
}

TEST(ExplainParseError, AMissingValueSaysWhatToGive) {
  auto said = Tree().explain({"run", "--model"});
  ASSERT_TRUE(said);
  EXPECT_NE(said->find("--model needs a value after it — the model to use"), std::string::npos) << *said;
}

TEST(ExplainParseError, APastedPageIsSaidBackClipped) {
  std::string blob(100000, 'x');
  auto said = Tree().explain({blob});
  ASSERT_TRUE(said);
  EXPECT_LT(said->size(), 1000u) << "an argument can be a pasted page; the message stays short";
}

TEST(HelpTopic, ACommandsHelpOrTheUnknownWordWithItsClosestCommand) {
  Tree t;
  auto run = help_topic(t.app, {"run"});
  EXPECT_TRUE(run.ok);
  EXPECT_NE(run.text.find("ouro run"), std::string::npos) << "the usage names the command as typed: " << run.text;
  EXPECT_NE(run.text.find("--model"), std::string::npos) << run.text;
  auto list = help_topic(t.app, {"memory", "list"});
  EXPECT_TRUE(list.ok) << list.text;
  auto typo = help_topic(t.app, {"memroy"});
  EXPECT_FALSE(typo.ok);
  EXPECT_NE(typo.text.find("Did you mean \"memory\"?"), std::string::npos) << typo.text;
  auto hidden = help_topic(t.app, {"__reference"});
  EXPECT_FALSE(hidden.ok) << "a hidden command has no help topic";
  auto leaf = help_topic(t.app, {"serve", "more"});
  EXPECT_FALSE(leaf.ok);
  EXPECT_NE(leaf.text.find("has no subcommand \"more\""), std::string::npos) << leaf.text;
  EXPECT_TRUE(help_topic(t.app, {}).ok) << "no words: ouro's own help";
}

}  // namespace
}  // namespace ouro::cli
