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
constexpr size_t kScrubbedFrom = kMinScrubbedBytes;  // shorter values are not looked for in text
}  // namespace

SecretStore::SecretStore(const SecretStore& other) : LogScrubber() {
  std::shared_lock lock(other.m_mutex);
  m_secrets = other.m_secrets;
  m_matcher = other.m_matcher;
  m_order = other.m_order;
}

void SecretStore::rebuild_locked() {
  std::vector<std::string> values;
  m_order.clear();
  for (const auto& [name, s] : m_secrets) {
    m_order.push_back(name);
    values.push_back(s.value);
  }
  m_matcher = SecretMatcher::build(values);
}

Result<void> SecretStore::add(const std::string& name, std::string value, const std::vector<std::string>& domains) {
  TRY(check_name(name));
  // Shorter values could not be told apart from ordinary text when results are scrubbed.
  if (value.size() < kScrubbedFrom) return errorf(Code::InvalidArgument, "secret '{}' must be at least 4 characters long", name);
  if (domains.empty()) return errorf(Code::InvalidArgument, "secret '{}' needs the site(s) it may be typed into, e.g. {}@bank.example.com", name, name);
  Secret s{name, std::move(value), {}};
  for (const auto& d : domains) TRY(s.sites.add(d, PatternRule::Origin));
  std::unique_lock lock(m_mutex);
  m_secrets[name] = std::move(s);
  rebuild_locked();
  return {};
}

Result<void> SecretStore::add_answer(const std::string& name, std::string value, SiteList sites) {
  TRY(check_name(name));
  if (value.empty()) return errorf(Code::InvalidArgument, "secret '{}' is empty", name);
  std::unique_lock lock(m_mutex);
  m_secrets[name] = Secret{name, std::move(value), std::move(sites)};
  rebuild_locked();
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
  auto found = m_matcher.find(text);
  if (found.empty()) return text;
  std::string out;
  out.reserve(text.size());
  size_t at = 0;
  for (const auto& f : found) {
    out.append(text, at, f.begin - at);
    out += "[SECRET:" + m_order[f.secret] + "]";
    at = f.end;
  }
  out.append(text, at, std::string::npos);
  return out;
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
    // Items that spell a value out — [104, 117, 110, …] from charCodeAt, ['h', 'u', …] from
    // split('') — read as one text with a separator between items; a run found there becomes one
    // "[SECRET:name]" item.
    if (v.size() < 2) return;
    std::string joined;
    std::vector<size_t> starts;
    for (const auto& x : v) {
      starts.push_back(joined.size());
      if (x.is_number_integer()) joined += std::to_string(x.get<int64_t>());
      else if (x.is_string() && x.get_ref<const std::string&>().size() <= 4) joined += x.get_ref<const std::string&>();
      else joined += '\x1e';  // not part of a spelled value
      joined += '\x1f';
    }
    auto found = m_matcher.find(joined);
    if (found.empty()) return;
    json out = json::array();
    size_t f = 0, marked = found.size();
    for (size_t i = 0; i < v.size(); ++i) {
      size_t end = starts[i] + 1 < joined.size() && i + 1 < v.size() ? starts[i + 1] : joined.size();
      while (f < found.size() && found[f].end <= starts[i]) ++f;
      if (f == found.size() || found[f].begin >= end) {
        out.push_back(std::move(v[i]));
      } else if (marked != f) {  // one marker for the whole run: its length is not shown
        out.push_back("[SECRET:" + m_order[found[f].secret] + "]");
        marked = f;
      }
    }
    v = std::move(out);
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
