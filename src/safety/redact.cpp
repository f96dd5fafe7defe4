#include "safety/redact.h"

#include "base/base64.h"
#include "base/log.h"
#include "safety/spellings.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <functional>
#include <fmt/format.h>

namespace ouro::safety {

namespace {

// What a field's name may hold: letters, digits, the brackets and separators of nested names
// (user[password], ctl00$Main$Password, a:b) and percent-escapes of them.
bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("_-.[]%$:", c) != nullptr; }

// A field's name as the server reads it: %XX escapes and '+' decoded (RFC 3986 §2.1, HTML's
// application/x-www-form-urlencoded); a malformed escape is kept as it is.
std::string decode_name(std::string_view raw) {
  std::string out;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '%' && i + 2 < raw.size() && std::isxdigit(static_cast<unsigned char>(raw[i + 1])) && std::isxdigit(static_cast<unsigned char>(raw[i + 2]))) {
      out.push_back(static_cast<char>(std::stoi(std::string(raw.substr(i + 1, 2)), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(raw[i] == '+' ? ' ' : raw[i]);
    }
  }
  return out;
}

// A field's name is secret when it is, or when its last part is: "user[password]" and
// "ctl00$Main$Password" are password fields, "card[pin]" a PIN.
bool is_secret_field_name(std::string_view raw) {
  std::string name = decode_name(raw);
  if (is_secret_param_name(name)) return true;
  while (!name.empty() && name.back() == ']') name.pop_back();
  auto cut = name.find_last_of("[$:.");
  return cut != std::string::npos && cut + 1 < name.size() && is_secret_param_name(std::string_view(name).substr(cut + 1));
}

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
    while (j < text.size() && j - i < 128 && name_char(text[j])) ++j;
    if (j == i || j >= text.size() || text[j] != '=') continue;
    if (!is_secret_field_name(text.substr(i, j - i))) continue;
    size_t k = j + 1;
    while (k < text.size() && !std::strchr("&#\"'<> \t\r\n`)", text[k])) ++k;
    out.append(text.substr(i, j + 1 - i));
    if (k > j + 1) out += "[REDACTED]";
    i = k;
  }
  return out;
}

namespace {

// The values of secret-named members, at any depth, become "[REDACTED]". parse_json stops at
// 512 levels, so the guard is never reached by what it parsed; were it reached, what lies below
// is masked whole rather than shown.
void mask_secret_members(json& value, int depth = 0) {
  if (depth > 1024) {
    value = "[REDACTED]";
    return;
  }
  if (value.is_array()) {
    for (auto& v : value) mask_secret_members(v, depth + 1);
  } else if (value.is_object()) {
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (is_secret_field_name(it.key()) && !it.value().is_structured()) it.value() = "[REDACTED]";
      else mask_secret_members(it.value(), depth + 1);
    }
  }
}

// multipart/form-data (RFC 7578): each part's headers name it (`name="password"`), a blank line
// ends them, and the value runs to the next boundary line.
std::string mask_multipart(std::string_view body) {
  std::string out;
  size_t i = 0;
  while (i < body.size()) {
    size_t at = body.find("name=\"", i);
    if (at == std::string_view::npos || (at > 0 && std::isalnum(static_cast<unsigned char>(body[at - 1])))) {
      if (at == std::string_view::npos) break;
      out.append(body.substr(i, at + 6 - i));
      i = at + 6;
      continue;
    }
    size_t name_end = body.find('"', at + 6);
    size_t headers_end = name_end == std::string_view::npos ? name_end : body.find("\r\n\r\n", name_end);
    if (headers_end == std::string_view::npos) break;
    size_t value_begin = headers_end + 4;
    size_t value_end = std::min(body.find("\r\n--", value_begin), body.size());
    out.append(body.substr(i, value_begin - i));
    if (is_secret_field_name(body.substr(at + 6, name_end - at - 6)) && value_end > value_begin) out += "[REDACTED]";
    else out.append(body.substr(value_begin, value_end - value_begin));
    i = value_end;
  }
  if (i < body.size()) out.append(body.substr(i));
  return out;
}

}  // namespace

std::string redact_request_body(std::string_view body) {
  size_t first = body.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return std::string(body);
  if ((body[first] == '{' || body[first] == '[') && body.size() <= kMaxJsonBodyToRead) {
    if (auto parsed = parse_json(body, "a request body")) {
      mask_secret_members(*parsed);
      return ouro::redact(dump_json(redact_json(*parsed)));
    }
  }
  // multipart/form-data begins with its boundary line ("--…"; RFC 7578 §4.1) and names its parts
  // in Content-Disposition headers: its parts are masked by name first. What else says
  // "Content-Disposition" (a form field's value) is a form. Either then goes through the form's
  // masking too, which masks nothing a multipart body needs.
  std::string text(body);
  if (body.substr(first).starts_with("--")) {
    std::string head(body.substr(first, 4096));
    std::transform(head.begin(), head.end(), head.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (head.find("\ncontent-disposition:") != std::string::npos) text = mask_multipart(body);
  }
  // A form (name=value&…): secret-named fields, then each field on its own, so that what redact()
  // masks after a name ("password=…" runs to a space or a quote) stops at the field's end.
  std::string masked = redact_url_params("?" + text).substr(1), out;
  for (size_t start = 0; start <= masked.size();) {
    size_t end = std::min(masked.find('&', start), masked.size());
    out += ouro::redact(std::string_view(masked).substr(start, end - start));
    if (end < masked.size()) out += '&';
    start = end + 1;
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
      // When the name is what masks it, the value goes whole: redact() ends a value at a space,
      // and a passphrase has several words.
      const std::string prefix = it.key() + ": ";
      const std::string text = v.is_string() ? v.get_ref<const std::string&>() : v.dump();
      // Most members mask nothing: redact() runs a second time, alone, only when something was.
      const std::string both = ouro::redact(prefix + text);
      if (both.rfind(prefix, 0) != 0) {
        out[ouro::redact(it.key())] = redact_json(v);
        continue;
      }
      if (both.size() == prefix.size() + text.size() && std::string_view(both).substr(prefix.size()) == text) {
        out[it.key()] = v;
        continue;
      }
      const std::string alone = ouro::redact(text);
      if (std::string_view(both).substr(prefix.size()) != alone) out[it.key()] = "[REDACTED]";
      else out[it.key()] = v.is_string() ? json(alone) : json("[REDACTED]");
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

uint32_t SecretMatcher::tag(size_t secret, Part part) {
  m_patterns.push_back({static_cast<uint32_t>(secret), part});
  return static_cast<uint32_t>(m_patterns.size() - 1);
}

SecretMatcher SecretMatcher::build(const std::vector<std::string>& values) {
  SecretMatcher m;
  for (size_t index = 0; index < values.size(); ++index) {
    const std::string& value = values[index];
    m.m_values.push_back(value);
    Spelled spelled;
    if (value.size() >= kMinScrubbedBytes) {
      const uint32_t whole = m.tag(index, Part::Whole);
      for (const auto& variant : secret_variants(value)) m.m_exact.add(spellings::exact(variant), whole);
      if (value.size() < kMaxVariedBytes) {
        if (value.size() >= kMinFuzzyBytes) {
          for (int k = 1; k < 26; ++k) m.m_exact.add(spellings::exact(spellings::caesar(value, k)), whole);
          m.m_exact.add(spellings::exact(spellings::rot47(value)), whole);
        }
        if (std::string skeleton = spellings::skeleton(value); skeleton.size() >= kMinFuzzyBytes) {
          m.m_skeleton.add(skeleton, whole);
          m.m_skeleton.add(std::string(skeleton.rbegin(), skeleton.rend()), whole);
          for (int k = 1; k < 26; ++k) m.m_skeleton.add(spellings::caesar(skeleton, k), whole);
          const size_t half = skeleton.size() / 2;
          m.m_skeleton.add(skeleton.substr(0, half), m.tag(index, Part::FirstHalf));
          m.m_skeleton.add(skeleton.substr(half), m.tag(index, Part::SecondHalf));
          if (std::string c = spellings::collapsed(skeleton); c.size() >= kMinFuzzyBytes) m.m_collapsed.add(c, whole);
        }
        if (code_points(value).codes.size() >= kMinFuzzyBytes) {
          m.m_delta.add(spellings::deltas(value), whole);
          m.m_delta.add(spellings::deltas(folded(value)), whole);
        }
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
  for (Automaton* a : {&m.m_exact, &m.m_skeleton, &m.m_collapsed, &m.m_delta}) a->finish();
  return m;
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

namespace {

// One lane's walk through an automaton, with the text offsets of its last bytes (as many as the
// longest pattern) to say where a match began.
struct LaneWalk {
  const Automaton* automaton = nullptr;
  int32_t state = Automaton::kStart;
  size_t count = 0, mask = 0;
  std::vector<size_t> begins;
  void start(const Automaton& a) {
    automaton = &a;
    size_t size = 1;
    while (size < a.longest() + 1) size <<= 1;
    begins.assign(a.empty() ? 0 : size, 0);
    mask = size - 1;
  }
};

// The lanes of one text through the matcher's automata; collects what they find.
class LaneMatches : public spellings::LaneSink {
 public:
  struct Hit {
    size_t begin, end;
    uint32_t tag;
    spellings::Lane lane;
  };
  std::array<LaneWalk, spellings::kLanes> walks;
  std::vector<Hit> hits;
  void byte(spellings::Lane lane, unsigned char c, size_t begin, size_t end) override {
    LaneWalk& w = walks[static_cast<size_t>(lane)];
    if (!w.automaton || w.begins.empty()) return;
    w.begins[w.count & w.mask] = begin;
    w.state = w.automaton->step(w.state, c);
    if (uint32_t len = w.automaton->match_len(w.state)) add({w.begins[(w.count + 1 - len) & w.mask], end, w.automaton->match_tag(w.state), lane});
    ++w.count;
  }

 private:
  // A match that overlaps the lane's last one of the same kind extends it: a text of one
  // repeated value keeps one hit, not one per byte.
  void add(Hit h) {
    size_t& last = m_last[static_cast<size_t>(h.lane)];
    if (last < hits.size()) {
      Hit& l = hits[last];
      bool same = l.tag == h.tag || (is_whole(l.tag) && is_whole(h.tag));
      if (same && h.begin <= l.end) {
        l.begin = std::min(l.begin, h.begin), l.end = std::max(l.end, h.end);
        return;
      }
    }
    last = hits.size();
    hits.push_back(h);
  }
  std::array<size_t, spellings::kLanes> m_last = filled();
  static std::array<size_t, spellings::kLanes> filled() {
    std::array<size_t, spellings::kLanes> a;
    a.fill(SIZE_MAX);
    return a;
  }

 public:
  std::function<bool(uint32_t)> is_whole;
};

}  // namespace

std::vector<SecretMatcher::Found> SecretMatcher::find_in_lanes(std::string_view text) const {
  using spellings::Lane;
  LaneMatches lanes;
  lanes.is_whole = [this](uint32_t tag) { return m_patterns[tag].part == Part::Whole; };
  auto set = [&](Lane lane, const Automaton& a) { lanes.walks[static_cast<size_t>(lane)].start(a); };
  set(Lane::Exact, m_exact);
  set(Lane::Skeleton, m_skeleton);
  for (Lane l : {Lane::Stride2a, Lane::Stride2b, Lane::Stride3a, Lane::Stride3b, Lane::Stride3c}) set(l, m_skeleton);
  set(Lane::Collapsed, m_collapsed);
  set(Lane::Delta, m_delta);
  spellings::stream(text, lanes);
  std::vector<Found> found;
  // A half counts where the other half of the same value is in the text too, and only as read in
  // the skeleton (in the strided lanes a half is too short to tell from chance).
  std::vector<uint8_t> halves(m_values.size(), 0);
  for (const auto& h : lanes.hits) {
    const Pattern& p = m_patterns[h.tag];
    if (p.part == Part::Whole) {
      // Read with repeats collapsed, a match ends at the first of its last character's copies:
      // the others go with it.
      size_t end = h.end;
      if (h.lane == Lane::Collapsed)
        while (end < text.size() && end > h.begin && fold(static_cast<unsigned char>(text[end])) == fold(static_cast<unsigned char>(text[end - 1]))) ++end;
      found.push_back({h.begin, end, p.secret});
    }
    else if (h.lane == Lane::Skeleton) halves[p.secret] |= p.part == Part::FirstHalf ? 1 : 2;
  }
  for (const auto& h : lanes.hits) {
    const Pattern& p = m_patterns[h.tag];
    if (p.part != Part::Whole && h.lane == Lane::Skeleton && halves[p.secret] == 3) found.push_back({h.begin, h.end, p.secret});
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
  return found;
}

std::vector<SecretMatcher::Found> SecretMatcher::find(std::string_view text, Work* work) const {
  if (m_values.empty()) return {};
  Work local;
  return spellings::find_decoding(text, [this](std::string_view t) { return find_in_lanes(t); }, work ? *work : local);
}

}  // namespace ouro::safety
