// The man page, the shell completions and the Markdown reference (cli/reference.h), made from a
// real CLI11 command tree shaped as ouro's: the formats asked for by name, hidden commands and
// options left out, what each option's value is called and what a shell completes for it, the
// usage lines, options four commands share listed once, and text escaped for roff, Markdown and
// single-quoted shell words.
#include "cli/reference.h"

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace ouro::cli {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

size_t count_of(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// ouro's shape: a command with options of every kind and a footer, one that needs a subcommand,
// one whose subcommand is optional, one with text to escape, and hidden things.
struct Tree {
  CLI::App app{"A browser you can script"};
  std::string task, mode, data_dir, config, base_url, secret, knob, key_name, file;
  int steps = 0;
  bool headed = false, escape = false, ellipsis = false;
  std::vector<std::string> vars;
  Tree() {
    app.require_subcommand(0, 1);
    auto* run = app.add_subcommand("run", "Run a task");
    run->add_option("task", task, "What to do")->required();
    run->add_option("--mode", mode, "How careful")->type_name("TEXT:{careful,autonomous}");
    run->add_option("--max-steps", steps, "Steps at most, as N or N:M");
    run->add_option("--data-dir", data_dir, "Where data is kept");
    run->add_option("--config", config, "Settings file: JSON, default ~/.config");
    run->add_option("--base-url", base_url, "The API base URL, for servers that speak the OpenAI protocol on another host or port");
    run->add_option("--secret", secret, "A secret");
    run->add_option("--var", vars, "A variable");
    run->add_flag("--headed", headed, "Show the browser's window");
    run->add_option("--internal-knob", knob, "Turns the knob")->group("");
    run->footer("Example: ouro run \"hi\"");
    auto* auth = app.add_subcommand("auth", "Keys");
    auth->require_subcommand(1);
    auto* set = auth->add_subcommand("set", "Store a key");
    set->add_option("key-name", key_name, "Which key")->required();
    auth->add_subcommand("list", "List the keys");
    auto* memory = app.add_subcommand("memory", "What earlier runs left");
    auto* search = memory->add_subcommand("search", "Search it");
    search->add_option("file", file, "A file");
    auto* pipes = app.add_subcommand("pipes", "Pipes | and <tags> *stars* snake_case, but `a|b_c` stays");
    pipes->add_flag("--escape-me", escape, "a\\b \xE2\x80\x94 c-d\n.dot\n'tick");
    pipes->add_flag("--ellipsis", ellipsis, "\xE2\x80\xA6" "and the rest");
    app.add_subcommand("backstage", "Backstage work")->group("");
  }
  std::string make(std::string_view format, std::string_view version = "1.2.3-rc1") {
    auto text = cli_reference(app, format, version);
    EXPECT_TRUE(text) << format;
    return text.value_or("");
  }
};

const std::vector<std::string> kFormats = {"man", "bash", "zsh", "fish", "markdown"};

TEST(CliReference, OnlyTheFiveFormatsAreKnownByTheirExactNames) {
  Tree t;
  for (const auto& f : kFormats) EXPECT_FALSE(t.make(f).empty()) << f;
  for (std::string_view other : {"", "MAN", "man ", "html", "markdown\n", "powershell"})
    EXPECT_EQ(cli_reference(t.app, other, "1.0"), std::nullopt) << "\"" << other << "\"";
}

TEST(CliReference, HiddenCommandsAndOptionsAreLeftOut) {
  Tree t;
  for (const auto& f : kFormats) {
    std::string text = t.make(f);
    EXPECT_TRUE(has(text, "run")) << f;
    EXPECT_FALSE(has(text, "ackstage")) << f << ": a hidden command";
    EXPECT_FALSE(has(text, "knob")) << f << ": a hidden option";
  }
}

TEST(CliReference, EachOptionsValueIsNamedForWhatItIs) {
  Tree t;
  std::string md = t.make("markdown");
  EXPECT_TRUE(has(md, "\nUsage: `ouro run [OPTIONS] TASK`\n"));
  EXPECT_TRUE(has(md, "\nArguments:\n\n- `TASK` (required) \xE2\x80\x94 What to do\n"));
  for (const char* line : {"- `--mode careful|autonomous` \xE2\x80\x94 How careful\n",   // its choices
                           "- `--max-steps N` \xE2\x80\x94 Steps at most, as N or N:M\n",  // a number
                           "- `--data-dir DIR` \xE2\x80\x94 Where data is kept\n",        // a directory
                           "- `--config FILE` \xE2\x80\x94 Settings file: JSON, default ~/.config\n",
                           "- `--base-url URL` \xE2\x80\x94 The API base URL",             // the last word of its name
                           "- `--secret NAME@DOMAIN` \xE2\x80\x94 A secret\n",
                           "- `--var NAME=VALUE` (repeatable) \xE2\x80\x94 A variable\n",
                           "- `--headed` \xE2\x80\x94 Show the browser's window\n"})          // a flag takes no value
    EXPECT_TRUE(has(md, std::string("\n") + line)) << line;
  EXPECT_FALSE(has(md, "- `-h, --help`")) << "help is not listed as an option of each command";
  EXPECT_TRUE(has(md, "\n```text\nExample: ouro run \"hi\"\n```\n")) << "the footer, as it is";
  std::string man = t.make("man");
  EXPECT_TRUE(has(man, ".TP\n\\fB\\-\\-mode\\fR \\fIcareful|autonomous\\fR\nHow careful\n"));
  EXPECT_TRUE(has(man, ".TP\n\\fITASK\\fR\nWhat to do\n"));
  EXPECT_TRUE(has(man, ".TP\n\\fB\\-\\-headed\\fR\nShow the browser's window\n"));
}

TEST(CliReference, UsageSaysWhetherACommandNeedsASubcommandOrAnArgument) {
  Tree t;
  std::string md = t.make("markdown");
  EXPECT_TRUE(has(md, "\nUsage: `ouro auth COMMAND [OPTIONS]`\n"));
  EXPECT_TRUE(has(md, "\nUsage: `ouro memory [COMMAND] [OPTIONS]`\n"));
  EXPECT_TRUE(has(md, "\nUsage: `ouro memory search [OPTIONS] [FILE]`\n")) << "an optional argument in brackets";
  EXPECT_TRUE(has(md, "\nUsage: `ouro auth set [OPTIONS] KEY_NAME`\n")) << "an argument's name in capitals, '-' as '_'";
  EXPECT_TRUE(has(md, "\nCommands: [`set`](#ouro-auth-set), [`list`](#ouro-auth-list).\n"));
  EXPECT_TRUE(has(md, "| [`ouro auth set`](#ouro-auth-set) | Store a key |\n"));
  EXPECT_TRUE(has(md, "\n## ouro auth set\n")) << "the anchor is the heading's";
}

TEST(CliReference, EveryShellCompletesAValueByWhatItIs) {
  Tree t;
  std::string bash = t.make("bash");
  EXPECT_TRUE(has(bash, "    'run --mode') echo 'words careful autonomous' ;;\n"));
  EXPECT_TRUE(has(bash, "    'run --data-dir') echo 'dir' ;;\n"));
  EXPECT_TRUE(has(bash, "    'run --config') echo 'file' ;;\n"));
  EXPECT_TRUE(has(bash, "    'run --base-url') echo 'none' ;;\n")) << "free text: nothing to complete";
  EXPECT_FALSE(has(bash, "'run --headed')")) << "a flag takes no value";
  EXPECT_TRUE(has(bash, "    '') echo run auth memory pipes ;;\n"));
  EXPECT_TRUE(has(bash, "    'auth') echo set list ;;\n"));
  std::string zsh = t.make("zsh");
  EXPECT_TRUE(has(zsh, "    'run --mode') REPLY='words careful autonomous' ;;\n"));
  EXPECT_TRUE(has(zsh, "'run:Run a task'"));
  std::string fish = t.make("fish");
  const std::string in_run = "complete -c ouro -n '__fish_seen_subcommand_from run'";
  EXPECT_TRUE(has(fish, in_run + " -l mode -x -a 'careful autonomous' -d 'How careful'\n"));
  EXPECT_TRUE(has(fish, in_run + " -l data-dir -x -a '(__fish_complete_directories)' -d 'Where data is kept'\n"));
  EXPECT_TRUE(has(fish, in_run + " -l config -r -F -d 'Settings file'\n")) << "a description up to its colon";
  EXPECT_TRUE(has(fish, "complete -c ouro -n '__fish_use_subcommand' -a run -d 'Run a task'\n"));
  EXPECT_TRUE(has(fish, "complete -c ouro -n '__fish_seen_subcommand_from auth; and not __fish_seen_subcommand_from set list' -a set -d 'Store a key'\n"));
}

TEST(CliReference, DescriptionsAreQuotedForEveryShellAndCutShort) {
  Tree t;
  std::string fish = t.make("fish");
  const std::string in_run = "complete -c ouro -n '__fish_seen_subcommand_from run'";
  EXPECT_TRUE(has(fish, in_run + " -l headed -d 'Show the browser'\\''s window'\n")) << "a quote closes, is escaped, reopens";
  EXPECT_TRUE(has(fish, in_run + " -l base-url -x -d 'The API base URL, for servers that speak the OpenAI protocol on anoth\xE2\x80\xA6'\n"))
      << "at most 70 bytes, with an ellipsis";
  EXPECT_TRUE(has(fish, " -l escape-me -d 'a\\b \xE2\x80\x94 c-d'\n")) << "the first line only";
  std::string zsh = t.make("zsh");
  EXPECT_TRUE(has(zsh, "'--max-steps:Steps at most, as N or N\\:M'")) << "a colon inside the description is escaped";
  EXPECT_TRUE(has(zsh, "'--headed:Show the browser'\\''s window'"));
}

TEST(CliReference, TextIsEscapedForRoffAndMarkdown) {
  Tree t;
  std::string man = t.make("man");
  EXPECT_TRUE(has(man, ".TH OURO 1 \"\" \"ouro 1.2.3\\-rc1\" \"User Commands\"\n"));
  // A backslash, a dash, an em dash, and lines that would start with a control character.
  EXPECT_TRUE(has(man, ".TP\n\\fB\\-\\-escape\\-me\\fR\na\\eb \\(em c\\-d\n.br\n\\&.dot\n.br\n\\&'tick\n"));
  std::string md = t.make("markdown");
  const std::string escaped = "Pipes \\| and \\<tags\\> \\*stars\\* snake\\_case, but `a|b_c` stays";
  EXPECT_TRUE(has(md, "| [`ouro pipes`](#ouro-pipes) | " + escaped + " |\n")) << "a table row stays one row";
  EXPECT_TRUE(has(md, "\n## ouro pipes\n\n" + escaped + "\n"));
}

// A line that starts with "…" (written "...") keeps its text: a line that starts with '.' is a
// request (roff(7), https://man7.org/linux/man-pages/man7/roff.7.html), so it gets the \& guard.
TEST(CliReference, ALineStartingWithAnEllipsisStaysTextInTheManPage) {
  Tree t;
  std::string man = t.make("man");
  EXPECT_TRUE(has(man, "and the rest"));
  EXPECT_FALSE(has(man, "\n...and the rest")) << "a line that starts with '.' is a roff request";
}

// Four commands with the same option word for word: listed once, under Shared options.
struct SharedTree {
  CLI::App app{"ouro"};
  std::string profile;
  int limit = 0;
  SharedTree() {
    for (const char* name : {"alpha", "beta", "gamma", "delta"}) {
      auto* c = app.add_subcommand(name, std::string("The ") + name + " command");
      c->add_option("--profile", profile, "Browser profile directory");
    }
    auto* fifth = app.add_subcommand("epsilon", "The epsilon command");
    fifth->add_option("--limit", limit, "How many");
  }
};

TEST(CliReference, AnOptionFourCommandsShareIsListedOnce) {
  SharedTree t;
  auto md = cli_reference(t.app, "markdown", "1.0");
  ASSERT_TRUE(md);
  EXPECT_TRUE(has(*md, "\n## Shared options\n\nTaken by alpha, beta, gamma and delta:\n\n- `--profile DIR` \xE2\x80\x94 Browser profile directory\n"));
  EXPECT_EQ(count_of(*md, "`--profile"), 1u);
  EXPECT_TRUE(has(*md, "\n## ouro alpha\n\nThe alpha command\n\nUsage: `ouro alpha [OPTIONS]`\n\nOptions (and the [shared options](#shared-options)):\n\n\n## ouro beta"));
  EXPECT_TRUE(has(*md, "\n## ouro epsilon\n\nThe epsilon command\n\nUsage: `ouro epsilon [OPTIONS]`\n\nOptions:\n\n- `--limit N` \xE2\x80\x94 How many\n"))
      << "a command without them lists only its own";
  auto man = cli_reference(t.app, "man", "1.0");
  ASSERT_TRUE(man);
  EXPECT_TRUE(has(*man, ".SH SHARED OPTIONS\nTaken by alpha, beta, gamma and delta.\n.TP\n\\fB\\-\\-profile\\fR \\fIDIR\\fR\nBrowser profile directory\n"));
  EXPECT_TRUE(has(*man, ".SS \"ouro alpha [OPTIONS]\"\nThe alpha command\n.PP\nIt takes the options under \\fBSHARED OPTIONS\\fR.\n"));
  EXPECT_EQ(count_of(*man, "\\-\\-profile"), 1u);
}

TEST(CliReference, TheVersionNamesTheReleaseAndTheCommit) {
  const std::string v(version_string());
  EXPECT_TRUE(std::regex_match(v, std::regex(R"(\d+\.\d+\.\d+ \(\S+\))"))) << v;
}

}  // namespace
}  // namespace ouro::cli
