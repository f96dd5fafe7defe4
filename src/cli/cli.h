// The `ouro` command line. main() is thin: it calls run() and prints the one error.
#pragma once

#include "base/error.h"

namespace ouro::cli {

// Parses argv and runs the subcommand; returns the process exit code.
Result<int> run(int argc, char** argv);

}  // namespace ouro::cli
