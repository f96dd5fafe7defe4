#include "llm/settings.h"

#include "base/settings_file.h"
#include "llm/keyring.h"

#include <cstdlib>

namespace ouro::llm {

namespace {

// OpenAI-compatible services differ only in base URL, key variable and model names.
const Preset kPresets[] = {
    {"anthropic", "anthropic", "", "ANTHROPIC_API_KEY", "claude-sonnet-4-20250514", "claude-haiku-4-5-20251001"},
    {"openai", "openai", "https://api.openai.com/v1", "OPENAI_API_KEY", "gpt-4.1", "gpt-4.1-mini"},
    {"openrouter", "openai", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", "anthropic/claude-sonnet-4", "anthropic/claude-haiku-4.5"},
    {"groq", "openai", "https://api.groq.com/openai/v1", "GROQ_API_KEY", "llama-3.3-70b-versatile", "llama-3.1-8b-instant"},
    {"nvidia", "openai", "https://integrate.api.nvidia.com/v1", "NVIDIA_API_KEY", "moonshotai/kimi-k2-thinking", "moonshotai/kimi-k2-thinking"},
    {"together", "openai", "https://api.together.xyz/v1", "TOGETHER_API_KEY", "meta-llama/Llama-3.3-70B-Instruct-Turbo", "meta-llama/Llama-3.3-70B-Instruct-Turbo"},
    {"deepseek", "openai", "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY", "deepseek-chat", "deepseek-chat"},
    {"ollama", "openai", "http://127.0.0.1:11434/v1", "", "llama3.1", "llama3.1"},
    {"lmstudio", "openai", "http://127.0.0.1:1234/v1", "", "local-model", "local-model"},
    {"vllm", "openai", "http://127.0.0.1:8000/v1", "", "default", "default"},
    {"llamacpp", "openai", "http://127.0.0.1:8080/v1", "", "default", "default"},
};

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

const Preset* preset(const std::string& name) {
  for (const auto& p : kPresets)
    if (name == p.name) return &p;
  return nullptr;
}

}  // namespace

const std::vector<Preset>& presets() {
  static const std::vector<Preset> all(std::begin(kPresets), std::end(kPresets));
  return all;
}

std::string default_config_path() {
  std::string base = env("XDG_CONFIG_HOME");
  if (base.empty()) base = (env("HOME").empty() ? std::string("/tmp") : env("HOME")) + "/.config";
  return base + "/ouroboros/config.json";
}

json Settings::to_public_json() const {
  return {{"provider", provider}, {"base_url", spec.base_url}, {"model", model}, {"sub_model", sub_model}, {"api_key_set", !spec.api_key.empty()},
          {"params", params.to_json()}, {"source", source}};
}

Result<Settings> resolve_settings(const SettingsFlags& flags) {
  json file = flags.file ? *flags.file : json::object();
  if (!flags.file)
    file = TRY(read_settings_file(flags.config_path.value_or(env("OURO_CONFIG").empty() ? default_config_path() : env("OURO_CONFIG")))).data;
  if (!file.is_object()) return make_error(Code::InvalidArgument, "the settings file is not a JSON object: fix or remove it");
  auto pick = [&](const std::optional<std::string>& flag, const char* env_name, const char* file_key) -> std::string {
    if (flag && !flag->empty()) return *flag;
    if (!env(env_name).empty()) return env(env_name);
    return file.contains(file_key) && file[file_key].is_string() ? file[file_key].get<std::string>() : "";
  };
  Settings s;
  if (flags.provider && !flags.provider->empty()) s.provider = *flags.provider, s.source = "--provider";
  else if (!env("OURO_PROVIDER").empty()) s.provider = env("OURO_PROVIDER"), s.source = "OURO_PROVIDER";
  else if (file.contains("provider") && file["provider"].is_string() && !file["provider"].get<std::string>().empty())
    s.provider = file["provider"].get<std::string>(), s.source = "the settings file";
  else if (!env("ANTHROPIC_API_KEY").empty()) s.provider = "anthropic", s.source = "ANTHROPIC_API_KEY";
  else if (!env("OPENAI_API_KEY").empty()) s.provider = "openai", s.source = "OPENAI_API_KEY";
  else
    for (const std::string& p : stored_key_providers(flags.secrets_path.value_or("")))
      if (const Preset* known = preset(p); known && *known->key_env) {
        s.provider = p;
        s.source = "the key stored for " + p;
        break;
      }
  if (s.provider.empty())
    return make_error(Code::FailedPrecondition,
                      "no model is configured: store a key with `ouro auth set anthropic` (or openai, openrouter, …), set "
                      "ANTHROPIC_API_KEY (or OPENAI_API_KEY) in the environment, or pass --provider "
                      "(anthropic, openai, openrouter, groq, nvidia, together, deepseek, ollama, lmstudio, vllm, llamacpp, an "
                      "OpenAI-compatible base URL, or script:FILE for a scripted run), or write " + default_config_path());
  std::string key_env;
  if (s.provider.rfind("script:", 0) == 0) {
    s.spec.kind = "script";
    s.spec.script_path = s.provider.substr(7);
    s.model = "scripted";
  } else if (s.provider.rfind("http://", 0) == 0 || s.provider.rfind("https://", 0) == 0) {
    s.spec.kind = "openai";
    s.spec.base_url = s.provider;
    key_env = "OPENAI_API_KEY";
  } else if (const Preset* p = preset(s.provider)) {
    s.spec.kind = p->kind;
    s.spec.base_url = p->base_url;
    key_env = p->key_env;
    s.model = p->model;
    s.sub_model = p->sub_model;
  } else {
    return errorf(Code::InvalidArgument, "unknown provider '{}': use anthropic, openai, openrouter, groq, nvidia, together, deepseek, ollama, "
                  "lmstudio, vllm, llamacpp, an OpenAI-compatible base URL (https://…/v1), or script:FILE", s.provider);
  }
  if (std::string url = pick(flags.base_url, "OURO_BASE_URL", "base_url"); !url.empty()) s.spec.base_url = url;
  if (std::string m = pick(flags.model, "OURO_MODEL", "model"); !m.empty()) s.model = m;
  if (std::string m = pick(flags.sub_model, "OURO_SUB_MODEL", "sub_model"); !m.empty()) s.sub_model = m;
  if (s.sub_model.empty()) s.sub_model = s.model;
  if (s.model.empty()) return errorf(Code::InvalidArgument, "no model name for provider '{}': pass --model NAME", s.provider);
  // Model parameters: a flag, else OURO_MAX_TOKENS / OURO_TEMPERATURE / OURO_THINKING, else the
  // config file's max_tokens / temperature / thinking; each checked as the runs API checks it.
  json params = json::object();
  for (const char* k : {"max_tokens", "temperature", "thinking"})
    if (file.contains(k)) params[k] = file[k];
  auto from_env = [&](const char* name, const char* key) -> Result<void> {
    std::string v = env(name);
    if (v.empty()) return {};
    if (std::string(key) == "thinking") params[key] = v;
    else if (auto n = parse_json(v, name); n && n->is_number()) params[key] = *n;
    else return errorf(Code::InvalidArgument, "{}={} is not a number", name, v.substr(0, 40));
    return {};
  };
  TRY(from_env("OURO_MAX_TOKENS", "max_tokens"));
  TRY(from_env("OURO_TEMPERATURE", "temperature"));
  TRY(from_env("OURO_THINKING", "thinking"));
  if (flags.max_tokens) params["max_tokens"] = *flags.max_tokens;
  if (flags.temperature) params["temperature"] = *flags.temperature;
  if (flags.thinking) params["thinking"] = *flags.thinking;
  s.params = TRY(parse_model_params(params, "settings"));
  // The key: a flag, then the environment (it wins over anything stored), then the OS keyring,
  // then the 0600 secrets file `ouro auth set` falls back to, then the config file.
  if (flags.api_key && !flags.api_key->empty()) s.spec.api_key = *flags.api_key;
  if (s.spec.api_key.empty()) s.spec.api_key = env("OURO_API_KEY");
  if (s.spec.api_key.empty() && !key_env.empty()) s.spec.api_key = env(key_env.c_str());
  if (s.spec.api_key.empty() && s.spec.kind != "script") {
    if (auto k = keyring_lookup(s.provider)) s.spec.api_key = *k;
    else if (flags.secrets_path)
      if (auto f = key_file_lookup(*flags.secrets_path, s.provider)) s.spec.api_key = *f;
  }
  if (s.spec.api_key.empty() && file.contains("api_key") && file["api_key"].is_string()) s.spec.api_key = file["api_key"];
  if (s.spec.api_key.empty() && file.contains("api_keys") && file["api_keys"].is_object()) {
    // A key of another type than text is no key (a hand-edited file), never an exception.
    const json& keys = file["api_keys"];
    if (auto k = keys.find(s.provider); k != keys.end() && k->is_string()) s.spec.api_key = k->get<std::string>();
  }
  return s;
}

}  // namespace ouro::llm
