// Which model answers, and with what key: from flags, then OURO_* / provider environment
// variables, then ~/.config/ouroboros/config.json, then defaults. The key is never printed.
#pragma once

#include "llm/provider.h"

#include <optional>
#include <string>
#include <vector>

namespace ouro::llm {

struct Settings {
  ProviderSpec spec;       // kind, base URL, key, script path, limits
  std::string provider;    // as the user named it: "anthropic", "openrouter", "script:run.jsonl", "http://…"
  std::string model;       // primary (main loop)
  std::string sub_model;   // llm_query / llm_batch
  ModelParams params;      // overrides of the model table (max_tokens, temperature, thinking)
  // Why this provider: "--provider", "OURO_PROVIDER", "the settings file", "ANTHROPIC_API_KEY",
  // "the key stored for anthropic" … (said by `ouro doctor` and the Command Center).
  std::string source;
  json to_public_json() const;  // without the key
};

struct SettingsFlags {
  std::optional<std::string> provider, model, sub_model, base_url, api_key, config_path;
  std::optional<int> max_tokens;
  std::optional<double> temperature;
  std::optional<std::string> thinking;  // a budget in tokens, or "off"
  // Where `ouro auth set` keeps keys when there is no keyring (<data dir>/secrets.json).
  std::optional<std::string> secrets_path;
  // The settings file's contents as the face read them for this run (base/settings_file.h);
  // without them, resolve_settings reads the file itself.
  std::optional<json> file;
};

// A named provider: the services ouro knows by name and their defaults.
struct Preset {
  const char* name;
  const char* kind;      // "anthropic" | "openai"
  const char* base_url;  // "" = the kind's default
  const char* key_env;   // "" = needs no key (a local server)
  const char* model;
  const char* sub_model;
};
const std::vector<Preset>& presets();

// Resolves settings: the provider is the flag's, else OURO_PROVIDER, else the settings file's, else
// the one whose key is in the environment (ANTHROPIC_API_KEY, then OPENAI_API_KEY), else the one
// whose key `ouro auth set` stored first (keyring or secrets file) with its default model. Every
// face (run, doctor, serve, mcp, schedule) resolves through here. Fails with a message saying how
// to fix it when no provider or key is found.
Result<Settings> resolve_settings(const SettingsFlags& flags);

// ~/.config/ouroboros/config.json (or $XDG_CONFIG_HOME/ouroboros/config.json).
std::string default_config_path();

}  // namespace ouro::llm
