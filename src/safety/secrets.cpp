#include "safety/secrets.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <mutex>

namespace ouro::safety {

namespace {
Result<void> check_name(const std::string& name) {
  if (name.empty() || name.size() > 64 ||
      !std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isalnum(c) || c == '_' || c == '-'; }))
    return errorf(Code::InvalidArgument, "secret name '{}' must be letters, digits, '_' or '-' (at most 64)", name.substr(0, 64));
  return {};
}
constexpr size_t kScrubbedFrom = 4;  // shorter values are not looked for in text
}  // namespace

SecretStore::SecretStore(const SecretStore& other) {
  std::shared_lock lock(other.m_mutex);
  m_secrets = other.m_secrets;
}

Result<void> SecretStore::add(const std::string& name, std::string value, const std::vector<std::string>& domains) {
  TRY(check_name(name));
  // Shorter values could not be told apart from ordinary text when results are scrubbed.
  if (value.size() < kScrubbedFrom) return errorf(Code::InvalidArgument, "secret '{}' must be at least 4 characters long", name);
  if (domains.empty()) return errorf(Code::InvalidArgument, "secret '{}' needs the site(s) it may be typed into, e.g. {}@bank.example.com", name, name);
  Secret s{name, std::move(value), {}};
  for (const auto& d : domains) TRY(s.sites.add(d));
  std::unique_lock lock(m_mutex);
  m_secrets[name] = std::move(s);
  return {};
}

Result<void> SecretStore::add_answer(const std::string& name, std::string value, SiteList sites) {
  TRY(check_name(name));
  if (value.empty()) return errorf(Code::InvalidArgument, "secret '{}' is empty", name);
  std::unique_lock lock(m_mutex);
  m_secrets[name] = Secret{name, std::move(value), std::move(sites)};
  return {};
}

std::optional<Secret> SecretStore::find(const std::string& name) const {
  std::shared_lock lock(m_mutex);
  auto it = m_secrets.find(name);
  if (it == m_secrets.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> SecretStore::names() const {
  std::shared_lock lock(m_mutex);
  std::vector<std::string> out;
  for (const auto& [k, v] : m_secrets) out.push_back(k);
  return out;
}

bool SecretStore::empty() const {
  std::shared_lock lock(m_mutex);
  return m_secrets.empty();
}

std::string SecretStore::scrub_text(std::string text) const {
  std::shared_lock lock(m_mutex);
  return scrub_text_locked(std::move(text));
}

std::string SecretStore::scrub_text_locked(std::string text) const {
  for (const auto& [name, s] : m_secrets) {
    if (s.value.size() < kScrubbedFrom) continue;
    for (size_t at = text.find(s.value); at != std::string::npos; at = text.find(s.value, at)) {
      std::string mark = "[SECRET:" + name + "]";
      text.replace(at, s.value.size(), mark);
      at += mark.size();
    }
  }
  return text;
}

void SecretStore::scrub(json& v) const {
  std::shared_lock lock(m_mutex);
  if (!m_secrets.empty()) scrub_locked(v);
}

void SecretStore::scrub_locked(json& v) const {
  if (v.is_string()) {
    v = scrub_text_locked(v.get<std::string>());
  } else if (v.is_object()) {
    json out = json::object();
    for (auto& [k, x] : v.items()) {
      scrub_locked(x);
      out[scrub_text_locked(k)] = std::move(x);
    }
    v = std::move(out);
  } else if (v.is_array()) {
    for (auto& x : v) scrub_locked(x);
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
