// Every environment variable that chooses a provider, a model or a key (OURO_PROVIDER …, each
// provider's key variable) unset for a scope and put back after it, and no session bus, so that no
// keyring answers with a key stored on this machine: for tests of which model a run would use.
// Header-only, for unit tests that link only their module (and llm under it).
#pragma once

#include "llm/settings.h"
#include "scoped_env.h"

#include <memory>
#include <string>
#include <vector>

namespace ouro::testing {

class NoModelEnv {
 public:
  NoModelEnv() {
    std::vector<std::string> names = {"OURO_PROVIDER",   "OURO_API_KEY",     "OURO_BASE_URL", "OURO_MODEL",
                                      "OURO_SUB_MODEL",  "OURO_CONFIG",      "OURO_MAX_TOKENS",
                                      "OURO_TEMPERATURE", "OURO_THINKING",   "DBUS_SESSION_BUS_ADDRESS"};
    for (const auto& p : llm::presets())
      if (*p.key_env) names.push_back(p.key_env);
    for (const auto& n : names) m_unset.push_back(std::make_unique<ScopedEnv>(n.c_str(), nullptr));
  }

 private:
  std::vector<std::unique_ptr<ScopedEnv>> m_unset;
};

}  // namespace ouro::testing
