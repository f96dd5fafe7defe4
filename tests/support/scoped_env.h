// An environment variable set (or unset) for a scope, and what was there put back after it: for
// unit tests of code that reads $OURO_CONFIG, $XDG_CONFIG_HOME and the like. Header-only, so that
// a module's unit test can use it without linking the test support libraries.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace ouro::testing {

class ScopedEnv {
 public:
  // value nullptr: unset for the scope.
  ScopedEnv(const char* name, const char* value) : m_name(name) {
    if (const char* old = std::getenv(name)) m_old = old;
    if (value) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (m_old) ::setenv(m_name.c_str(), m_old->c_str(), 1);
    else ::unsetenv(m_name.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string m_name;
  std::optional<std::string> m_old;
};

}  // namespace ouro::testing
