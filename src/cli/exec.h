// exec, do and repl (exec.cpp): code and commands run at once on a browser, without a model.
#pragma once

#include "base/error.h"
#include "cli/flags.h"

#include <string>

namespace ouro::cli {

// `ouro exec CODE` (- for stdin): one snippet in a fresh session; its value (or setFinal's) on
// stdout, its summary and time on stderr. 1 when it threw, 130 when interrupted (Ctrl-C).
Result<int> cmd_exec(const CommonFlags& flags, std::string code, bool as_json);
// `ouro do COMMANDS` (- for stdin): the command language, or a plain instruction, on the first tab;
// a line per step (or act()'s result as JSON). 0 when every step did what it said.
Result<int> cmd_do(const CommonFlags& flags, std::string commands, bool as_json, bool dry_run);
// `ouro repl`: the REPL on the terminal, state kept between inputs.
Result<int> cmd_repl(const CommonFlags& flags);

}  // namespace ouro::cli
