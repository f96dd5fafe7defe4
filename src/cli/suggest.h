// What `ouro` says when its command line is wrong: the closest command or option ("did you mean"),
// the subcommands a command needs, and `ouro help TOPIC`. Decided from the CLI11 tree ouro parses
// with and the error's type, never from CLI11's message text.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
class ParseError;
}  // namespace CLI

namespace ouro::cli {

// The candidate closest to `word` by edit distance (transpositions count once), if it is close
// enough to be a likely typo; ties go to the earlier candidate.
std::optional<std::string> closest(std::string_view word, const std::vector<std::string>& candidates);

// A message for a parse error that names the wrong word, its likely meaning and where to look;
// nullopt when CLI11's own message says it well (a missing value, a value out of range…).
// `argv` orders the words as the user wrote them.
std::optional<std::string> explain_parse_error(CLI::App& app, const CLI::ParseError& e, int argc, char** argv);

// `ouro help [COMMAND [SUBCOMMAND]]`: the command's help text, or an error naming the unknown
// word with its closest command.
struct HelpTopic {
  bool ok = true;
  std::string text;
};
HelpTopic help_topic(CLI::App& app, const std::vector<std::string>& words);

}  // namespace ouro::cli
