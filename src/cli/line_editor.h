// Line editing for `ouro repl` on a terminal, on libedit (BSD-licensed, in Debian): arrows and
// Emacs keys move and edit, Up and Down walk the history, which is kept across sessions in a
// private file, and Tab completes through a function the REPL gives (API names, env keys).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ouro::cli {

class LineEditor {
 public:
  // The words that could finish `word`, the identifier path before the cursor ("env.ro",
  // "getT"); `line` is the whole input up to the cursor.
  using Completer = std::function<std::vector<std::string>(const std::string& line, const std::string& word)>;

  // history_file: where the history is loaded from and saved to ("" = this session only); it is
  // made readable by the user alone, as what is typed into a REPL may hold secrets.
  LineEditor(std::string history_file, Completer complete);
  ~LineEditor();
  LineEditor(const LineEditor&) = delete;
  LineEditor& operator=(const LineEditor&) = delete;

  // One line without its newline; nullopt at end of input (Ctrl-D on an empty line).
  std::optional<std::string> read(const std::string& prompt);
  // Whether the last read ended with Ctrl-C: what it returned was dropped by the person typing.
  bool interrupted() const;
  // Adds an input (a whole, possibly multi-line, statement) to the history and saves it.
  void remember(const std::string& input);

 private:
  struct Impl;
  std::unique_ptr<Impl> m;
};

// The longest common prefix of the candidates ("" for none).
std::string common_prefix(const std::vector<std::string>& words);

}  // namespace ouro::cli
