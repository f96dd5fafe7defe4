// API keys in the OS keyring: the Secret Service on the session bus
// (GNOME Keyring, KWallet's bridge, KeePassXC …), through libsecret, one item per provider
// ("ouro API key (anthropic)"). Without a session bus or a Secret Service answering, callers keep
// keys in the 0600 file instead and say so. Every call gives up within a few seconds (a locked
// keyring that would prompt, a bus that does not answer) rather than hang a run.
#pragma once

#include "base/error.h"

#include <optional>
#include <string>
#include <vector>

namespace ouro::llm {

// Whether a Secret Service answers on the session bus (never autolaunches a bus).
bool keyring_available();
Result<void> keyring_store(const std::string& provider, const std::string& key);
// nullopt when the keyring has no key for the provider (or there is no keyring).
std::optional<std::string> keyring_lookup(const std::string& provider);
Result<void> keyring_clear(const std::string& provider);

// The 0600 file fallback (<data dir>/secrets.json: {"api_keys": {provider: key}}), written whole
// by rename. A file that is not such an object is not written over (FailedPrecondition): the
// keys in it would be lost.
Result<void> key_file_store(const std::string& path, const std::string& provider, const std::string& key);
std::optional<std::string> key_file_lookup(const std::string& path, const std::string& provider);

// The providers that have a stored key, in the order they were stored: the keyring's items by
// the time each was created, then the file's (its keys are kept in the order they were added).
// secrets_path empty: the keyring only.
std::vector<std::string> stored_key_providers(const std::string& secrets_path);

}  // namespace ouro::llm
