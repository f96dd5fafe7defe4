// The safety part of the settings file (~/.config/ouroboros/config.json, or $OURO_CONFIG):
//
//   "allowed_domains": ["example.com", "*.example.org"],   every run may reach these too
//   "mode": "careful" | "autonomous",                        the default gate mode
//   "permissions": {"setCookie": "deny", "getCookies": "ask"},  capability permission overrides
//   "secrets": {"bank_password": {"value": "…", "domains": ["bank.example.com"]}}
//
// A missing file is empty settings; a file that cannot be read or holds a wrong shape is an error
// that names the field. The capability names of "permissions" are checked by the caller (the
// registry lives in actions).
#pragma once

#include "safety/gate.h"
#include "safety/secrets.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ouro::safety {

struct SafetySettings {
  std::vector<std::string> allowed_domains;
  std::optional<GateMode> mode;
  std::map<std::string, std::string> permissions;  // capability -> "auto" | "ask" | "deny"
  std::shared_ptr<SecretStore> secrets;            // null when the file names none
};

Result<SafetySettings> load_safety_settings(const std::string& path);
// The same from an already parsed settings object.
Result<SafetySettings> safety_settings_from(const json& file, const std::string& where);

}  // namespace ouro::safety
