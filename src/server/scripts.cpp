#include "server/scripts.h"

#include "runs/conversation.h"
#include "undo/journal.h"
#include "scripts/replay.h"
#include "scripts/store.h"
#include "store/database.h"

#include <charconv>

namespace ouro::server {

namespace {

Result<std::optional<int>> version_of(const std::string& text) {
  if (text.empty()) return std::optional<int>();
  int v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 1)
    return errorf(Code::InvalidArgument, "version must be a whole number from 1, got \"{}\"", text.substr(0, 40));
  return std::optional<int>(v);
}

}  // namespace

Result<json> save_script_from_run(store::Database& db, const std::string& run_id, const json& body) {
  if (!body.is_object() || !body.contains("name") || !body["name"].is_string())
    return make_error(Code::InvalidArgument, "saving a run as a script takes {\"name\": \"…\", \"params\"?: [{\"name\", \"value\"}]}");
  std::optional<std::vector<scripts::Param>> params;
  if (body.contains("params")) {
    if (!body["params"].is_array()) return make_error(Code::InvalidArgument, "params must be a list of {name, value}");
    params.emplace();
    for (const auto& p : body["params"]) {
      if (!p.is_object() || !p.contains("name") || !p["name"].is_string() || !p.contains("value") || !p["value"].is_string())
        return make_error(Code::InvalidArgument, "each parameter is {\"name\": \"query\", \"value\": \"its default\"}");
      params->push_back({p["name"].get<std::string>(), p["value"].get<std::string>(), get_str(p, "source", "user")});
    }
  }
  auto script = TRY(scripts::from_run(db, run_id, body["name"].get<std::string>(), params));
  // dry_run: the proposal, to be edited and sent back as params.
  if (body.contains("dry_run") && body["dry_run"] == true) return script.to_json();
  auto saved = TRY(scripts::save(db, std::move(script)));
  // Saved after the conversation's last turn: undoing that turn deletes this version.
  if (auto conversation = runs::load_conversation(db, run_id))
    undo::note_script(db, run_id, static_cast<int>(std::max<size_t>(conversation->turns.size(), 1)), saved.name, saved.version);
  return saved.to_json();
}

Result<json> list_scripts(store::Database& db) {
  auto all = TRY(scripts::list(db));
  json out = json::array();
  for (const auto& l : all) {
    json j = l.latest.to_json();
    j["versions"] = l.versions;
    out.push_back(std::move(j));
  }
  return json{{"scripts", out}};
}

Result<json> show_script(store::Database& db, const std::string& name, const std::string& version_text, const std::string& diff_text) {
  auto version = TRY(version_of(version_text));
  auto diff_version = TRY(version_of(diff_text));
  if (diff_version) version = diff_version;
  auto script = TRY(scripts::get(db, name, version));
  json j = script.to_json();
  if (diff_version) {
    int from = script.based_on > 0 ? script.based_on : script.version - 1;
    if (from < 1) return errorf(Code::FailedPrecondition, "script {} v{} is the first version: there is nothing to compare it with", name, script.version);
    auto before = TRY(scripts::get(db, name, from));
    j["diff"] = scripts::diff(before, script);
    j["diff_from"] = from;
  }
  if (auto run = db.get_run(script.source_run); run && *run && (*run)->updated_at > (*run)->created_at)
    j["source_run_ms"] = (*run)->updated_at - (*run)->created_at;
  return j;
}

Result<json> delete_script(store::Database& db, const std::string& name) {
  int n = TRY(scripts::remove(db, name));
  return json{{"deleted", name}, {"versions", n}};
}

Result<json> replay_run_body(store::Database& db, const std::string& name, const json& body) {
  if (!body.is_object())
    return make_error(Code::InvalidArgument, "a replay takes {\"vars\"?: {…}, \"urls\"?: [...], \"version\"?: N, \"fallback\"?: true}");
  if (body.contains("fallback") && !body["fallback"].is_boolean())
    return make_error(Code::InvalidArgument, "fallback must be true (the configured model takes over where a step cannot heal) or false");
  std::optional<int> version;
  if (body.contains("version")) {
    if (!body["version"].is_number_integer()) return make_error(Code::InvalidArgument, "version must be a whole number");
    version = body["version"].get<int>();
  }
  auto script = TRY(scripts::get(db, name, version));
  std::map<std::string, std::string> vars;
  if (body.contains("vars")) {
    if (!body["vars"].is_object()) return make_error(Code::InvalidArgument, "vars must be an object of strings: {\"query\": \"…\"}");
    for (const auto& [k, v] : body["vars"].items()) {
      if (!v.is_string()) return errorf(Code::InvalidArgument, "vars.{} must be a string", k.substr(0, 60));
      vars[k] = v.get<std::string>();
    }
  }
  // Checked now, so a wrong name is the request's error rather than a failed run.
  auto replay = TRY(scripts::ReplayProvider::create(script, vars));
  json options = body.contains("options") && body["options"].is_object() ? body["options"] : json::object();
  options["script"] = {{"name", script.name}, {"version", script.version}, {"vars", vars}};
  if (get_bool(body, "fallback")) options["script"]["fallback"] = true;
  if (!options.contains("max_iterations")) options["max_iterations"] = std::min(500, replay->max_iterations());
  json urls = body.contains("urls") ? body["urls"] : json(script.urls);
  return json{{"task", replay->task()}, {"urls", urls}, {"options", options}};
}

}  // namespace ouro::server
