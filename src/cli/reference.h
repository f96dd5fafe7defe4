// The command line described from itself: the man page, the shell completions (bash, zsh, fish) and
// docs/reference/commands.md are generated from the CLI11 tree `ouro` parses with, so they list
// exactly its commands and options. `ouro __reference FORMAT` prints one; the build installs them.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace CLI {
class App;
}

namespace ouro::cli {

// FORMAT: man, bash, zsh, fish or markdown; nullopt for another word.
std::optional<std::string> cli_reference(const CLI::App& app, std::string_view format, std::string_view version);

// The version and the commit it was built from ("0.1.0 (abc1234)"; "unknown" outside git), set at build time.
std::string_view version_string();

}  // namespace ouro::cli
