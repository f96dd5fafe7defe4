// A fresh directory under /tmp for one test, removed with everything in it when the test ends
// (made writable first, so that a test that took its permissions away still leaves nothing).
// Header-only, so that a module's unit test can use it without linking the test support libraries.
#pragma once

#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace ouro::testing {

struct ScopedTempDir {
  std::string path;
  ScopedTempDir() {
    char pattern[] = "/tmp/ouro-test-XXXXXX";
    const char* made = ::mkdtemp(pattern);
    EXPECT_NE(made, nullptr);
    if (made) path = made;
  }
  ~ScopedTempDir() {
    if (path.empty()) return;
    std::error_code ec;
    std::filesystem::permissions(path, std::filesystem::perms::owner_all, std::filesystem::perm_options::replace, ec);
    std::filesystem::remove_all(path, ec);
  }
  ScopedTempDir(const ScopedTempDir&) = delete;
  ScopedTempDir& operator=(const ScopedTempDir&) = delete;
  // Writes `text` to <path>/<name> and answers the file's path.
  std::string write(const std::string& name, const std::string& text) const {
    std::string p = path + "/" + name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
};

// A file's bytes, whole (empty when it cannot be read).
inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace ouro::testing
