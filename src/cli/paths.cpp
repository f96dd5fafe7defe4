#include "cli/paths.h"

#include "base/json.h"
#include "llm/settings.h"
#include "store/database.h"
#include "store/sql.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>

namespace ouro::cli {

int cmd_paths(const std::string& data_dir_flag, const std::string& config_flag, bool as_json) {
  namespace fs = std::filesystem;
  std::string data_dir = data_dir_flag.empty() ? store::default_data_dir() : data_dir_flag;
  std::string config = config_flag;
  if (config.empty()) {
    const char* env = std::getenv("OURO_CONFIG");
    config = env && *env ? env : llm::default_config_path();
  }
  std::string database = data_dir + "/ouro.db";
  if (auto configured = store::configured_database(database)) database = store::redact_database_url(*configured);
  std::error_code ec;
  std::string binary = fs::read_symlink("/proc/self/exe", ec).string();
  struct Entry {
    const char* key;
    const char* label;
    std::string path;
    bool file;  // a path whose existence is worth saying
  };
  std::vector<Entry> entries = {
      {"binary", "this ouro", binary, false},
      {"config", "settings file", config, true},
      {"dataDir", "data directory", data_dir, true},
      {"database", "database", database, database.find("://") == std::string::npos},
      {"keys", "API keys (when no keyring answers)", data_dir + "/secrets.json", true},
      {"profile", "kept browser profile (plain ouro)", data_dir + "/profile", true},
      {"extension", "Chrome extension (ouro extension)", data_dir + "/extension", true},
      {"replHistory", "REPL history", data_dir + "/repl_history", true},
      {"logs", "logs", "standard error (OURO_LOG=info for more); as a service: journalctl --user -u ouro", false},
  };
  if (as_json) {
    json out = json::object();
    for (const auto& e : entries) out[e.key] = e.path;
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  for (const auto& e : entries) {
    std::string note = e.file && !fs::exists(e.path, ec) ? "  (not there yet)" : "";
    std::cout << fmt::format("{:<36} {}{}\n", std::string(e.label) + ":", e.path, note);
  }
  return 0;
}

}  // namespace ouro::cli
