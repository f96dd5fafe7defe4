#include "safety/provenance.h"

#include "safety/redact.h"
#include "safety/sites.h"
#include "safety/spellings.h"

#include <algorithm>
#include <cctype>

namespace ouro::safety {

namespace {

constexpr size_t kSiteText = 1 << 20;    // per site
constexpr size_t kAllText = 4 << 20;     // every site's together
constexpr size_t kMaxSites = 64;
constexpr size_t kValueChecked = 4096;  // characters of a written value
constexpr size_t kMaxWindows = 48;      // windows of one value looked up
constexpr size_t kShort = 8, kLong = 24;

bool alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool digit(char c) { return c >= '0' && c <= '9'; }

// Case folded (ASCII), white space (and the no-break space) collapsed to one space, and the
// separators people put inside numbers and codes (space, '-', '.', '/') dropped where a digit
// stands on either side, so "DE89 3704-0044", "GB33 BUKB 2020" and "de8937040044" read as they
// are typed either way.
std::string normalise(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  bool space = false;
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    bool ws = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
    if (c == '\xC2' && i + 1 < in.size() && in[i + 1] == '\xA0') ws = true, ++i;
    if (ws) {
      space = !out.empty();
      continue;
    }
    bool separator = c == '-' || c == '.' || c == '/';
    if (space || separator) {
      // Between two digits, a separator is left out.
      size_t j = i + (separator ? 1 : 0);
      while (j < in.size() && (in[j] == ' ' || in[j] == '-' || in[j] == '.' || in[j] == '/')) ++j;
      if (!out.empty() && j < in.size() && ((digit(out.back()) && alnum(in[j])) || (alnum(out.back()) && digit(in[j])))) {
        space = false;
        i = j - 1;
        continue;
      }
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

// Anchored windows worth tracing — at a word's start, and where letters turn to digits or back
// ("gb33bukb2020…" at g, 3, b and 2), and ending at a word's end: 8 characters with 3 digits or
// an '@', or 24 characters.
std::vector<std::string_view> windows(std::string_view v) {
  std::vector<std::string_view> out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (!alnum(v[i]) || (i > 0 && alnum(v[i - 1]) && digit(v[i]) == digit(v[i - 1]))) continue;
    if (i + kShort <= v.size()) {
      std::string_view w = v.substr(i, kShort);
      if (std::count_if(w.begin(), w.end(), digit) >= 3 || w.find('@') != std::string_view::npos) out.push_back(w);
    }
    if (i + kLong <= v.size()) out.push_back(v.substr(i, kLong));
  }
  // And the same windows ending where a word ends: a code at the end of a value (a URL's last
  // parameter, "…?ref=attacker7731xzq") has fewer than 8 characters after its last anchor.
  for (size_t end = 1; end <= v.size(); ++end) {
    if (!alnum(v[end - 1]) || (end < v.size() && alnum(v[end]))) continue;
    if (end >= kShort) {
      std::string_view w = v.substr(end - kShort, kShort);
      if (std::count_if(w.begin(), w.end(), digit) >= 3 || w.find('@') != std::string_view::npos) out.push_back(w);
    }
    if (end >= kLong) out.push_back(v.substr(end - kLong, kLong));
  }
  if (out.size() > kMaxWindows) {  // evenly spread over the value
    std::vector<std::string_view> spread;
    for (size_t k = 0; k < kMaxWindows; ++k) spread.push_back(out[k * out.size() / kMaxWindows]);
    out.swap(spread);
  }
  return out;
}

}  // namespace

Provenance::Provenance(std::string_view user_words) : m_user(normalise(user_words)) {}

void Provenance::add_user_words(std::string_view text) {
  std::string n = normalise(text.substr(0, kSiteText));
  std::lock_guard lock(m_mutex);
  if (m_user.size() + n.size() > kSiteText) return;
  m_user += '\n';
  m_user += n;
}

void Provenance::note(const std::string& site, std::string_view text, const std::string& page) {
  if (site.empty()) return;
  std::string n = normalise(text.substr(0, kSiteText));
  if (n.size() < kShort) return;
  std::lock_guard lock(m_mutex);
  auto it = std::find_if(m_sites.begin(), m_sites.end(), [&](const Site& s) { return s.name == site; });
  Site entry;
  if (it != m_sites.end()) {
    entry = std::move(*it);
    m_sites.erase(it);
  } else {
    entry.name = site;
    if (m_sites.size() >= kMaxSites) m_sites.erase(m_sites.begin());
  }
  // Kept for questions and records, so with secret-looking query values masked.
  if (!page.empty()) entry.page = redact_url_params(page.substr(0, 2000));
  // The same text read again adds nothing (by its hash: a search for a long piece of repetitive
  // text in the site's text could take quadratic time).
  if (entry.seen.size() > 4096) entry.seen.clear();  // bounded: a page that changes at every read
  if (entry.seen.insert(std::hash<std::string>{}(n)).second) {
    entry.text += '\n';
    entry.text += n;
    if (entry.text.size() > kSiteText) entry.text.erase(0, entry.text.size() - kSiteText);
  }
  m_sites.push_back(std::move(entry));  // the most recent last
  size_t total = 0;
  for (const auto& s : m_sites) total += s.text.size();
  for (auto& s : m_sites) {  // over the whole bound: the least recent sites give up their oldest text
    if (total <= kAllText) break;
    size_t cut = std::min(s.text.size(), total - kAllText);
    s.text.erase(0, cut);
    total -= cut;
  }
}

json Provenance::to_json() const {
  std::lock_guard lock(m_mutex);
  json sites = json::array();
  for (const auto& s : m_sites) sites.push_back({{"name", s.name}, {"page", s.page}, {"text", s.text}});
  return {{"user", m_user}, {"sites", std::move(sites)}};
}

void Provenance::restore(const json& saved) {
  if (!saved.is_object()) return;
  const json& sites = saved.contains("sites") ? saved["sites"] : json();
  std::lock_guard lock(m_mutex);
  if (saved.contains("user") && saved["user"].is_string()) {
    const std::string& user = saved["user"].get_ref<const std::string&>();
    if (m_user.find(user) == std::string::npos) m_user += "\n" + user.substr(0, kSiteText);
  }
  if (!sites.is_array()) return;
  size_t total = 0;
  for (const auto& s : sites) {
    if (!s.is_object() || !s.contains("name") || !s["name"].is_string() || !s.contains("text") || !s["text"].is_string()) continue;
    if (m_sites.size() >= kMaxSites) break;
    Site entry;
    entry.name = s["name"].get<std::string>().substr(0, 253);
    entry.text = s["text"].get<std::string>().substr(0, kSiteText);
    if (s.contains("page") && s["page"].is_string()) entry.page = s["page"].get<std::string>().substr(0, 2000);
    if (total + entry.text.size() > kAllText) break;
    total += entry.text.size();
    std::erase_if(m_sites, [&](const Site& x) { return x.name == entry.name; });
    m_sites.push_back(std::move(entry));
  }
}

void Provenance::note_json(const std::string& site, const json& value, const std::string& page) {
  if (site.empty()) return;
  std::string all;
  std::vector<const json*> stack{&value};
  size_t visited = 0;
  while (!stack.empty() && all.size() < kSiteText && ++visited < 200000) {
    const json* v = stack.back();
    stack.pop_back();
    if (v->is_string()) {
      const std::string& s = v->get_ref<const std::string&>();
      if (s.rfind("data:", 0) != 0) all.append(s).push_back('\n');
    } else if (v->is_number()) {
      all.append(v->dump()).push_back('\n');
    } else if (v->is_object()) {
      for (auto it = v->begin(); it != v->end(); ++it) {
        all.append(it.key()).push_back('\n');
        stack.push_back(&*it);
      }
    } else if (v->is_array()) {
      for (const auto& e : *v) stack.push_back(&e);
    }
  }
  note(site, all, page);
}

std::set<std::string> Provenance::sources(std::string_view value) const {
  std::set<std::string> out;
  value = value.substr(0, kValueChecked);
  std::string v = normalise(value);
  // Its encoded runs read decoded too (a URL's percent-escapes, base64, hex; spellings.h).
  spellings::decoded_runs(value, [&](size_t, size_t, std::string decoded) { v += '\n' + normalise(decoded); });
  auto ws = windows(v);
  if (ws.empty()) return out;
  std::lock_guard lock(m_mutex);
  for (auto w : ws) {
    if (m_user.find(w) != std::string::npos) continue;  // the user's own words
    for (const auto& s : m_sites)
      if (!out.count(s.name) && s.text.find(w) != std::string::npos) out.insert(s.name);
  }
  return out;
}

std::vector<std::string> Provenance::sites_read() const {
  std::lock_guard lock(m_mutex);
  std::vector<std::string> out;
  for (const auto& s : m_sites) out.push_back(s.name);
  return out;
}

std::string Provenance::page_of(const std::string& site) const {
  std::lock_guard lock(m_mutex);
  for (const auto& s : m_sites)
    if (s.name == site) return s.page;
  return "";
}

bool Provenance::user_wrote(std::string_view stem) const {
  std::string s = normalise(stem);
  if (s.empty()) return false;
  std::lock_guard lock(m_mutex);
  for (size_t at = m_user.find(s); at != std::string::npos; at = m_user.find(s, at + 1))
    if (at == 0 || !alnum(m_user[at - 1])) return true;
  return false;
}

std::set<std::string> named_sites(std::string_view task, const std::vector<std::string>& urls) {
  std::set<std::string> out;
  auto add_url = [&](std::string_view u) {
    if (auto url = parse_url(u); url && !url->host.empty()) out.insert(site_of_host(url->host));
  };
  for (const auto& u : urls) add_url(u);
  size_t at = 0;
  while (at < task.size()) {
    size_t start = task.find_first_not_of(" \t\r\n\"'<>()[]{},;", at);
    if (start == std::string_view::npos) break;
    size_t end = task.find_first_of(" \t\r\n\"'<>()[]{},;", start);
    std::string_view token = task.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    at = end == std::string_view::npos ? task.size() : end;
    while (!token.empty() && (token.back() == '.' || token.back() == ':' || token.back() == '!' || token.back() == '?')) token.remove_suffix(1);
    if (token.rfind("http://", 0) == 0 || token.rfind("https://", 0) == 0) {
      add_url(token);
      continue;
    }
    // A bare host name: "shop.example", "www.example.com/deals", "localhost:8080".
    std::string_view host = token.substr(0, token.find_first_of("/:?#"));
    if (host.empty() || host.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-") != std::string_view::npos)
      continue;
    std::string lower(host);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    size_t dot = lower.rfind('.');
    bool named = lower == "localhost";
    if (!named && dot != std::string::npos && dot > 0) {
      std::string_view last = std::string_view(lower).substr(dot + 1);
      bool alpha = last.size() >= 2 && std::all_of(last.begin(), last.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; });
      bool ipv4 = std::count(lower.begin(), lower.end(), '.') == 3 && lower.find_first_not_of("0123456789.") == std::string::npos;
      named = alpha || ipv4;
    }
    if (named) out.insert(site_of_host(lower));
  }
  return out;
}

}  // namespace ouro::safety
