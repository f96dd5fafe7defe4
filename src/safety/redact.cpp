#include "safety/redact.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace ouro::safety {

namespace {

bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == '[' || c == ']'; }

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

bool is_secret_param_name(std::string_view raw) {
  std::string n(raw);
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  static const char* kContains[] = {"token", "password", "passwd", "secret", "session", "sessid", "credential", "signature",
                                    "apikey", "api_key", "api-key", "accesskey", "licensekey", "authoriz", "oauth", "private", "jwt", "cookie"};
  for (const char* w : kContains)
    if (n.find(w) != std::string::npos) return true;
  static const char* kExact[] = {"key", "sid", "sig", "otp", "code", "pwd", "pass", "auth", "ticket", "nonce", "state", "hash", "mac", "pin"};
  for (const char* w : kExact)
    if (n == w) return true;
  // x-auth, user_key, access_key, x-amz-sig
  for (const char* w : {"_key", "-key", "_auth", "-auth", "_pass", "_pwd", "_sig", "-sig"})
    if (ends_with(n, w)) return true;
  for (const char* w : {"auth_", "auth-", "pass_", "key_"})
    if (n.rfind(w, 0) == 0) return true;
  return false;
}

std::string redact_url_params(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    out.push_back(c);
    ++i;
    if (c != '?' && c != '&' && c != '#' && c != ';') continue;
    size_t j = i;
    while (j < text.size() && j - i < 64 && name_char(text[j])) ++j;
    if (j == i || j >= text.size() || text[j] != '=') continue;
    if (!is_secret_param_name(text.substr(i, j - i))) continue;
    size_t k = j + 1;
    while (k < text.size() && !std::strchr("&#\"'<> \t\r\n`)", text[k])) ++k;
    out.append(text.substr(i, j + 1 - i));
    if (k > j + 1) out += "[REDACTED]";
    i = k;
  }
  return out;
}

void redact_json_strings(json& value) {
  if (value.is_string()) {
    const std::string& s = value.get_ref<const std::string&>();
    // Cheap test first: most strings hold no URL parameter at all.
    if (s.find('=') != std::string::npos) value = redact_url_params(s);
  } else if (value.is_array() || value.is_object()) {
    for (auto& v : value) redact_json_strings(v);
  }
}

}  // namespace ouro::safety
