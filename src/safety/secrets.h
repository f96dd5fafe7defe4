// Secrets the model never sees (issue 8): named values, each usable only on the sites it names,
// referred to in the REPL by handle — secret("bank_password") — and typed into pages by ouro
// itself. Wherever data leaves the host for the model, a secret's value is replaced by
// "[SECRET:name]".
#pragma once

#include "base/json.h"
#include "safety/sites.h"

#include <map>
#include <string>
#include <vector>

namespace ouro::safety {

struct Secret {
  std::string name, value;
  SiteList sites;  // where it may be typed
};

class SecretStore {
 public:
  // name: letters, digits, '_' and '-'; domains: SiteList patterns (at least one).
  Result<void> add(const std::string& name, std::string value, const std::vector<std::string>& domains);
  const Secret* find(const std::string& name) const;
  std::vector<std::string> names() const;
  bool empty() const { return m_secrets.empty(); }

  // Every secret value (all are 4 characters or more) in the strings of v becomes "[SECRET:name]".
  void scrub(json& v) const;
  std::string scrub_text(std::string text) const;

 private:
  std::map<std::string, Secret> m_secrets;
};

// "--secret bank_password@bank.example.com" → the value from $OURO_SECRET_BANK_PASSWORD.
Result<void> add_secret_from_flag(SecretStore& store, const std::string& flag);

}  // namespace ouro::safety
