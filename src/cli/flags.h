// The flags every command shares, and what they become: the data directory and its workspace,
// the browsers to use, the settings file, and a session's options.
#pragma once

#include "base/error.h"
#include "session/session.h"

#include <functional>
#include <string>
#include <vector>

namespace CLI { class App; }
namespace ouro::safety { struct SafetySettings; }

namespace ouro::cli {

struct CommonFlags {
  std::vector<std::string> urls;
  bool headed = false;
  std::string browser_ws;
  std::vector<std::string> browsers;  // every --browser given (serve: two or more make a pool)
  std::string browser_pool;           // serve --browser-pool FILE
  std::string browser_dir;  // --browser auto: where its DevToolsActivePort is
  std::string data_dir;
  std::string profile;
  double timeout_s = 30;
  size_t memory_mb = 128;
  int action_timeout_ms = 5000;
  bool allow_request_modification = false;
  bool reveal_http_only = false;
  std::vector<std::string> secrets;  // NAME@DOMAIN
  std::vector<std::string> allow_domains;
  std::vector<std::string> upload_dirs;
  std::string mode;                  // careful | autonomous ("" = the settings file's, else careful)
  std::string config_path;           // the settings file ("" = $OURO_CONFIG or the default)
  std::string workspace;             // --workspace NAME ("" = $OURO_WORKSPACE, else none)
  std::string base_data_dir;         // with a workspace: the data directory it is in (API keys stay there)
  std::vector<std::string> chromium_args;  // extra flags for a browser we launch (plain `ouro`: its extension)
};

// Adds the shared flags to a command.
void add_common(CLI::App* cmd, CommonFlags& f);
// --workspace NAME, else $OURO_WORKSPACE: `data_dir` (empty: the default) becomes
// <data dir>/workspaces/NAME, made 0700 if need be; with neither, `data_dir` as it was.
Result<std::string> workspace_data_dir(const std::string& data_dir, std::string& name);
// --browser is repeatable for `ouro serve` only (a pool); elsewhere one browser.
Result<void> take_browsers(CommonFlags& f, bool serve);
// The flags' data directory becomes their workspace's (workspace_data_dir).
Result<void> enter_workspace(CommonFlags& f);
// The settings file the safety settings come from.
std::string config_path_of(const CommonFlags& f);
// Options for a session. With `gated`, its context is under the egress gate: allowed sites from
// --url, the task's URLs, --allow-domain and the settings file. `preloaded`: the settings file as
// the caller read it already (a run reads it once).
Result<session::SessionOptions> session_options(const CommonFlags& f, std::function<void(const std::string&)> on_log, bool gated = false,
                                                const std::string& task = {}, const safety::SafetySettings* preloaded = nullptr);

}  // namespace ouro::cli
