#include "basics.h"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <vector>

namespace ouro::testing {

namespace {

// Constructed at the first temp_dir() call, so destroyed after the sessions that use the
// directories (statics die in reverse order of construction).
struct TempDirs {
  std::vector<std::string> dirs;
  ~TempDirs() {
    for (const auto& d : dirs) std::filesystem::remove_all(d);
  }
};

std::vector<std::string>& temp_dirs() {
  static TempDirs t;
  return t.dirs;
}

}  // namespace

std::string ouro_binary() { return OURO_BINARY; }

std::string temp_dir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "ouro-test-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  temp_dirs().push_back(tmpl);
  return tmpl;
}

}  // namespace ouro::testing
