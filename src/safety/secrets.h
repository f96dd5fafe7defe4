// Secrets the model never sees (issue 8): named values, each usable only on the sites it names,
// referred to in the REPL by handle — secret("bank_password") — and typed into pages by ouro
// itself. Wherever data leaves the host for the model, a secret's value is replaced by
// "[SECRET:name]".
#pragma once

#include "base/json.h"
#include "safety/sites.h"

#include <map>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

namespace ouro::safety {

struct Secret {
  std::string name, value;
  SiteList sites;  // where it may be typed
};

// Thread-safe: a run adds the secrets the user answers (askUser with secret: true) while pool
// threads type and scrub.
class SecretStore {
 public:
  SecretStore() = default;
  SecretStore(const SecretStore& other);  // a session's own copy of the configured secrets
  SecretStore& operator=(const SecretStore&) = delete;

  // name: letters, digits, '_' and '-'; domains: SiteList patterns (at least one).
  Result<void> add(const std::string& name, std::string value, const std::vector<std::string>& domains);
  // A secret the user typed in answer to a question, for these sites. It may be short (a
  // three-digit code), but values under 4 characters are not scrubbed from page text: they
  // could not be told apart from ordinary text.
  Result<void> add_answer(const std::string& name, std::string value, SiteList sites);
  std::optional<Secret> find(const std::string& name) const;
  std::vector<std::string> names() const;
  bool empty() const;

  // Every secret value of 4 characters or more in the strings of v becomes "[SECRET:name]".
  void scrub(json& v) const;
  std::string scrub_text(std::string text) const;

 private:
  void scrub_locked(json& v) const;
  std::string scrub_text_locked(std::string text) const;
  mutable std::shared_mutex m_mutex;
  std::map<std::string, Secret> m_secrets;
};

// "--secret bank_password@bank.example.com" → the value from $OURO_SECRET_BANK_PASSWORD.
Result<void> add_secret_from_flag(SecretStore& store, const std::string& flag);

}  // namespace ouro::safety
