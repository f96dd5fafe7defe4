// Secrets the model never sees: named values, each usable only on the origins its site patterns
// name (scheme and port as written, PatternRule::Origin), referred to in the REPL by handle —
// secret("bank_password") — and typed into pages by ouro itself. Wherever data leaves the host for
// the model, a log, a trace or the disk, a secret's value and the usual transformations of it
// (safety/redact.h secret_variants: encodings, case, reversal, separators) are replaced by
// "[SECRET:name]". Values under 4 bytes are typed only, never looked for in text.
#pragma once

#include "base/json.h"
#include "base/log_scrubber.h"
#include "safety/redact.h"
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
class SecretStore : public LogScrubber {
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

  // Every secret value of 4 bytes or more, and each of its variants, in the strings and keys of v
  // becomes "[SECRET:name]"; so does a run of array items that spells one out (its character
  // codes as numbers, its characters one string each). Linear in the size of v.
  void scrub(json& v) const;
  std::string scrub_text(std::string text) const override;

 private:
  void scrub_locked(json& v) const;
  std::string scrub_text_locked(std::string text) const;
  void rebuild_locked();
  mutable std::shared_mutex m_mutex;
  std::map<std::string, Secret> m_secrets;
  SecretMatcher m_matcher;          // built from m_secrets on every change
  std::vector<std::string> m_order;  // the secret names in the matcher's order
};

// "--secret bank_password@bank.example.com" → the value from $OURO_SECRET_BANK_PASSWORD.
Result<void> add_secret_from_flag(SecretStore& store, const std::string& flag);

}  // namespace ouro::safety
