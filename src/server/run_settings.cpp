// The model settings the Command Center edits: stored in the database (the key in the OS keyring
// or the 0600 secrets file), shown masked, tested, and resolved into what a run starts from.
#include "server/run_manager_state.h"

#include "llm/errors.h"
#include "llm/keyring.h"
#include "llm/provider.h"
#include "llm/setup.h"
#include "runs/lifecycle.h"
#include "runs/sites.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace ouro::server {

namespace {

// A stored key as the settings show it: enough to tell two keys apart, never a useful part of one
// (a short key shows nothing).
std::string mask(const std::string& key) {
  if (key.size() < 20) return key.empty() ? "" : "••••";
  return key.substr(0, 3) + "…" + key.substr(key.size() - 4);
}

}  // namespace

Result<json> RunManager::stored_llm_settings() {
  auto stored = TRY(m_db.get_setting("llm"));
  json s = stored ? parse_json(*stored).value_or(json::object()) : json::object();
  return s.is_object() ? s : json::object();
}

std::string RunManager::stored_api_key() {
  auto stored = stored_llm_settings();
  std::string provider = stored && stored->contains("provider") && (*stored)["provider"].is_string() ? (*stored)["provider"].get<std::string>() : "";
  if (provider.empty()) provider = "default";
  if (auto k = llm::keyring_lookup(provider)) return *k;
  if (auto k = llm::key_file_lookup(m_config.data_dir + "/secrets.json", provider)) return *k;
  std::ifstream in(m_config.data_dir + "/secrets.json");
  if (!in) return "";
  std::stringstream ss;
  ss << in.rdbuf();
  json secrets = parse_json(ss.str()).value_or(json::object());
  if (!secrets.is_object() || !secrets.contains("api_key") || !secrets["api_key"].is_string()) return "";
  return secrets["api_key"].get<std::string>();
}

Result<json> RunManager::settings() {
  json s = TRY(stored_llm_settings());
  std::string key = stored_api_key();
  s["api_key"] = key.empty() ? json(nullptr) : json(mask(key));
  s["key_store"] = llm::keyring_available() ? "keyring" : "file";
  for (const char* k : kStringOptions)
    if (!s.contains(k)) s[k] = nullptr;
  if (!s.contains("max_iterations")) s["max_iterations"] = 25;
  s["default_context"] = m_config.mine_by_default ? "mine" : "clean";
  s["workspace"] = m_config.workspace.empty() ? json(nullptr) : json(m_config.workspace);
  s["pool"] = m_config.pool != nullptr;  // whether GET /api/pool has endpoints to show
  // Whether a run could start now (stored settings, environment, config file), and if not, why.
  if (auto r = resolve_given(json::object())) {
    s["configured"] = true;
    s["effective"] = r->to_public_json();
  } else {
    s["configured"] = false;
    s["configured_error"] = r.error().message;
  }
  s["allowed_sites"] = runs::remembered_sites(m_db);
  return s;
}

json RunManager::providers() { return llm::provider_catalog(); }

Result<json> RunManager::test_connection(const json& body) {
  if (!body.is_object()) return errorf(Code::InvalidArgument, "a connection test takes the settings to try as an object, got {}", describe(body));
  json options = json::object();
  for (const char* k : {"provider", "model", "sub_model", "base_url", "api_key"})
    if (body.contains(k) && body[k].is_string() && !body[k].get<std::string>().empty()) options[k] = body[k];
  auto settings = resolve_given(options);
  if (!settings) {
    std::string kind = settings.error().details.is_object() ? settings.error().details.value("kind", "setup") : "setup";
    return json{{"ok", false}, {"kind", kind}, {"error", settings.error().message}};
  }
  return llm::test_connection(*settings);
}

Result<json> RunManager::update_settings(const json& body) {
  if (!body.is_object()) return errorf(Code::InvalidArgument, "settings must be a JSON object, got {}", describe(body));
  for (const auto& [k, v] : body.items()) {
    if (is_string_option(k) || k == "api_key") {
      if (!v.is_string() && !v.is_null()) return errorf(Code::InvalidArgument, "{} must be a string or null, got {}", k, describe(v));
    } else if (k == "max_iterations") {
      if (!whole_in(v, 1, kMaxIterations))
        return errorf(Code::InvalidArgument, "max_iterations must be a whole number from 1 to {}, got {}", kMaxIterations, describe(v));
    } else if (is_model_option(k)) {
      if (!v.is_null()) TRY(llm::parse_model_params(json{{k, v}}, "settings"));
    } else if (k == "allowed_sites") {
      // The sites allowed "always": the Command Center lists them and takes them back (below).
      if (!v.is_array()) return errorf(Code::InvalidArgument, "allowed_sites must be a list of sites, got {}", describe(v));
    } else {
      return errorf(Code::InvalidArgument,
                    "unknown setting '{}'; the settings are provider, model, sub_model, base_url, max_iterations, max_tokens, temperature, "
                    "thinking, api_key, allowed_sites",
                    short_name(k));
    }
  }
  if (body.contains("allowed_sites")) TRY(runs::set_remembered_sites(m_db, body["allowed_sites"]));
  json s = TRY(stored_llm_settings());
  for (const char* k : kStringOptions)
    if (body.contains(k)) s[k] = body[k];
  if (body.contains("max_iterations")) s["max_iterations"] = *whole_in(body["max_iterations"], 1, kMaxIterations);
  for (const char* k : kModelOptions)
    if (body.contains(k)) {
      if (body[k].is_null()) s.erase(k);
      else s[k] = body[k];
    }
  TRY(m_db.set_setting("llm", dump_json(s)));
  if (body.contains("api_key")) {
    // Kept under the provider it is for: in the OS keyring when one answers, else the 0600 file.
    std::string path = m_config.data_dir + "/secrets.json";
    std::string provider = s.contains("provider") && s["provider"].is_string() && !s["provider"].get<std::string>().empty()
                               ? s["provider"].get<std::string>()
                               : "default";
    if (body["api_key"].is_string() && !body["api_key"].get<std::string>().empty()) {
      std::string key = body["api_key"].get<std::string>();
      if (!(llm::keyring_available() && llm::keyring_store(provider, key))) TRY(llm::key_file_store(path, provider, key));
      else (void)llm::key_file_store(path, provider, "");  // one place only
    } else {
      (void)llm::keyring_clear(provider);  // best effort: there may be none
      if (std::filesystem::exists(path)) TRY(llm::key_file_store(path, provider, ""));
    }
  }
  return settings();
}

// The model settings without a key: the flags a run's lifecycle starts from (the stored key).
llm::SettingsFlags RunManager::model_flags() {
  llm::SettingsFlags f;
  if (std::string key = stored_api_key(); !key.empty()) f.api_key = key;
  // Keys `ouro auth set` kept in the file when there was no keyring: found, and their provider the
  // default when none is chosen (llm/settings.h).
  if (!m_config.data_dir.empty()) f.secrets_path = m_config.data_dir + "/secrets.json";
  return f;
}

Result<llm::Settings> RunManager::resolve_given(const json& options) {
  // A key to try comes only from a connection test (test_connection's body): a run's options
  // never carry one (runs::check_options refuses the name). It goes to the flags, never a log.
  json given = options.is_object() ? options : json::object();
  std::string api_key;
  if (auto it = given.find("api_key"); it != given.end()) {
    if (it->is_string()) api_key = it->get<std::string>();
    given.erase("api_key");
  }
  // The rest typed as a run's options are, in the same words (runs/spec.h).
  const runs::RunSpec typed = TRY(runs::parse_options(std::move(given)));
  return resolve(typed, api_key);
}

Result<llm::Settings> RunManager::resolve(const runs::RunSpec& typed, const std::string& api_key) {
  json stored = TRY(stored_llm_settings());
  llm::SettingsFlags f = model_flags();
  if (!api_key.empty()) f.api_key = api_key;
  auto resolved = runs::resolve_model(typed, f, stored);
  if (!resolved && resolved.error().code == Code::FailedPrecondition)
    // In the Command Center there are no flags to pass: Settings is where a model is chosen.
    return make_error(Code::FailedPrecondition,
                      "no model is configured: in Settings, choose a provider — a hosted one with its API key, or a local "
                      "server (Ollama, LM Studio, vLLM, llama.cpp) — then Test connection and Save. Without a model, $ commands "
                      "(such as $ click Sign in) and saved scripts still run.",
                      {{"kind", "no-model"}});
  // A hosted model without its key would be taken now and fail as a run later: said now, as
  // Settings would fix it.
  if (resolved) {
    if (auto key = llm::check_key(resolved->spec); !key)
      return make_error(Code::FailedPrecondition,
                        fmt::format("{} needs an API key and none is configured: in Settings, paste its key, then Test connection "
                                    "and Save — or, where ouro serve runs: {}",
                                    resolved->provider, key.error().message),
                        {{"kind", llm::error_kind::kNoKey}});
  }
  return resolved;
}

}  // namespace ouro::server
