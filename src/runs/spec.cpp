#include "runs/spec.h"

#include "session/start_url.h"

#include "actions/registry.h"
#include "base/text.h"
#include "llm/models.h"
#include "safety/settings.h"

#include <algorithm>

namespace ouro::runs {

std::string describe(const json& v) {
  return std::string(v.type_name()) + " " + clip_head(dump_json(v), 40);
}

// A whole number in [lo, hi], whatever JSON number type carries it; nullopt otherwise.
std::optional<int> whole_in(const json& v, int lo, int hi) {
  if (v.is_number_unsigned()) {
    uint64_t u = v.get<uint64_t>();
    if (u < static_cast<uint64_t>(std::max(lo, 0)) || u > static_cast<uint64_t>(hi)) return std::nullopt;
    return static_cast<int>(u);
  }
  if (v.is_number_integer()) {
    int64_t i = v.get<int64_t>();
    if (i < lo || i > hi) return std::nullopt;
    return static_cast<int>(i);
  }
  return std::nullopt;
}

constexpr const char* kKnownOptions =
    "provider, model, sub_model, base_url (strings), max_iterations (1 to 500), max_tokens (1 to 1000000), temperature (0 to 2), "
    "thinking (a token budget 1024 to 200000, or 'off'), context ('mine' or 'clean'), browser ('extension': the user's Chrome through "
    "ouro's extension, or 'ouro'), profile (true or false: "
    "the same as context 'mine' or 'clean'), allowed_domains (array of "
    "site patterns), mode ('careful' or 'autonomous'), permissions ({capability: 'auto'|'ask'|'deny'}), agent ('rlm': the model writes "
    "code, the default; 'tools': it calls tools through function calling), remember (true or false: whether its finished task "
    "and answer are remembered for later runs; default true)";

bool is_model_option(const std::string& k) {
  return std::any_of(std::begin(kModelOptions), std::end(kModelOptions), [&](const char* o) { return k == o; });
}

bool is_string_option(const std::string& k) {
  return std::any_of(std::begin(kStringOptions), std::end(kStringOptions), [&](const char* o) { return k == o; });
}

std::string short_name(const std::string& key) { return clip_head(key, 60); }

// A run's options, field by field: wrong types and unknown names are the client's error.
Result<void> check_options(const json& options) {
  if (!options.is_object()) return errorf(Code::InvalidArgument, "options must be an object, got {}", describe(options));
  for (const auto& [k, v] : options.items()) {
    if (is_string_option(k)) {
      if (!v.is_string()) return errorf(Code::InvalidArgument, "options.{} must be a string, got {}", k, describe(v));
    } else if (k == "max_iterations") {
      if (!whole_in(v, 1, kMaxIterations))
        return errorf(Code::InvalidArgument, "options.max_iterations must be a whole number from 1 to {}, got {}", kMaxIterations, describe(v));
    } else if (is_model_option(k)) {
      TRY(llm::parse_model_params(json{{k, v}}, "options"));
    } else if (k == "profile") {
      if (!v.is_boolean()) return errorf(Code::InvalidArgument, "options.profile must be true or false, got {}", describe(v));
    } else if (k == "remember") {
      if (!v.is_boolean())
        return errorf(Code::InvalidArgument, "options.remember must be true or false (false: forget this run's task and answer), got {}", describe(v));
    } else if (k == "schedule") {
      // Internal: the schedule that started the run (server/scheduler.h), for previousFinal().
      if (!v.is_string() || v.get<std::string>().empty() || v.get<std::string>().size() > 64)
        return errorf(Code::InvalidArgument, "options.schedule must be a schedule's id, got {}", describe(v));
    } else if (k == "script") {
      // Internal: the script a replay runs (POST /api/scripts/{name}/run), with no model.
      if (!v.is_object() || !v.contains("name") || !v["name"].is_string() || (v.contains("version") && !v["version"].is_number_integer()) ||
          (v.contains("vars") && !v["vars"].is_object()) || (v.contains("fallback") && !v["fallback"].is_boolean()))
        return errorf(Code::InvalidArgument, "options.script must be {{name, version?, vars?, fallback?: boolean}}, got {}", describe(v));
      const json vars = v.contains("vars") ? v["vars"] : json::object();
      for (const auto& [name, value] : vars.items())
        if (!value.is_string()) return errorf(Code::InvalidArgument, "options.script.vars.{} must be a string, got {}", short_name(name), describe(value));
    } else if (k == "agent") {
      if (!v.is_string() || (v != "rlm" && v != "tools"))
        return errorf(Code::InvalidArgument, "options.agent must be 'rlm' (the model writes code) or 'tools' (function calling), got {}", describe(v));
    } else if (k == "browser") {
      if (!v.is_string() || (v != "extension" && v != "ouro"))
        return errorf(Code::InvalidArgument,
                      "options.browser must be 'extension' (the user's Chrome, through ouro's paired extension, in a tab group of the run's "
                      "own) or 'ouro' (ouro's own browser, the default), got {}",
                      describe(v));
    } else if (k == "context") {
      if (!v.is_string() || (v != "mine" && v != "clean"))
        return errorf(Code::InvalidArgument,
                      "options.context must be 'mine' (the browser's own tabs and logins) or 'clean' (an isolated session), got {}",
                      describe(v));
    } else if (k == "allowed_domains" || k == "mode" || k == "permissions") {
      TRY(safety::safety_settings_from(json{{k, v}}, "options"));
      if (k == "permissions") TRY(actions::permission_overrides(v.get<std::map<std::string, std::string>>()));
    } else {
      return errorf(Code::InvalidArgument, "unknown option '{}'; the options are {}", short_name(k), kKnownOptions);
    }
  }
  return {};
}



json RunSpec::stored_options() const {
  json kept = options;
  if (!urls.empty()) kept["urls"] = urls;
  return kept;
}

Result<RunSpec> parse_options(json options) {
  if (options.is_null()) options = json::object();
  TRY(check_options(options));
  RunSpec s;
  auto str = [&](const char* k) -> std::optional<std::string> {
    if (auto it = options.find(k); it != options.end() && !it->get<std::string>().empty()) return it->get<std::string>();
    return std::nullopt;
  };
  s.provider = str("provider");
  s.model = str("model");
  s.sub_model = str("sub_model");
  s.base_url = str("base_url");
  // Checked above with the same words: these cannot fail here (null values are left unset).
  s.params = TRY(llm::parse_model_params(options, "options"));
  if (auto it = options.find("max_iterations"); it != options.end()) s.max_iterations = whole_in(*it, 1, kMaxIterations);
  if (auto it = options.find("context"); it != options.end()) s.context = it->get<std::string>();
  else if (auto p = options.find("profile"); p != options.end()) s.context = p->get<bool>() ? "mine" : "clean";
  if (auto it = options.find("browser"); it != options.end()) s.browser = it->get<std::string>();
  if (auto it = options.find("agent"); it != options.end()) s.agent = it->get<std::string>();
  if (auto it = options.find("remember"); it != options.end()) s.remember = it->get<bool>();
  if (auto it = options.find("schedule"); it != options.end()) s.schedule = it->get<std::string>();
  if (auto it = options.find("script"); it != options.end()) {
    ScriptRef ref;
    ref.name = (*it)["name"].get<std::string>();
    if (it->contains("version")) ref.version = (*it)["version"].get<int>();
    if (it->contains("vars"))
      for (const auto& [k, v] : (*it)["vars"].items()) ref.vars[k] = v.get<std::string>();
    ref.fallback = it->value("fallback", false);
    s.script = std::move(ref);
  }
  // allowed_domains, mode and permissions: the other names are not the settings file's, and
  // check_options lets no "secrets" through.
  s.safety = TRY(safety::safety_settings_from(options, "options"));
  s.options = std::move(options);
  return s;
}

Result<RunSpec> make_spec(std::string task, std::vector<std::string> urls, json options) {
  if (task.find_first_not_of(" \t\r\n") == std::string::npos)
    return make_error(Code::InvalidArgument, "a run needs a task: what to do, in plain words");
  if (urls.size() > kMaxUrls) return errorf(Code::InvalidArgument, "urls: at most {} start pages, got {}", kMaxUrls, urls.size());
  for (size_t i = 0; i < urls.size(); ++i)
    if (auto ok = session::check_start_url(urls[i]); !ok) return errorf(Code::InvalidArgument, "urls[{}]: {}", i, ok.error().message);
  RunSpec s = TRY(parse_options(std::move(options)));
  // `$ …` is the command language, run without a model.
  if (size_t at = task.find_first_not_of(" \t\r\n"); task[at] == '$') task = task.substr(at);
  s.task = std::move(task);
  s.urls = std::move(urls);
  return s;
}

Result<RunSpec> parse_request(const json& body) {
  if (!body.is_object() || !body.contains("task") || !body["task"].is_string() ||
      body["task"].get<std::string>().find_first_not_of(" \t\r\n") == std::string::npos)
    return make_error(Code::InvalidArgument, "a run needs {\"task\": \"what to do\"} (and optionally urls: [...], options: {...})");
  std::vector<std::string> urls;
  if (body.contains("urls")) {
    const json& u = body["urls"];
    if (!u.is_array() || !std::all_of(u.begin(), u.end(), [](const json& x) { return x.is_string(); }))
      return errorf(Code::InvalidArgument, "urls must be a list of strings, got {}", describe(u));
    for (const auto& x : u) urls.push_back(x.get<std::string>());
  }
  json options = body.contains("options") ? body["options"] : json::object();
  return make_spec(body["task"].get<std::string>(), std::move(urls), std::move(options));
}

}  // namespace ouro::runs
