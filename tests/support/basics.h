// What every test executable may need, with no browser and no server: the ouro binary's path and
// throwaway directories. Unit tests of one module link this (ouro_test_basics) and their module.
#pragma once

#include <string>

namespace ouro::testing {

// The ouro binary of this build (the REPL's worker, the CLI).
std::string ouro_binary();
// A fresh directory under /tmp, removed at exit.
std::string temp_dir();

}  // namespace ouro::testing
