#include "safety/redact.h"

#include "base/base64.h"
#include "base/log.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <deque>
#include <fmt/format.h>

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

// redact() (base/log.h) over each string and key of a JSON value, for records written as JSON:
// masking the serialised text instead could cut an escape or a closing quote and leave a line
// that is not JSON.
json redact_json(const json& value) {
  if (value.is_string()) return ouro::redact(value.get_ref<const std::string&>());
  if (value.is_array()) {
    json out = json::array();
    for (const auto& v : value) out.push_back(redact_json(v));
    return out;
  }
  if (value.is_object()) {
    json out = json::object();
    for (auto it = value.begin(); it != value.end(); ++it) {
      // A member is read as the text `name: value` is ("password": "…" masks its value).
      const json& v = it.value();
      if (v.is_structured()) {
        out[ouro::redact(it.key())] = redact_json(v);
        continue;
      }
      const std::string prefix = it.key() + ": ";
      const std::string text = v.is_string() ? v.get_ref<const std::string&>() : v.dump();
      std::string both = ouro::redact(prefix + text);
      if (both.rfind(prefix, 0) != 0) out[ouro::redact(it.key())] = redact_json(v);
      else if (v.is_string()) out[it.key()] = both.substr(prefix.size());
      else out[it.key()] = both == prefix + text ? v : json("[REDACTED]");
    }
    return out;
  }
  return value;
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

namespace {

unsigned char fold(unsigned char c) { return c >= 'A' && c <= 'Z' ? static_cast<unsigned char>(c + 32) : c; }

std::string folded(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(fold(static_cast<unsigned char>(c)));
  return out;
}

bool alnum(unsigned char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// The value's characters, each as its UTF-8 bytes, and its code points (bad UTF-8: one byte each).
struct CodePoints {
  std::vector<std::string> chars;
  std::vector<uint32_t> codes;
};
CodePoints code_points(std::string_view v) {
  CodePoints out;
  for (size_t i = 0; i < v.size();) {
    unsigned char c = static_cast<unsigned char>(v[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    if (i + len > v.size()) len = 1;
    uint32_t cp = len == 1 ? c : c & (0x7F >> len);
    for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(v[i + k]) & 0x3F);
    out.chars.emplace_back(v.substr(i, len));
    out.codes.push_back(cp);
    i += len;
  }
  return out;
}

// The secret as btoa() and its URL-safe variants write it, padded or not (RFC 4648 §4, §5).
std::string base64(std::string_view bytes, bool url_safe, bool pad) {
  std::string out = base64_encode(bytes, url_safe ? Base64::Url : Base64::Standard);
  if (!pad)
    while (!out.empty() && out.back() == '=') out.pop_back();
  while (pad && out.size() % 4) out.push_back('=');
  return out;
}

std::string hex_of(std::string_view bytes) {
  std::string out;
  for (unsigned char c : bytes) out += fmt::format("{:02x}", c);
  return out;
}

// Percent-encodes every byte outside `keep` (and outside letters and digits); space as '+' when asked.
std::string percent(std::string_view bytes, const char* keep, bool plus_for_space) {
  std::string out;
  for (unsigned char c : bytes) {
    if (alnum(c) || (c && std::strchr(keep, c))) out += static_cast<char>(c);
    else if (c == ' ' && plus_for_space) out += '+';
    else out += fmt::format("%{:02X}", c);
  }
  return out;
}

// As JSON.stringify writes a string (RFC 8259 §7), without its quotes; with `ascii`, non-ASCII as
// \uXXXX (UTF-16) too.
std::string json_escaped(std::string_view v, bool ascii) {
  std::string quoted = json(std::string(v)).dump(-1, ' ', ascii, json::error_handler_t::replace);
  return quoted.substr(1, quoted.size() - 2);
}

std::string html_escaped(std::string_view v) {
  std::string out;
  for (char c : v) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

template <typename F>
std::string each_code(const CodePoints& cp, F f) {
  std::string out;
  for (uint32_t c : cp.codes) out += f(c);
  return out;
}

constexpr size_t kMaxVariedBytes = 4096;
constexpr size_t kMinPartialBase64 = 8;

}  // namespace

std::vector<std::string> secret_variants(std::string_view value) {
  std::vector<std::string> out;
  auto add = [&](std::string v) {
    v = folded(v);
    if (v.size() >= kMinScrubbedBytes && std::find(out.begin(), out.end(), v) == out.end()) out.push_back(std::move(v));
  };
  add(std::string(value));
  if (value.size() >= kMaxVariedBytes) return out;
  CodePoints cp = code_points(value);
  std::string reversed;
  for (auto it = cp.chars.rbegin(); it != cp.chars.rend(); ++it) reversed += *it;
  add(reversed);
  for (bool url_safe : {false, true}) {
    for (bool pad : {false, true}) {
      std::string b = base64(value, url_safe, pad);
      add(b);
      if (!url_safe) add(percent(b, "-_.!~*'()", false));  // btoa(value) put into a URL
    }
    // The value after a prefix of 1 or 2 bytes (mod 3): the whole groups from its next boundary on.
    for (size_t skip = 1; skip <= 2 && skip < value.size(); ++skip) {
      size_t whole = (value.size() - skip) / 3 * 3;
      std::string core = base64(value.substr(skip, whole), url_safe, false);
      if (core.size() < kMinPartialBase64) continue;
      add(core);
      if (!url_safe) add(percent(core, "-_.!~*'()", false));
    }
    // And the value followed by more: its whole groups from the start.
    if (std::string core = base64(value.substr(0, value.size() / 3 * 3), url_safe, false); core.size() >= kMinPartialBase64) add(core);
  }
  add(hex_of(value));
  add(percent(value, "-_.!~*'()", false));           // encodeURIComponent
  add(percent(value, "-_.!~*'();/?:@&=+$,#", false));  // encodeURI
  add(percent(value, "-_.*", true));                  // application/x-www-form-urlencoded
  add(percent(value, "", false));                     // every byte
  add(json_escaped(value, false));
  add(json_escaped(value, true));
  add(each_code(cp, [](uint32_t c) { return c < 0x10000 ? fmt::format("\\u{:04x}", c) : fmt::format("\\u{{{:x}}}", c); }));
  add(each_code(cp, [](uint32_t c) { return c < 0x100 ? fmt::format("\\x{:02x}", c) : fmt::format("\\u{:04x}", c); }));
  add(html_escaped(value));
  add(each_code(cp, [](uint32_t c) { return fmt::format("&#{};", c); }));
  add(each_code(cp, [](uint32_t c) { return fmt::format("&#x{:x};", c); }));
  return out;
}

SecretMatcher SecretMatcher::build(const std::vector<std::string>& values) {
  SecretMatcher m;
  m.m_states.emplace_back();  // the root
  auto child = [&m](int32_t s, unsigned char c) -> int32_t {
    auto& next = m.m_states[s].next;
    auto it = std::lower_bound(next.begin(), next.end(), c, [](const auto& p, unsigned char b) { return p.first < b; });
    return it != next.end() && it->first == c ? it->second : -1;
  };
  for (size_t index = 0; index < values.size(); ++index) {
    const std::string& value = values[index];
    m.m_values.push_back(value);
    Spelled spelled;
    if (value.size() >= kMinScrubbedBytes) {
      for (const auto& variant : secret_variants(value)) {
        int32_t s = 0;
        for (unsigned char c : variant) {
          int32_t n = child(s, c);
          if (n < 0) {
            n = static_cast<int32_t>(m.m_states.size());
            m.m_states.emplace_back();
            auto& next = m.m_states[s].next;
            auto it = std::lower_bound(next.begin(), next.end(), c, [](const auto& p, unsigned char b) { return p.first < b; });
            next.insert(it, {c, n});
          }
          s = n;
        }
        if (variant.size() > m.m_states[s].best_len) m.m_states[s].best_len = static_cast<uint32_t>(variant.size()), m.m_states[s].best_secret = static_cast<uint32_t>(index);
      }
      if (value.size() < kMaxVariedBytes) {
        // Characters compare case-blind; their codes do not: the codes of the value as written and
        // of the value in lower case (charCodeAt after toLowerCase) are separate lists.
        CodePoints cp = code_points(folded(value));
        spelled.token_lists = {cp.chars};
        auto add_codes = [&](const CodePoints& of) {
          std::vector<std::string> dec, hex, hex0x;
          for (uint32_t c : of.codes) {
            dec.push_back(std::to_string(c));
            hex.push_back(fmt::format("{:x}", c));
            hex0x.push_back(fmt::format("0x{:x}", c));
          }
          spelled.token_lists.push_back(std::move(dec));
          spelled.token_lists.push_back(std::move(hex));
          spelled.token_lists.push_back(std::move(hex0x));
        };
        CodePoints written = code_points(value);
        add_codes(written);
        if (written.codes != cp.codes) add_codes(cp);
      }
    }
    m.m_spelled.push_back(std::move(spelled));
  }
  // Failure links, breadth first (Aho & Corasick 1975, algorithm 3); a state's best match is its
  // own variant or, failing that, the best of its failure state (a suffix of it).
  m.m_root.assign(256, 0);
  for (const auto& [c, n] : m.m_states[0].next) m.m_root[c] = n;
  std::deque<int32_t> queue;
  for (const auto& [c, n] : m.m_states[0].next) queue.push_back(n);
  while (!queue.empty()) {
    int32_t s = queue.front();
    queue.pop_front();
    for (const auto& [c, n] : m.m_states[s].next) {
      int32_t f = m.m_states[s].fail;
      int32_t target = m.step(f, c);
      m.m_states[n].fail = target;
      if (!m.m_states[n].best_len) m.m_states[n].best_len = m.m_states[target].best_len, m.m_states[n].best_secret = m.m_states[target].best_secret;
      queue.push_back(n);
    }
  }
  return m;
}

int32_t SecretMatcher::step(int32_t s, unsigned char c) const {
  while (true) {
    if (s == 0) return m_root.empty() ? 0 : m_root[c];
    const auto& next = m_states[s].next;
    auto it = std::lower_bound(next.begin(), next.end(), c, [](const auto& p, unsigned char b) { return p.first < b; });
    if (it != next.end() && it->first == c) return it->second;
    s = m_states[s].fail;
  }
}

namespace {

bool token_at(std::string_view text, size_t at, const std::string& token) {
  if (at + token.size() > text.size()) return false;
  for (size_t k = 0; k < token.size(); ++k)
    if (fold(static_cast<unsigned char>(text[at + k])) != static_cast<unsigned char>(token[k])) return false;
  return true;
}

// tokens[0] sep tokens[1] sep … at `at`, with one separator of 1 to 3 non-alphanumeric bytes;
// returns the end, or 0.
size_t spelled_at(std::string_view text, size_t at, const std::vector<std::string>& tokens, bool numeric) {
  if (!token_at(text, at, tokens[0])) return 0;
  if (numeric && at > 0 && alnum(static_cast<unsigned char>(text[at - 1]))) return 0;
  size_t first_end = at + tokens[0].size();
  for (size_t len = 1; len <= 3 && first_end + len <= text.size(); ++len) {
    std::string_view sep = text.substr(first_end, len);
    if (std::any_of(sep.begin(), sep.end(), [](char c) { return alnum(static_cast<unsigned char>(c)); })) break;
    size_t p = first_end;
    size_t k = 1;
    for (; k < tokens.size(); ++k) {
      if (text.substr(p, len) != sep || !token_at(text, p + len, tokens[k])) break;
      p += len + tokens[k].size();
    }
    if (k < tokens.size()) continue;
    if (numeric && p < text.size() && alnum(static_cast<unsigned char>(text[p]))) continue;
    return p;
  }
  return 0;
}

}  // namespace

std::vector<SecretMatcher::Found> SecretMatcher::find(std::string_view text) const {
  std::vector<Found> found;
  if (m_values.empty()) return found;
  int32_t s = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    s = step(s, fold(static_cast<unsigned char>(text[i])));
    if (uint32_t len = m_states[s].best_len) found.push_back({i + 1 - len, i + 1, m_states[s].best_secret});
  }
  for (size_t index = 0; index < m_spelled.size(); ++index) {
    const auto& lists = m_spelled[index].token_lists;
    for (size_t l = 0; l < lists.size(); ++l) {
      const auto& tokens = lists[l];
      if (tokens.size() < 2) continue;
      const unsigned char first = static_cast<unsigned char>(tokens[0][0]);
      for (size_t i = 0; i < text.size(); ++i) {
        if (fold(static_cast<unsigned char>(text[i])) != first) continue;
        if (size_t end = spelled_at(text, i, tokens, l > 0)) {
          found.push_back({i, end, index});
          i = end - 1;
        }
      }
    }
  }
  if (found.empty()) return found;
  std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) { return a.begin < b.begin || (a.begin == b.begin && a.end > b.end); });
  std::vector<Found> merged{found.front()};
  for (size_t k = 1; k < found.size(); ++k) {
    if (found[k].begin <= merged.back().end) merged.back().end = std::max(merged.back().end, found[k].end);
    else merged.push_back(found[k]);
  }
  return merged;
}

}  // namespace ouro::safety
