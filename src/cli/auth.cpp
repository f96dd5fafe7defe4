#include "cli/auth.h"
#include "cli/terminal.h"

#include "llm/keyring.h"
#include "llm/settings.h"
#include "store/database.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <unistd.h>

namespace ouro::cli {

namespace {

std::string read_key() {
  std::string key;
  {
    // Echo goes off before the prompt shows, so nothing typed after it is ever echoed.
    EchoOff hidden(0);
    if (isatty(0)) std::cerr << "Paste the API key and press Enter (it is not shown): " << std::flush;
    std::getline(std::cin, key);
  }
  while (!key.empty() && (key.back() == '\r' || key.back() == '\n' || key.back() == ' ')) key.pop_back();
  while (!key.empty() && key.front() == ' ') key.erase(0, 1);
  return key;
}

bool known_provider(const std::string& p) {
  for (const auto& pr : llm::presets())
    if (p == pr.name) return true;
  return p.rfind("http://", 0) == 0 || p.rfind("https://", 0) == 0;
}

}  // namespace

int cmd_auth(const std::string& action, const std::string& provider, const std::string& data_dir) {
  std::string dir = data_dir.empty() ? store::default_data_dir() : data_dir;
  std::string file = dir + "/secrets.json";
  if (action == "status") {
    bool keyring = llm::keyring_available();
    std::cout << (keyring ? "keys are kept in the OS keyring (Secret Service)\n"
                          : "no keyring on the session bus: keys are kept in " + file + " (mode 0600)\n");
    for (const auto& p : llm::presets()) {
      if (std::string(p.key_env).empty()) continue;
      const char* env = std::getenv(p.key_env);
      std::string where = env && *env ? std::string("environment (") + p.key_env + ", wins)"
                          : llm::keyring_lookup(p.name) ? "keyring"
                          : llm::key_file_lookup(file, p.name) ? "file"
                                                                : "none";
      std::cout << "  " << p.name << ": " << where << "\n";
    }
    return 0;
  }
  if (provider.empty() || !known_provider(provider)) {
    std::cerr << "ouro auth " << action << ": name the provider: anthropic, openai, openrouter, groq, nvidia, together, deepseek, or a base URL\n";
    return 2;
  }
  bool keyring = llm::keyring_available();
  if (action == "rm") {
    if (keyring) (void)llm::keyring_clear(provider);  // best effort: it may not be there
    if (auto r = llm::key_file_store(file, provider, ""); !r && std::filesystem::exists(file)) {
      std::cerr << r.error().message << "\n";
      return 1;
    }
    std::cerr << "the key for " << provider << " is removed\n";
    return 0;
  }
  std::string key = read_key();
  if (key.empty()) {
    std::cerr << "no key given on standard input: nothing stored\n";
    return 2;
  }
  std::string why = "no keyring answers on the session bus";
  if (keyring) {
    if (auto r = llm::keyring_store(provider, key); r) {
      (void)llm::key_file_store(file, provider, "");  // one place only: an older file copy goes
      std::cerr << "the key for " << provider << " is in the OS keyring\n";
      return 0;
    } else {
      why = r.error().message;
    }
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (auto r = llm::key_file_store(file, provider, key); !r) {
    std::cerr << r.error().message << "\n";
    return 1;
  }
  std::cerr << why << ": the key for " << provider << " is in " << file << " (mode 0600)\n";
  return 0;
}

}  // namespace ouro::cli
