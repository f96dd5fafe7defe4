// What a run is asked to do, typed: the one reading of a run's request whichever face it came
// from — POST /api/runs {task, urls?, options?}, `ouro run`'s flags (turned into the same options),
// MCP's browser_task arguments and a scheduled job's options. Each wrong field is one error
// (InvalidArgument) with one text: "options.max_iterations must be a whole number from 1 to 500,
// got number 0" reads the same in the terminal, the API and an MCP client. Every option is typed
// here, once: nothing after the spec is made reads the options JSON. The options are kept with the
// run (its row) as given, so a resume or a follow-up reads them back through here.
#pragma once

#include "base/error.h"
#include "base/json.h"
#include "llm/models.h"
#include "safety/settings.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ouro::runs {

constexpr int kMaxIterations = 500;
constexpr size_t kMaxUrls = 20;

// A saved script the run replays instead of asking a model (scripts/replay.h).
struct ScriptRef {
  std::string name;
  std::optional<int> version;                // none: the newest
  std::map<std::string, std::string> vars;   // its parameters' values
  bool fallback = false;                     // a model takes over where a step cannot heal
};

struct RunSpec {
  std::string task;               // `$ …` (the command language) starts at its '$'
  std::vector<std::string> urls;  // start pages, at most kMaxUrls
  // The options as given, checked: only kept with the run (stored_options: its row, which the API
  // shows and a resume or a follow-up parses again). Never read for a decision: every option is
  // typed below.
  json options = json::object();

  // The options, typed (unset or empty: the option was not given).
  std::optional<std::string> provider, model, sub_model, base_url;  // never empty when set
  // max_tokens, temperature, thinking: over Settings' and the face's, else the model table's.
  llm::ModelParams params;
  std::optional<int> max_iterations;
  std::string context;            // "mine" | "clean" | "" (the face's default)
  std::string browser;            // "extension" | "ouro" | "" (the face's default)
  std::string agent = "rlm";      // rlm | tools
  bool remember = true;           // its task and answer are remembered for later runs
  std::optional<ScriptRef> script;
  std::string schedule;           // the schedule that started it, for previousFinal()
  // allowed_domains, mode, permissions (capability names checked): added to the settings file's,
  // the mode and each permission over the file's. `secrets` is always null (no option names one).
  safety::SafetySettings safety;

  bool commands() const { return !task.empty() && task[0] == '$'; }
  // The options as a run keeps them: `options` with the start pages as "urls".
  json stored_options() const;
};

// A run's options, field by field (wrong types, ranges and unknown names).
Result<void> check_options(const json& options);

// {task, urls?, options?}: the API's body, MCP's arguments (options included), a job's run.
Result<RunSpec> parse_request(const json& body);

// A spec from parts already apart (a face's flags, a stored run's options with "urls" in them).
Result<RunSpec> make_spec(std::string task, std::vector<std::string> urls, json options);

// The options alone, checked and typed as make_spec does it (the same words): a spec with no task
// or start pages, for what reads options with no run to make — the Command Center's model check,
// a saved job's model.
Result<RunSpec> parse_options(json options);

// "number 1", "string \"lots\"": what a client sent, short, for error messages.
std::string describe(const json& v);
// A name a client sent, cut to 60 characters for an error message.
std::string short_name(const std::string& key);
// A whole number in [lo, hi], whatever JSON number type carries it; nullopt otherwise.
std::optional<int> whole_in(const json& v, int lo, int hi);
// The model parameters a run's options and Settings may carry.
inline constexpr const char* kModelOptions[] = {"max_tokens", "temperature", "thinking"};
bool is_model_option(const std::string& k);
// The model's names a run's options and Settings may carry (strings).
inline constexpr const char* kStringOptions[] = {"provider", "model", "sub_model", "base_url"};
bool is_string_option(const std::string& k);

}  // namespace ouro::runs
