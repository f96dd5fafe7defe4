#include "cli/flags.h"

#include "actions/registry.h"
#include "browser/discovery.h"
#include "cli/paths.h"
#include "cli/pool.h"
#include "llm/settings.h"
#include "safety/secrets.h"
#include "safety/settings.h"
#include "store/database.h"

#include <CLI/CLI.hpp>

#include <filesystem>

namespace ouro::cli {

void add_common(CLI::App* cmd, CommonFlags& f) {
  const size_t before = cmd->get_options().size();
  // Repeatable options take one value each, so a positional after them is not swallowed.
  cmd->add_option("--url", f.urls, "Open URL in a tab before running (repeat for more tabs)")->allow_extra_args(false);
  cmd->add_flag("--headed", f.headed, "Show the browser window (default: headless)");
  cmd->add_option("--browser", f.browsers,
                  "Attach to a running browser instead of launching one: ws://host:port/devtools/browser/…, or auto (the "
                  "DevToolsActivePort of a Chrome/Chromium started with --remote-debugging-port, in --browser-dir or the usual places); "
                  "serve: extension (runs work in your Chrome through ouro's paired extension, `ouro extension`), or repeat it (ws:// or http://host:port) for a pool of browsers. A token in the URL (?token=…) is visible "
                  "to other users in the process list: prefer --browser-pool with token_env")
      ->allow_extra_args(false);
  cmd->add_option("--browser-dir", f.browser_dir, "With --browser auto: the user-data-dir of the browser to attach to");
  cmd->add_option("--data-dir", f.data_dir, "Where ouro keeps its database (default: $OURO_DATA_DIR or ~/.local/share/ouroboros)");
  // The database goes to Database::open through OURO_DATABASE (store/database.h), so every path
  // that opens one sees it. A password there would be readable in the process list: refused.
  cmd->add_option_function<std::string>(
         "--database", [](const std::string& target) { setenv("OURO_DATABASE", target.c_str(), 1); },
         "Keep runs, events, schedules and memory in this database instead of <data dir>/ouro.db: postgresql://user@host/db (the "
         "password from PGPASSWORD, ~/.pgpass or the settings file's database_password) or an SQLite file (default: $OURO_DATABASE, "
         "the settings file's database)")
      ->check(CLI::Validator(
          [](std::string& target) -> std::string {
            if (store::redact_database_url(target) == target) return "";
            return "--database " + store::redact_database_url(target) +
                   ": a password on the command line is visible in the process list; give it in PGPASSWORD, ~/.pgpass or the settings "
                   "file's database_password";
          },
          "URL"));
  cmd->add_option("--workspace", f.workspace,
                  "A workspace of its own: runs, store, memory, schedules, checkpoints and the kept profile in <data dir>/workspaces/NAME "
                  "(default: $OURO_WORKSPACE, else none)");
  cmd->add_option("--profile", f.profile,
                  "Chromium profile directory to use and keep (logins persist); default: a fresh temporary one (plain `ouro`: <data dir>/profile)");
  cmd->add_option("--timeout", f.timeout_s, "Seconds one evaluation may run (default 30)")->check(CLI::Range(0.1, 3600.0));
  cmd->add_option("--memory", f.memory_mb, "Megabytes one evaluation may allocate (default 128)")->check(CLI::Range(16, 8192));
  cmd->add_option("--action-timeout", f.action_timeout_ms, "Milliseconds click/type/… wait for an element (default 5000)")->check(CLI::Range(0, 120000));
  cmd->add_option("--secret", f.secrets,
                  "NAME@SITE[,SITE]: a secret the code uses as secret(\"NAME\") in type()/fill() on those sites only (scheme and port as written; no scheme: https), never seeing it; "
                  "the value comes from $OURO_SECRET_NAME (repeatable)")
      ->allow_extra_args(false);
  cmd->add_flag("--allow-request-modification", f.allow_request_modification,
                "Let interceptRequests handlers block, rewrite or answer requests (default: observe only)");
  cmd->add_flag("--reveal-httponly-cookies", f.reveal_http_only,
                "Let getCookies show the values of HttpOnly cookies (default: redacted; they are the session's keys)");
  cmd->add_option("--allow-domain", f.allow_domains,
                  "A site the run may reach besides those of its URLs: example.com, *.example.com, 127.0.0.1:8080 (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--upload-dir", f.upload_dirs,
                  "A folder upload() may take files from, besides the session's downloads folder (repeatable)")
      ->check(CLI::ExistingDirectory)
      ->allow_extra_args(false);
  cmd->add_option("--mode", f.mode,
                  "careful (default: asks before any write and before leaving the allowed sites) or autonomous (asks nothing; "
                  "still refuses to leave them)")
      // In the words the settings file and a run's options get for it (safety/gate.h).
      ->check([](const std::string& v) {
        auto m = safety::parse_gate_mode(v);
        return m ? std::string() : m.error().message;
      })
      ->type_name("TEXT:{careful,autonomous}");
  // A command's help lists its own options first, then these, under a heading of their own.
  auto options = cmd->get_options();
  for (size_t i = before; i < options.size(); ++i) options[i]->group("Shared options");
}

// --workspace NAME, else $OURO_WORKSPACE: `data_dir` (empty: the default) becomes
// <data dir>/workspaces/NAME, made 0700 if need be; with neither, `data_dir` as it was. A name
// outside [A-Za-z0-9_-]{1,64} is InvalidArgument saying the rule.
Result<std::string> workspace_data_dir(const std::string& data_dir, std::string& name) {
  if (name.empty())
    if (const char* env = std::getenv("OURO_WORKSPACE"); env && *env) name = env;
  if (name.empty()) return data_dir;
  bool valid = name.size() <= 64 && std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isalnum(c) || c == '_' || c == '-'; });
  if (!valid)
    return errorf(Code::InvalidArgument, "workspace name \"{}\" is not allowed: use 1 to 64 letters, digits, '_' or '-' (--workspace NAME or $OURO_WORKSPACE)",
                  clip_text(name, 80));
  std::filesystem::path dir = std::filesystem::path(data_dir.empty() ? store::default_data_dir() : data_dir) / "workspaces" / name;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return errorf(Code::FailedPrecondition, "cannot create the workspace directory {}: {}", dir.string(), ec.message());
  // A workspace holds runs, stored values and a browser profile: the user's alone.
  for (const auto& d : {dir.parent_path(), dir}) {
    std::filesystem::permissions(d, std::filesystem::perms::owner_all, std::filesystem::perm_options::replace, ec);
    if (ec) return errorf(Code::FailedPrecondition, "cannot make the workspace directory {} private (mode 0700): {}", d.string(), ec.message());
  }
  return dir.string();
}

// --browser is repeatable for `ouro serve` only (a pool); elsewhere one browser.
Result<void> take_browsers(CommonFlags& f, bool serve) {
  if (f.browsers.size() > 1 && !serve) return make_error(Code::InvalidArgument, "--browser is given once here (ouro serve takes several: a pool)");
  if (!serve && !f.browser_pool.empty()) return make_error(Code::InvalidArgument, "--browser-pool goes with ouro serve");
  if (f.browsers.size() == 1 && f.browsers.front() == "extension" && !serve)
    return make_error(Code::InvalidArgument,
                      "--browser extension goes with ouro serve: the extension connects to a running server. Start `ouro serve "
                      "--browser extension` (or plain `ouro serve` and POST /api/runs with options.browser \"extension\")");
  if (f.browsers.size() == 1 && f.browser_pool.empty()) f.browser_ws = f.browsers.front();
  if (cli::wants_pool(f.browsers, f.browser_pool)) {
    for (const auto& b : f.browsers)
      if (b == "auto") return make_error(Code::InvalidArgument, "--browser auto cannot be part of a pool: give ws:// or http:// URLs");
    if (!f.profile.empty()) return make_error(Code::InvalidArgument, "--profile does not go with a browser pool (its browsers keep their own profiles)");
  }
  return {};
}

Result<void> enter_workspace(CommonFlags& f) {
  std::string base = f.data_dir;
  f.data_dir = TRY(workspace_data_dir(f.data_dir, f.workspace));
  if (!f.workspace.empty()) f.base_data_dir = base.empty() ? store::default_data_dir() : base;
  return {};
}

// The settings file the safety settings come from.
std::string config_path_of(const CommonFlags& f) {
  if (!f.config_path.empty()) return f.config_path;
  const char* env = std::getenv("OURO_CONFIG");
  return env && *env ? env : llm::default_config_path();
}

// Options for a session. With `gated`, its context is under the egress gate: allowed sites from
// --url, the task's URLs, --allow-domain and the settings file.
// `preloaded`: the settings file as the caller read it already (a run reads it once).
Result<session::SessionOptions> session_options(const CommonFlags& f, std::function<void(const std::string&)> on_log, bool gated,
                                                const std::string& task, const safety::SafetySettings* preloaded) {
  session::SessionOptions o;
  auto settings = preloaded ? *preloaded : TRY(safety::load_safety_settings(config_path_of(f)));
  std::shared_ptr<safety::SecretStore> store = settings.secrets;
  if (!f.secrets.empty()) {
    if (!store) store = std::make_shared<safety::SecretStore>();
    for (const auto& s : f.secrets) TRY(safety::add_secret_from_flag(*store, s));
  }
  o.secrets = store;
  o.permissions = TRY(actions::permission_overrides(settings.permissions));
  if (gated) {
    safety::GateConfig gc;
    gc.urls = f.urls;
    gc.allow_domains = settings.allowed_domains;
    gc.allow_domains.insert(gc.allow_domains.end(), f.allow_domains.begin(), f.allow_domains.end());
    gc.task = task;
    gc.mode = f.mode.empty() ? settings.mode.value_or(safety::GateMode::Careful) : TRY(safety::parse_gate_mode(f.mode));
    o.gate = TRY(safety::make_policy(gc));
  }
  o.browser.launch.headed = f.headed;
  o.browser.launch.user_data_dir = f.profile;
  o.browser.launch.extra_args.insert(o.browser.launch.extra_args.end(), f.chromium_args.begin(), f.chromium_args.end());
  o.browser.connect_url = f.browser_ws;
  if (f.browser_ws == "auto")
    o.browser.connect_url = TRY(browser::find_devtools_url(f.browser_dir.empty() ? browser::usual_browser_dirs() : std::vector{f.browser_dir}));
  else if (!f.browser_dir.empty())
    return make_error(Code::InvalidArgument, "--browser-dir goes with --browser auto");
  if (!f.data_dir.empty()) o.db_path = f.data_dir + "/ouro.db";
  o.repl.timeout = std::chrono::milliseconds(static_cast<int64_t>(f.timeout_s * 1000));
  o.repl.memory_mb = f.memory_mb;
  o.limits.action_timeout = std::chrono::milliseconds(f.action_timeout_ms);
  o.limits.allow_request_modification = f.allow_request_modification;
  o.limits.reveal_http_only_cookies = f.reveal_http_only;
  o.upload_dirs = f.upload_dirs;
  o.on_log = std::move(on_log);
  return o;
}

}  // namespace ouro::cli
