// `ouro auth set PROVIDER` (the key read from stdin), `ouro auth rm PROVIDER`, `ouro auth status`:
// API keys in the OS keyring when a Secret Service answers on the session bus, else in the 0600
// file <data dir>/secrets.json — and which one it was, said every time.
#pragma once

#include <string>

namespace ouro::cli {

int cmd_auth(const std::string& action, const std::string& provider, const std::string& data_dir);

}  // namespace ouro::cli
