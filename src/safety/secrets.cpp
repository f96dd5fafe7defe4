#include "safety/secrets.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace ouro::safety {

Result<void> SecretStore::add(const std::string& name, std::string value, const std::vector<std::string>& domains) {
  if (name.empty() || name.size() > 64 ||
      !std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isalnum(c) || c == '_' || c == '-'; }))
    return errorf(Code::InvalidArgument, "secret name '{}' must be letters, digits, '_' or '-' (at most 64)", name.substr(0, 64));
  // Shorter values could not be told apart from ordinary text when results are scrubbed.
  if (value.size() < 4) return errorf(Code::InvalidArgument, "secret '{}' must be at least 4 characters long", name);
  if (domains.empty()) return errorf(Code::InvalidArgument, "secret '{}' needs the site(s) it may be typed into, e.g. {}@bank.example.com", name, name);
  Secret s{name, std::move(value), {}};
  for (const auto& d : domains) TRY(s.sites.add(d));
  m_secrets[name] = std::move(s);
  return {};
}

const Secret* SecretStore::find(const std::string& name) const {
  auto it = m_secrets.find(name);
  return it == m_secrets.end() ? nullptr : &it->second;
}

std::vector<std::string> SecretStore::names() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : m_secrets) out.push_back(k);
  return out;
}

std::string SecretStore::scrub_text(std::string text) const {
  for (const auto& [name, s] : m_secrets) {
    for (size_t at = text.find(s.value); at != std::string::npos; at = text.find(s.value, at)) {
      std::string mark = "[SECRET:" + name + "]";
      text.replace(at, s.value.size(), mark);
      at += mark.size();
    }
  }
  return text;
}

void SecretStore::scrub(json& v) const {
  if (m_secrets.empty()) return;
  if (v.is_string()) {
    v = scrub_text(v.get<std::string>());
  } else if (v.is_object()) {
    json out = json::object();
    for (auto& [k, x] : v.items()) {
      scrub(x);
      out[scrub_text(k)] = std::move(x);
    }
    v = std::move(out);
  } else if (v.is_array()) {
    for (auto& x : v) scrub(x);
  }
}

Result<void> add_secret_from_flag(SecretStore& store, const std::string& flag) {
  auto at = flag.find('@');
  if (at == std::string::npos || at == 0 || at + 1 == flag.size())
    return errorf(Code::InvalidArgument, "--secret takes NAME@DOMAIN (the value comes from $OURO_SECRET_NAME), got '{}'", flag);
  std::string name = flag.substr(0, at);
  std::string env = "OURO_SECRET_";
  for (char c : name) env += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const char* value = std::getenv(env.c_str());
  if (!value || !*value) return errorf(Code::InvalidArgument, "--secret {}: set its value in the environment variable {}", name, env);
  std::vector<std::string> domains;
  std::string rest = flag.substr(at + 1);
  for (size_t start = 0; start <= rest.size();) {
    size_t comma = rest.find(',', start);
    std::string d = rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!d.empty()) domains.push_back(d);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return store.add(name, value, domains);
}

}  // namespace ouro::safety
