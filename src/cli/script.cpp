#include "cli/script.h"

#include "base/json.h"
#include "scripts/store.h"
#include "store/database.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>

namespace ouro::cli {

namespace {

Result<std::unique_ptr<store::Database>> open_db(const std::string& data_dir) {
  std::string dir = data_dir.empty() ? store::default_data_dir() : data_dir;
  return store::Database::open(dir + "/ouro.db");
}

std::string params_line(const std::vector<scripts::Param>& params) {
  std::string out;
  for (const auto& p : params) out += fmt::format("{}{}={}", out.empty() ? "" : ", ", p.name, json(p.value).dump());
  return out.empty() ? "none" : out;
}

void print_script(const scripts::Script& s, int versions) {
  std::cout << fmt::format("{} v{}{} · from run {} · {} steps\n", s.name, s.version, versions > 1 ? fmt::format(" (of {})", versions) : "",
                           s.source_run, s.steps.size());
  std::cout << "  task: " << s.task << "\n  params: " << params_line(s.params) << "\n";
  if (!s.urls.empty()) {
    std::cout << "  urls:";
    for (const auto& u : s.urls) std::cout << " " << u;
    std::cout << "\n";
  }
}

}  // namespace

CLI::App* add_script_command(CLI::App& app, ScriptFlags& f) {
  auto* cmd = app.add_subcommand("script", "Scripts: finished runs kept to be replayed without a model (ouro replay NAME)");
  auto* save = cmd->add_subcommand("save", "Save finished run RUN_ID as script NAME (a new version when NAME exists)");
  save->add_option("run", f.run_id, "The run's id (ouro run prints it)")->required();
  save->add_option("name", f.name, "The script's name: letters, digits, '_', '-', '.'")->required();
  save->add_option("--param", f.params,
                   "name=value: lift this value into {{name}} (repeatable; given any, they replace the proposed ones — the task's quoted "
                   "text, URLs, dates and numbers, and the values typed into pages)")
      ->allow_extra_args(false);
  auto* list = cmd->add_subcommand("list", "The scripts, latest version of each");
  auto* show = cmd->add_subcommand("show", "A script's task, parameters and steps");
  show->add_option("name", f.name, "The script's name")->required();
  show->add_option("--version", f.version, "Which version (default: the latest)")->check(CLI::Range(1, 1000000));
  show->add_flag("--diff", f.diff, "Show what changed from the version it was made from (a replay's healed selectors, the steps a model took "
                                   "over): a line diff of the steps' code");
  auto* rm = cmd->add_subcommand("rm", "Delete a script, every version");
  rm->add_option("name", f.name, "The script's name")->required();
  for (auto* sub : {save, list, show, rm}) {
    sub->add_option("--data-dir", f.data_dir, "Where ouro keeps its database (default: $OURO_DATA_DIR or ~/.local/share/ouroboros)");
    if (sub != rm) sub->add_flag("--json", f.as_json, "Print JSON");
  }
  cmd->require_subcommand(1);
  return cmd;
}

int cmd_script(const CLI::App& command, ScriptFlags& f) {
  for (const char* a : {"save", "list", "show", "rm"})
    if (command.get_subcommand(a)->parsed()) f.action = a;
  auto db = open_db(f.data_dir);
  if (!db) {
    std::cerr << "ouro script: cannot open the database: " << db.error().message << "\n";
    return 1;
  }
  auto fail = [](const Error& e) {
    std::cerr << "ouro script: " << e.message << "\n";
    return e.code == Code::InvalidArgument ? 2 : 1;
  };
  if (f.action == "save") {
    std::optional<std::vector<scripts::Param>> params;
    if (!f.params.empty()) {
      auto pairs = scripts::parse_vars(f.params);
      if (!pairs) return fail(pairs.error());
      params.emplace();
      // In the order given (parse_vars keeps a map; the flags keep the order).
      for (const auto& p : f.params) {
        std::string k = p.substr(0, p.find('='));
        params->push_back({k, pairs->at(k), "user"});
      }
    }
    auto script = scripts::from_run(**db, f.run_id, f.name, params);
    if (!script) return fail(script.error());
    auto saved = scripts::save(**db, std::move(*script));
    if (!saved) return fail(saved.error());
    if (f.as_json) std::cout << dump_json(saved->to_json()) << "\n";
    else std::cout << fmt::format("saved {} v{} · {} steps · params: {}\nreplay: ouro replay {}{}\n", saved->name, saved->version, saved->steps.size(),
                                  params_line(saved->params), saved->name,
                                  saved->params.empty() ? "" : " --var " + saved->params[0].name + "=…");
    return 0;
  }
  if (f.action == "list") {
    auto all = scripts::list(**db);
    if (!all) return fail(all.error());
    if (f.as_json) {
      json out = json::array();
      for (const auto& l : *all) {
        json j = l.latest.to_json();
        j["versions"] = l.versions;
        out.push_back(j);
      }
      std::cout << dump_json(out) << "\n";
    } else if (all->empty()) {
      std::cout << "no scripts yet: ouro run … --save-script NAME, or ouro script save RUN_ID NAME\n";
    } else {
      for (const auto& l : *all) print_script(l.latest, l.versions);
    }
    return 0;
  }
  if (f.action == "show") {
    auto s = scripts::get(**db, f.name, f.version > 0 ? std::optional<int>(f.version) : std::nullopt);
    if (!s) return fail(s.error());
    if (f.diff) {
      int from = s->based_on > 0 ? s->based_on : s->version - 1;
      if (from < 1) return fail(Error{Code::FailedPrecondition, fmt::format("{} v{} is the first version: nothing to compare it with", s->name, s->version), nullptr});
      auto before = scripts::get(**db, f.name, from);
      if (!before) return fail(before.error());
      std::string d = scripts::diff(*before, *s);
      if (f.as_json) std::cout << dump_json(json{{"name", s->name}, {"from", from}, {"to", s->version}, {"diff", d}, {"changes", s->changes}}) << "\n";
      else std::cout << (d.empty() ? fmt::format("{} v{} and v{} have the same steps\n", s->name, from, s->version) : d);
      return 0;
    }
    if (f.as_json) {
      std::cout << dump_json(s->to_json(), 2) << "\n";
      return 0;
    }
    print_script(*s, 0);
    for (size_t i = 0; i < s->steps.size(); ++i) {
      const auto& st = s->steps[i];
      std::cout << fmt::format("\nstep {} (iteration {} of the run){} · {}\n", i + 1, st.iteration, st.set_final ? " · final" : "", st.intent);
      for (const auto& t : st.targets)
        std::cout << "  target: " << t.action << " " << t.target
                  << (t.details.is_object() ? fmt::format(" — {} \"{}\"", get_str(t.details, "role"), get_str(t.details, "name")) : "") << "\n";
      std::cout << st.code << "\n";
    }
    return 0;
  }
  auto n = scripts::remove(**db, f.name);
  if (!n) return fail(n.error());
  std::cout << fmt::format("deleted {} ({} version{})\n", f.name, *n, *n == 1 ? "" : "s");
  return 0;
}

Result<LoadedReplay> load_replay(const std::string& data_dir, const std::string& name, int version, const std::vector<std::string>& vars) {
  auto db = TRY(open_db(data_dir));
  auto script = TRY(scripts::get(*db, name, version > 0 ? std::optional<int>(version) : std::nullopt));
  auto values = TRY(scripts::parse_vars(vars));
  LoadedReplay out;
  if (auto run = db->get_run(script.source_run); run && *run && (*run)->updated_at > (*run)->created_at)
    out.recorded_ms = (*run)->updated_at - (*run)->created_at;
  auto provider = TRY(scripts::ReplayProvider::create(std::move(script), values));
  out.provider = std::move(provider);
  return out;
}

}  // namespace ouro::cli
